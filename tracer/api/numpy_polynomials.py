"""NumPy's polynomial helpers on tensors: `np.vander`, `np.polyder`,
`np.polyint` and `np.polyfit` (`np.polyval` is in numpy_products.py).

Each follows NumPy's arithmetic step by step: `vander` builds its columns
as running products (1, x, x*x, (x*x)*x, ...) as NumPy's
`multiply.accumulate` does, so it is bit-exact; `polyder`/`polyint`
multiply or divide by the same `arange` NumPy uses; `polyfit` scales the
Vandermonde matrix's columns by their norms and solves with `lstsq`, the
LAPACK routine NumPy calls (dgelsd), with NumPy's default `rcond`
(len(x) * eps), so coefficients agree with NumPy's to rounding. Degrees,
orders and lengths must be known when tracing; `polyfit`'s `full=True` and
`cov=True` (the diagnostics) are not supported, and the "poorly
conditioned" RankWarning is not raised (the rank is only known when the
compiled code runs).
"""
from __future__ import annotations

import numbers

import numpy as np

from .common import locate_errors, rank_of
from .elementwise import cast, divide, multiply, sqrt
from .numpy_functions import Unsupported, tensor_operand
from .numpy_lapack import np_lstsq
from .numpy_promote import promote
from .reduce import reduce_sum
from .scans import cumprod
from .shaping import concat, reshape
from .slicing import getitem
from ..core.types import as_dtype, float32

__all__ = ["FUNCTIONS"]


def _int(op: str, what: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"np.{op}: {what} must be an int known when tracing, got {v!r}")
    return int(v)


def _vector(op: str, v):
    t = tensor_operand(op, v if not isinstance(v, (list, tuple)) else np.asarray(v))
    if rank_of(t) != 1:
        raise ValueError(f"np.{op}: expected a 1-D array, got one of rank {rank_of(t)}")
    if t.shape[0] is None:
        raise Unsupported("a length only known when the compiled code runs")
    return t


@locate_errors
def np_vander(x, N=None, increasing=False):
    """NumPy's `vander`: the columns x**(N-1), ..., x, 1 (or increasing powers)."""
    t = _vector("vander", x)
    n = t.shape[0] if N is None else _int("vander", "N", N)
    if n < 0:
        raise ValueError("np.vander: negative dimensions are not allowed")
    target = as_dtype(np.promote_types(t.dtype.np_dtype, np.int64))   # NumPy's: float32 -> float64
    if t.dtype != target:
        t = cast(t, target)
    rows = t.shape[0]
    from .construct import ones
    one = ones([rows, 1], t.dtype)
    if n == 0:
        return getitem(one, (slice(None), slice(0, 0)))
    cols = [one]
    if n > 1:
        tiled = concat([reshape(t, [rows, 1])] * (n - 1), axis=1)
        cols.append(cumprod(tiled, axis=1))     # NumPy's multiply.accumulate: x, x*x, (x*x)*x
    out = concat(cols, axis=1)                  # increasing powers
    return out if increasing else getitem(out, (slice(None), slice(None, None, -1)))


@locate_errors
def np_polyder(p, m=1):
    """NumPy's `polyder`: the m-th derivative of the coefficients `p` (highest power first)."""
    m = _int("polyder", "m", m)
    if m < 0:
        raise ValueError("np.polyder: Order of derivative must be positive (see polyint)")
    t = _vector("polyder", p)
    for _ in range(m):
        n = t.shape[0] - 1
        t = multiply(*promote("polyder", getitem(t, slice(None, -1)), np.arange(n, 0, -1)))
    return t


@locate_errors
def np_polyint(p, m=1, k=None):
    """NumPy's `polyint`: the m-th antiderivative of `p`, integration constants `k` (zeros)."""
    m = _int("polyint", "m", m)
    if m < 0:
        raise ValueError("np.polyint: Order of integral must be positive (see polyder)")
    if k is None:
        constants = np.zeros(m, float)
    else:
        constants = np.atleast_1d(np.asarray(k, dtype=float))
        if len(constants) == 1 and m > 1:
            constants = constants[0] * np.ones(m, float)
        if len(constants) < m:
            raise ValueError("np.polyint: k must be a scalar or a rank-1 array of length 1 or >m.")
    t = _vector("polyint", p)
    for i in range(m):
        q = divide(*promote("polyint", t, np.arange(t.shape[0], 0, -1), floating=True))
        t = concat(promote("polyint", q, constants[i:i + 1]), axis=0)
    return t


@locate_errors
def np_polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """NumPy's `polyfit`: least-squares coefficients of degree `deg` (highest power first)."""
    if full or cov:
        raise Unsupported("full=True and cov=True (the fit's diagnostics)")
    deg = _int("polyfit", "deg", deg)
    if deg < 0:
        raise ValueError("np.polyfit: expected deg >= 0")
    xt, yt = tensor_operand("polyfit", x), tensor_operand("polyfit", y)
    if rank_of(xt) != 1:
        raise TypeError("np.polyfit: expected 1D vector for x")
    if rank_of(yt) not in (1, 2):
        raise TypeError("np.polyfit: expected 1D or 2D array for y")
    if xt.shape[0] is not None and xt.shape[0] == 0:
        raise TypeError("np.polyfit: expected non-empty vector for x")
    if xt.shape[0] is not None and yt.shape[0] is not None and xt.shape[0] != yt.shape[0]:
        raise TypeError("np.polyfit: expected x and y to have same length")
    xt, yt = promote("polyfit", xt, yt, floating=True)          # NumPy: x + 0.0, y + 0.0
    if xt.shape[0] is None:
        raise Unsupported("a length only known when the compiled code runs")
    eps = np.finfo(np.float32 if xt.dtype == float32 else np.float64).eps
    rc = xt.shape[0] * float(eps) if rcond is None else float(rcond)
    lhs, rhs = np_vander(xt, deg + 1), yt
    if w is not None:
        wt = cast(_vector("polyfit", w), xt.dtype)
        lhs = multiply(lhs, reshape(wt, [-1, 1]))
        rhs = multiply(rhs, wt if rank_of(rhs) == 1 else reshape(wt, [-1, 1]))
    scale = sqrt(reduce_sum(multiply(lhs, lhs), axis=0))
    lhs = divide(lhs, scale)
    c = np_lstsq(lhs, rhs, rc)[0]
    return divide(c, scale) if rank_of(c) == 1 else divide(c, reshape(scale, [-1, 1]))


FUNCTIONS = {"vander": np_vander, "polyder": np_polyder, "polyint": np_polyint, "polyfit": np_polyfit}
