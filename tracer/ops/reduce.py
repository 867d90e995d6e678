"""Reductions: reduce_sum/mean/max/min/prod over numbers, reduce_any/all over bools.

Attributes: `axis` is None (every axis) or a tuple of sorted, distinct,
non-negative ints (the public functions normalise what users write);
`keepdims` is a bool. The result keeps x's dtype: integer sums and products
wrap in that dtype, integer means truncate toward zero, an empty max/min is
the identity (-inf/+inf or the dtype's MIN/MAX), an empty float mean is NaN
and an empty integer mean is an InvalidArgumentError (unless the result itself
is empty, so that no mean is computed).
"""
from __future__ import annotations

import math

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.registry import declare
from ..core.types import TensorType
from ._common import check_kind, expect_arity, quiet


def check_axis_attr(op: str, axis, rank):
    """Validate the `axis` attribute against a (possibly unknown) rank."""
    if axis is None:
        return
    if not isinstance(axis, tuple) or not all(type(a) is int for a in axis):
        raise ValueError(f"{op}: the axis attribute must be None or a tuple of ints, got {axis!r}")
    if list(axis) != sorted(set(axis)) or any(a < 0 for a in axis):
        raise ValueError(f"{op}: the axis attribute must be sorted, distinct and non-negative, "
                         f"got {axis!r}")
    if rank is not None and axis and axis[-1] >= rank:
        raise ValueError(f"{op}: axis {axis[-1]} is out of range for a tensor of rank {rank}")


def reduced_shape(shape, axis, keepdims):
    """The shape left after reducing `axis` of `shape` (None rank stays None)."""
    if shape is None:
        return () if axis is None and not keepdims else None
    axes = range(len(shape)) if axis is None else axis
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def reduction_rule(op: str, kind: str):
    """Type rule of a reduction over operands of `kind`."""
    def rule(types, attrs, consts):
        expect_arity(op, types, 1)
        (x,) = types
        check_kind(op, kind, x.dtype)
        axis = attrs.get("axis")
        keepdims = attrs.get("keepdims", False)
        check_axis_attr(op, axis, x.rank)
        if not isinstance(keepdims, bool):
            raise ValueError(f"{op}: keepdims must be a bool, got {keepdims!r}")
        return [TensorType(x.dtype, reduced_shape(x.shape, axis, keepdims))]
    return rule


def _count(x, axis) -> int:
    if axis is None:
        return x.size
    return math.prod(x.shape[a] for a in axis)


@quiet
def _sum(x, *, axis=None, keepdims=False):
    # dtype= keeps integer sums in their dtype (NumPy would widen int32 to int64).
    return np.asarray(np.sum(x, axis=axis, dtype=x.dtype, keepdims=keepdims))


@quiet
def _prod(x, *, axis=None, keepdims=False):
    return np.asarray(np.prod(x, axis=axis, dtype=x.dtype, keepdims=keepdims))


@quiet
def _mean(x, *, axis=None, keepdims=False):
    n = _count(x, axis)
    s = np.asarray(np.sum(x, axis=axis, dtype=x.dtype, keepdims=keepdims))
    if x.dtype.kind == "f":
        return np.asarray(s / x.dtype.type(n), dtype=x.dtype)   # 0/0 -> nan
    if n == 0 and s.size:
        # Only a mean actually computed fails: an empty result computes none.
        raise InvalidArgumentError("reduce_mean: the mean of an empty integer tensor is undefined")
    # Truncate toward zero (C/TensorFlow), not floor: q = floor(s/n), +1 when s<0 and inexact.
    s64 = s.astype(np.int64)
    q = s64 // n
    q = q + ((s64 < 0) & (q * n != s64))
    return q.astype(x.dtype)


def _extreme(ufunc, identity_of):
    @quiet
    def ref(x, *, axis=None, keepdims=False):
        # initial= makes an empty reduction give the identity instead of raising.
        return np.asarray(ufunc.reduce(x, axis=axis, keepdims=keepdims, initial=identity_of(x.dtype)))
    return ref


def _lowest(d):
    return -np.inf if d.kind == "f" else np.iinfo(d).min


def _highest(d):
    return np.inf if d.kind == "f" else np.iinfo(d).max


def _any(x, *, axis=None, keepdims=False):
    return np.asarray(np.any(x, axis=axis, keepdims=keepdims))


def _all(x, *, axis=None, keepdims=False):
    return np.asarray(np.all(x, axis=axis, keepdims=keepdims))


_REDUCTIONS = [
    ("reduce_sum", "numeric", _sum, "sum; ints wrap"),
    ("reduce_mean", "numeric", _mean, "mean; ints truncate toward zero"),
    ("reduce_max", "numeric", _extreme(np.maximum, _lowest), "max; empty gives -inf / MIN"),
    ("reduce_min", "numeric", _extreme(np.minimum, _highest), "min; empty gives +inf / MAX"),
    ("reduce_prod", "numeric", _prod, "product; ints wrap"),
    ("reduce_any", "bool", _any, "logical or"),
    ("reduce_all", "bool", _all, "logical and"),
]

for _name, _kind, _ref, _doc in _REDUCTIONS:
    declare(_name, reduction_rule(_name, _kind), _ref,
            doc=f"{_name}[axis=None|(int,...), keepdims=bool](x) -> x's dtype: {_doc}")

REDUCTION_OPS = tuple(n for n, *_ in _REDUCTIONS)
