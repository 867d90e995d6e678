"""Fingerprints of the Python inputs of conversion and tracing, without running either.

`fingerprint(fn)` is a SHA-256 (hex) of everything a trace of `fn` reads
besides its arguments, computed from the function object itself, or None
when `fn` is not *hermetic* (`why_not(fn)` says why). It feeds the warm-start
index (`autograph.runtime.warm_start`), which lets a fresh process skip
conversion and tracing, so it must change whenever a trace could:

* the code: bytecode, constants, names, flags, line table, file name, first
  line and the source lines the converter parses (comments included: error
  messages quote them), nested code objects (lambdas, comprehensions, inner
  functions) recursively;
* the defaults, keyword defaults and closure cell values;
* every global the code reads (`LOAD_GLOBAL` in it or any nested code), with
  module attribute chains (`helpers.f`, `np.linalg.norm`) followed through
  user modules, each value taken as it is *now* (globals are re-read at
  every call of `fingerprint`, never memoised);
* user functions reached that way (callees, also `ag.function`s and the
  functions in closure cells), fingerprinted the same way, recursively
  (cycles allowed).

Values are spelled by value: None, bools, numbers, strings, bytes, tuples
and frozensets of those, NumPy arrays, scalars and dtypes (dtype, shape and a
digest of the bytes), eager `ag.Tensor`s, `TensorSpec`s and autograph
dtypes. Lists, dicts, sets and bytearrays are not hermetic: a trace that
appends to a global list (the usual way of counting traces) or fills a memo
dict has a side effect. (A trace that writes into a global NumPy array is
not detected: arrays are taken as the constant tables they nearly always
are.) Library objects (NumPy, `math`, `cmath`, autograph) are
spelled by name: their versions and autograph's own source are part of the
index key elsewhere.

Anything else makes the function not hermetic, and it takes the normal path
(convert, trace, then the IR-keyed disk cache), exactly as without the
index. That is, on purpose, a long list, because skipping the trace also
skips whatever Python does while tracing: a builtin with a side effect or a
per-process result (`print`, `open`, `input`, `id`, `hash`, `globals`,
`exec`, ...: only an allow-list of pure builtins passes), stateful library
parts (`np.random`, `random`, `time`, `os`, file I/O of NumPy,
`ag.random`, `ag.Variable`, `ag.config`, `ag.keras`, `ag.Module`,
`ag.experimental`), any other module, class or object (a method on `self`,
a bound method, a callable instance, a `functools.partial`), `global`
assignments, imports and class definitions in the body.
"""
from __future__ import annotations

import builtins
import dis
import hashlib
import linecache
import types
import weakref
from typing import Dict, List, Optional, Tuple

import numpy as np

__all__ = ["fingerprint", "why_not", "NotHermetic"]

# Library roots spelled by name (their versions are in the index key).
_LIBRARIES = ("numpy", "math", "cmath", "autograph")
# Parts of them with state, I/O or process-specific results (module prefixes).
_DENIED_MODULES = (
    "numpy.random", "numpy.testing", "numpy.ctypeslib", "numpy.f2py", "numpy.distutils", "numpy.lib.format",
    "numpy.lib.npyio",
    "autograph.tracer.api.random", "autograph.runtime.variable", "autograph.module", "autograph.keras",
    "autograph.config", "autograph.experimental", "autograph.cli", "autograph.codegen", "autograph.impl",
    "autograph.converter",
)
# Library callables (by name) that do I/O or change process state.
_DENIED_NAMES = frozenset({
    "save", "savez", "savez_compressed", "savetxt", "load", "loadtxt", "genfromtxt", "fromfile", "fromregex",
    "memmap", "set_printoptions", "printoptions", "seterr", "seterrcall", "errstate", "setbufsize",
    "set_string_function", "info", "source", "lookfor", "show_config", "show_runtime", "who", "DataSource",
    "Variable", "Module",
})
# Builtins without side effects whose results are the same in every process.
_PURE_BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "complex", "dict", "divmod",
    "enumerate", "filter", "float", "format", "frozenset", "getattr", "hasattr", "hex", "int", "isinstance",
    "issubclass", "iter", "len", "list", "map", "max", "min", "next", "oct", "ord", "pow", "range", "repr",
    "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "type", "zip", "Ellipsis",
    "NotImplemented", "__name__",
})
# Opcodes that mean the body changes module state, imports or builds classes.
_DENIED_OPS = {
    "STORE_GLOBAL": "assigns a global", "DELETE_GLOBAL": "deletes a global", "IMPORT_NAME": "imports a module",
    "LOAD_BUILD_CLASS": "defines a class", "STORE_NAME": "runs module-level code",
    "LOAD_NAME": "runs module-level code", "LOAD_CLASSDEREF": "reads a class body's variable",
}
_CHAIN_OPS = ("LOAD_ATTR", "LOAD_METHOD")
_MAX_ELEMENTS = 100_000   # Python containers larger than this are not spelled out
_MISSING = object()


class NotHermetic(Exception):
    """The function reads something whose effect on a trace cannot be fingerprinted."""


class _CodeScan:
    """What one code object contributes, computed once per code object: its own
    digest (bytecode, constants, source lines, ...) and the global chains it reads."""

    __slots__ = ("digest", "chains", "__weakref__")

    def __init__(self, digest: str, chains: Tuple[Tuple[str, ...], ...]):
        self.digest = digest
        self.chains = chains


_SCANS: "weakref.WeakKeyDictionary[types.CodeType, object]" = weakref.WeakKeyDictionary()


def _const(c, codes: list) -> str:
    if isinstance(c, types.CodeType):
        codes.append(c)
        return f"<code {c.co_qualname if hasattr(c, 'co_qualname') else c.co_name}>"
    if isinstance(c, float):
        return f"f:{c.hex()}"
    if isinstance(c, complex):
        return f"c:{c.real.hex()},{c.imag.hex()}"
    if isinstance(c, (tuple, frozenset)):
        items = [_const(x, codes) for x in c]
        return f"{type(c).__name__}({','.join(sorted(items) if isinstance(c, frozenset) else items)})"
    return f"{type(c).__name__}:{c!r}"


def _source_digest(code: types.CodeType, last_line: int) -> str:
    """SHA-256 of the source lines of `code` (what the converter parses), or "none"."""
    lines = linecache.getlines(code.co_filename)
    if not lines:
        return "none"
    text = "".join(lines[max(code.co_firstlineno - 1, 0):last_line])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _scan(code: types.CodeType):
    """The `_CodeScan` of `code` and all its nested code objects, or the reason it is not hermetic."""
    known = _SCANS.get(code)
    if known is not None:
        return known
    h = hashlib.sha256()
    chains: List[Tuple[str, ...]] = []
    result: object
    last_line = code.co_firstlineno
    todo, seen = [code], set()
    try:
        while todo:
            c = todo.pop()
            if id(c) in seen:
                continue
            seen.add(id(c))
            nested: list = []
            consts = "|".join(_const(x, nested) for x in c.co_consts)
            todo.extend(nested)
            h.update("\0".join([
                c.co_name, getattr(c, "co_qualname", ""), str(c.co_flags), str(c.co_argcount),
                str(c.co_posonlyargcount), str(c.co_kwonlyargcount), ",".join(c.co_varnames),
                ",".join(c.co_freevars), ",".join(c.co_cellvars), ",".join(c.co_names), consts,
            ]).encode("utf-8", "surrogatepass"))
            h.update(c.co_code)
            h.update(getattr(c, "co_linetable", b"") or b"")
            for _, _, line in c.co_lines():
                if line is not None and line > last_line:
                    last_line = line
            chain: Optional[List[str]] = None
            for ins in dis.get_instructions(c):
                op = ins.opname
                if op in _DENIED_OPS:
                    raise NotHermetic(f"{code.co_qualname if hasattr(code, 'co_qualname') else code.co_name} "
                                      f"{_DENIED_OPS[op]}")
                if op == "LOAD_GLOBAL":
                    if chain:
                        chains.append(tuple(chain))
                    chain = [ins.argval]
                    continue
                if chain is not None and op in _CHAIN_OPS:
                    chain.append(ins.argval)
                    continue
                if chain:
                    chains.append(tuple(chain))
                chain = None
            if chain:
                chains.append(tuple(chain))
        h.update(f"\0{code.co_filename}\0{code.co_firstlineno}\0".encode("utf-8", "surrogatepass"))
        h.update(_source_digest(code, last_line).encode())
        result = _CodeScan(h.hexdigest(), tuple(dict.fromkeys(chains)))
    except NotHermetic as exc:
        result = exc
    _SCANS[code] = result
    return result


class _Walker:
    """One fingerprint computation: values spelled, functions visited (cycles end in a back-reference)."""

    def __init__(self) -> None:
        self.functions: Dict[int, str] = {}   # id(function) -> its label, while and after it is visited
        self.budget = _MAX_ELEMENTS
        self.keep: list = []                  # keeps visited objects alive, so their ids stay unique

    # ---------------------------------------------------------------- functions

    def function(self, fn) -> str:
        label = self.functions.get(id(fn))
        if label is not None:
            return f"<fn-ref {label}>"   # visited (or being visited): its digest is in the outer one
        label = f"{len(self.functions)}:{fn.__module__}.{fn.__qualname__}"
        self.functions[id(fn)] = label
        self.keep.append(fn)
        scan = _scan(fn.__code__)
        if isinstance(scan, NotHermetic):
            raise scan
        noconvert = bool(getattr(fn, "__autograph_do_not_convert__", False))   # changes the conversion
        parts = [f"<fn {label} code={scan.digest} noconvert={noconvert}",
                 f"defaults={self.value(fn.__defaults__, 'a default')}",
                 f"kwdefaults={self.value(fn.__kwdefaults__, 'a keyword default')}"]
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                content = cell.cell_contents
            except ValueError:   # an empty cell (a recursive inner function, not yet bound)
                parts.append(f"cell {name}=<empty>")
                continue
            parts.append(f"cell {name}={self.value(content, f'the closure variable {name!r}')}")
        for chain in scan.chains:
            parts.append(f"global {'.'.join(chain)}={self.chain(fn, chain)}")
        return "\n".join(parts) + ">"

    def chain(self, fn, chain: Tuple[str, ...]) -> str:
        """The value `fn` reads for `a.b.c`: the global `a`, then attributes while they are modules."""
        name = chain[0]
        g = fn.__globals__
        if name in g:
            v = g[name]
        else:
            b = getattr(fn, "__builtins__", builtins.__dict__)
            b = b if isinstance(b, dict) else vars(b)
            if name not in b:
                return "<missing>"   # a NameError at trace time (or a global defined later)
            if name not in _PURE_BUILTINS:
                raise NotHermetic(f"{fn.__qualname__} calls the builtin {name!r} (side effects or a "
                                  "per-process result)")
            return f"<builtin {name}>"
        path = name
        for attr in chain[1:]:
            if not isinstance(v, types.ModuleType):
                break
            self.module(v, path)
            path += "." + attr
            v = getattr(v, attr, _MISSING)
            if v is _MISSING:
                return "<missing>"
        return self.value(v, f"the global {path!r}")

    def module(self, m: types.ModuleType, path: str) -> str:
        name = m.__name__
        if not _is_library(name):
            return f"<module {name}>"   # a user module: only the attributes read are spelled
        if name.startswith(_DENIED_MODULES):
            raise NotHermetic(f"{path} is {name}, which has state or side effects")
        return f"<module {name}>"

    # ---------------------------------------------------------------- values

    def value(self, v, what: str) -> str:
        t = type(v)
        if v is None or t in (bool, int, str):
            return f"{t.__name__}:{v!r}"
        if t is float:
            return f"float:{v.hex()}"
        if t is complex:
            return f"complex:{v.real.hex()},{v.imag.hex()}"
        if t is bytes:
            return f"bytes:{v.hex()}"
        if t in (tuple, frozenset):
            self._spend(len(v), what)
            items = [self.value(x, what) for x in v]
            if t is frozenset:
                items.sort()
            return f"{t.__name__}({','.join(items)})"
        if t in (list, dict, set, bytearray):
            # A trace may change it (`calls.append(1)`, a memo dict): a side effect a skipped
            # trace would miss. Constants belong in tuples.
            raise NotHermetic(f"{what} is a mutable {t.__name__} (a trace could change it; a tuple "
                              "would do)")
        if isinstance(v, np.ndarray) and t is np.ndarray:
            return _array(v, what)
        if isinstance(v, np.generic):
            return _array(np.asarray(v), what) + f":{t.__name__}"
        if isinstance(v, np.dtype):
            return f"dtype:{v.str}"
        if isinstance(v, np.ufunc):
            return f"<ufunc {v.__name__}>"
        module = getattr(v, "__module__", None) or ""
        if isinstance(v, types.FunctionType):
            if isinstance(module, str) and _is_library(module):
                return self._library(v, module, what)
            return self.function(v)
        if isinstance(v, types.ModuleType):
            if not _is_library(v.__name__):
                raise NotHermetic(f"{what} is the module {v.__name__}, used as a value")
            return self.module(v, what)
        if getattr(v, "_autograph_polymorphic", False) is True:
            return self._polymorphic(v, what)
        if getattr(v, "_ag_variable", False):
            raise NotHermetic(f"{what} is an ag.Variable (state)")
        if hasattr(v, "_array") and isinstance(getattr(v, "_array", None), np.ndarray):
            return "tensor:" + _array(v._array, what)   # an eager ag.Tensor: a constant
        if isinstance(module, str) and _is_library(module):
            if isinstance(v, type) or isinstance(v, (types.BuiltinFunctionType, types.FunctionType)) \
                    or _is_library_value(v):
                return self._library(v, module, what)
        if isinstance(v, types.BuiltinFunctionType) and module == "builtins":
            if v.__name__ in _PURE_BUILTINS:
                return f"<builtin {v.__name__}>"
            raise NotHermetic(f"{what} is the builtin {v.__name__!r}")
        if isinstance(v, type) and module == "builtins" and (v.__name__ in _PURE_BUILTINS
                                                            or issubclass(v, BaseException)):
            return f"<builtin {v.__name__}>"
        raise NotHermetic(f"{what} is a {t.__module__}.{t.__qualname__} object, whose effect on a trace "
                          "cannot be fingerprinted")

    def _library(self, v, module: str, what: str) -> str:
        name = getattr(v, "__qualname__", None) or getattr(v, "__name__", None) or type(v).__name__
        if module.startswith(_DENIED_MODULES) or name in _DENIED_NAMES:
            raise NotHermetic(f"{what} is {module}.{name}, which has state or side effects")
        if isinstance(v, types.BuiltinFunctionType) and not isinstance(getattr(v, "__self__", None),
                                                                       (types.ModuleType, type(None))):
            raise NotHermetic(f"{what} is a bound method of a {type(v.__self__).__name__} object")
        if _is_library_value(v):
            return f"<lib-value {module}.{type(v).__qualname__} {v!r}>"
        return f"<lib {module}.{name}>"

    def _polymorphic(self, pf, what: str) -> str:
        fn = pf.python_function
        if not isinstance(fn, types.FunctionType):
            raise NotHermetic(f"{what} is an ag.function of a {type(fn).__name__} (a method or callable object)")
        opts = (pf._autograph, pf._boundscheck, pf._fastmath, pf._reduce_retracing, repr(pf._input_signature))
        return f"<ag.function {opts} {self.function(fn)}>"

    def _spend(self, n: int, what: str) -> None:
        self.budget -= n
        if self.budget < 0:
            raise NotHermetic(f"{what} is a Python container of more than {_MAX_ELEMENTS} elements")


def _is_library(module: str) -> bool:
    return module.split(".", 1)[0] in _LIBRARIES


def _is_library_value(v) -> bool:
    """Autograph's dtypes and TensorSpecs: plain values with an exact repr."""
    from autograph.tracer.core.types import DType
    from .spec import TensorSpec
    return isinstance(v, (DType, TensorSpec))


def _array(a: np.ndarray, what: str) -> str:
    if a.dtype.hasobject:
        raise NotHermetic(f"{what} is an array of Python objects")
    data = np.ascontiguousarray(a).tobytes()
    return f"array:{a.dtype.str}:{a.shape}:{hashlib.sha256(data).hexdigest()}"


def fingerprint(fn) -> Optional[str]:
    """SHA-256 (64 hex digits) of the Python inputs of converting and tracing
    `fn` (see the module docstring), or None when `fn` is not hermetic."""
    try:
        return _digest(fn)
    except NotHermetic:
        return None
    except Exception:   # an object that fails when looked at (a property raising, ...): not hermetic
        return None


def why_not(fn) -> Optional[str]:
    """Why `fn` is not hermetic (for logs and tests), or None when it is."""
    try:
        _digest(fn)
    except NotHermetic as exc:
        return str(exc)
    except Exception as exc:
        return f"looking at it raised {type(exc).__name__}: {exc}"
    return None


def _digest(fn) -> str:
    if not isinstance(fn, types.FunctionType):
        raise NotHermetic(f"a {type(fn).__name__} (a method or callable object), not a plain function")
    text = _Walker().function(fn)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
