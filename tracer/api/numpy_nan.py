"""NumPy's NaN-ignoring statistics on tensors: `np.nanvar`, `np.nanstd`,
`np.nanargmax`, `np.nanargmin`, `np.nanmedian`, `np.nanquantile`,
`np.nanpercentile` (the NaN-ignoring sums, means and extremes are in
`numpy_statistics`, whose helpers these build on).

NaN-free dtypes (integers, bools) give NumPy's plain function (var, argmax,
median, quantile). For floats each follows NumPy's own code:

* nanvar: NaN replaced by 0, the mean `sum / count` of the rest, the
  squared deviations (0 at NaN) summed and divided by `count - ddof`; NaN
  where `count - ddof <= 0`; nanstd is its square root;
* nanargmax/nanargmin: NaN replaced by -inf/+inf, then argmax/argmin (int64).
  An all-NaN slice raises ValueError("All-NaN slice encountered") as NumPy:
  eagerly at once, in compiled code when it runs (a run-time check, whose
  error, `ag.errors.InvalidArgumentError`, is a ValueError);
* nanmedian/nanquantile/nanpercentile: the slices are sorted (NaN last),
  and the median or quantile (`method="linear"`) is taken of each slice's
  leading non-NaN elements, whose number is counted when the code runs;
  NaN for an all-NaN slice, as NumPy's (which also warns).

The quantile `q` must be known at trace time; dimensions may be unknown.
"""
from __future__ import annotations

import numbers

import numpy as np

from .common import locate_errors, normalize_axis, rank_of
from .construct import range as ag_range
from .elementwise import (add, cast, divide, equal, isnan, logical_not, mod, multiply, sqrt,
                          subtract, where)
from .numpy_functions import NO, Unsupported, np_var, reject, tensor_operand
from .numpy_static import known
from .numpy_statistics import (_lerp, _move_to_last, _quantiles, _restore, np_median,
                               np_percentile, np_quantile)
from .reduce import reduce_all, reduce_any, reduce_sum
from .scans import argmax, argmin
from .shaping import expand_dims, reshape, stack
from .sorting import sort
from ..core.types import float64, int32

__all__ = ["np_nanvar", "np_nanstd", "np_nanargmax", "np_nanargmin", "np_nanmedian",
           "np_nanquantile", "np_nanpercentile", "FUNCTIONS"]


def _keep(keepdims) -> bool:
    return False if keepdims is NO else bool(keepdims)


def _complex(x) -> bool:
    return getattr(x.dtype, "is_complex", False)


# ----------------------------------------------------------- nanvar, nanstd

def _nanvar(op: str, a, axis, dtype, out, ddof, keepdims, where_, mean, correction):
    reject(op, dtype=dtype, out=out, where=where_, mean=mean)
    if correction is not NO:
        ddof = correction
    ddof = known(ddof)
    x = tensor_operand(op, a)
    if _complex(x):
        raise Unsupported("complex input")
    if not x.dtype.is_floating:   # no NaN: NumPy's var
        return np_var(x, axis=axis, ddof=ddof, keepdims=_keep(keepdims))
    if isinstance(ddof, bool) or not isinstance(ddof, numbers.Real):
        raise TypeError(f"np.{op}: ddof must be a number known at trace time, got {ddof!r}")
    axes = normalize_axis(op, axis, rank_of(x))
    keep = _keep(keepdims)
    mask = isnan(x)
    arr = where(mask, 0.0, x)
    cnt = reduce_sum(cast(logical_not(mask), int32), axis=axes, keepdims=True)
    avg = divide(reduce_sum(arr, axis=axes, keepdims=True), cast(cnt, x.dtype))
    dev = where(mask, 0.0, subtract(arr, avg))
    var = reduce_sum(multiply(dev, dev), axis=axes, keepdims=keep)
    if not keep:
        cnt = reduce_sum(cnt, axis=axes, keepdims=False)   # (the size-1 axes dropped)
    dof = subtract(cast(cnt, x.dtype), float(ddof))
    return where(dof > 0, divide(var, dof), np.nan)


@locate_errors
def np_nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=NO, *, where=NO, mean=NO,
              correction=NO):
    """NumPy's `nanvar`: the variance of the elements that are not NaN,
    divided by `count - ddof` (NaN when that is <= 0)."""
    return _nanvar("nanvar", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


@locate_errors
def np_nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=NO, *, where=NO, mean=NO,
              correction=NO):
    """NumPy's `nanstd`: the square root of `nanvar` (same arguments)."""
    return sqrt(_nanvar("nanstd", a, axis, dtype, out, ddof, keepdims, where, mean, correction))


# ----------------------------------------------------------- nanargmax, nanargmin

def _nanarg(op: str, a, axis, out, keepdims, fill, fn):
    reject(op, out=out)
    x = tensor_operand(op, a)
    keep = _keep(keepdims)
    flat = axis is None
    rank = rank_of(x)
    if flat:
        x = reshape(x, [-1])
    if x.dtype.is_floating:
        mask = isnan(x)
        ax = 0 if flat else normalize_axis(op, axis, rank_of(x))[0]
        from .debugging import _check
        _check(logical_not(reduce_any(reduce_all(mask, axis=ax))), "All-NaN slice encountered",
               f"np.{op}")
        x = where(mask, fill, x)
    if flat:
        r = fn(x, axis=0)
        return reshape(r, [1] * rank) if keep else r
    r = fn(x, axis=axis)
    return expand_dims(r, axis) if keep else r


@locate_errors
def np_nanargmax(a, axis=None, out=None, *, keepdims=NO):
    """NumPy's `nanargmax`: the index of the largest element ignoring NaN
    (int64; of the flattened tensor when `axis` is None)."""
    return _nanarg("nanargmax", a, axis, out, keepdims, -np.inf, argmax)


@locate_errors
def np_nanargmin(a, axis=None, out=None, *, keepdims=NO):
    """NumPy's `nanargmin`: the index of the smallest element ignoring NaN."""
    return _nanarg("nanargmin", a, axis, out, keepdims, np.inf, argmin)


# ----------------------------------------------------------- order statistics

def _take(s, index):
    """s[..., index[...]] for a per-slice int32 index (shape s.shape[:-1]):
    a one-hot selection along the last axis (an index out of range gives 0)."""
    n = s.shape[-1] if s.shape[-1] is not None else None
    from .construct import dim
    size = n if n is not None else dim(s, rank_of(s) - 1)
    hot = equal(ag_range(0, size, 1), expand_dims(index, -1))
    # -0.0 elsewhere: -0.0 + v is v for every v (the sign of a zero kept too)
    return reduce_sum(where(hot, s, -0.0), axis=-1)


def _sorted_rows(op: str, a, axis):
    x = tensor_operand(op, a)
    y, axes, rank = _move_to_last(op, x, axis)
    s = sort(y, axis=-1)   # NaN last
    count = reduce_sum(cast(logical_not(isnan(y)), int32), axis=-1)
    return s, count, axes, rank


def _nanmedian_rows(s, c):
    lo = _take(s, subtract(c, 1) // 2)   # (-1 for an empty slice: masked below)
    hi = _take(s, c // 2)
    odd = equal(mod(c, 2), 1)
    r = where(odd, hi, divide(add(lo, hi), 2.0))
    return where(equal(c, 0), np.nan, r)


@locate_errors
def np_nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=NO):
    """NumPy's `nanmedian`: the median of the elements that are not NaN (NaN
    for an all-NaN slice); integers give `median` (float64)."""
    reject("nanmedian", out=out)
    x = tensor_operand("nanmedian", a)
    if not x.dtype.is_floating:
        return np_median(x, axis=axis, keepdims=_keep(keepdims))
    s, c, axes, rank = _sorted_rows("nanmedian", x, axis)
    return _restore(_nanmedian_rows(s, c), axes, rank, _keep(keepdims))


def _nanquantile_rows(s, c, q: float):
    last = subtract(c, 1)
    pos = multiply(cast(last, float64), q)
    below_f = cast(cast(pos, int32), float64)     # pos >= 0 (c >= 1): truncation is floor
    below = cast(below_f, int32)
    above = where(below < last, add(below, 1), last)
    g = cast(subtract(pos, below_f), s.dtype)
    r = _lerp(_take(s, below), _take(s, above), g)
    return where(c > 0, r, np.nan)


def _nanquantile(op, a, q, scale, axis, out, method, keepdims, weights, interpolation):
    reject(op, out=out, weights=weights, interpolation=interpolation)
    q = known(q)
    x = tensor_operand(op, a)
    if not x.dtype.is_floating:
        fn = np_quantile if scale == 1.0 else np_percentile
        return fn(x, q, axis=axis, method=method, keepdims=_keep(keepdims))
    if method != "linear":
        raise Unsupported(f"method={method!r} (only 'linear', NumPy's default)")
    qs = _quantiles(op, q, scale)
    s, c, axes, rank = _sorted_rows(op, x, axis)
    parts = [_nanquantile_rows(s, c, v) for v in qs]
    if np.ndim(q) == 0:
        return _restore(parts[0], axes, rank, _keep(keepdims))
    return _restore(stack(parts, axis=0), axes, rank, _keep(keepdims), lead=1)


@locate_errors
def np_nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                   keepdims=NO, *, weights=None, interpolation=None):
    """NumPy's `nanquantile` (method "linear"): the quantile of the elements
    that are not NaN; `q` in [0, 1] known at trace time."""
    return _nanquantile("nanquantile", a, q, 1.0, axis, out, method, keepdims, weights,
                        interpolation)


@locate_errors
def np_nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                     keepdims=NO, *, weights=None, interpolation=None):
    """NumPy's `nanpercentile`: `nanquantile` with `q` in [0, 100]."""
    return _nanquantile("nanpercentile", a, q, 100.0, axis, out, method, keepdims, weights,
                        interpolation)


FUNCTIONS = {
    "nanvar": np_nanvar, "nanstd": np_nanstd, "nanargmax": np_nanargmax,
    "nanargmin": np_nanargmin, "nanmedian": np_nanmedian, "nanquantile": np_nanquantile,
    "nanpercentile": np_nanpercentile,
}
