"""The `autograph` command line: show every stage of compiling one function.

    autograph STAGE FILE:FUNC --sig SIG [--time] [--traceback] [--no-disk-cache]
    autograph ir FILE:FUNC --sig SIG --raw      (the graph as traced, before the passes)
    autograph dot FILE:FUNC --sig SIG [--format dot|svg|png|pdf] [-o FILE]   (autograph.cli.picture)
    autograph cache clear | dir

`--help` lists examples that run on `autograph.examples` (shipped in the
package) and the environment variables.

STAGE is one of ``source converted ir llvm llvm-opt asm dot``.  FILE is a ``.py``
file or a dotted module name, FUNC a (dotted) attribute of it; a plain
function is wrapped with `ag.function`.  See `autograph.cli.sig` for SIG.

Exit status: 0 on success, 2 for a usage error (bad FILE:FUNC, bad --sig,
unknown dtype), 1 when the library fails while converting, tracing or
compiling (its message is printed; `--traceback` adds the Python traceback).
"""
from __future__ import annotations

import argparse
import inspect
import os
import sys
import time
import traceback
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import picture
from .load import TargetError, TargetImportError, load_target, split_target
from .sig import SIG_HELP, SigError, parse_sig, to_call_args

STAGES = ("source", "converted", "ir", "llvm", "llvm-opt", "asm", "dot")

_STAGE_HELP = {
    "source": "the Python source of the function (inspect.getsource)",
    "converted": "the converted Python source (ag.to_code)",
    "ir": "the typed IR of the trace for SIG, after the passes (str(cf.graph)); "
          "with --raw, as traced (str(cf.raw_graph))",
    "llvm": "the LLVM IR before optimisation (cf.llvm_ir(optimized=False))",
    "llvm-opt": "the LLVM IR after optimisation (cf.llvm_ir(optimized=True))",
    "asm": "the native assembly (cf.asm())",
    "dot": picture.HELP,
}

_EXAMPLES = """\
examples (autograph.examples ships with the package; `python -m autograph.examples` runs it):
  autograph source    autograph.examples:collatz_total
  autograph converted autograph.examples:branchy_sum
  autograph ir        autograph.examples:collatz_total --sig "int64[]"
  autograph ir        autograph.examples:collatz_total --sig "int64[]" --raw
  autograph llvm-opt  autograph.examples:mean_square --sig "float32[None], float32[None]"
  autograph asm       autograph.examples:branchy_sum --sig "float64[None]" --time
  autograph dot       autograph.examples:collatz_total --sig "int64[]" --format svg -o collatz.svg
  autograph ir        my_kernels.py:my_function --sig "float32[None, 3], 4"   (your own file)
  autograph cache clear
"""

_ENVIRONMENT = """\
environment:
  AUTOGRAPH_VERBOSITY=0..3    log conversion, tracing, retracing and compilation
                              (3: every stage), through Python's logging
  AUTOGRAPH_CACHE_DIR=DIR     where compiled code is cached on disk (default: the
                              user's cache directory, ~/.cache/autograph on Linux)
  AUTOGRAPH_DISABLE_CACHE=1   neither read nor write the disk cache (as --no-disk-cache)
"""

_CACHE_HELP = """\
the disk cache of compiled code lives in $AUTOGRAPH_CACHE_DIR, by default the
user's cache directory (~/.cache/autograph on Linux).
  clear  remove its entries (only the cache's own files: anything else is kept)
  dir    print its path"""


class _UsageError(Exception):
    """Reported as one line on stderr, exit status 2."""


# --------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (one sub-command per stage, plus `cache`)."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="autograph",
        description="Show how autograph compiles a function: its source, converted source,\n"
                    "typed IR, LLVM IR before and after optimisation, and native assembly,\n"
                    "with the time each stage took (--time).",
        epilog=SIG_HELP + "\n\n" + _EXAMPLES + "\n" + _ENVIRONMENT,
        formatter_class=fmt,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="STAGE",
                                title="stages (and the cache command)")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("target", metavar="FILE:FUNC",
                        help="a .py file or a dotted module name, a colon, and a function "
                             "(or dotted attribute) in it")
    common.add_argument("--sig", metavar="SIG", default=None,
                        help="the call's arguments: tensor types DTYPE[DIMS] and Python "
                             "literals, separated by commas (see below); needed for ir, llvm, "
                             "llvm-opt and asm unless the function has an input_signature "
                             "or no parameters")
    common.add_argument("--time", action="store_true",
                        help="after the output, print how long each stage took")
    common.add_argument("--traceback", action="store_true",
                        help="print the Python traceback of a library error")
    common.add_argument("--no-disk-cache", action="store_true",
                        help="do not read or write the disk cache "
                             "(sets AUTOGRAPH_DISABLE_CACHE=1)")
    for stage in STAGES:
        p = sub.add_parser(stage, parents=[common], help=_STAGE_HELP[stage],
                           description=f"Print {_STAGE_HELP[stage]}.",
                           epilog=SIG_HELP + "\n\n" + _ENVIRONMENT, formatter_class=fmt)
        if stage == "dot":
            picture.add_arguments(p)   # --format, -o, --raw (autograph.cli.picture)
        if stage == "ir":
            p.add_argument("--raw", action="store_true",
                           help="print the graph as traced, before constant folding, common-"
                                "subexpression and dead code elimination")
    cache = sub.add_parser("cache", help="manage the disk cache of compiled code",
                           description=_CACHE_HELP, formatter_class=fmt)
    cache.add_argument("action", choices=("clear", "dir"))
    return parser


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("autograph-llvm")
    except Exception:  # not installed: running from a source tree
        return "0.1.0"


# --------------------------------------------------------------------------- entry


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; returns the exit status (the console script exits with it)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or an argparse usage error
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if args.command is None:
        parser.print_usage(sys.stderr)
        _err("a STAGE (" + " ".join(STAGES) + ") or 'cache' is required")
        return 2
    try:
        if args.command == "cache":
            return _run_cache(args.action)
        return _run_stage(args)
    except _UsageError as exc:
        _err(str(exc))
        return 2
    except BrokenPipeError:  # e.g. `autograph asm ... | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0


def _err(message: str) -> None:
    print(f"autograph: error: {message}", file=sys.stderr)


def _library_error(exc: BaseException, show_traceback: bool,
                   cause: Optional[BaseException] = None) -> int:
    if show_traceback:
        tb = cause or exc
        traceback.print_exception(type(tb), tb, tb.__traceback__, file=sys.stderr)
    _err(f"{type(exc).__name__}: {exc}")
    return 1


# --------------------------------------------------------------------------- stages


class _Timer:
    """Wall-clock times of the public calls, printed by `--time`."""

    def __init__(self) -> None:
        self.rows: List[Tuple[str, Optional[float], str]] = []

    def run(self, name: str, what: str, fn: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        out = fn()
        self.rows.append((name, time.perf_counter() - t0, what))
        return out

    def report(self) -> str:
        lines = ["", "timings (wall clock around each public call):"]
        for name, secs, what in self.rows:
            shown = "         -   " if secs is None else f"{secs * 1e3:10.2f} ms"
            lines.append(f"  {name:<14} {shown}  {what}")
        total = sum(r[1] for r in self.rows if r[1] is not None)
        lines.append(f"  {'total':<14} {total * 1e3:10.2f} ms")
        lines.append("  (each row times one public call; work the library does lazily, such as\n"
                     "   compiling to LLVM, shows in the first call that needs it)")
        return "\n".join(lines)


def _python_function(obj: Any) -> Any:
    if getattr(obj, "_autograph_polymorphic", False):
        return getattr(obj, "python_function", obj)
    return obj


def _check_arity(pyfunc: Any, args: list, kwargs: dict, target: str) -> None:
    """A usage error when the --sig arguments do not bind to the function's parameters."""
    try:
        sig = inspect.signature(pyfunc)
    except (TypeError, ValueError):
        return
    params = list(sig.parameters)
    if params and params[0] in ("self", "cls"):
        return  # a method: the library binds the instance
    try:
        sig.bind(*args, **kwargs)
    except TypeError as exc:
        raise _UsageError(f"--sig does not match {target}{sig}: {exc}") from None


def _needs_params(pyfunc: Any) -> bool:
    try:
        params = inspect.signature(pyfunc).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD,
                                                   p.KEYWORD_ONLY)
               and p.name not in ("self", "cls") for p in params)


def _run_stage(args: argparse.Namespace) -> int:
    stage = args.command
    parsed = None
    if args.sig is not None:
        try:
            parsed = parse_sig(args.sig)
        except SigError as exc:
            raise _UsageError(f"bad --sig: {exc}") from None
    try:
        split_target(args.target)
    except TargetError as exc:
        raise _UsageError(str(exc)) from None
    if args.no_disk_cache:
        os.environ["AUTOGRAPH_DISABLE_CACHE"] = "1"

    timer = _Timer()
    try:
        obj, target = timer.run("load", f"import {args.target.rpartition(':')[0]}",
                                lambda: load_target(args.target))
    except TargetError as exc:
        raise _UsageError(str(exc)) from None
    except TargetImportError as exc:
        return _library_error(exc, args.traceback, exc.exc)

    try:
        text = _stage_output(args, stage, obj, parsed, timer)
    except _UsageError:
        raise
    except Exception as exc:  # the library's own error: message only
        return _library_error(exc, args.traceback)
    _emit(sys.stdout, text)
    if args.time:
        _emit(sys.stdout, timer.report())
    return 0


def _stage_output(args: argparse.Namespace, stage: str, obj: Any, parsed: Any,
                  timer: _Timer) -> str:
    """The text of `stage` for `obj`; with --time, also runs (and times) the steps before it."""
    pyfunc = _python_function(obj)
    if stage == "dot":
        picture.check_arguments(args, _UsageError)
    if stage == "source":
        return timer.run("source", "inspect.getsource", lambda: inspect.getsource(pyfunc))

    import autograph as ag

    if stage == "converted":
        return timer.run("convert", "ag.to_code", lambda: ag.to_code(pyfunc))
    if args.time:
        # Informative only: a function traced with autograph=False needs no conversion.
        try:
            timer.run("convert", "ag.to_code", lambda: ag.to_code(pyfunc))
        except Exception as exc:
            timer.rows.append(("convert", None, f"ag.to_code failed: {type(exc).__name__}"))
    call_args, call_kwargs = _call_arguments(ag, parsed, obj, pyfunc, args.target, stage)
    f = obj if getattr(obj, "_autograph_polymorphic", False) else \
        timer.run("wrap", "ag.function", lambda: ag.function(obj))
    cf = timer.run("trace", "f.get_concrete_function",
                   lambda: f.get_concrete_function(*call_args, **call_kwargs))
    if stage == "ir":
        return str(cf.raw_graph if args.raw else cf.graph)
    if stage == "dot":
        return picture.dot_output(args, cf, timer)
    steps = [("llvm", "cf.llvm_ir(optimized=False)", lambda: cf.llvm_ir(optimized=False)),
             ("llvm-opt", "cf.llvm_ir(optimized=True)", lambda: cf.llvm_ir(optimized=True)),
             ("asm", "cf.asm()", lambda: cf.asm())]
    for name, what, fn in steps:
        if name == stage:
            return timer.run(name, what, fn)
        if args.time:
            timer.run(name, what, fn)
    raise AssertionError(f"unknown stage {stage}")  # argparse restricts the choices


def _call_arguments(ag: Any, parsed: Any, obj: Any, pyfunc: Any, target: str,
                    stage: str) -> Tuple[list, Dict[str, Any]]:
    """The arguments for `get_concrete_function`: from --sig, or none at all when the
    function has an input_signature or takes no arguments."""
    if parsed is None:
        has_signature = getattr(obj, "_autograph_polymorphic", False) and \
            getattr(obj, "input_signature", None) is not None
        if _needs_params(pyfunc) and not has_signature:
            try:
                shown = f"{target}{inspect.signature(pyfunc)}"
            except (TypeError, ValueError):
                shown = target
            raise _UsageError(f"stage {stage} needs --sig: {shown} takes arguments")
        return [], {}
    try:
        call_args, call_kwargs = to_call_args(parsed, ag)
    except AttributeError as exc:  # a dtype this build of the library lacks
        raise _UsageError(f"bad --sig: {exc}") from None
    _check_arity(pyfunc, call_args, call_kwargs, target)
    return call_args, call_kwargs


def _emit(out: Any, text: Any) -> None:
    text = "" if text is None else str(text)
    out.write(text if text.endswith("\n") else text + "\n")
    out.flush()


# --------------------------------------------------------------------------- cache


def cache_dir() -> str:
    """The disk-cache directory: $AUTOGRAPH_CACHE_DIR, else the user's cache directory."""
    from autograph.codegen.jit.disk_cache import cache_dir as _cache_dir

    return _cache_dir()


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"  # pragma: no cover


def _run_cache(action: str) -> int:
    from autograph.codegen.jit.disk_cache import clear_cache

    path = cache_dir()
    if action == "dir":
        print(path)
        return 0
    try:
        result = clear_cache(path)
    except ValueError as exc:  # not a directory, or the root/home/current directory
        raise _UsageError(str(exc)) from None
    except OSError as exc:
        _err(f"could not clear {path}: {exc}")
        return 1
    if not result.existed:
        print(f"cache directory {path} does not exist: nothing to clear")
        return 0
    removed = result.removed
    kept = result.kept  # the secret key and anything that is not the cache's own is left alone
    print(f"cleared {path}: removed {removed} entr{'y' if removed == 1 else 'ies'} "
          f"({_human(result.bytes)})"
          + ("" if not kept else "; kept 1 file that is not a cache entry" if kept == 1
             else f"; kept {kept} files that are not cache entries"))
    for failure in result.failed:
        _err(f"could not remove {failure}")
    return 1 if result.failed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
