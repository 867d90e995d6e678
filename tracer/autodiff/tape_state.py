"""What the gradient machinery shares below `GradientTape`: the tapes active in
each thread, how a tape knows a value (`key_of`), which values carry
gradients, `stop_recording`, the variables behind resources, and the inputs
a region op (`cond`, `while`) is recorded with.

Apart from `tape.py` so that the backward walk (`backprop.py`) and the
control-flow rules (`rules_control.py`), which `tape.py` calls, need not
import `tape.py` back.
"""
from __future__ import annotations

import threading
from typing import Any, List, Tuple

import numpy as np

from ..core.ir import Op, is_resource
from ..tracing.symbolic import SymbolicTensor, current_builder
from .replay import free_values

__all__ = ["tapes", "active_tapes", "key_of", "differentiable", "stop_recording", "eager_tape_active",
           "note_variable", "resource_owner", "free_inputs", "region_inputs"]

_local = threading.local()


def tapes() -> List:
    """This thread's stack of active tapes (made empty on first use)."""
    s = getattr(_local, "tapes", None)
    if s is None:
        s = _local.tapes = []
    return s


def active_tapes():
    """This thread's stack of active tapes, or None when it never had one (no allocation:
    `bind` asks on every op)."""
    return getattr(_local, "tapes", None)


def key_of(x) -> Any:
    """The identity the tapes know `x` by: its IR value when traced, the object
    itself otherwise (None for Python numbers and None, which carry no gradient)."""
    if isinstance(x, SymbolicTensor):
        return x.value
    if x is None or isinstance(x, (bool, int, float, complex, str, bytes)):
        return None
    return id(x)


def differentiable(x) -> bool:
    """Float tensors carry gradients; integers, bools, strings (and, for now,
    complex numbers) do not."""
    d = getattr(x, "dtype", None)
    if d is None:
        return np.asarray(x).dtype.kind == "f"
    if isinstance(d, np.dtype):      # a NumPy array or scalar
        return d.kind == "f"
    return bool(getattr(d, "is_floating", False))


def eager_tape_active() -> bool:
    """True when an eager tape (one opened outside any trace) is recording in this thread."""
    return any(t._builder is None and t._recording for t in active_tapes() or ())


class stop_recording:
    """Context manager: no active tape of this thread records inside it."""

    def __enter__(self):
        self._saved = [(t, t._recording) for t in tapes()]
        for t, _ in self._saved:
            t._recording = False
        return self

    def __exit__(self, *exc):
        for t, was in self._saved:
            t._recording = was


def note_variable(builder, var) -> None:
    """Remember which variable object a resource of `builder`'s graph stands for
    (a variable argument has no entry in `builder.captures`)."""
    owners = builder.__dict__.setdefault("_ag_resource_owners", {})
    owners[var._ag_resource(builder)] = var


def resource_owner(builder, res):
    """The variable object `res` stands for in `builder`'s graph, or None."""
    var = builder.captured_variable(res)
    if var is None:
        var = builder.__dict__.get("_ag_resource_owners", {}).get(res)
    return var


def free_inputs(op: Op, builder) -> Tuple[List, List]:
    """The free values of `op` that can carry gradients, and what stands for each
    (a traced tensor, or the captured variable of a resource)."""
    values, inputs = [], []
    for v in free_values(op):
        if is_resource(v.type):
            var = resource_owner(builder, v)
            if var is None:
                raise NotImplementedError(
                    "gradient: a variable used inside a compiled branch or loop could not be "
                    "identified")
            values.append(v)
            inputs.append(var)
        else:
            values.append(v)
            inputs.append(builder.wrap(v))
    return values, inputs


def region_inputs(op: Op) -> list:
    """The inputs a tape records for the region op `op`: its operands and the values
    its regions use from outside (`rules_control.py`'s docstring)."""
    builder = current_builder()
    _, free = free_inputs(op, builder)
    return [builder.wrap(v) for v in op.operands] + free
