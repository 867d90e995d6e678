"""Pickling compiled functions, so they run in process pools and on Dask workers.

This module registers how both classes pickle (`copyreg.pickle`, at import:
`import autograph` imports it), so the classes themselves know nothing of it.

A PolymorphicFunction pickles

* by reference when its module and qualified name lead back to it (a
  decorated module-level function, or a decorated method reached through its
  class): the receiving process imports the module, as pickle does for
  plain functions. Not for `__main__`, which is another module in a Dask
  worker: functions of a script are pickled by value, as cloudpickle does.
* bound to an instance (`obj.method`): as `getattr(obj, name)`.
* wrapping an importable plain function under another name
  (`fast = ag.function(kernel)`): the plain function by reference, with the
  options.
* otherwise by value (nested functions, closures, lambdas, functions of
  `__main__`): the Python function's code (marshal, so sender and receiver
  need the same Python version), the globals its code names, its closure
  cells, defaults and `__dict__`, and the lines of its source file (AutoGraph
  converts from source, and a worker may not have the file). Module values
  are sent as their names and imported again; plain functions that are not
  importable are sent by value too, recursively; everything else must be
  picklable itself (numbers, arrays, tensors, variables, importable classes).

Traces are never sent: the receiving process traces on its first call per
signature, and compiles or loads the code from its disk cache. A function
sent by value is unpickled once per process: every later copy of the same
function (the same sending object, named by a token made when it is first
pickled) resolves to the first one, so a worker that receives it with every
task still traces once per signature. The last `KEEP_RECENT` such copies are
held (a worker drops a task's function when the task ends); older ones live
as long as something else holds them.

A ConcreteFunction pickles as its signature and its graph, as IR text
(`autograph.tracer.core.printer`, read back by the parser) with the ops'
source locations alongside; the receiving process compiles the graph on the
first call, or loads it from its disk cache. Variables it captured are
pickled by value: the copy writes into its own copies.
"""
from __future__ import annotations

import builtins
import collections
import copyreg
import importlib
import linecache
import marshal
import sys
import types
import uuid
import weakref
from typing import Any, Dict, List, Optional

from .concrete import ConcreteFunction
from .method import unwrap_leaf
from .polymorphic import PolymorphicFunction
from autograph.tracer.core import forksafe

__all__ = ["reduce_polymorphic", "reduce_concrete", "UnpicklingError"]

_PYTHON = tuple(sys.version_info[:2])


class UnpicklingError(RuntimeError):
    """A compiled function could not be rebuilt from its pickle."""


# ------------------------------------------------------------------ references

def _lookup(module_name: str, qualname: str):
    """`module.qualname`, importing the module; AttributeError/ImportError otherwise."""
    obj = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _importable(obj) -> bool:
    """True when pickle can send `obj` as a reference that leads back to it."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not module or not qualname or module == "__main__" or "<" in qualname:
        return False
    if module not in sys.modules:
        return False
    try:
        return _lookup(module, qualname) is obj
    except Exception:   # any failure of the lookup: not by reference
        return False


def _load_reference(module_name: str, qualname: str):
    """The unpickled object sent by reference (see `reduce_polymorphic`)."""
    try:
        return _lookup(module_name, qualname)
    except (ImportError, AttributeError) as e:
        raise UnpicklingError(f"cannot unpickle the ag.function {module_name}.{qualname}: it was "
                              f"pickled by reference and {type(e).__name__}: {e}") from None


class _Module:
    """A module in a function's globals or closure: pickled as its name."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __reduce__(self):
        return (importlib.import_module, (self.name,))


# ------------------------------------------------------------------ functions by value

def _code_names(code: types.CodeType, out: set) -> set:
    """Every global name `code` and the code objects nested in it may read."""
    out.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_names(const, out)
    return out


def _wrap(value):
    """`value` as it is pickled inside a function's globals or closure."""
    if isinstance(value, types.ModuleType):
        return _Module(value.__name__)
    if isinstance(value, types.FunctionType) and not _importable(value):
        return _FunctionByValue.of(value)
    return value


def _skeleton(fn: types.FunctionType) -> tuple:
    """What builds an empty copy of `fn`: data only, so never part of a cycle."""
    code = fn.__code__
    return (_PYTHON, marshal.dumps(code), fn.__name__, fn.__qualname__, fn.__module__,
            len(code.co_freevars))


def _function_state(fn: types.FunctionType) -> dict:
    """What fills the copy in: may refer back to the function (recursion, cycles)."""
    names = _code_names(fn.__code__, set())
    g = fn.__globals__
    used = {n: _wrap(g[n]) for n in sorted(names) if n in g and n != "__builtins__"}
    cells = []
    for cell in fn.__closure__ or ():
        try:
            cells.append((True, _wrap(cell.cell_contents)))
        except ValueError:   # an empty cell (a name assigned after the closure was made)
            cells.append((False, None))
    filename = fn.__code__.co_filename
    return {
        "globals": used,
        "__name__": g.get("__name__"),
        "cells": cells,
        "defaults": fn.__defaults__,
        "kwdefaults": fn.__kwdefaults__,
        "dict": dict(fn.__dict__),
        "source": (filename, linecache.getlines(filename, g)),
    }


def _empty_function(skeleton: tuple) -> types.FunctionType:
    python, code_bytes, name, qualname, module, ncells = skeleton
    if tuple(python) != _PYTHON:
        raise UnpicklingError(
            f"cannot unpickle the function {qualname!r} by value: it was pickled by Python "
            f"{python[0]}.{python[1]} and this is Python {_PYTHON[0]}.{_PYTHON[1]} (its code "
            f"object is version-specific); define it at module level to pickle it by reference")
    code = marshal.loads(code_bytes)
    # A fresh globals dict per function, filled from the state (as cloudpickle does).
    fn = types.FunctionType(code, {"__builtins__": builtins}, name, None,
                            tuple(types.CellType() for _ in range(ncells)) or None)
    fn.__qualname__ = qualname
    fn.__module__ = module
    return fn


def _fill_function(fn: types.FunctionType, state: dict) -> None:
    fn.__globals__.update(state["globals"])
    if state["__name__"] is not None:
        fn.__globals__.setdefault("__name__", state["__name__"])
    for cell, (full, value) in zip(fn.__closure__ or (), state["cells"]):
        if full:
            cell.cell_contents = value
    fn.__defaults__ = state["defaults"]
    fn.__kwdefaults__ = state["kwdefaults"]
    fn.__dict__.update(state["dict"])
    filename, lines = state["source"]
    # AutoGraph converts from the source: give linecache the sender's lines when
    # this process cannot read the file (a remote worker, a notebook cell).
    if lines and not linecache.getlines(filename):
        linecache.cache[filename] = (sum(len(x) for x in lines), None, list(lines), filename)


def _set_function_state(fn: types.FunctionType, state: dict) -> types.FunctionType:
    _fill_function(fn, state)
    return fn


class _FunctionByValue:
    """A plain function that is pickled by value (see the module docstring).

    One wrapper per function (weakly cached), so that pickle's memo sees the
    same object every time the function occurs: a helper used twice is sent
    once, and a function that refers to itself does not recurse forever.
    """

    __slots__ = ("_fn", "__weakref__")
    _wrappers: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

    def __init__(self, fn):
        self._fn = weakref.ref(fn)

    @classmethod
    def of(cls, fn) -> "_FunctionByValue":
        w = cls._wrappers.get(fn)
        if w is None:
            w = cls._wrappers[fn] = cls(fn)
        return w

    def __reduce__(self):
        fn = self._fn()
        return (_empty_function, (_skeleton(fn),), _function_state(fn), None, None, _set_function_state)


# ------------------------------------------------------------------ PolymorphicFunction

# token -> the function unpickled from it in this process (see the module docstring).
_LOADED: "weakref.WeakValueDictionary[str, Any]" = weakref.WeakValueDictionary()
_LOCK = forksafe.lock()   # a fork child gets it back unlocked
# The last functions unpickled by value, held strongly: a worker drops a task's
# function when the task ends, and the next task's copy must find the traces.
KEEP_RECENT = 64
_RECENT: "collections.OrderedDict[str, Any]" = collections.OrderedDict()


def _remember(token: str, obj):
    """Register `obj` as this process's copy of `token` (an earlier one wins); returns the copy."""
    with _LOCK:
        kept = _LOADED.get(token)
        if kept is None:
            kept = _LOADED[token] = obj
        _RECENT[token] = kept
        _RECENT.move_to_end(token)
        while len(_RECENT) > KEEP_RECENT:
            _RECENT.popitem(last=False)
    return kept


def _loaded(token: str):
    """This process's copy of `token`, or None; marks it recently used."""
    with _LOCK:
        obj = _LOADED.get(token)
        if obj is not None and token in _RECENT:
            _RECENT.move_to_end(token)
    return obj


def _options(pf) -> dict:
    return {"input_signature": pf._input_signature, "autograph": pf._autograph,
            "reduce_retracing": pf._reduce_retracing, "boundscheck": pf._boundscheck,
            "fastmath": pf._fastmath}


def _token(obj) -> str:
    """The identity `obj` is sent under: made on its first pickling, kept by its copies."""
    token = obj.__dict__.get("_pickle_token")
    if token is None:
        token = obj.__dict__.setdefault("_pickle_token", uuid.uuid4().hex)
    return token


def reduce_polymorphic(pf) -> tuple:
    """`pf.__reduce__()`: by reference, as a bound method, or by value."""
    fn = pf._python_function
    if isinstance(fn, types.MethodType):
        # A per-instance copy made by `__get__`: the instance's attribute again.
        return (getattr, (fn.__self__, fn.__func__.__name__))
    if _importable(pf):
        return (_load_reference, (pf.__module__, pf.__qualname__))
    state = {"options": _options(pf)}
    if isinstance(fn, types.FunctionType) and not _importable(fn):
        skeleton = _skeleton(fn)
        state["function"] = _function_state(fn)
    else:
        # An importable plain function under another name (`fast = ag.function(kernel)`),
        # or another callable (a functools.partial, a callable object): pickle manages it.
        skeleton = None
        state["function"] = fn
    return (_load_polymorphic, (_token(pf), skeleton), state, None, None, _set_polymorphic)


def _load_polymorphic(token: str, skeleton: Optional[tuple]):
    """The PolymorphicFunction this process already has for `token`, else an empty one."""
    pf = _loaded(token)
    if pf is not None and "_pickle_pending" not in pf.__dict__:
        return pf
    pf = PolymorphicFunction.__new__(PolymorphicFunction)
    # Completed by `_set_polymorphic` once the function's state (which may refer back to pf) is read.
    pf.__dict__["_pickle_pending"] = (token, None if skeleton is None else _empty_function(skeleton))
    return pf


def _set_polymorphic(pf, state: dict):
    pending = pf.__dict__.pop("_pickle_pending", None)
    if pending is None:
        return pf   # the copy this process already had: the state is not needed
    token, fn = pending
    if fn is None:
        fn = state["function"]
    else:
        _fill_function(fn, state["function"])
    pf.__init__(fn, **state["options"])
    pf.__dict__["_pickle_token"] = token
    _remember(token, pf)
    return pf


# ------------------------------------------------------------------ ConcreteFunction

def _values(graph) -> List[Any]:
    """Every value of `graph` in printing order: inputs, then per op its results and regions' args."""
    out = list(graph.inputs)

    def block(b):
        for op in b.ops:
            out.extend(op.results)
            for region in op.regions:
                out.extend(region.args)
                block(region)
    block(graph.body)
    return out


def _graph_payload(graph) -> tuple:
    return (graph.format(), [op.loc for op in graph.walk()], [v.name_hint for v in _values(graph)])


def _graph_from_payload(payload: tuple, what: str):
    from autograph.tracer.core.parser import parse_graph
    text, locations, hints = payload
    graph = parse_graph(text)
    ops = list(graph.walk())
    values = _values(graph)
    if len(ops) != len(locations) or len(values) != len(hints):
        raise UnpicklingError(f"cannot unpickle the ConcreteFunction {what}: its IR text has "
                              f"{len(ops)} ops and {len(values)} values, its tables "
                              f"{len(locations)} and {len(hints)}")
    for op, loc in zip(ops, locations):
        op.loc = loc
    for v, hint in zip(values, hints):
        v.name_hint = hint
    return graph


def _plain_signature(sig):
    """`sig` without annotations (they need not be picklable, and compiled code ignores them)."""
    params = [p.replace(annotation=p.empty) for p in sig.parameters.values()]
    return sig.replace(parameters=params, return_annotation=sig.empty)


def reduce_concrete(cf) -> tuple:
    """`cf.__reduce__()`: the signature and the graph as IR text (see the module docstring)."""
    token = _token(cf)
    raw = getattr(cf, "raw_graph", None)
    state = {
        "name": cf.name,
        "graph": _graph_payload(cf.graph),
        "raw_graph": None if raw is None or raw is cf.graph else _graph_payload(raw),
        "signature": _plain_signature(cf._signature),
        "arg_leaves": [unwrap_leaf(x) for x in cf._arg_leaves],   # WeakLeaf: the object
        "arg_treedef": cf._arg_treedef,
        "output_template": cf._output_template,
        "output_treedef": cf._output_treedef,
        "boundscheck": cf._boundscheck,
        "fastmath": cf._fastmath,
        "captures": cf._captures,
    }
    return (_load_concrete, (token, state))


def _load_concrete(token: str, state: Dict[str, Any]):
    """The ConcreteFunction for `state`: the one this process already has for `token`, else a new one."""
    cf = _loaded(token)
    if cf is not None:
        return cf
    name = state["name"]
    graph = _graph_from_payload(state["graph"], name)
    cf = ConcreteFunction(name, graph, state["signature"], list(state["arg_leaves"]), state["arg_treedef"],
                          list(state["output_template"]), state["output_treedef"],
                          boundscheck=state["boundscheck"], captures=state["captures"],
                          fastmath=state.get("fastmath", False))
    if state["raw_graph"] is not None:
        cf.raw_graph = _graph_from_payload(state["raw_graph"], name)
    cf.__dict__["_pickle_token"] = token
    return _remember(token, cf)


# Module-level functions by reference, closures and lambdas by value, traces not sent
# (reduce_polymorphic); a concrete function as its signature and its graph as IR text
# (reduce_concrete), which the receiver compiles or loads from its disk cache.
copyreg.pickle(PolymorphicFunction, reduce_polymorphic)
copyreg.pickle(ConcreteFunction, reduce_concrete)
