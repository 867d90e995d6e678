"""NumPy's result dtype for the NumPy compositions of several operands.

Autograph's own operations do not promote (operands of different dtypes
raise); a NumPy function such as `np.kron(a, b)` or `np.polyval(p, x)`
computes in NumPy's result dtype. These helpers ask NumPy which dtype that
is (`np.result_type`, or the ufunc's own type resolution) from the operands'
dtypes alone, and cast the operands to it, so the result has NumPy's dtype.
Python numbers stay weak operands (they adopt the tensors' dtype, as in
NumPy 2).
"""
from __future__ import annotations

import numpy as np

from .elementwise import cast
from .numpy_functions import Unsupported, tensor_operand
from ..core.convert import is_python_number
from ..core.types import as_dtype

__all__ = ["promote", "ufunc_operands", "np_dtype_of", "cast_to"]


def np_dtype_of(x) -> np.dtype:
    return np.dtype(as_dtype(x.dtype).np_dtype)


def _probe(v):
    """What NumPy's dtype resolution sees of an operand: a Python number as
    itself (weak), a tensor as an empty array of its dtype."""
    return v if is_python_number(v) else np.zeros(0, np_dtype_of(v))


def cast_to(x, dt: np.dtype):
    """x cast to NumPy dtype `dt` (a Python number left as it is)."""
    if is_python_number(x):
        return x
    if np_dtype_of(x) == dt:
        return x
    try:
        target = as_dtype(dt)
    except (TypeError, ValueError, KeyError):
        raise Unsupported(f"NumPy's result dtype {dt} (not an autograph dtype)") from None
    return cast(x, target)


def promote(op: str, *values, floating: bool = False):
    """`values` as tensors of NumPy's result dtype (Python numbers left weak);
    with `floating`, integers and bools go to float64 as NumPy's float-only
    functions (cov, trapezoid, ...) do."""
    xs = [v if is_python_number(v) else tensor_operand(op, v) for v in values]
    dt = np.result_type(*[_probe(x) for x in xs])
    if floating and dt.kind not in "fc":
        dt = np.dtype(np.float64)
    return [cast_to(x, dt) for x in xs]


def ufunc_operands(ufunc: np.ufunc, op: str, *values):
    """(operands cast to the dtype NumPy's `ufunc` computes in, that dtype)."""
    xs = [v if is_python_number(v) else tensor_operand(op, v) for v in values]
    try:
        dt = np.dtype(ufunc(*[_probe(x) for x in xs]).dtype)
    except TypeError as e:   # NumPy has no loop for these dtypes: its own error
        raise TypeError(f"np.{ufunc.__name__}: {e}") from None
    return [cast_to(x, dt) for x in xs], dt

