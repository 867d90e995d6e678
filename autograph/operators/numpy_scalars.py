"""NumPy's scalar types called on traced values in converted code:
`np.float64(t)`, `np.int64(x[i])`, `np.float32(acc)`, `np.uint8(v)`,
`np.bool_(t)`, `np.complex128(t)`.

Code written for Numba converts with these where a Python user would write
`float(t)` or `int(t)`. On a traced tensor each is `ag.cast` to that dtype
(of every element, as the NumPy type applied to an array casts the array):
ints wrap, floats truncate toward zero into ints, `np.bool_(t)` is `t != 0`
(tracer/ops/cast.py gives the exact rules). With no traced argument the
NumPy type is called as it is.
"""
from __future__ import annotations

import numpy as np

from . import _tracer
from .numeric_builtins import resolve_op

__all__ = ["OVERLOADS"]

_TYPES = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float32, np.float64, np.complex64, np.complex128)


def _overload(np_type):
    name = np.dtype(np_type).name

    def fn(*args, **kwargs):
        if kwargs or len(args) != 1 or not _tracer.is_traced(args[0]):
            return np_type(*args, **kwargs)
        x = args[0]
        if x.dtype == np.dtype(np_type):
            return x
        return resolve_op("cast")(x, name)
    fn.__name__ = np_type.__name__
    fn.__doc__ = f"`np.{np_type.__name__}(t)`: `t` cast to {name} (ag.cast)."
    return fn


OVERLOADS = {t: _overload(t) for t in _TYPES}
