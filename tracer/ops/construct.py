"""Construction and shape ops: `range`, `fill`, `shape`.

Their result shapes depend on operand *values*; the type rules make a
dimension static exactly when the operands that decide it are constants
(`consts`), which is always the case eagerly.
"""
from __future__ import annotations

import math
import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.registry import declare
from ..core.types import TensorType, int32, int64
from ._common import check_kind, expect_arity, expect_scalar


# ---------------------------------------------------------------- range

def range_length(start, limit, delta) -> int:
    """Number of elements of range(start, limit, delta): max(0, ceil((limit-start)/delta)).

    Integers are computed exactly; floats in the operands' dtype, as the
    compiled code does. delta == 0 or a non-finite length is an
    InvalidArgumentError.
    """
    start, limit, delta = np.asarray(start), np.asarray(limit), np.asarray(delta)
    if delta == 0:
        raise InvalidArgumentError("range: delta must not be zero")
    if start.dtype.kind in "iu":
        s, lim, d = int(start), int(limit), int(delta)
        return max(0, -((s - lim) // d))        # ceil((lim - s) / d), exactly
    with np.errstate(all="ignore"):
        q = np.ceil((limit - start) / delta)
    if not np.isfinite(q):
        raise InvalidArgumentError(f"range: the length ceil((limit - start) / delta) is not finite "
                                   f"(start={start}, limit={limit}, delta={delta})")
    return max(0, int(q))


def _range_rule(types, attrs, consts):
    expect_arity("range", types, 3)
    for t, what in zip(types, ("start", "limit", "delta")):
        expect_scalar("range", t, what)
    s, lim, d = types
    if not (s.dtype is lim.dtype is d.dtype):
        raise TypeError(f"range: start, limit and delta must have one dtype, got "
                        f"{s.dtype.name}, {lim.dtype.name} and {d.dtype.name}; use ag.cast")
    check_kind("range", "numeric", s.dtype)
    if consts[2] is not None and consts[2] == 0:
        raise InvalidArgumentError("range: delta must not be zero")
    n = None
    if all(c is not None for c in consts):
        n = range_length(*consts)
    return [TensorType(s.dtype, (n,))]


def _range_reference(start, limit, delta):
    n = range_length(start, limit, delta)
    dt = start.dtype
    try:
        steps = np.arange(n, dtype=dt)
    except (ValueError, MemoryError):
        raise InvalidArgumentError(f"range: cannot allocate {n} elements") from None
    # Element i is start + i*delta in the dtype (ints wrap; the true values fit).
    with np.errstate(all="ignore"):
        return start + steps * delta


declare("range", _range_rule, _range_reference,
        doc="range(start, limit, delta) -> [n]: start + i*delta for i < n, n = max(0, ceil((limit-start)/delta))",
        public=("range",))


# ---------------------------------------------------------------- fill

def _fill_rule(types, attrs, consts):
    if not types:
        raise ValueError("fill: expected the dimensions and a value, got no operands")
    dims = []
    for i, (t, c) in enumerate(zip(types[:-1], consts[:-1])):
        expect_scalar("fill", t, f"dimension {i}")
        check_kind("fill", "int", t.dtype, f"dimension {i}")
        d = None if c is None else int(c)
        if d is not None and d < 0:
            raise InvalidArgumentError(f"fill: dimension {i} is negative ({d}); dimensions must be >= 0")
        dims.append(d)
    expect_scalar("fill", types[-1], "the value")
    return [TensorType(types[-1].dtype, tuple(dims))]


def _fill_reference(*operands):
    dims, value = operands[:-1], operands[-1]
    shape = tuple(int(d) for d in dims)
    for i, d in enumerate(shape):
        if d < 0:
            raise InvalidArgumentError(f"fill: dimension {i} is negative ({d}) in shape {shape}")
    try:
        return np.full(shape, value, dtype=value.dtype)
    except (ValueError, MemoryError):
        raise InvalidArgumentError(f"fill: cannot allocate a tensor of shape {shape} "
                                   f"({math.prod(shape)} elements)") from None


declare("fill", _fill_rule, _fill_reference,
        doc="fill(d_0, ..., d_{r-1}, value) -> value's dtype, shape (d_0, ..., d_{r-1})",
        public=("fill",))


# ---------------------------------------------------------------- shape

def _shape_rule(types, attrs, consts):
    expect_arity("shape", types, 1)
    (x,) = types
    out = attrs.get("dtype", int32)
    if out is not int32 and out is not int64:
        raise TypeError(f"shape: the result dtype must be int32 or int64, got {out}")
    if x.shape is None:   # known once the rank is (compiled code is specialised per rank)
        return [TensorType(out, (None,))]
    return [TensorType(out, (len(x.shape),))]


def _shape_reference(x, dtype=int32):
    if dtype is int32 and any(d > _INT32_MAX for d in x.shape):
        k = next(k for k, d in enumerate(x.shape) if d > _INT32_MAX)
        raise InvalidArgumentError(f"shape: dimension {k} has size {x.shape[k]}, which does not fit "
                                   f"in int32; use ag.shape(x, out_type=ag.int64)")
    return np.array(x.shape, dtype=dtype.np_dtype)


_INT32_MAX = 2 ** 31 - 1


declare("shape", _shape_rule, _shape_reference,
        doc="shape[dtype=int32|int64](x) -> dtype[rank]: x's dimensions (int32 never wraps: an "
            "InvalidArgumentError past 2**31 - 1)",
        kind="any", public=("shape",))

