"""NumPy functions of numeric kernels built from several ops: `np.isclose`,
`np.allclose`, `np.nan_to_num`, `np.deg2rad`/`np.radians`,
`np.rad2deg`/`np.degrees`, `np.digitize`, `np.interp`.

Each computes what NumPy's own code computes, with NumPy's arguments, on
tensors (eager or traced), so it compiles and fuses like any elementwise
chain. Integer operands are first converted to float64, as NumPy does for
these functions (its result dtype is float64 too). The NumPy protocol
dispatches the names here (`NUMPY_ONLY` of
`autograph.tracer.api.numpy_protocol`).
"""
from __future__ import annotations

import math

import numpy as np

from .common import prepare
from .elementwise import (abs as abs_, add, cast, divide, equal, greater, isfinite, isinf, isnan,
                          less, less_equal, logical_and, logical_or, maximum, minimum, mod, multiply,
                          subtract, where)
from .reduce import reduce_all, reduce_any
from .shaping import gather, size
from .sorting import searchsorted
from ..core.types import as_dtype, float64, int64

__all__ = ["isclose", "allclose", "nan_to_num", "deg2rad", "rad2deg", "digitize", "interp",
           "FUNCTIONS"]


def _floats(op: str, *values):
    """The operands as tensors of one float dtype (integers and bools as float64)."""
    xs = prepare(op, *values)
    return [x if as_dtype(x.dtype).is_floating else cast(x, float64) for x in xs]


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """`np.isclose`: |a - b| <= atol + rtol * |b| elementwise, a bool tensor;
    infinities are close only to themselves, NaN to nothing unless
    `equal_nan`. (NumPy's formula: not symmetric in a and b.)

        isclose([1.0, 1e10], [1.0 + 1e-9, 1.0001e10])  ->  [True, True]
    """
    x, y = _floats("isclose", a, b)
    close = logical_and(less_equal(abs_(subtract(x, y)), add(multiply(abs_(y), rtol), atol)),
                        isfinite(y))
    close = logical_or(close, equal(x, y))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(x), isnan(y)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """`np.allclose`: whether every element of `isclose(a, b, ...)` holds, a
    bool scalar tensor (a Python bool in NumPy; use it in `if`/`while`)."""
    return reduce_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """`np.nan_to_num`: NaN replaced by `nan`, +inf by `posinf` (default: the
    dtype's largest value) and -inf by `neginf` (default: its lowest);
    integer and bool tensors are returned as they are.

        nan_to_num([nan, inf, -1.0], posinf=9.0)  ->  [0.0, 9.0, -1.0]
    """
    (t,) = prepare("nan_to_num", x)
    d = as_dtype(t.dtype)
    if not d.is_floating:
        return t
    info = np.finfo(d.np_dtype)
    hi = float(info.max) if posinf is None else posinf
    lo = float(info.min) if neginf is None else neginf
    out = where(isnan(t), nan, t)
    out = where(logical_and(isinf(out), out > 0), hi, out)
    return where(logical_and(isinf(out), out < 0), lo, out)


def _ratio(t, num: float, den: float) -> float:
    """num / den as NumPy's loop for t's dtype has it: divided in that dtype (C's
    `180.0f / NPY_PIf` for float32, which is not float32(180 / pi))."""
    ft = as_dtype(t.dtype).np_dtype.type
    return float(ft(num) / ft(den))


def deg2rad(x):
    """`np.deg2rad` / `np.radians`: x * (pi / 180) elementwise (float64 for integers)."""
    (t,) = _floats("deg2rad", x)
    return multiply(t, _ratio(t, math.pi, 180.0))


def rad2deg(x):
    """`np.rad2deg` / `np.degrees`: x * (180 / pi) elementwise (float64 for integers)."""
    (t,) = _floats("rad2deg", x)
    return multiply(t, _ratio(t, 180.0, math.pi))


def digitize(x, bins, right=False):
    """`np.digitize`: the index of the bin of each element of `x` (int64, of
    x's shape) in the monotonic 1-D `bins`, increasing or decreasing (told
    apart at run time by its ends, as NumPy does for monotonic bins; bins
    that are not monotonic are not detected). `right` says whether a bin
    includes its right edge.

        digitize([0.5, 1.0, 2.5], [1.0, 2.0, 3.0])  ->  [0, 1, 2]
    """
    v, b = prepare("digitize", x, bins)
    side = "left" if right else "right"
    increasing = searchsorted(b, v, side=side)
    n = size(b, out_type=int64)
    decreasing = subtract(n, searchsorted(b[::-1], v, side=side))
    # Decreasing when the first bin edge is above the last (False for 0 or 1 edges).
    falling = reduce_any(greater(b[:1], b[-1:]))
    return where(falling, decreasing, increasing)


def interp(x, xp, fp, left=None, right=None, period=None):
    """`np.interp`: piecewise-linear interpolation of the points (xp, fp) at
    `x`, in float64 (NumPy's dtype), with NumPy's steps: `left`/`right`
    (default fp[0]/fp[-1]) outside [xp[0], xp[-1]], fp[j] where x equals
    xp[j], NaN for a NaN x. `xp` must be increasing (not checked, as NumPy),
    except with `period`: then x and xp are taken modulo the period, xp is
    sorted (with fp), and one point is added at each end from the other end
    shifted by a period (NumPy's steps; `left`/`right` are ignored).

        interp([0.0, 1.5, 5.0], [1.0, 2.0, 3.0], [10.0, 20.0, 30.0])  ->  [10.0, 15.0, 30.0]
    """
    # (each on its own: NumPy converts all three to float64, whatever their dtypes)
    t, xs, ys = [cast(prepare("interp", a)[0], float64) for a in (x, xp, fp)]
    if period is not None:
        t, xs, ys = _periodic(t, xs, ys, period)
        left = right = None
    n = size(xs, out_type=int64)
    k = subtract(searchsorted(xs, t, side="right"), 1)   # xp[k] <= x < xp[k+1]; -1 below
    last = subtract(n, 1)
    kc = minimum(maximum(k, 0), last)
    j0 = minimum(maximum(k, 0), maximum(subtract(n, 2), 0))
    j1 = minimum(add(j0, 1), last)
    x0, x1, y0, y1 = (gather(xs, j0), gather(xs, j1), gather(ys, j0), gather(ys, j1))
    slope = divide(subtract(y1, y0), subtract(x1, x0))
    # NumPy: slope*(x - x0) + y0; if NaN, from the other end; if NaN again and y0 == y1, y0.
    v = add(multiply(slope, subtract(t, x0)), y0)
    v2 = add(multiply(slope, subtract(t, x1)), y1)
    v = where(isnan(v), where(logical_and(isnan(v2), equal(y0, y1)), y0, v2), v)
    res = where(logical_or(equal(k, last), equal(gather(xs, kc), t)), gather(ys, kc), v)
    lo = ys[0] if left is None else left
    hi = ys[-1] if right is None else right
    res = where(less(k, 0), lo, res)
    res = where(greater(t, xs[-1]), hi, res)
    # NaN gives NaN, except with one point (NumPy then gives fp[0] for every x)
    return where(logical_and(isnan(t), greater(n, 1)), t, res)


def _periodic(t, xs, ys, period):
    """NumPy's `interp(period=)` preparation: (x mod p, xp mod p sorted with fp and
    extended by one point at each end, fp likewise)."""
    from .shaping import concat
    from .sorting import argsort
    if isinstance(period, bool) or not isinstance(period, (int, float)):
        raise TypeError(f"interp: period must be a Python number, got {period!r}")
    if period == 0:
        raise ValueError("interp: period must be a non-zero value")
    p = abs(float(period))
    t = mod(t, p)
    xs = mod(xs, p)
    order = argsort(xs)
    xs, ys = gather(xs, order), gather(ys, order)
    xs = concat([subtract(xs[-1:], p), xs, add(xs[0:1], p)], axis=0)
    ys = concat([ys[-1:], ys, ys[0:1]], axis=0)
    return t, xs, ys


# NumPy name -> function, for the NumPy protocol's table.
FUNCTIONS = {"isclose": isclose, "allclose": allclose, "nan_to_num": nan_to_num,
             "deg2rad": deg2rad, "radians": deg2rad, "rad2deg": rad2deg, "degrees": rad2deg,
             "digitize": digitize, "interp": interp}
