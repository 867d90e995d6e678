"""The warm start: a fresh process runs a cached function's first call
without converting or tracing it.

The disk cache (`autograph.codegen.jit.disk_cache`) is keyed by the traced
IR, so that it can never serve code for changed source; but then every
process converts and traces before it can look. This module adds a second
level in the same directory, the *call index*: signed records (`side_cache`,
kind `call-index`) mapping

    SHA-256 of (index format; the disk cache key's fixed part: library
    version, code generator digest, LLVM, host; a digest of the rest of the
    library's source files (size and modification time, as Python's own
    bytecode cache checks them); NumPy and Python versions; the function's
    fingerprint (`autograph.runtime.fingerprint`); its name and options;
    the call: number of positional arguments, each one's dtype and shape or
    exact Python value)

to the IR key of the kernel's entry plus what is needed to call it without
the graph: the kernel's input and output types, the bound arguments of the
trace (a spec per tensor, the baked Python values and defaults) and the
result's structure. A call that finds its record loads the entry
(`compile.load_kernel`) and binds the same native entry the fast path would
have learned after a trace (`fastpath.learn`), so this call and later ones
run as they would after a trace.

When the index is used (`call`): a PolymorphicFunction's call on the slow
path, with positional arguments only, each an exact ndarray, `ag.Tensor`,
NumPy scalar or Python scalar; no `input_signature`, no
`reduce_retracing`; the disk cache and the fast path on; the function's
code not traced yet in this process (so within a process, where the trace
caches make tracing cheap, `tracing_count` and every other observable stay
exactly as without the index); and the function hermetic (its fingerprint
exists). Everything else, and every miss or failed check, takes the normal
path.

When a record is written (`record`, after the normal path ran a trace): the
trace's fingerprint was taken just before it (`before_trace`), the fast path
made a native entry for the call, the kernel came from an IR key, and the
graph has no variables (inputs or captures) and no random ops (their seeds
come from Python state at trace time).

A warm start counts as the trace it replaces (`tracing_count` grows by one),
so `tracing_count` is the same whether a process traced or found the code
on disk: a user's test asserting it, or an example printing it, gives the
same answer on a cold and on a warm cache. When something later needs the
graph (`get_concrete_function`, `cf.graph`, a gradient, a keyword call, a
call the loaded entry does not take), that signature is traced for real,
without counting again (`replays`), and reuses the loaded code, found by its
IR key (`compile._LOADED`). Whether conversion or tracing ran shows in
`STATS` and in the log (AUTOGRAPH_VERBOSITY=1 names each warm start).

Why only hermetic functions: a trace runs the user's Python, and skipping it
skips whatever that Python does (a `print` in the body, reading a clock or a
random generator, creating a variable). A function whose fingerprint exists
has none of that, so the same fingerprint and call give the same graph.
"""
from __future__ import annotations

import json
import logging
import os
import sys
import hashlib
import types
import weakref
from typing import Any, Dict, Optional, Tuple

import numpy as np

from autograph.tracer.core import forksafe, nest
from autograph.tracer.core.logs import RETRACE

from .plan import CallPlan, OutputSlot
from .signature import PY_SCALARS
from .spec import TensorSpec

__all__ = ["call", "before_trace", "after_trace", "record", "replays", "STATS", "INDEX_FORMAT"]

log = logging.getLogger("autograph.cache")

INDEX_FORMAT = 1
_KIND = "call-index"
# hits: first calls served from the index; misses: lookups without a usable record;
# stores: records written; refused: records read back that failed a check.
STATS: Dict[str, int] = {"hits": 0, "misses": 0, "stores": 0, "refused": 0}

# Code objects traced in this process: the index is not consulted for them any more.
_TRACED: "weakref.WeakSet" = weakref.WeakSet()
_library_digest: Optional[str] = None


# --------------------------------------------------------------------------- keys


def _digest_library() -> str:
    """(path, size, mtime) of every Python file of autograph's packages other than
    codegen (whose content digest is in the disk cache key already)."""
    global _library_digest
    if _library_digest is None:
        tracer = os.path.dirname(os.path.dirname(os.path.abspath(forksafe.__file__)))   # tracer/core/..
        # The facade (autograph/: converter, operators, ...) by a sys.modules lookup: runtime does
        # not import the facade, which imports runtime and is always loaded before a call.
        facade = getattr(sys.modules.get("autograph"), "__file__", None)
        h = hashlib.sha256()
        for directory in (facade and os.path.dirname(os.path.abspath(facade)),
                          os.path.dirname(os.path.abspath(__file__)), tracer):
            if directory is None:
                h.update(b"no facade\0")
                continue
            _walk(directory, h)
        _library_digest = h.hexdigest()
    return _library_digest


def _walk(directory: str, h) -> None:
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        h.update(f"unreadable {directory}\0".encode())
        return
    for e in entries:
        if e.name.endswith(".py"):
            try:
                st = e.stat()
            except OSError:
                continue
            h.update(f"{e.path} {st.st_size} {st.st_mtime_ns}\0".encode("utf-8", "surrogatepass"))
        elif e.name != "__pycache__" and e.is_dir(follow_symlinks=False):
            _walk(e.path, h)


def _value_token(v) -> str:
    """An exact spelling of a Python scalar (type and value; -0.0 and 0.0 differ)."""
    t = type(v)
    if t is float:
        return f"float:{v.hex()}"
    if t is complex:
        return f"complex:{v.real.hex()},{v.imag.hex()}"
    return f"{t.__name__}:{v!r}"


def _call_tokens(args) -> Optional[Tuple[str, ...]]:
    """One token per positional argument (dtype and shape, or the exact Python value),
    or None when an argument is of a kind the index does not take."""
    from autograph.tracer.core.types import as_dtype

    from .tensor import Tensor
    out = []
    for x in args:
        t = type(x)
        if t in PY_SCALARS:
            out.append("P:" + _value_token(x))
            continue
        if t is Tensor:
            x = x._array
        elif not (t is np.ndarray or isinstance(x, np.generic)):
            return None
        try:
            dtype = as_dtype(x.dtype)
        except TypeError:
            return None
        out.append(f"T:{dtype.name}:{tuple(x.shape)}")
    return tuple(out)


def _plan_tokens(plan: CallPlan, nargs: int) -> Optional[Tuple[str, ...]]:
    out = []
    for leaf in plan.arg_leaves[:nargs]:
        if isinstance(leaf, TensorSpec):
            out.append(f"T:{leaf.dtype.name}:{leaf.shape}")
        elif type(leaf) in PY_SCALARS:
            out.append("P:" + _value_token(leaf))
        else:
            return None
    return tuple(out)


def _index_key(pf, fingerprint: str, tokens: Tuple[str, ...]) -> Optional[str]:
    from autograph.codegen.jit import disk_cache
    statics = disk_cache._static_part(start_llvm=False)
    if statics is None:   # no host record yet: this process would have to start LLVM to know
        return None
    h = hashlib.sha256()
    for part in (f"autograph call index {INDEX_FORMAT}", statics, f"library files {_digest_library()}",
                 f"numpy {np.__version__}", f"python {sys.version} {sys.implementation.cache_tag}",
                 f"function {fingerprint}", f"name {pf._name}",
                 f"options autograph={bool(pf._autograph)} boundscheck={bool(pf._boundscheck)} "
                 f"fastmath={bool(pf._fastmath)}",
                 "call " + "\x1f".join(tokens)):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


# --------------------------------------------------------------------------- state


class _State:
    """What one PolymorphicFunction knows about the index: the calls looked up (by
    their tokens: the entry found, or None) and the fingerprints of its traces."""

    __slots__ = ("looked_up", "counted", "replayed", "fingerprints", "recorded")

    def __init__(self) -> None:
        self.looked_up: Dict[Tuple[str, ...], Any] = {}
        self.counted: set = set()      # tokens of the calls a warm start counted as a trace
        self.replayed: set = set()     # their dispatcher keys, until a real trace replays one
        self.fingerprints: "weakref.WeakKeyDictionary[CallPlan, str]" = weakref.WeakKeyDictionary()
        self.recorded: "weakref.WeakKeyDictionary[CallPlan, set]" = weakref.WeakKeyDictionary()


def _state(pf) -> _State:
    st = pf.__dict__.get("_warm_state")
    if st is None:
        st = pf.__dict__.setdefault("_warm_state", _State())
    return st


def _code_of(pf):
    fn = pf._python_function
    return fn.__code__ if isinstance(fn, types.FunctionType) else None


def _usable(pf) -> bool:
    """The function's options and the process settings allow the index."""
    if pf._input_signature is not None or pf._reduce_retracing:
        return False
    from autograph.codegen.jit import disk_cache

    from . import fastpath
    return fastpath._enabled and disk_cache.enabled()


# --------------------------------------------------------------------------- the hit path


def call(pf, args) -> Any:
    """Run `pf(*args)` from the index without converting or tracing, or return
    NotImplemented (the caller then takes the normal path)."""
    if pf.__dict__.get("_warm_traced"):   # the quick test first: this runs on every slow call
        return NotImplemented
    code = _code_of(pf)
    if code is None or code in _TRACED or not _usable(pf):
        return NotImplemented
    tokens = _call_tokens(args)
    if tokens is None:
        return NotImplemented
    st = _state(pf)
    builtin = st.looked_up.get(tokens, _UNSEEN)
    if builtin is _UNSEEN:
        with forksafe.lock_of(pf, "_trace_lock"):
            if tokens not in st.looked_up:
                st.looked_up[tokens] = _lookup(pf, tokens, args)
            builtin = st.looked_up[tokens]
    if builtin is None:
        return NotImplemented
    r = builtin(*args)
    if r is NotImplemented:   # e.g. another thread is tracing: the normal path takes this call
        return r
    recent = pf._fast.recent
    if not (recent and recent[0] is builtin):   # first, as fastpath.try_entries would put it
        from .fastpath import MAX_ENTRIES
        pf._fast.recent = [builtin] + [e for e in recent if e is not builtin][:MAX_ENTRIES - 1]
    pf._native_call = pf._fast.recent[0]
    if tokens not in st.counted:
        st.counted.add(tokens)
        _count_as_trace(pf, args)
    return r


_UNSEEN = object()


def _count_as_trace(pf, args) -> None:
    """A warm start stands for the trace it replaces: `tracing_count` grows by one, and
    a later real trace of the same signature (when the graph is needed) does not count
    again (`replays`). So a function's `tracing_count` is the same whether its process
    found the code on disk or traced it."""
    from .signature import bind_arguments, call_key
    bound = bind_arguments(pf._signature, args, {}, pf._name)
    leaves, treedef = nest.flatten(tuple(bound.arguments.values()))
    _state(pf).replayed.add(call_key(leaves, treedef))
    pf.tracing_count += 1


def replays(pf, leaves, treedef) -> bool:
    """Whether a trace of `pf` for these (flattened, bound) arguments replays a
    signature a warm start already counted (once: a later retrace counts)."""
    st = pf.__dict__.get("_warm_state")
    if st is None or not st.replayed:
        return False
    from .signature import call_key
    key = call_key(leaves, treedef)
    if key in st.replayed:
        st.replayed.discard(key)
        return True
    return False


def _lookup(pf, tokens, args):
    """The native entry for this call from the index, or None (a miss: logged at debug level)."""
    from . import fingerprint as fingerprints
    fp = fingerprints.fingerprint(pf._python_function)
    if fp is None:
        return None
    key = _index_key(pf, fp, tokens)
    if key is None:
        return None
    from autograph.codegen.jit import side_cache
    payload = side_cache.read(_KIND, key)
    if payload is None:
        STATS["misses"] += 1
        return None
    try:
        meta = json.loads(payload.decode("utf-8"))
        builtin = _bind(pf, meta, key, len(args))
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, UnicodeDecodeError) as exc:
        STATS["refused"] += 1
        STATS["misses"] += 1
        log.warning("ignoring call-index record %s for %s: %s", key[:16], pf._name, exc)
        return None
    if builtin is None:
        STATS["misses"] += 1
        return None
    STATS["hits"] += 1
    if log.isEnabledFor(RETRACE):   # AUTOGRAPH_VERBOSITY >= 1: says why no trace is logged
        log.info("loaded %s for (%s) through the warm-start index: no conversion, no trace", pf._name,
                 ", ".join(t.split(":", 1)[1] for t in tokens))
    return builtin


def _bind(pf, meta: dict, key: str, nargs: int):
    from autograph.codegen.jit.compile import load_kernel
    from autograph.tracer.core.ir import Graph, Value
    from autograph.tracer.core.types import as_dtype, parse_tensor_type

    from . import fastpath
    if meta.get("format") != INDEX_FORMAT or meta.get("key") != key or meta.get("nargs") != nargs:
        raise ValueError("format, key or argument count differ")
    ir_key = meta["ir_key"]
    if not (isinstance(ir_key, str) and len(ir_key) == 64 and all(c in "0123456789abcdef" for c in ir_key)):
        raise ValueError("bad IR key")
    name = str(meta["name"])
    interface = Graph(name)
    for type_text, hint in meta["inputs"]:
        interface.body.add_arg(parse_tensor_type(type_text), hint)
    interface.body.results = [Value(parse_tensor_type(t)) for t in meta["outputs"]]
    leaves = []
    for a in meta["args"]:
        if "spec" in a:
            dtype, shape, spec_name = a["spec"]
            leaves.append(TensorSpec(shape, as_dtype(dtype), spec_name))
        else:
            leaves.append(_decode(a["value"]))
    params = list(pf._signature.parameters)
    if len(leaves) != len(params):
        raise ValueError("the record's arguments do not fit the function's parameters")
    template = [OutputSlot(int(x["slot"])) if "slot" in x else _decode(x["value"]) for x in meta["template"]]
    specs = tuple(x for x in leaves if isinstance(x, TensorSpec))
    plan = CallPlan(name, pf._signature, tuple(leaves), (tuple, (None,) * len(leaves)), specs, (),
                    tuple(template), _decode_tree(meta["treedef"]))
    kernel = load_kernel(ir_key, interface, name, bool(pf._boundscheck), bool(pf._fastmath))
    if kernel is None:
        return None
    fastpath.learn(pf._fast, _Loaded(plan, kernel), [None] * nargs)
    return pf._fast.tried.get(plan, {}).get(nargs)


class _Loaded:
    """What `fastpath.learn` reads of a ConcreteFunction: its call plan and kernel."""

    __slots__ = ("call_plan", "kernel")

    def __init__(self, call_plan: CallPlan, kernel) -> None:
        self.call_plan = call_plan
        self.kernel = kernel


# --------------------------------------------------------------------------- the record path


def before_trace(pf) -> Optional[str]:
    """Called by a trace of `pf` before it runs: marks its code traced in this
    process and returns its fingerprint as the trace will see it (None when
    the index does not apply)."""
    code = _code_of(pf)
    if code is None:
        return None
    _TRACED.add(code)
    pf.__dict__["_warm_traced"] = True
    if not _usable(pf):
        return None
    from . import fingerprint as fingerprints
    return fingerprints.fingerprint(pf._python_function)


def after_trace(pf, cf, fp: Optional[str]) -> None:
    """Remember the fingerprint `fp` taken before the trace that made `cf`."""
    if fp is not None:
        _state(pf).fingerprints[cf.call_plan] = fp


def record(pf, cf, args) -> None:
    """After the normal path ran `cf` for positional `args`: write the index
    record of this call, once, when it qualifies (see the module docstring)."""
    st = pf.__dict__.get("_warm_state")
    if st is None:
        return
    plan = cf.call_plan
    fp = st.fingerprints.get(plan)
    nargs = len(args)
    done = st.recorded.setdefault(plan, set())
    if fp is None or nargs in done:
        return
    done.add(nargs)
    try:
        meta = _describe(pf, cf, args)
        key = None if meta is None else _index_key(pf, fp, _call_tokens(args))
        if key is None:
            return
        meta["key"] = key
        from autograph.codegen.jit import side_cache
        if side_cache.write(_KIND, key, json.dumps(meta, separators=(",", ":")).encode("utf-8")):
            STATS["stores"] += 1
    except Exception:   # never fail a call that already ran
        log.debug("no call-index record for %s", pf._name, exc_info=True)


def _describe(pf, cf, args) -> Optional[dict]:
    """The record's metadata for calling `cf` with `args`, or None when it does not qualify."""
    from autograph.codegen.jit.compile import KERNEL_STATE_OPS
    from autograph.tracer.core.ir import is_resource
    plan = cf.call_plan
    nargs = len(args)
    if not _usable(pf) or plan.capture_buffers or pf._fast.tried.get(plan, {}).get(nargs) is None:
        return None
    tokens = _call_tokens(args)
    if tokens is None or tokens != _plan_tokens(plan, nargs):
        return None   # e.g. 0.0 traced, -0.0 called: the trace is not this call's own
    graph = cf.graph
    if any(is_resource(v.type) for v in list(graph.inputs) + list(graph.outputs)):
        return None
    if any(op.name in KERNEL_STATE_OPS for op in graph.walk()):
        return None
    ir_key = getattr(cf.kernel, "cache_key", None)
    if ir_key is None:
        return None
    args_meta = []
    for leaf in plan.arg_leaves:
        if isinstance(leaf, TensorSpec):
            if getattr(leaf, "_ag_variable_spec", False) or leaf.shape is None:
                return None
            args_meta.append({"spec": [leaf.dtype.name, list(leaf.shape), leaf.name]})
        elif type(leaf) in PY_SCALARS:
            args_meta.append({"value": _encode(leaf)})
        else:
            return None
    template = []
    for x in plan.output_template:
        if isinstance(x, OutputSlot):
            template.append({"slot": x.index})
        elif type(x) in PY_SCALARS:
            template.append({"value": _encode(x)})
        else:
            return None
    treedef = _encode_tree(plan.output_treedef)
    return {"format": INDEX_FORMAT, "ir_key": ir_key, "name": cf.name, "nargs": nargs,
            "inputs": [[str(v.type), v.name_hint] for v in graph.inputs],
            "outputs": [str(v.type) for v in graph.outputs], "args": args_meta,
            "template": template, "treedef": treedef}


# --------------------------------------------------------------------------- JSON spellings


def _encode(v) -> list:
    t = type(v)
    if v is None:
        return ["none"]
    if t is float:
        return ["float", v.hex()]
    if t is complex:
        return ["complex", v.real.hex(), v.imag.hex()]
    if t is bytes:
        return ["bytes", v.hex()]
    if t in (bool, int, str):
        return [t.__name__, v if t is not int else str(v)]
    raise TypeError(f"cannot record a {t.__name__}")


def _decode(e: list):
    kind = e[0]
    if kind == "none":
        return None
    if kind == "float":
        return float.fromhex(e[1])
    if kind == "complex":
        return complex(float.fromhex(e[1]), float.fromhex(e[2]))
    if kind == "bytes":
        return bytes.fromhex(e[1])
    if kind == "int":
        return int(e[1])
    if kind == "bool" and type(e[1]) is bool:
        return e[1]
    if kind == "str" and type(e[1]) is str:
        return e[1]
    raise ValueError(f"bad value {e!r}")


_SEQUENCES = {"tuple": tuple, "list": list}


def _encode_tree(t):
    """A result treedef as JSON: None (a leaf), tuples, lists and dicts with str keys."""
    if t is None:
        return None
    if t[0] in (tuple, list):
        return {"seq": t[0].__name__, "items": [_encode_tree(c) for c in t[1]]}
    if t[0] == "dict" and t[1] is dict and all(type(k) is str for k in t[2]):
        return {"dict": list(t[2]), "items": [_encode_tree(c) for c in t[3]], "order": list(t[4])}
    raise TypeError("a result structure the index does not record")


def _decode_tree(e):
    if e is None:
        return None
    if "seq" in e:
        return (_SEQUENCES[e["seq"]], tuple(_decode_tree(c) for c in e["items"]))
    keys = tuple(str(k) for k in e["dict"])
    order = nest._InsertionOrder(int(i) for i in e["order"])
    return ("dict", dict, keys, tuple(_decode_tree(c) for c in e["items"]), order)

