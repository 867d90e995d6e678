"""The fast path of calls that hit the trace cache.

A `PolymorphicFunction` call with positional arguments first tries the
native entry (`autograph.codegen.entry.emit`) of the signature it ran last, kept in the
instance's `_native_call` slot: a builtin that checks the arguments itself
(exact types, dtypes, ranks, static dims, the Python values the trace baked
in), runs the kernel and returns the results as `ag.Tensor`s, or returns
NotImplemented when the call is not its own. Once any kernel with an entry
is loaded, the classes' `__call__` is native too (`autograph.codegen.entry.dispatch`), so a
hit runs no Python code at all. Only on a miss does Python run
(`_call_python`): the other recent entries are tried (most recent first, up
to `MAX_ENTRIES`), then the slow path (binding, the full cache key,
tracing, retrace logging), which afterwards teaches the function the entry
of what it just ran (`learn`). Entries count the calls they run, so the
retracing warning sees every call (`native_calls`).
AUTOGRAPH_DISABLE_FASTPATH=1 turns learning off (`set_enabled`).

Exactness: an entry accepts a call only if the slow path would pick the same
ConcreteFunction with the same arrays, so the fast path changes no result.
An entry is made for a ConcreteFunction and a number of positional
arguments when

* the function's parameters are all plain (no `*args`/`**kwargs`), the
  parameters after the given ones have Python scalar defaults (baked into
  the trace, and fixed), and the trace's arguments are flat (no nesting);
* each given argument is a tensor, a variable or a Python scalar (`bool`,
  `int`, `float`, `str`, `bytes`, None; checked by exact type and `==`, as
  the trace cache's key does) -- never an arbitrary object, whose key is its
  identity;
* without `reduce_retracing`, or with it when every input shape is static: a
  relaxed trace (with `None` dims) covers keys that the slow path may send to
  another trace, depending on the order of earlier calls, so those calls keep
  the slow path;
* with an `input_signature`, the arguments are exactly the signature's
  tensors (anything needing a conversion misses and takes the slow path).

Every entry also steps aside while any thread is tracing (`autograph.tracer.tracing.symbolic.
ACTIVE_TRACES`), so a call inside a trace is inlined as before. Captured
variables are passed by their buffers' data pointers from the table.

`ConcreteFunction.__call__` uses the same machinery with one entry: the
tensors-only call (one tensor per traced input, in order).
"""
from __future__ import annotations

import inspect
import logging
import os
import threading
from typing import Optional

import numpy as np

from autograph.codegen.entry.emit import MODE_CALL, MODE_CONST, MODE_SINGLE, MODE_TUPLE
from autograph.codegen.entry.native import NativeEntry, layout, slot_offset
from autograph.tracer.core import nest
from autograph.tracer.core.ir import is_resource
from autograph.tracer.tracing.symbolic import ACTIVE_TRACES

from .signature import _PY_SCALARS
from .spec import TensorSpec

__all__ = ["set_enabled", "learn", "learn_concrete", "try_entries", "native_calls", "MAX_ENTRIES"]

log = logging.getLogger("autograph")

MAX_ENTRIES = 8
_UNSET = object()

# AUTOGRAPH_DISABLE_FASTPATH=1 (or set_enabled(False)): functions learn no entries, so
# every call takes the slow path (for debugging, and for tests comparing the two).
_enabled = os.environ.get("AUTOGRAPH_DISABLE_FASTPATH", "") not in ("1", "true", "yes")


def set_enabled(on: bool) -> bool:
    """Turn learning native entries on or off (from now on); returns the previous
    setting. Entries already learned stay in use."""
    global _enabled
    previous, _enabled = _enabled, bool(on)
    return previous


class _Facts:
    """Offsets of the runtime's own classes, probed once (None: no fast path)."""

    def __init__(self) -> None:
        from .tensor import Tensor
        from .variable import Variable

        self.ok = False
        if not layout().ok:
            return
        t = Tensor._from_array(np.zeros(()))
        v = Variable(np.zeros(2, np.float32))
        self.tensor_type, self.tensor_offset = Tensor, slot_offset(t, "_array")
        self.variable_type, self.variable_offset = Variable, slot_offset(v, "_buffer")
        self.ok = self.tensor_offset > 0 and self.variable_offset > 0


_facts: Optional[_Facts] = None
_facts_lock = threading.Lock()


def _get_facts() -> _Facts:
    global _facts
    if _facts is None:
        with _facts_lock:
            if _facts is None:
                _facts = _Facts()
    return _facts


# ---------------------------------------------------------------- output structure

def _output_mode(cf):
    """(mode, result object) returning what `ConcreteFunction._run` returns."""
    from .concrete import OutputSlot

    template, out_def = cf._output_template, cf._output_treedef
    slots = [x for x in template if isinstance(x, OutputSlot)]
    n = len(cf.graph.outputs)
    if len(slots) != n or [s.index for s in slots] != list(range(n)):
        return None
    if out_def is None and n == 1 and len(template) == 1:
        return MODE_SINGLE, None
    if out_def is None and n == 0 and len(template) == 1 and template[0] is None:
        return MODE_CONST, None
    if (n > 0 and len(template) == n and isinstance(out_def, tuple) and out_def[0] is tuple
            and out_def[1] == (None,) * n):
        return MODE_TUPLE, None
    if any(x is NotImplemented for x in template):
        return None   # NotImplemented is the entries' "not mine"

    def rebuild(outs, _template=template, _out_def=out_def):
        # Any other structure: as ConcreteFunction._run rebuilds it.
        return nest.unflatten(_out_def, [outs[x.index] if isinstance(x, OutputSlot) else x
                                         for x in _template])
    return MODE_CALL, rebuild


# ---------------------------------------------------------------- building entries

def _bind(cf, nargs: int, sources, checks, trace_check: bool):
    """The builtin for `cf` called with `nargs` arguments, or None."""
    facts = _get_facts()
    if not facts.ok:
        return None
    mode = _output_mode(cf)
    if mode is None:
        return None
    entry = NativeEntry.of(cf.kernel)
    if entry is None:
        return None
    inputs = cf.graph.inputs
    n_user = len(sources)
    if n_user + len(cf._capture_buffers) != len(inputs):
        return None
    fixed = [None] * n_user + list(cf._capture_buffers)
    sources = list(sources) + [-1] * len(cf._capture_buffers)
    for j, buf in enumerate(fixed):
        if buf is not None and not (type(buf) is np.ndarray and buf.flags.c_contiguous
                                    and buf.flags.writeable and buf.flags.aligned):
            return None
    builtin = entry.bind(nargs, sources, fixed, checks, mode[0], mode[1],
                         tensor_type=facts.tensor_type, tensor_offset=facts.tensor_offset,
                         variable_type=facts.variable_type, variable_offset=facts.variable_offset,
                         trace_flag=ACTIVE_TRACES if trace_check else None)
    if not _dispatch_installed:
        _install_dispatchers(cf.kernel)
    return builtin


_dispatch_installed = False


def _install_dispatchers(kernel) -> None:
    """Give PolymorphicFunction and ConcreteFunction the native `__call__` found
    in `kernel`'s code (once per process): it tries the instance's
    `_native_call` entry without a Python frame, else calls `_call_python`."""
    global _dispatch_installed
    from autograph.codegen.entry.dispatch import DISPATCH_SLOT, dispatch_address, install_call

    from .concrete import ConcreteFunction
    from .polymorphic import PolymorphicFunction

    with _facts_lock:
        if _dispatch_installed:
            return
        _dispatch_installed = True   # one attempt: a failed check keeps the Python __call__
        address = dispatch_address(kernel)
        if not address:
            return
        probe = PolymorphicFunction(lambda x: x)
        probe._native_call = object()
        cf = ConcreteFunction.__new__(ConcreteFunction)
        cf._native_call = object()
        if slot_offset(probe, "_native_call") != DISPATCH_SLOT or slot_offset(cf, "_native_call") != DISPATCH_SLOT:
            return
        for cls in (PolymorphicFunction, ConcreteFunction):
            install_call(cls, address)


def _is_variable_spec(spec) -> bool:
    return bool(getattr(spec, "_ag_variable_spec", False))


def _tensor_sources(cf, positions):
    """Argument index per user graph input, checking that variables and
    resource inputs line up; None if they do not."""
    specs = cf._input_specs
    inputs = cf.graph.inputs
    if len(positions) != len(specs):
        return None
    for j, spec in enumerate(specs):
        if _is_variable_spec(spec) != is_resource(inputs[j].type):
            return None
    return list(positions)


def _plain_parameters(sig: inspect.Signature):
    params = list(sig.parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    return params


def _polymorphic_entry(pf, cf, nargs: int):
    """The entry for calls of `pf` with `nargs` positional arguments that run `cf`."""
    params = _plain_parameters(pf._signature)
    if params is None:
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if nargs > len(positional) or any(p.default is p.empty for p in params[nargs:]):
        return None
    leaves = cf._arg_leaves
    if cf._arg_treedef != (tuple, (None,) * len(params)) or len(leaves) != len(params):
        return None
    if pf._input_signature is not None:
        return _signature_entry(pf, cf, nargs, params)
    if pf._reduce_retracing and any(s.shape is None or None in s.shape for s in cf._input_specs):
        return None   # a relaxed trace: which trace a call gets depends on history
    positions, checks = [], []
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, TensorSpec):
            if i >= nargs:
                return None   # a tensor default: not taken from the arguments
            positions.append(i)
        elif type(leaf) in _PY_SCALARS:
            if i < nargs:
                checks.append((i, leaf))
            else:
                default = params[i].default
                if not (type(default) is type(leaf) and (default is leaf or default == leaf)):
                    return None
        else:
            return None   # an object (identity key) or a Python value of another kind
    sources = _tensor_sources(cf, positions)
    if sources is None:
        return None
    return _bind(cf, nargs, sources, checks, trace_check=True)


def _signature_entry(pf, cf, nargs: int, params):
    sig = pf._input_signature
    if nargs != len(sig) or not all(isinstance(s, TensorSpec) for s in sig):
        return None
    if any(isinstance(x, TensorSpec) for x in cf._arg_leaves[len(sig):]):
        return None
    sources = _tensor_sources(cf, list(range(nargs)))
    if sources is None or any(_is_variable_spec(s) for s in cf._input_specs):
        return None
    return _bind(cf, nargs, sources, [], trace_check=True)


# ---------------------------------------------------------------- the Python layer

def learn(pf, cf, args) -> None:
    """After the slow path ran `cf` for positional `args`: make its entry the
    first one `pf` tries (made once per (cf, number of arguments))."""
    if not _enabled:
        return
    nargs = len(args)
    tables = cf.__dict__.setdefault("_poly_entries", {})
    entry = tables.get(nargs, _UNSET)
    if entry is _UNSET:
        try:
            entry = _polymorphic_entry(pf, cf, nargs)
        except Exception:   # never fail a call that already ran: keep the slow path
            log.debug("no native entry for %s", cf.name, exc_info=True)
            entry = None
        tables[nargs] = entry
        if entry is not None:
            pf._fast_tables.append(entry)
    if entry is None:
        return
    entries = pf._entries
    if entries and entries[0] is entry:
        return
    # Rebinding (not mutating) keeps concurrent readers on a consistent list.
    pf._entries = [entry] + [e for e in entries if e is not entry][:MAX_ENTRIES - 1]
    pf._native_call = entry


def try_entries(pf, args):
    """Try `pf`'s other recent entries (the first one was tried by `__call__`)."""
    entries = pf._entries
    for e in entries[1:]:
        r = e(*args)
        if r is not NotImplemented:
            pf._entries = [e] + [x for x in entries if x is not e]
            pf._native_call = e
            return r
    return NotImplemented


def native_calls(pf) -> int:
    """Calls of `pf` run by its native entries (for the retracing statistics)."""
    from autograph.codegen.entry.native import calls
    return sum(calls(e) for e in pf._fast_tables)


def learn_concrete(cf, nargs: int) -> None:
    """After a slow call of `cf` with `nargs` positional arguments: give it the
    entry of tensors-only calls (one argument per traced tensor input), once."""
    if not _enabled or cf.__dict__.get("_direct_entry", _UNSET) is not _UNSET:
        return
    entry = None
    if nargs == len(cf._input_specs):
        try:
            sources = _tensor_sources(cf, list(range(nargs)))
            if sources is not None:
                entry = _bind(cf, nargs, sources, [], trace_check=False)
        except Exception:   # never fail a call that already ran: keep the slow path
            log.debug("no native entry for %s", cf.name, exc_info=True)
            entry = None
    cf._direct_entry = entry
    if entry is not None:
        cf._native_call = entry
