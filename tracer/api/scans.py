"""Public index reductions and scans: argmax, argmin, cumsum.

As in TensorFlow, `argmax`/`argmin` reduce one axis (axis=None means 0) and
give int64 indices (or `output_type=int32`); the first extreme element wins,
and a NaN counts as the extreme (NumPy's rule). `cumsum` keeps the input's
dtype (integer sums wrap).
"""
from __future__ import annotations

from .common import locate_errors, prepare, rank_of
from .public import implements
from .shaping import _one_axis
from ..tracing.symbolic import bind
from ..core.types import as_dtype, int64

__all__ = ["argmax", "argmin", "cumsum"]


def _arg(op: str, input, axis, output_type):
    (x,) = prepare(op, input)
    out = as_dtype(output_type)
    if out.name not in ("int32", "int64"):
        raise TypeError(f"{op}: output_type must be int32 or int64, got {out.name}")
    rank = rank_of(x)
    if rank == 0:
        raise ValueError(f"{op}: expected a tensor of rank >= 1, got a scalar")
    axis = _one_axis(op, 0 if axis is None else axis, rank)
    return bind(op, x, axis=axis, output_type=out)


@implements("argmax")
@locate_errors
def argmax(input, axis=None, output_type=int64, name=None):
    """Index of the largest value along `axis` (0 when None), as int64.

    Ties give the first index; a NaN is taken as the largest value. An empty
    axis raises InvalidArgumentError (unless the result is empty too).
    """
    return _arg("argmax", input, axis, output_type)


@implements("argmin")
@locate_errors
def argmin(input, axis=None, output_type=int64, name=None):
    """Index of the smallest value along `axis` (0 when None), as int64.

    Ties give the first index; a NaN is taken as the smallest value. An empty
    axis raises InvalidArgumentError (unless the result is empty too).
    """
    return _arg("argmin", input, axis, output_type)


@implements("cumsum")
@locate_errors
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sum along `axis`, in `x`'s dtype, summed strictly in order.

    `exclusive=True` leaves out each element itself (the first result is 0);
    `reverse=True` sums from the end of the axis.
    """
    (x,) = prepare("cumsum", x)
    rank = rank_of(x)
    if rank == 0:
        raise ValueError("cumsum: expected a tensor of rank >= 1, got a scalar")
    return bind("cumsum", x, axis=_one_axis("cumsum", axis, rank),
                exclusive=bool(exclusive), reverse=bool(reverse))
