"""NumPy's products and sums of products on tensors: `np.kron`, `np.inner`,
`np.tensordot`, `np.cross`, `np.polyval`, `np.trapezoid`, `np.convolve`,
`np.correlate`, `np.cov`, `np.corrcoef` and `np.linalg.matrix_power`.

Results have NumPy's dtype (the operands are cast to NumPy's result dtype
first, `numpy_promote`; cov, corrcoef and trapezoid of integers compute in
float64) and shape. Where NumPy's arithmetic is elementwise it is followed
step by step, so `kron`, `cross`, `polyval` (Horner's rule from a zero)
and `matrix_power` of integers equal NumPy's to the last bit; sums of
products (`inner`, `tensordot`, `convolve`, `correlate`, `cov`, the sum of
`trapezoid`, float `matrix_power`) add in another order than NumPy's BLAS
or pairwise sums, so they agree to rounding (about 1e-15 relative in
float64).

Axes, lengths of `convolve`/`correlate`, polynomial degrees and powers must
be known at trace time; `tensordot`, `inner`, `cov`, `trapezoid` and
`cross` accept dimensions unknown at trace time. `ag.matmul` is 2-D, so
`tensordot` and `inner` reshape to matrices first, and `matrix_power` is
for one matrix (not a stack). The NumPy protocol dispatches the names here
(`NUMPY_ONLY` and `BY_FUNCTION` of `autograph.tracer.api.numpy_protocol`).
"""
from __future__ import annotations

import builtins
import math
import numbers
from typing import List

import numpy as np

from .common import holds_tensor, is_tensor_like, locate_errors, normalize_axis, rank_of
from .construct import fill, range as ag_range, zeros_like
from .elementwise import (add, cast, conj, divide, equal, logical_and, matmul, maximum, minimum,
                          multiply, negative, sqrt, subtract, where)
from .numpy_functions import NO, Unsupported, dims_of, np_diff, tensor_operand
from .numpy_promote import cast_to, np_dtype_of, promote
from .numpy_static import known
from .reduce import reduce_mean, reduce_sum
from .shaping import concat, eye, gather, reshape, transpose
from .slicing import getitem

__all__ = ["np_kron", "np_inner", "np_tensordot", "np_cross", "np_polyval", "np_trapezoid",
           "np_convolve", "np_correlate", "np_cov", "np_corrcoef", "matrix_power", "FUNCTIONS"]


def _asarray(v):
    """A non-tensor argument as NumPy's `asarray` makes it (a list of ints is
    int64, as NumPy's), so the result dtype is NumPy's."""
    if is_tensor_like(v) or (isinstance(v, (list, tuple)) and holds_tensor(v)):
        return v
    return np.asarray(v)


def _is_complex(x) -> bool:
    return getattr(x.dtype, "is_complex", False)


def _product(dims) -> object:
    n = 1
    for d in dims:
        n = n * d if isinstance(n, int) and isinstance(d, int) else multiply(n, d)
    return n


# ----------------------------------------------------------- kron

@locate_errors
def np_kron(a, b):
    """NumPy's `kron`: the Kronecker product, every `a[i] * b` block laid out
    in a's order (ranks equalised by leading 1s, as NumPy's)."""
    x, y = promote("kron", _asarray(a), _asarray(b))
    na, nb = rank_of(x), rank_of(y)
    # NumPy multiplies bools as a logical and
    product = logical_and if x.dtype.is_bool else multiply
    if na == 0 or nb == 0:
        return product(x, y)
    nd = builtins.max(na, nb)
    da = [1] * (nd - na) + dims_of(x)
    db = [1] * (nd - nb) + dims_of(y)
    # a's axes interleaved with size-1 axes, b's the other way round
    xa = reshape(x, [d for pair in zip(da, [1] * nd) for d in pair])
    yb = reshape(y, [d for pair in zip([1] * nd, db) for d in pair])
    return reshape(product(xa, yb), [_product([p, q]) for p, q in zip(da, db)])


# ----------------------------------------------------------- tensordot, inner

def _contract(op: str, x, y, axes_a: List[int], axes_b: List[int]):
    ra, rb = rank_of(x), rank_of(y)
    if ra is None or rb is None:
        raise ValueError(f"np.{op}: expected tensors of known rank")
    if len(axes_a) != len(axes_b):
        raise ValueError(f"np.{op}: shape-mismatch for sum")
    axes_a = [a + ra if a < 0 else a for a in axes_a]
    axes_b = [b + rb if b < 0 else b for b in axes_b]
    if builtins.any(not 0 <= a < ra for a in axes_a) or builtins.any(not 0 <= b < rb
                                                                     for b in axes_b):
        raise ValueError(f"np.{op}: an axis is out of range for the operands' ranks "
                         f"({ra} and {rb})")
    for a, b in zip(axes_a, axes_b):
        if x.shape[a] is not None and y.shape[b] is not None and x.shape[a] != y.shape[b]:
            raise ValueError(f"np.{op}: shape-mismatch for sum")
    free_a = [k for k in builtins.range(ra) if k not in axes_a]
    free_b = [k for k in builtins.range(rb) if k not in axes_b]
    da, db = dims_of(x), dims_of(y)
    k = _product([da[a] for a in axes_a])
    xt = transpose(x, free_a + axes_a) if free_a + axes_a != list(builtins.range(ra)) else x
    yt = transpose(y, axes_b + free_b) if axes_b + free_b != list(builtins.range(rb)) else y
    r = matmul(reshape(xt, [-1, k]), reshape(yt, [k, _product([db[b] for b in free_b])]))
    return reshape(r, [da[a] for a in free_a] + [db[b] for b in free_b])


@locate_errors
def np_tensordot(a, b, axes=2):
    """NumPy's `tensordot`: the sum of products over `axes` (an int N: the
    last N axes of `a` with the first N of `b`; or a pair of axis lists)."""
    x, y = promote("tensordot", _asarray(a), _asarray(b))
    axes = known(axes)
    if isinstance(axes, numbers.Integral) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > builtins.min(rank_of(x), rank_of(y)):
            raise ValueError(f"np.tensordot: axes={n} is out of range for operands of rank "
                             f"{rank_of(x)} and {rank_of(y)}")
        axes_a, axes_b = list(builtins.range(-n, 0)), list(builtins.range(0, n))
    else:
        try:
            axes_a, axes_b = axes
        except (TypeError, ValueError):
            raise ValueError(f"np.tensordot: axes must be an int or a pair of axis lists, got "
                             f"{axes!r}") from None
        axes_a = [int(v) for v in (axes_a if isinstance(axes_a, (list, tuple)) else [axes_a])]
        axes_b = [int(v) for v in (axes_b if isinstance(axes_b, (list, tuple)) else [axes_b])]
    if rank_of(x) == 0 or rank_of(y) == 0:
        return multiply(x, y)
    return _contract("tensordot", x, y, axes_a, axes_b)


@locate_errors
def np_inner(a, b):
    """NumPy's `inner`: the sum of products over the last axes (a product
    when either is a scalar); shape a.shape[:-1] + b.shape[:-1]."""
    x, y = promote("inner", _asarray(a), _asarray(b))
    if rank_of(x) == 0 or rank_of(y) == 0:
        return multiply(x, y)
    if x.shape[-1] is not None and y.shape[-1] is not None and x.shape[-1] != y.shape[-1]:
        raise ValueError(f"np.inner: shapes {tuple(x.shape)} and {tuple(y.shape)} not aligned: "
                         f"{x.shape[-1]} (dim {rank_of(x) - 1}) != {y.shape[-1]} "
                         f"(dim {rank_of(y) - 1})")
    return _contract("inner", x, y, [-1], [-1])


# ----------------------------------------------------------- cross

def _component(v, i: int):
    return getitem(v, (Ellipsis, i))


@locate_errors
def np_cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """NumPy's `cross`: the cross product of 3-vectors (or 2-vectors, with a
    zero third component; two 2-vectors give the scalar z component) along
    the last axis (`axisa`/`axisb`/`axisc`/`axis` choose others), leading
    axes broadcast. NumPy's arithmetic, step by step."""
    from .numpy_arrange import np_moveaxis
    x, y = promote("cross", _asarray(a), _asarray(b))
    axisa, axisb, axisc, axis = known((axisa, axisb, axisc, axis))
    if axis is not None:
        axisa = axisb = axisc = axis
    x = np_moveaxis(x, axisa, -1)
    y = np_moveaxis(y, axisb, -1)
    na, nb = x.shape[-1], y.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("np.cross: incompatible dimensions for cross product\n(dimension must "
                         "be 2 or 3)")
    a0, a1 = _component(x, 0), _component(x, 1)
    b0, b1 = _component(y, 0), _component(y, 1)
    cp2 = subtract(multiply(a0, b1), multiply(a1, b0))
    if na == 2 and nb == 2:
        return cp2
    if na == 2:           # a2 = 0
        b2 = _component(y, 2)
        cp0, cp1 = multiply(a1, b2), negative(multiply(a0, b2))
    elif nb == 2:         # b2 = 0
        a2 = _component(x, 2)
        cp0, cp1 = negative(multiply(a2, b1)), multiply(a2, b0)
    else:
        a2, b2 = _component(x, 2), _component(y, 2)
        cp0 = subtract(multiply(a1, b2), multiply(a2, b1))
        cp1 = subtract(multiply(a2, b0), multiply(a0, b2))
    from .shaping import stack
    from .numpy_statistics import broadcast_to
    parts = [cp0, cp1, cp2]
    if builtins.any(p.shape != cp2.shape for p in parts):   # a 2-vector's part broadcasts less
        full = dims_of(multiply(multiply(cp0, cp1), cp2))
        parts = [broadcast_to(p, full) for p in parts]
    return np_moveaxis(stack(parts, axis=-1), -1, axisc)


# ----------------------------------------------------------- polyval, trapezoid

@locate_errors
def np_polyval(p, x):
    """NumPy's `polyval`: the polynomial with coefficients `p` (highest
    power first; their number known at trace time) at `x`, by NumPy's
    Horner's rule `y = y * x + p[i]` from `y = zeros_like(x)`."""
    c, v = promote("polyval", _asarray(p), _asarray(x))
    if rank_of(c) != 1:
        raise ValueError(f"np.polyval: p must be 1-D (the coefficients), got rank {rank_of(c)}")
    n = c.shape[0]
    if n is None:
        raise Unsupported("coefficients whose number is only known at run time")
    y = zeros_like(v)
    for i in builtins.range(n):
        y = add(multiply(y, v), getitem(c, i))
    return y


@locate_errors
def np_trapezoid(y, x=None, dx=1.0, axis=-1):
    """NumPy's `trapezoid`: the integral of `y` along `axis` by the trapezoid
    rule, `sum(d * (y[1:] + y[:-1]) / 2.0)`, with spacing `dx` or the sample
    points `x` (1-D along the axis, or y's shape)."""
    yt = tensor_operand("trapezoid", _asarray(y))
    rank = rank_of(yt)
    if rank is None or rank == 0:
        raise ValueError("np.trapezoid: y must have at least one dimension")
    (ax,) = normalize_axis("trapezoid", axis, rank)
    if x is None:
        if is_tensor_like(dx) or isinstance(dx, (np.ndarray, np.generic)):
            yt, d = promote("trapezoid", yt, _asarray(dx), floating=True)
        else:               # a Python number: weak, as in NumPy
            (yt,), d = promote("trapezoid", yt, floating=True), dx
    else:
        xt = tensor_operand("trapezoid", _asarray(x))
        yt, xt = promote("trapezoid", yt, xt, floating=True)
        if rank_of(xt) == 1:
            shape = [1] * rank
            shape[ax] = -1
            d = reshape(np_diff(xt), shape)
        else:
            d = np_diff(xt, axis=ax)
    lead = (builtins.slice(None),) * ax
    hi = getitem(yt, lead + (builtins.slice(1, None),))
    lo = getitem(yt, lead + (builtins.slice(None, -1),))
    return reduce_sum(divide(multiply(d, add(hi, lo)), 2.0), axis=ax)


# ----------------------------------------------------------- convolve, correlate

def _vector(op: str, v):
    t = tensor_operand(op, v)
    r = rank_of(t)
    if r == 0:
        return reshape(t, [1])
    if r != 1:
        raise ValueError(f"np.{op}: object too deep for desired array (1-D inputs only)")
    if t.shape[0] is None:
        raise Unsupported("inputs whose length is only known at run time")
    return t


def _correlate_long(a, v, mode: str):
    """NumPy's `_pyarray_correlate` with len(a) >= len(v): out[k] = sum_j
    a[k + j] * v[j], for the shifts of `mode`."""
    n, m = a.shape[0], v.shape[0]
    if mode == "valid":
        left, length = 0, n - m + 1
    elif mode == "same":
        left, length = m // 2, n
    else:
        left, length = m - 1, n + m - 1
    zero = np.zeros((), np_dtype_of(a))
    parts = ([fill([left], zero)] if left else []) + [a]
    right = length + m - 1 - left - n
    if right > 0:
        parts.append(fill([right], zero))
    padded = concat(parts, 0) if len(parts) > 1 else a
    index = np.arange(length)[:, None] + np.arange(m)[None, :]
    windows = gather(padded, index.astype(np.int64), axis=0)
    return reduce_sum(multiply(windows, reshape(v, [1, -1])), axis=1)


def _mode(op: str, mode) -> str:
    names = {0: "valid", 1: "same", 2: "full", "v": "valid", "s": "same", "f": "full"}
    key = mode if isinstance(mode, int) else (mode[:1].lower() if isinstance(mode, str) else mode)
    if key not in names or (isinstance(mode, str) and mode.lower() not in ("valid", "same",
                                                                            "full")):
        raise ValueError(f"np.{op}: mode must be one of 'valid', 'same', or 'full' (got "
                         f"{mode!r})")
    return names[key]


def _correlate(op: str, a, v, mode: str):
    if a.shape[0] == 0:
        raise ValueError(f"np.{op}: a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError(f"np.{op}: v cannot be empty")
    if a.shape[0] >= v.shape[0]:
        return _correlate_long(a, v, mode)
    # NumPy swaps the operands and reverses (and conjugates) the result
    r = getitem(_correlate_long(v, a, mode), builtins.slice(None, None, -1))
    return conj(r) if _is_complex(r) else r


@locate_errors
def np_convolve(a, v, mode="full"):
    """NumPy's `convolve` of two 1-D tensors (lengths known at trace time) in
    mode "full", "same" or "valid"."""
    x, w = promote("convolve", _vector("convolve", _asarray(a)), _vector("convolve",
                                                                           _asarray(v)))
    mode = _mode("convolve", mode)
    if w.shape[0] > x.shape[0]:
        x, w = w, x
    if w.shape[0] == 0:
        raise ValueError("np.convolve: v cannot be empty")
    if x.shape[0] == 0:
        raise ValueError("np.convolve: a cannot be empty")
    return _correlate("convolve", x, getitem(w, builtins.slice(None, None, -1)), mode)


@locate_errors
def np_correlate(a, v, mode="valid"):
    """NumPy's `correlate` of two 1-D tensors (lengths known at trace time):
    `c[k] = sum_n a[n + k] * conj(v[n])`, mode "valid" (default), "same" or
    "full"."""
    x, w = promote("correlate", _vector("correlate", _asarray(a)),
                   _vector("correlate", _asarray(v)))
    if _is_complex(w):
        w = conj(w)
    return _correlate("correlate", x, w, _mode("correlate", mode))


# ----------------------------------------------------------- cov, corrcoef

def _observations(op: str, m, rowvar: bool, what: str):
    x = tensor_operand(op, _asarray(m))
    r = rank_of(x)
    if r is None or r > 2:
        raise ValueError(f"np.{op}: {what} has more than 2 dimensions")
    if r < 2:
        x = reshape(x, [1, -1])
    if not rowvar and x.shape[0] != 1:   # (an unknown first dimension counts as > 1)
        x = transpose(x, [1, 0])
    return x


def _covariance(op: str, m, y, rowvar, bias, ddof, fweights, aweights, dtype):
    if fweights is not None or aweights is not None:
        raise Unsupported("the fweights=/aweights= arguments")
    ddof = known(ddof)
    if ddof is not None and (not isinstance(ddof, numbers.Real) or ddof != int(ddof)):
        raise ValueError(f"np.{op}: ddof must be integer")
    x = _observations(op, m, rowvar, "m")
    parts = [x] if y is None else [x, _observations(op, y, rowvar, "y")]
    parts = promote(op, *parts, floating=True)
    want = np.result_type(np_dtype_of(parts[0]), np.float64) if dtype is None else np.dtype(dtype)
    parts = [cast_to(p, want) for p in parts]
    x = parts[0] if len(parts) == 1 else concat(parts, 0)
    if x.shape[0] == 0:
        return fill([0, 0], np.zeros((), want))
    if ddof is None:
        ddof = 0 if bias else 1
    n = dims_of(x)[1]
    centred = subtract(x, reduce_mean(x, axis=1, keepdims=True))
    c = matmul(centred, transpose(conj(centred) if _is_complex(centred) else centred, [1, 0]))
    if isinstance(n, int):
        fact = n - int(ddof)
        scale = 1.0 / fact if fact > 0 else math.inf   # NumPy: a warning, then fact = 0.0
    else:
        fact = subtract(cast(n, _real_dtype_of(c)), float(ddof))
        scale = where(fact > 0, divide(1.0, fact), math.inf)
    c = multiply(c, scale)        # NumPy multiplies by 1/fact
    if x.shape[0] == 1:           # NumPy's squeeze: one variable gives a scalar
        c = reshape(c, [])
    return c


def _real_dtype_of(c):
    """The real dtype matching `c`'s (the count's dtype for the scale)."""
    from ..core.types import as_dtype
    d = np_dtype_of(c)
    return as_dtype(np.empty(0, d).real.dtype)


@locate_errors
def np_cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
           dtype=None):
    """NumPy's `cov`: the covariance matrix of the variables in the rows of
    `m` (columns when `rowvar=False`; plus those of `y`), normalised by
    `N - 1` (`N` with `bias=True`, `N - ddof` with `ddof`); float64 unless
    `dtype`. One variable gives a scalar. With `rowvar=False` a first
    dimension unknown at trace time is taken as the observations (NumPy
    keeps a single row as one variable); with the number of variables
    unknown at trace time the result stays 2-D."""
    return _covariance("cov", m, y, rowvar, bias, ddof, fweights, aweights, dtype)


@locate_errors
def np_corrcoef(x, y=None, rowvar=True, bias=NO, ddof=NO, *, dtype=None):
    """NumPy's `corrcoef`: `cov` divided by the outer product of the
    standard deviations (NumPy's two divisions), clipped to [-1, 1]."""
    c = _covariance("corrcoef", x, y, rowvar, False, None, None, None, dtype)
    if _is_complex(c):
        raise Unsupported("complex input")
    if rank_of(c) == 0:
        return divide(c, c)
    n = dims_of(c)[0]
    rows = reshape(ag_range(0, n, 1), [-1, 1])
    cols = reshape(ag_range(0, n, 1), [1, -1])
    d = reduce_sum(where(equal(rows, cols), c, zeros_like(c)), axis=1)
    std = sqrt(d)
    c = divide(c, reshape(std, [-1, 1]))
    c = divide(c, reshape(std, [1, -1]))
    return minimum(maximum(c, -1.0), 1.0)


# ----------------------------------------------------------- matrix_power

@locate_errors
def matrix_power(a, n):
    """NumPy's `linalg.matrix_power` of one square matrix: `n` a non-negative
    int known at trace time (the identity for 0), by NumPy's repeated
    squaring. Negative `n` (which needs the inverse) is not supported."""
    x = tensor_operand("matrix_power", _asarray(a))
    n = known(n)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        if is_tensor_like(n):
            raise Unsupported("an exponent that is a tensor (it must be known at trace time)")
        raise TypeError("np.linalg.matrix_power: exponent must be an integer")
    n = int(n)
    r = rank_of(x)
    if r is None or r < 2:
        raise np.linalg.LinAlgError(f"{r}-dimensional array given. Array must be at least "
                                    f"two-dimensional")
    if x.shape[-1] is not None and x.shape[-2] is not None and x.shape[-1] != x.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    if r > 2:
        raise Unsupported("a stack of matrices (one 2-D matrix only)")
    if n < 0:
        raise Unsupported("a negative exponent (it needs the inverse)")
    if n == 0:
        from ..core.types import as_dtype
        size = dims_of(x)[0]
        ident = eye(size, dtype=as_dtype("float64"))
        return cast(ident, x.dtype) if x.dtype.name != "float64" else ident
    if n == 1:
        return x
    if n == 2:
        return matmul(x, x)
    if n == 3:
        return matmul(matmul(x, x), x)
    z = result = None
    while n > 0:
        z = x if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


FUNCTIONS = {
    "kron": np_kron, "inner": np_inner, "tensordot": np_tensordot, "cross": np_cross,
    "polyval": np_polyval, "trapezoid": np_trapezoid, "trapz": np_trapezoid,   # (NumPy 1's name)
    "convolve": np_convolve,
    "correlate": np_correlate, "cov": np_cov, "corrcoef": np_corrcoef,
}
