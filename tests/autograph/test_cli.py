"""The `autograph` command line: --sig parsing, FILE:FUNC loading, stages, cache.

The first half needs no compiler (parser, loader, usage errors); the second
runs every stage on an example kernel, in-process through `main([...])` and
as `python -m autograph` in a subprocess.
"""
import os
import re
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import paths

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograph.cli import command as cli
from autograph.cli.load import TargetError, TargetImportError, load_target, split_target
from autograph.cli.sig import (DTYPE_NAMES, Literal, SigError, TensorArg, format_sig, parse_sig,
    split_top_level, to_call_args)

ROOT = paths.ROOT
KERNELS = os.path.join(ROOT, "examples", "kernels.py")


# --------------------------------------------------------------------------- --sig


def test_split_top_level_ignores_commas_in_brackets_and_quotes():
    assert split_top_level("float32[None,3], int64[], 'a,b', (1, 2), \"x,\\\"y\"") == [
        "float32[None,3]", "int64[]", "'a,b'", "(1, 2)", '"x,\\"y"']


@pytest.mark.parametrize("text", ["float32[3", "(1, 2", "'abc", "float32]3["])
def test_split_top_level_rejects_unbalanced(text):
    with pytest.raises(SigError):
        split_top_level(text)


def test_parse_sig_tensor_types():
    args, kwargs = parse_sig("float32[None,3], int64[], bool[*], float64[ 2 , ? ], string[...]")
    assert kwargs == {}
    assert args == [TensorArg("float32", (None, 3)), TensorArg("int64", ()),
                    TensorArg("bool", None), TensorArg("float64", (2, None)),
                    TensorArg("string", None)]


def test_parse_sig_literals_and_keywords():
    args, kwargs = parse_sig("4, True, 'name', 2.5, None, -3, (1, 2), scale=2.5, tag='a,b'")
    assert args == [Literal(4), Literal(True), Literal("name"), Literal(2.5), Literal(None),
                    Literal(-3), Literal((1, 2))]
    assert kwargs == {"scale": Literal(2.5), "tag": Literal("a,b")}


def test_parse_sig_empty_and_trailing_comma():
    assert parse_sig("") == ([], {})
    assert parse_sig("   ") == ([], {})
    assert parse_sig("int64[],") == ([TensorArg("int64", ())], {})


@pytest.mark.parametrize("sig, fragment", [
    ("float16[3]", "unknown dtype 'float16'"),
    ("float32[-2]", "negative dimension"),
    ("float32[a]", "bad dimension 'a'"),
    ("float32", "float32[] for a scalar"),
    ("foo", "cannot read argument 'foo'"),
    ("int64[], , 3", "is empty"),
    ("x=1, 2", "follows a keyword"),
    ("x=1, x=2", "given twice"),
    ("float32[3", "unclosed"),
])
def test_parse_sig_errors(sig, fragment):
    with pytest.raises(SigError) as info:
        parse_sig(sig)
    assert fragment in str(info.value)


class _FakeSpec:
    def __init__(self, shape=None, dtype=None, name=None):
        self.shape, self.dtype, self.name = shape, dtype, name


def test_to_call_args_builds_tensor_specs():
    fake_ag = SimpleNamespace(TensorSpec=_FakeSpec, **{d: f"dtype:{d}" for d in DTYPE_NAMES})
    args, kwargs = to_call_args(parse_sig("float32[None,3], int64[], bool[*], 7, k=float64[2]"),
                                fake_ag)
    assert [(a.shape, a.dtype) for a in args[:3]] == [
        ([None, 3], "dtype:float32"), ([], "dtype:int64"), (None, "dtype:bool")]
    assert args[3] == 7
    assert (kwargs["k"].shape, kwargs["k"].dtype) == ([2], "dtype:float64")


_dims = st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(0, 10**6)), max_size=4)
                  .map(tuple))
_tensor = st.builds(TensorArg, st.sampled_from(DTYPE_NAMES), _dims)
_literal = st.one_of(st.integers(), st.booleans(), st.none(),
                     st.floats(allow_nan=False, allow_infinity=False),
                     st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
                     ).map(Literal)


@given(st.lists(st.one_of(_tensor, _literal), max_size=5))
def test_format_sig_round_trips(args):
    assert parse_sig(format_sig(args, {})) == (args, {})


# --------------------------------------------------------------------------- FILE:FUNC


_MODULE_SOURCE = textwrap.dedent("""
    def square(x):
        return x * x

    class Holder:
        @staticmethod
        def triple(x):
            return 3 * x

    NOT_A_FUNCTION = 42
""")


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "user_mod_for_cli.py"
    path.write_text(_MODULE_SOURCE)
    return path


def test_split_target():
    assert split_target("examples/kernels.py:collatz_total") == (
        "examples/kernels.py", "collatz_total")
    assert split_target("C:\\x\\k.py:f") == ("C:\\x\\k.py", "f")
    assert split_target("pkg.mod:Cls.meth") == ("pkg.mod", "Cls.meth")
    for bad in ("examples/kernels.py", ":f", "k.py:", "k.py:1f"):
        with pytest.raises(TargetError):
            split_target(bad)


def test_load_target_from_file(user_file):
    fn, where = load_target(f"{user_file}:square")
    assert fn(3) == 9 and where.endswith(":square")
    fn, _ = load_target(f"{user_file}:Holder.triple")
    assert fn(2) == 6


def test_load_target_from_module(tmp_path, monkeypatch):
    pkg = tmp_path / "cli_pkg_for_test"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(_MODULE_SOURCE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    fn, _ = load_target("cli_pkg_for_test.mod:square")
    assert fn(4) == 16


def test_load_target_errors(user_file, tmp_path):
    with pytest.raises(TargetError, match="no such file"):
        load_target(f"{tmp_path}/missing.py:f")
    with pytest.raises(TargetError, match="no module named"):
        load_target("no_such_module_anywhere_xyz:f")
    with pytest.raises(TargetError, match=r"no attribute 'cube'.*square"):
        load_target(f"{user_file}:cube")
    with pytest.raises(TargetError, match="not a function"):
        load_target(f"{user_file}:NOT_A_FUNCTION")
    broken = tmp_path / "broken_mod_for_cli.py"
    broken.write_text("raise RuntimeError('import-time failure')\n")
    with pytest.raises(TargetImportError, match="import-time failure"):
        load_target(f"{broken}:f")


# --------------------------------------------------------------------------- usage errors


def test_help_documents_the_sig_syntax(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for stage in cli.STAGES:
        assert stage in out
    assert "DTYPE[DIMS]" in out and "float32[None,3]" in out


def test_no_stage_is_a_usage_error(capsys):
    assert cli.main([]) == 2
    assert "STAGE" in capsys.readouterr().err


@pytest.mark.parametrize("argv, fragment", [
    (["ir", f"{KERNELS}:branchy_sum", "--sig", "float16[3]"], "unknown dtype 'float16'"),
    (["ir", f"{KERNELS}:branchy_sum", "--sig", "float64[3"], "unclosed"),
    (["ir", "examples/kernels.py", "--sig", "int64[]"], "expected FILE:FUNC"),
    (["ir", "no/such/file.py:f", "--sig", "int64[]"], "no such file"),
    (["ir", f"{KERNELS}:no_such_function", "--sig", "int64[]"], "no attribute"),
    (["ir", f"{KERNELS}:branchy_sum"], "needs --sig"),
    (["ir", f"{KERNELS}:branchy_sum", "--sig", "float64[3], float64[3]"], "does not match"),
])
def test_usage_errors_exit_2_with_one_line(argv, fragment, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err
    assert len(err.splitlines()) == 1 and err.startswith("autograph: error:")


def test_unknown_stage_exits_2(capsys):
    assert cli.main(["bytecode", f"{KERNELS}:branchy_sum"]) == 2
    assert "invalid choice" in capsys.readouterr().err


# --------------------------------------------------------------------------- cache


def test_cache_clear_removes_only_the_entries(tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    (cache / "sub").mkdir(parents=True)
    (cache / ("a" * 64 + ".agobj")).write_bytes(b"x" * 100)
    (cache / ".tmp-123.agobj").write_bytes(b"y" * 50)
    (cache / "sub" / "b.o").write_bytes(b"y" * 50)     # not the cache's: kept
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(cache))
    assert cli.main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert "removed 2 entries (150 B); kept 1 file that is not a cache entry" in out and str(cache) in out
    assert cache.is_dir() and [p.name for p in cache.iterdir()] == ["sub"] and (cache / "sub" / "b.o").exists()


def test_cache_clear_without_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path / "never-created"))
    assert cli.main(["cache", "clear"]) == 0
    assert "does not exist" in capsys.readouterr().out


def test_cache_dir_default_and_env(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("AUTOGRAPH_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert cli.cache_dir() == os.path.join(str(tmp_path), "autograph")
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path / "c"))
    assert cli.main(["cache", "dir"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "c")


def test_cache_clear_refuses_home(monkeypatch, capsys):
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", os.path.expanduser("~"))
    assert cli.main(["cache", "clear"]) == 2
    assert "refusing" in capsys.readouterr().err


# --------------------------------------------------------------------------- stages


STAGE_MARKERS = {
    "source": r"\bdef branchy_sum\(",
    "converted": r"ag__",
    "ir": r"graph @",
    "llvm": r"\bdefine\b",
    "llvm-opt": r"\bdefine\b",
    "asm": r"^\s*(ret|retq)\b",
}


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path / "ag-cache"))
    return tmp_path / "ag-cache"


@pytest.mark.parametrize("stage", list(STAGE_MARKERS))
def test_stage_in_process(stage, capsys, cache_dir):
    code = cli.main([stage, f"{KERNELS}:branchy_sum", "--sig", "float64[None]"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert re.search(STAGE_MARKERS[stage], out, re.M), out[:2000]
    assert "timings" not in out


def test_stage_with_module_name_and_time(capsys, cache_dir, monkeypatch):
    monkeypatch.chdir(ROOT)
    code = cli.main(["asm", "examples.kernels:collatz_total", "--sig", "int64[]", "--time"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert re.search(STAGE_MARKERS["asm"], out, re.M)
    timings = out[out.index("timings"):]
    for step in ("load", "convert", "trace", "llvm ", "llvm-opt", "asm", "total"):
        assert step in timings
    assert re.search(r"trace\s+\d+\.\d+ ms", timings)


def test_ir_of_input_signature_function_needs_no_sig(capsys, cache_dir):
    seeds = os.path.join(ROOT, "examples", "seeds.py")
    code = cli.main(["ir", f"{seeds}:next_collatz"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "graph @" in out and "int32" in out


def test_ir_prints_the_graph_after_the_passes_and_raw_as_traced(capsys, cache_dir):
    from autograph.tracer.core.parser import parse_graph
    from autograph.tracer.passes import optimize

    argv = ["ir", f"{KERNELS}:collatz_total", "--sig", "int64[]"]
    assert cli.main(argv) == 0
    optimised = capsys.readouterr().out
    assert cli.main(argv + ["--raw"]) == 0
    raw = capsys.readouterr().out
    # The traced graph has a dead `range` op and repeats `constant[value=1]`; the passes remove both.
    assert "= range(" in raw and raw.count("constant[value=1]()") > 1
    assert "= range(" not in optimised and optimised.count("constant[value=1]()") == 1
    assert str(optimize(parse_graph(raw))) == optimised


def test_raw_is_an_option_of_ir_only(capsys):
    assert cli.main(["llvm", f"{KERNELS}:collatz_total", "--sig", "int64[]", "--raw"]) == 2
    assert "unrecognized arguments: --raw" in capsys.readouterr().err
    assert cli.main(["ir", "--help"]) == 0
    assert "--raw" in capsys.readouterr().out


def test_library_error_exits_1_without_traceback(tmp_path, capsys, cache_dir):
    path = tmp_path / "failing_kernel_for_cli.py"
    path.write_text("def bad(x):\n    raise ValueError('boom at trace time')\n")
    assert cli.main(["ir", f"{path}:bad", "--sig", "float32[3]"]) == 1
    err = capsys.readouterr().err
    assert "boom at trace time" in err and "Traceback" not in err
    assert cli.main(["ir", f"{path}:bad", "--sig", "float32[3]", "--traceback"]) == 1
    assert "Traceback" in capsys.readouterr().err


def _run(*args, cwd=ROOT, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "autograph", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_python_dash_m_ir_and_asm(tmp_path):
    env = {"AUTOGRAPH_CACHE_DIR": str(tmp_path / "cache")}
    proc = _run("ir", "examples/kernels.py:collatz_total", "--sig", "int64[]", env_extra=env)
    assert proc.returncode == 0, proc.stderr
    assert "graph @" in proc.stdout and "while" in proc.stdout
    proc = _run("llvm-opt", "examples/kernels.py:mean_square", "--sig",
                "float32[None], float32[None]", "--time", env_extra=env)
    assert proc.returncode == 0, proc.stderr
    assert "define" in proc.stdout and "timings" in proc.stdout


def test_python_dash_m_ir_raw(tmp_path):
    env = {"AUTOGRAPH_CACHE_DIR": str(tmp_path / "cache")}
    args = ("ir", "examples/kernels.py:collatz_total", "--sig", "int64[]")
    optimised, raw = _run(*args, env_extra=env), _run(*args, "--raw", env_extra=env)
    assert optimised.returncode == raw.returncode == 0, optimised.stderr + raw.stderr
    assert "= range(" in raw.stdout and "= range(" not in optimised.stdout
    assert optimised.stdout.startswith("graph @collatz_total(%n: int64[]) -> (int64[]) {")
    assert raw.stdout.splitlines()[0] == optimised.stdout.splitlines()[0]


def test_python_dash_m_usage_error(tmp_path):
    proc = _run("ir", "examples/kernels.py:collatz_total", "--sig", "int65[]")
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("autograph: error:")
    assert "unknown dtype 'int65'" in proc.stderr
    assert proc.stdout == ""
