"""`np.histogram` on tensors (API.md section 9), following NumPy's algorithm
step by step so that the result is NumPy's, bit for bit:

* `bins` an int: the edges are NumPy's `linspace(first, last, bins + 1)` in
  NumPy's dtype (a's float dtype, float64 for integers), where (first, last)
  is `range`, or a's min and max (widened by 0.5 on each side when equal;
  (0, 1) for an empty a). Each value's bin is NumPy's
  `int((x - first) / (last - first) * bins)`, corrected by one against the
  edges as NumPy does (the last bin is closed: `last` falls in it); values
  outside the range are not counted. A static `range` gives edges computed
  by NumPy itself at trace time; otherwise they are computed when the code
  runs, with NumPy's operations in NumPy's order.
* `bins` a 1-D array of monotonic edges: counts from `searchsorted` on the
  sorted values (NumPy's cumulative form), weights from the cumulative sum
  of the weights sorted by value.

Counts are int64; with `weights`, sums of the weights' dtype (accumulated in
float64 as `np.bincount` does, for int edges), bit-exact for up to 65536
values (NumPy then sums blocks of 65536 separately: beyond, and for
weights with explicit edges where NumPy sorts with an unstable sort, sums
may differ in the last bits). `density=True` divides by the bin widths and
the total, as NumPy; with weights the total is a float sum whose order is
not NumPy's pairwise one (last-bit differences possible).

A `range` of traced values (e.g. computed in the function) must be floats
of one dtype at least as wide as the data's (NumPy's bin dtype is then
that dtype); it is checked when the code runs, with NumPy's messages.

Not supported (TypeError naming np.histogram): bin estimators (`bins` a
string), other traced ranges, complex or bool values.
"""
from __future__ import annotations

import numbers

import numpy as np

from .common import as_operand, is_tensor_like, rank_of
from .numpy_functions import Unsupported
from ..core.types import as_dtype, float64, int64
from ..tracing.symbolic import SymbolicTensor, bind, wrap_eager

__all__ = ["np_histogram", "FUNCTIONS"]

BLOCK = 65536   # NumPy's block size (above it, weighted sums are per block)


def _np_dtype(x) -> np.dtype:
    d = x.dtype
    return np.dtype(d.np_dtype if hasattr(d, "np_dtype") else d)


def _unsigned_subtract(a, b):
    """NumPy's `_unsigned_subtract` of two scalars (the width of an int range
    as the unsigned type, so int16 extremes do not overflow)."""
    dt = np.result_type(a, b)
    unsigned = {np.byte: np.ubyte, np.short: np.ushort, np.intc: np.uintc, np.int_: np.uint,
                np.longlong: np.ulonglong}.get(dt.type)
    if unsigned is None:
        return np.subtract(a, b, dtype=dt)
    return np.subtract(np.asarray(a, dtype=dt), np.asarray(b, dtype=dt), casting="unsafe",
                       dtype=unsigned)


def _const(v, dt):
    return wrap_eager(np.asarray(v, dtype=dt))


def _static_range(a_dt: np.dtype, rng, n: int):
    """(first, last, edges, norm_denom) for a `range` known at trace time, by NumPy's code."""
    first, last = (np.asarray(v)[()] if is_tensor_like(v) else v for v in rng)
    if first > last:
        raise ValueError("max must be larger than min in range parameter.")
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    probe = np.empty(0, a_dt)
    bin_type = np.result_type(first, last, probe)
    if np.issubdtype(bin_type, np.integer):
        bin_type = np.result_type(bin_type, float)
    edges = np.linspace(first, last, n + 1, endpoint=True, dtype=bin_type)
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(f"Too many bins for data range. Cannot create {n} finite-sized bins.")
    return first, last, edges, _unsigned_subtract(last, first)


def _traced_range(a, rng):
    """A `range` holding traced values, as two scalars of one float dtype D
    (a Python number adopts it) that is also NumPy's bin dtype for `a`
    (result_type(D, a) == D), else Unsupported."""
    vals = [v for v in rng if is_tensor_like(v)]
    d = as_dtype(vals[0].dtype)
    if any(as_dtype(v.dtype) is not d for v in vals) or not d.is_floating or \
            np.result_type(d.np_dtype, _np_dtype(a)) != d.np_dtype:
        raise Unsupported("a traced range whose dtype is not one float dtype at least as wide "
                          "as the data's")
    return [v if is_tensor_like(v) else _const(v, d.np_dtype) for v in rng], d


def _runtime_edges(a, n: int, rng=None):
    """(first, last, edges, bin dtype) from a's min and max, or from a range
    of traced values, as NumPy computes them."""
    from .construct import range as ag_range
    from .shaping import size
    from .elementwise import (add, cast, divide, equal, greater, isfinite, logical_and,
                              logical_not, logical_or, multiply, subtract, where)
    from .reduce import reduce_max, reduce_min
    from .shaping import concat
    d = as_dtype(a.dtype)
    if rng is not None:
        (first, last), ft = _traced_range(a, rng)
        bind("check_values", logical_not(greater(first, last)),
             message="max must be larger than min in range parameter.")
        bind("check_values", logical_and(isfinite(first), isfinite(last)), first, last,
             message="supplied range of [{0}, {1}] is not finite")
    else:
        ft = d if d.is_floating else float64
        empty = equal(size(a, out_type=int64), np.int64(0))
        lo, hi = reduce_min(a), reduce_max(a)
        if d.is_floating:
            bind("check_values", logical_or(empty, logical_and(isfinite(lo), isfinite(hi))),
                 lo, hi, message="autodetected range of [{0}, {1}] is not finite")
        first = where(empty, _const(0, ft.np_dtype), cast(lo, ft))     # (0, 1) for an empty a
        last = where(empty, _const(1, ft.np_dtype), cast(hi, ft))
    same = equal(first, last)
    first = where(same, subtract(first, _const(0.5, ft.np_dtype)), first)
    last = where(same, add(last, _const(0.5, ft.np_dtype)), last)
    # np.linspace(first, last, n + 1) in ft: arange * step + first, the last one set to `last`
    delta = subtract(last, first)
    step = divide(delta, _const(n, ft.np_dtype))
    y = ag_range(0, n + 1, dtype=ft)
    y = where(equal(step, _const(0, ft.np_dtype)),
              multiply(divide(y, _const(n, ft.np_dtype)), delta), multiply(y, step))
    y = add(y, first)
    edges = concat([y[:n], bind("expand_dims", last, axis=0)], axis=0)
    from .elementwise import less
    from .reduce import reduce_all
    bind("check_values", reduce_all(less(edges[:-1], edges[1:])),
         message=f"Too many bins for data range. Cannot create {n} finite-sized bins.")
    return first, last, edges, ft


def _bin_sums(idx, n: int, weights):
    """Counts (int64) or weight sums (weights' dtype, summed in float64) of
    bins 0..n-1; index n collects the values outside the range."""
    from .construct import ones_like, zeros
    from .elementwise import cast
    from .fancy_indexing import scatter
    if weights is None:
        return scatter(zeros([n + 1], int64), idx, ones_like(idx), mode="add")[:n]
    sums = scatter(zeros([n + 1], float64), idx, cast(weights, float64), mode="add")[:n]
    return cast(sums, weights.dtype)


def _uniform(a, n: int, rng, weights):
    from .elementwise import (add, cast, divide, greater_equal, less, less_equal, logical_and,
                              maximum, minimum, multiply, not_equal, subtract, where)
    from .shaping import gather
    a_dt = _np_dtype(a)
    if rng is None and a.shape is not None and a.shape[0] == 0:
        rng = (0, 1)
    traced = rng is not None and any(isinstance(v, SymbolicTensor) for v in rng)
    if rng is not None and not traced:
        first, last, edges_np, denom = _static_range(a_dt, rng, n)
        bin_type = as_dtype(edges_np.dtype)
        edges = wrap_eager(edges_np)
        probe = np.empty(0, a_dt)
        cmp_first = np.result_type(probe, first)
        cmp_last = np.result_type(probe, last)
        keep = logical_and(greater_equal(cast(a, as_dtype(cmp_first)), _const(first, cmp_first)),
                           less_equal(cast(a, as_dtype(cmp_last)), _const(last, cmp_last)))
        tmp = cast(a, bin_type)
        sub_dt = np.result_type(np.empty(0, edges_np.dtype), first)
        diff = subtract(cast(tmp, as_dtype(sub_dt)), _const(first, sub_dt))
        div_dt = np.result_type(np.empty(0, sub_dt), denom)
        f = multiply(divide(cast(diff, as_dtype(div_dt)), _const(denom, div_dt)),
                     _const(n, div_dt))
    else:
        first, last, edges, bin_type = _runtime_edges(a, n, rng)
        keep = logical_and(greater_equal(cast(a, bin_type), first),
                           less_equal(cast(a, bin_type), last))
        tmp = cast(a, bin_type)
        f = multiply(divide(subtract(tmp, first), subtract(last, first)),
                     _const(n, bin_type.np_dtype))
    top = np.int64(n - 1)
    clamp = lambda i: minimum(maximum(i, np.int64(0)), top)   # noqa: E731 (values outside: any bin)
    idx = clamp(cast(f, int64))                    # (n itself, `last`, goes to the last bin)
    idx = clamp(subtract(idx, cast(less(tmp, gather(edges, idx)), int64)))
    up = logical_and(greater_equal(tmp, gather(edges, add(idx, np.int64(1)))), not_equal(idx, top))
    idx = add(idx, cast(up, int64))
    idx = where(keep, idx, np.int64(n))
    return _bin_sums(idx, n, weights), edges


def _explicit(a, bins, weights):
    from .elementwise import cast, greater, subtract
    from .reduce import reduce_any
    from .scans import cumsum
    from .shaping import concat, gather
    from .sorting import argsort, searchsorted, sort
    from .elementwise import logical_not
    edges = bins if is_tensor_like(bins) else np.asarray(bins)   # (NumPy's dtypes for lists)
    if rank_of(edges) != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if isinstance(edges, np.ndarray):
        if np.any(edges[:-1] > edges[1:]):
            raise ValueError("`bins` must increase monotonically, when an array")
        edges = wrap_eager(edges)
    else:
        bind("check_values", logical_not(reduce_any(greater(edges[:-1], edges[1:]))),
             message="`bins` must increase monotonically, when an array")
    common = as_dtype(np.result_type(_np_dtype(a), _np_dtype(edges)))
    ca, ce = cast(a, common), cast(edges, common)

    def cumulative(sorted_a):
        return concat([searchsorted(sorted_a, ce[:-1], side="left"),
                       searchsorted(sorted_a, ce[-1:], side="right")], axis=0)

    if weights is None:
        cum = cumulative(sort(ca))
        return subtract(cum[1:], cum[:-1]), edges
    order = argsort(ca)
    sw = gather(weights, order)
    cw = concat([np.zeros(1, _np_dtype(weights)), cumsum(sw, axis=0)], axis=0)
    cum = gather(cw, cumulative(gather(ca, order)))
    return subtract(cum[1:], cum[:-1]), edges


def np_histogram(a, bins=10, range=None, density=None, weights=None):
    """`np.histogram(a, bins, range, density, weights)`: (hist, bin_edges)."""
    from .elementwise import cast, divide, subtract
    from .reduce import reduce_sum
    from .shaping import reshape
    a = as_operand("histogram", a)
    d = as_dtype(a.dtype)
    if not (d.is_integer or d.is_floating):
        raise Unsupported(f"a {d.name} array")
    a_shape = a.shape
    a = reshape(a, [-1])
    w = None
    if weights is not None:
        w = as_operand("histogram", weights)
        wd = as_dtype(w.dtype)
        if not (wd.is_integer or wd.is_floating):
            raise Unsupported(f"{wd.name} weights")
        if w.shape is not None and a_shape is not None and (len(w.shape) != len(a_shape) or any(
                x is not None and y is not None and x != y for x, y in zip(w.shape, a_shape))):
            raise ValueError("weights should have the same shape as a.")
        w = reshape(w, [-1])
    if isinstance(bins, str):
        raise Unsupported(f"bins={bins!r} (a bin estimator)")
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        n = int(bins)
        if n < 1:
            raise ValueError("`bins` must be positive, when an integer")
        hist, edges = _uniform(a, n, range, w)
    else:
        if range is not None:
            raise Unsupported("range= with explicit bin edges")
        hist, edges = _explicit(a, bins, w)
    if density:
        width = subtract(cast(edges[1:], float64), cast(edges[:-1], float64))
        h = cast(hist, float64)
        return divide(divide(h, width), cast(reduce_sum(hist), float64)), edges
    return hist, edges


FUNCTIONS = {"histogram": np_histogram}
