"""Arguments that decide a result's shape, known at trace time.

NumPy code passes sizes computed from shapes: `np.split(a, n // 2)` with
`n = a.shape[0]`. In converted code `a.shape[0]` is a traced int32 scalar
(a `constant` op when the dimension is static) and `n // 2` an op on it, so
its value exists at trace time although it is a traced tensor. `known`
computes such a value from the ops' NumPy references (as the
constant-folding pass would), so these arguments work whenever their value
follows from constants; anything depending on run-time data stays a traced
tensor (and the function using it says it needs a trace-time value).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .common import is_tensor_like
from ..core import registry
from ..core.ir import Op
from ..tracing.symbolic import SymbolicTensor, constant_value

__all__ = ["known"]

_DEPTH = 32          # how many ops back a value may be computed from constants
_MAX_ELEMENTS = 64   # sizes, axes, widths: small values only


def _value_of(v, depth: int) -> Optional[np.ndarray]:
    c = constant_value(v)
    if c is not None:
        return np.asarray(c)
    op = v.owner
    if depth <= 0 or not isinstance(op, Op) or op.regions or len(op.results) != 1:
        return None
    try:
        opdef = registry.get(op.name)
    except KeyError:
        return None
    if opdef.stateful or opdef.reference is None:
        return None
    args = []
    for operand in op.operands:
        a = _value_of(operand, depth - 1)
        if a is None or a.size > _MAX_ELEMENTS:
            return None
        args.append(a)
    try:
        with np.errstate(all="ignore"):
            out = opdef.reference(*args, **op.attrs)
    except Exception:   # (the op fails at run time instead, where it belongs)
        return None
    t = op.result_types[0]
    return np.asarray(out, dtype=t.dtype.np_dtype)


def known(v):
    """`v` with every traced value computable from constants replaced by its
    NumPy value (a Python scalar for a 0-d one), and eager tensors by their
    values, inside lists and tuples too; other values unchanged."""
    if isinstance(v, (list, tuple)):
        return type(v)(known(i) for i in v)
    if isinstance(v, SymbolicTensor):
        value = getattr(v, "value", None)
        arr = _value_of(value, _DEPTH) if value is not None else None
        if arr is None:
            return v
        return arr.item() if arr.ndim == 0 else arr
    # an eager tensor's value is known (a variable's may change before the code runs)
    if is_tensor_like(v) and hasattr(v, "numpy") and not getattr(v, "_ag_variable", False):
        try:
            arr = np.asarray(v.numpy())
        except Exception:
            return v
        return arr.item() if arr.ndim == 0 else arr
    return v
