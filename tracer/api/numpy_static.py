"""Arguments that decide a result's shape, known at trace time.

NumPy code passes sizes computed from shapes: `np.split(a, n // 2)` with
`n = a.shape[0]`. In converted code `a.shape[0]` is a traced int32 scalar
(a `constant` op when the dimension is static) and `n // 2` an op on it, so
its value exists at trace time although it is a traced tensor. `known`
computes such a value from the ops' NumPy references (`known_value`, as the
constant-folding pass would), so these arguments work whenever their value
follows from constants; anything depending on run-time data stays a traced
tensor (and the function using it says it needs a trace-time value).
"""
from __future__ import annotations

import numpy as np

from .common import is_tensor_like
from ..tracing.known_values import known_value
from ..tracing.symbolic import SymbolicTensor

__all__ = ["known"]


def known(v):
    """`v` with every traced value computable from constants replaced by its
    NumPy value (a Python scalar for a 0-d one), and eager tensors by their
    values, inside lists and tuples too; other values unchanged."""
    if isinstance(v, (list, tuple)):
        return type(v)(known(i) for i in v)
    if isinstance(v, SymbolicTensor):
        value = getattr(v, "value", None)
        arr = known_value(value, explicit_constants=True) if value is not None else None
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
