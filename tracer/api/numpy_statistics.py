"""NumPy's order statistics and NaN-ignoring reductions on tensors:
`np.median`, `np.quantile`, `np.percentile`, `np.ptp`, `np.nansum`,
`np.nanmean`, `np.nanmax`, `np.nanmin`, plus `np.meshgrid` and
`np.broadcast_to` (also `ag.broadcast_to`, TensorFlow's name).

Order statistics sort along the reduced axis (a stable sort that puts NaN
last, as NumPy's) and pick elements with `gather`, so the length of that
axis may be unknown at trace time. The quantile `q` must be known at trace
time (a Python number or a sequence of them): it decides which elements are
read. Arithmetic follows NumPy's own code, so results agree with NumPy to
the last bit in the common cases:

* median: the middle element, or `(lo + hi) / 2` of the two middle ones;
* quantile (`method="linear"`, NumPy's default): index `q * (n - 1)`, then
  NumPy's two-sided interpolation `lo + (hi - lo) * g` for g < 0.5 and
  `hi - (hi - lo) * (1 - g)` otherwise;
* a NaN anywhere along the axis gives NaN, as in NumPy.

Integers and bools are converted to float64 first (NumPy's result dtype for
these functions). An empty axis of known length gives NaN as NumPy does;
an empty axis whose length is only known at run time raises the gather's
index error instead. The NumPy protocol dispatches the names here
(`NUMPY_ONLY` of `autograph.tracer.api.numpy_protocol`).
"""
from __future__ import annotations

import builtins
import math
import numbers
from typing import List, Sequence

import numpy as np

from .common import locate_errors, normalize_axis, rank_of
from .construct import fill, ones
from .elementwise import (add, cast, divide, mod as floor_mod, isnan, logical_not, logical_or, multiply,
                          subtract, where)
from .numpy_functions import NO, Unsupported, dims_of, reject, tensor_operand
from .empty_reductions import refuse_empty
from .public import public
from .reduce import reduce_max, reduce_min, reduce_sum
from .shaping import concat, gather, reshape, stack, transpose
from .sorting import sort
from ..core.types import float64, int32

__all__ = ["np_median", "np_quantile", "np_percentile", "np_ptp", "np_nansum", "np_nanmean",
           "np_nanmax", "np_nanmin", "np_meshgrid", "broadcast_to", "FUNCTIONS"]


def _as_float(x):
    """x itself when floating, else cast to float64 (NumPy's result dtype)."""
    return x if x.dtype.is_floating else cast(x, float64)


def _move_to_last(op: str, x, axis):
    """(y, reduced_axes, rank): x with the axes of `axis` merged into one last
    axis (all axes when None), the reduced axes of x, and x's rank."""
    rank = rank_of(x)
    if rank is None:
        raise ValueError(f"{op}: expected a tensor of known rank")
    axes = normalize_axis(op, axis, rank)
    if axes is None:
        axes = tuple(builtins.range(rank))
    if rank == 0:
        return reshape(x, [1]), (), 0
    keep = [a for a in builtins.range(rank) if a not in axes]
    if list(axes) != list(builtins.range(rank - len(axes), rank)):
        x = transpose(x, keep + list(axes))
    dims = dims_of(x)
    kept, merged = dims[:len(keep)], dims[len(keep):]
    if len(merged) != 1:
        n = 1
        for d in merged:
            n = n * d if isinstance(n, int) and isinstance(d, int) else multiply(n, d)
        x = reshape(x, kept + [n])
    return x, axes, rank


def _restore(r, axes, rank: int, keepdims: bool, lead: int = 0):
    """Result `r` (the reduced axes gone) with size-1 axes put back when keepdims."""
    if not keepdims:
        return r
    dims = dims_of(r)
    head, rest = dims[:lead], dims[lead:]
    it = iter(rest)
    out = [1 if a in axes else next(it) for a in builtins.range(rank)]
    return reshape(r, head + out)


def _last_len(x):
    d = x.shape[-1]
    return d if d is not None else dims_of(x)[-1]


def _pick(s, index):
    """s[..., index] for a Python int or traced int32 index."""
    return gather(s, index, axis=rank_of(s) - 1)


def _nan_like(s):
    """NaN of s's shape without its last axis (NumPy's result on an empty axis)."""
    return fill(dims_of(s)[:-1], np.array(np.nan, dtype=s.dtype.np_dtype))


def _propagate_nan(s, r):
    """NaN where the sorted row holds a NaN (sorted last), as NumPy does."""
    n = _last_len(s)
    return where(isnan(_pick(s, n - 1 if isinstance(n, int) else subtract(n, 1))), np.nan, r)


def _median_sorted(s):
    n = _last_len(s)
    if isinstance(n, int):
        if n == 0:
            return _nan_like(s)
        hi = _pick(s, n // 2)
        r = hi if n % 2 else divide(add(_pick(s, n // 2 - 1), hi), 2.0)
        return _propagate_nan(s, r)
    lo = _pick(s, (n - 1) // 2)
    hi = _pick(s, n // 2)
    odd = floor_mod(n, 2) > 0
    return _propagate_nan(s, where(odd, hi, divide(add(lo, hi), 2.0)))


def _lerp(lo, hi, g):
    """NumPy's `_lerp`: two-sided, exact at both ends."""
    d = subtract(hi, lo)
    if isinstance(g, float):          # known at trace time: one side only
        return subtract(hi, multiply(d, 1.0 - g)) if g >= 0.5 else add(lo, multiply(d, g))
    return where(g >= 0.5, subtract(hi, multiply(d, subtract(1.0, g))), add(lo, multiply(d, g)))


def _quantile_sorted(s, q: float):
    n = _last_len(s)
    if isinstance(n, int):
        if n == 0:
            return _nan_like(s)
        pos = q * (n - 1)
        below = builtins.min(int(math.floor(pos)), n - 1)
        above = builtins.min(below + 1, n - 1)
        g = pos - below
        lo, hi = _pick(s, below), _pick(s, above)
        r = lo if g == 0 else (hi if g == 1 else _lerp(lo, hi, g))
        return _propagate_nan(s, r)
    last = subtract(n, 1)
    pos = multiply(cast(last, float64), q)
    below_f = cast(cast(pos, int32), float64)          # pos >= 0: truncation is floor
    below = cast(below_f, int32)
    above = where(below < last, add(below, 1), last)
    g = cast(subtract(pos, below_f), s.dtype)
    return _propagate_nan(s, _lerp(_pick(s, below), _pick(s, above), g))


def _quantiles(op: str, q, scale: float) -> List[float]:
    """q as a list of Python floats in [0, 1] (q/scale), and whether it was a scalar."""
    if hasattr(q, "dtype") and not isinstance(q, (np.ndarray, np.generic)):
        raise Unsupported("a q that is a tensor (q must be known at trace time)")
    arr = np.asarray(q, dtype=np.float64)
    if arr.ndim > 1:
        raise Unsupported("a q of rank > 1")
    values = [float(v) / scale for v in arr.reshape(-1)]
    if any(not (0.0 <= v <= 1.0) for v in values):
        what = "Percentiles must be in the range [0, 100]" if scale == 100.0 else \
            "Quantiles must be in the range [0, 1]"
        raise ValueError(f"np.{op}: {what}, got {q!r}")
    return values


def _order_statistic(op: str, a, axis, keepdims, pick):
    x = _as_float(tensor_operand(op, a))
    y, axes, rank = _move_to_last(op, x, axis)
    s = sort(y, axis=-1)
    return _restore(pick(s), axes, rank, keepdims)


@locate_errors
def np_median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """NumPy's `median` over `axis` (all elements when None; an int or a tuple
    of ints), float64 for integer input; NaN when the axis holds a NaN."""
    reject("median", out=out)
    return _order_statistic("median", a, axis, keepdims, _median_sorted)


@locate_errors
def np_quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
    """NumPy's `quantile` with its default `method="linear"`; `q` a number or a
    sequence of numbers in [0, 1] known at trace time (a sequence adds a
    leading axis of the same length, as NumPy)."""
    return _quantile("quantile", a, q, 1.0, axis, out, method, keepdims, weights, interpolation)


@locate_errors
def np_percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
    """NumPy's `percentile`: `quantile` with `q` in [0, 100]."""
    return _quantile("percentile", a, q, 100.0, axis, out, method, keepdims, weights,
                     interpolation)


def _quantile(op, a, q, scale, axis, out, method, keepdims, weights, interpolation):
    reject(op, out=out, weights=weights, interpolation=interpolation)
    if method != "linear":
        raise Unsupported(f"method={method!r} (only 'linear', NumPy's default)")
    qs = _quantiles(op, q, scale)
    scalar = np.ndim(q) == 0
    x = _as_float(tensor_operand(op, a))
    y, axes, rank = _move_to_last(op, x, axis)
    s = sort(y, axis=-1)
    parts = [_quantile_sorted(s, v) for v in qs]
    if scalar:
        return _restore(parts[0], axes, rank, keepdims)
    return _restore(stack(parts, axis=0), axes, rank, keepdims, lead=1)


@locate_errors
def np_ptp(a, axis=None, out=None, keepdims=False):
    """NumPy's `ptp`: max - min over `axis` (the input's dtype)."""
    reject("ptp", out=out)
    x = tensor_operand("ptp", a)
    refuse_empty("reduce_max", x, axis, "ptp")   # NumPy's max of nothing raises
    return subtract(reduce_max(x, axis=axis, keepdims=bool(keepdims)),
                    reduce_min(x, axis=axis, keepdims=bool(keepdims)))


def _nan_reduction(op: str, a, axis, out, keepdims, where_, fill_value, reduce):
    reject(op, out=out, where=where_)
    x = tensor_operand(op, a)
    if not x.dtype.is_floating:       # no NaN to ignore: NumPy's plain reduction
        return None, x
    return reduce(where(isnan(x), fill_value, x), axis=axis, keepdims=bool(keepdims)), x


def _nan_fold(op: str, a, axis, dtype, out, keepdims, initial, where_, fill_value, reduce):
    """`reduce` with NaN counted as `fill_value` (its identity); integers and bools as
    NumPy's plain reduction (bools counted)."""
    from .numpy_functions import bool_as_number
    reject(op, dtype=dtype, initial=initial)
    r, x = _nan_reduction(op, a, axis, out, keepdims, where_, fill_value, reduce)
    if r is None:
        return reduce(bool_as_number(reduce.__name__, x), axis=axis, keepdims=bool(keepdims))
    return r


@locate_errors
def np_nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=NO, where=NO):
    """NumPy's `nansum`: the sum with NaN counted as zero."""
    return _nan_fold("nansum", a, axis, dtype, out, keepdims, initial, where, 0.0, reduce_sum)


@locate_errors
def np_nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=NO, where=NO):
    """NumPy's `nanprod`: the product with NaN counted as one."""
    from .reduce import reduce_prod
    return _nan_fold("nanprod", a, axis, dtype, out, keepdims, initial, where, 1.0, reduce_prod)


@locate_errors
def np_nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=NO):
    """NumPy's `nanmean`: the mean of the elements that are not NaN (NaN when
    there are none); float64 for integer input."""
    reject("nanmean", dtype=dtype)
    x = _as_float(tensor_operand("nanmean", a))
    total, _ = _nan_reduction("nanmean", x, axis, out, keepdims, where, 0.0, reduce_sum)
    counted = reduce_sum(cast(logical_not(isnan(x)), x.dtype), axis=axis,
                         keepdims=bool(keepdims))
    return divide(total, counted)


def _nan_extreme(op: str, a, axis, out, keepdims, initial, where_, reduce, start):
    reject(op, initial=initial)
    refuse_empty(reduce.__name__, tensor_operand(op, a), axis, op)   # NumPy's max of nothing raises
    r, x = _nan_reduction(op, a, axis, out, keepdims, where_, start, reduce)
    if r is None:
        return reduce(x, axis=axis, keepdims=bool(keepdims))
    # all-NaN slices stay NaN, as NumPy's (which also warns)
    all_nan = reduce_min(cast(isnan(x), int32), axis=axis, keepdims=bool(keepdims)) > 0
    return where(all_nan, np.nan, r)


@locate_errors
def np_nanmax(a, axis=None, out=None, keepdims=False, initial=NO, where=NO):
    """NumPy's `nanmax`: the maximum ignoring NaN (NaN for an all-NaN slice)."""
    return _nan_extreme("nanmax", a, axis, out, keepdims, initial, where, reduce_max, -np.inf)


@locate_errors
def np_nanmin(a, axis=None, out=None, keepdims=False, initial=NO, where=NO):
    """NumPy's `nanmin`: the minimum ignoring NaN (NaN for an all-NaN slice)."""
    return _nan_extreme("nanmin", a, axis, out, keepdims, initial, where, reduce_min, np.inf)


def _broadcast(x, dims: Sequence):
    """x (already of len(dims) axes, each 1 or equal) repeated to shape `dims`,
    every value kept (multiplying by one keeps -0.0, NaN and inf)."""
    if x.dtype.is_bool:
        return logical_or(x, fill(list(dims), False))
    if getattr(x.dtype, "is_complex", False):
        return where(fill(list(dims), True), x, x)
    return multiply(x, ones(list(dims), x.dtype))


@public("broadcast_to")
@locate_errors
def broadcast_to(input, shape, name=None):
    """`input` repeated along new leading axes and size-1 axes to `shape`, as
    `tf.broadcast_to` and `np.broadcast_to` (a copy: tensors are immutable).

    Args:
        input: a tensor, array or Python value.
        shape: the target shape: an int or a list/tuple of Python ints or
            scalar int tensors.
        name: ignored (TensorFlow compatibility).

    Returns:
        A tensor of shape `shape` and `input`'s dtype.

    Raises:
        ValueError: `input`'s shape does not broadcast to `shape`.

    Example:
        >>> print(ag.broadcast_to([1, 2, 3], [2, 3]))
        ag.Tensor([[1 2 3]
         [1 2 3]], shape=(2, 3), dtype=int32)
    """
    x = tensor_operand("broadcast_to", input)
    dims = [shape] if isinstance(shape, numbers.Integral) or getattr(shape, "shape", None) == () \
        else list(shape)
    rank = rank_of(x)
    if rank is None or rank > len(dims):
        raise ValueError(f"broadcast_to: cannot broadcast a tensor of shape {x.shape} to "
                         f"{len(dims)} dimensions")
    for have, want in zip(x.shape, dims[len(dims) - rank:]):
        if have is not None and have != 1 and isinstance(want, int) and have != want:
            raise ValueError(f"broadcast_to: cannot broadcast shape {x.shape} to {dims}")
    if rank == len(dims) and all(isinstance(d, int) and d == h for h, d in zip(x.shape, dims)):
        return x          # already that shape: nothing to repeat (a tensor is immutable)
    if rank < len(dims):
        x = reshape(x, [1] * (len(dims) - rank) + dims_of(x))
    return _broadcast(x, dims)


def np_meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """NumPy's `meshgrid` of 1-D arrays: a list of N-D coordinate arrays
    (`indexing="xy"`: the first two axes swapped, as NumPy; `sparse`: the
    reshaped vectors alone)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"np.meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [reshape(tensor_operand("meshgrid", x), [-1]) for x in xi]
    n = len(xs)
    lengths = [dims_of(x)[0] for x in xs]
    out = []
    for i, x in enumerate(xs):
        shape = [1] * n
        shape[i] = -1
        if indexing == "xy" and n > 1 and i < 2:
            shape[0], shape[1] = shape[1], shape[0]
        out.append(reshape(x, shape))
    if sparse:
        return out
    full = list(lengths)
    if indexing == "xy" and n > 1:
        full[0], full[1] = full[1], full[0]
    return [_broadcast(x, full) for x in out]


def np_broadcast_to(array, shape, subok=False):
    """NumPy's `broadcast_to` signature on `broadcast_to`."""
    return broadcast_to(array, shape)


def _edge(op: str, v, x, axis: int):
    """prepend/append value `v` as an operand of np.diff along `axis` of x:
    a scalar becomes one slice of x's shape, as NumPy's."""
    e = tensor_operand(op, v)
    if rank_of(e) == 0:
        dims = dims_of(x)
        dims[axis] = 1
        return broadcast_to(cast(e, x.dtype) if e.dtype != x.dtype else e, dims)
    return e


def diff_edges(x, axis: int, prepend, append):
    """x with `prepend`/`append` (NumPy's np.diff arguments) joined along axis."""
    parts = ([] if prepend is NO or prepend is None else [_edge("diff", prepend, x, axis)]) + \
        [x] + ([] if append is NO or append is None else [_edge("diff", append, x, axis)])
    return x if len(parts) == 1 else concat(parts, axis=axis)


FUNCTIONS = {
    "median": np_median, "quantile": np_quantile, "percentile": np_percentile, "ptp": np_ptp,
    "nansum": np_nansum, "nanprod": np_nanprod, "nanmean": np_nanmean, "nanmax": np_nanmax, "nanmin": np_nanmin,
    "meshgrid": np_meshgrid, "broadcast_to": np_broadcast_to,
}
