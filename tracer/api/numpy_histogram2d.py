"""NumPy's `np.histogram2d` on tensors, following NumPy's `histogramdd`
step by step, so counts are NumPy's exactly:

* edges per dimension: the given edge array, or `linspace(lo, hi, bins + 1)`
  over `range` (static: computed by NumPy at trace time) or over the data's
  min and max (widened by 0.5 on each side when equal), in float64;
* each sample's bin per dimension: `searchsorted(edges, v, side="right")`,
  a value equal to the last edge moved into the last bin; bins 0 and n + 1
  hold the values outside the edges;
* one `bincount` of the raveled (x bin, y bin) pairs over (nx + 2) * (ny + 2)
  cells, the outer cells dropped: float64 counts (or sums of `weights`);
  `density=True` divides by the total and by each cell's area.

Returns (H, xedges, yedges). `bins` is an int, a pair of ints, an edge
array or a pair of edge arrays; bin counts must be known at trace time.
"""
from __future__ import annotations

import numbers

import numpy as np

from .common import locate_errors, rank_of
from .elementwise import add, cast, divide, equal, multiply, subtract, where
from .numpy_creation import np_linspace
from .numpy_functions import Unsupported, np_diff, tensor_operand
from .numpy_indexing import np_bincount
from .reduce import reduce_max, reduce_min, reduce_sum
from .shaping import reshape
from .slicing import getitem
from .sorting import searchsorted
from ..core.types import float64, int64

__all__ = ["FUNCTIONS"]


def _edges(v, spec, rng):
    """(edges tensor, number of bins) for one dimension's sample `v` (float64)."""
    if isinstance(spec, numbers.Integral) and not isinstance(spec, bool):
        n = int(spec)
        if n < 1:
            raise ValueError("np.histogram2d: `bins` must be positive, when an integer")
        if rng is not None:
            lo, hi = (float(r) for r in rng)
            if lo > hi:
                raise ValueError("np.histogram2d: max must be larger than min in range parameter.")
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            return tensor_operand("histogram2d", np.linspace(lo, hi, n + 1)), n
        lo, hi = reduce_min(v), reduce_max(v)
        same = equal(lo, hi)
        lo = where(same, subtract(lo, 0.5), lo)
        hi = where(same, add(hi, 0.5), hi)
        return np_linspace(lo, hi, n + 1), n
    edges = tensor_operand("histogram2d", spec if hasattr(spec, "dtype") else np.asarray(spec, float))
    if rank_of(edges) != 1 or edges.shape[0] is None:
        raise Unsupported("bin edges that are not a 1-D array of known length")
    if edges.dtype != float64:
        edges = cast(edges, float64)
    return edges, edges.shape[0] - 1


def _bin_index(v, edges):
    idx = searchsorted(edges, v, side="right")
    on_edge = equal(v, getitem(edges, -1))
    idx = where(on_edge, subtract(idx, 1), idx)   # the last bin is closed
    return idx if idx.dtype == int64 else cast(idx, int64)


@locate_errors
def np_histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """NumPy's `histogram2d`: (H, xedges, yedges) of the points (x[i], y[i])."""
    xs = [tensor_operand("histogram2d", v) for v in (x, y)]
    if any(rank_of(v) != 1 for v in xs):
        raise ValueError("np.histogram2d: x and y must be 1-D arrays")
    if xs[0].shape[0] is not None and xs[1].shape[0] is not None and xs[0].shape[0] != xs[1].shape[0]:
        raise ValueError("np.histogram2d: x and y must have the same length")
    if any(v.dtype.is_complex or v.dtype.is_bool for v in xs):
        raise Unsupported("complex or bool samples")
    xs = [v if v.dtype == float64 else cast(v, float64) for v in xs]
    if isinstance(bins, (list, tuple)) and len(bins) == 2:
        specs = list(bins)
    elif hasattr(bins, "dtype") and rank_of(tensor_operand("histogram2d", bins)) == 2:
        specs = [getitem(tensor_operand("histogram2d", bins), i) for i in (0, 1)]
    else:
        specs = [bins, bins]
    ranges = [None, None] if range is None else list(range)
    if len(ranges) != 2:
        raise ValueError("np.histogram2d: range must be a pair of (min, max) pairs")
    edge_list, counts = [], []
    for v, spec, rng in zip(xs, specs, ranges):
        e, n = _edges(v, spec, rng)
        edge_list.append(e)
        counts.append(n)
    nx, ny = counts
    ix = _bin_index(xs[0], edge_list[0])
    iy = _bin_index(xs[1], edge_list[1])
    flat = add(multiply(ix, ny + 2), iy)
    w = None
    if weights is not None:
        w = tensor_operand("histogram2d", weights)
        w = w if w.dtype == float64 else cast(w, float64)
    h = np_bincount(flat, weights=w, minlength=(nx + 2) * (ny + 2))
    h = reshape(h if h.dtype == float64 else cast(h, float64), [nx + 2, ny + 2])
    h = getitem(h, (slice(1, -1), slice(1, -1)))
    if density:                                    # NumPy's order: by each width, then the total
        total = reduce_sum(h)
        h = divide(h, reshape(np_diff(edge_list[0]), [-1, 1]))
        h = divide(h, reshape(np_diff(edge_list[1]), [1, -1]))
        h = divide(h, total)
    return h, edge_list[0], edge_list[1]


FUNCTIONS = {"histogram2d": np_histogram2d}
