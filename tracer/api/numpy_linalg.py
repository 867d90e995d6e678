"""`np.linalg.norm` and `ag.norm` (`tf.norm`): vector and matrix norms built
from reductions; `np.trace`, `np.diagonal` (any axes: numpy_diagonal.py) and `np.swapaxes`.

Vector norms (one axis, or a 1-D input): `ord` None or 2 (Euclidean), 1,
inf, -inf, 0 (the number of non-zeros) and any other number p
(sum(|x|**p)**(1/p)). Matrix norms (an axis pair, or a 2-D input with `ord`
given): None or 'fro', 1, -1, inf, -inf. Matrix norms from the singular
values (`ord` 2, -2, 'nuc') call LAPACK's dgesdd as NumPy does
(`numpy_lapack.singular_values`).
Integer and bool inputs compute in float64, as NumPy does.
"""
from __future__ import annotations

import math
import numbers

from .common import locate_errors, normalize_axis, rank_of
from .elementwise import abs as ag_abs, cast, multiply, not_equal, pow, sqrt
from .numpy_functions import Unsupported, as_float, dims_of, reject, tensor_operand
from .public import public
from .reduce import reduce_max, reduce_min, reduce_sum
from .shaping import reshape, transpose
from .slicing import getitem

__all__ = ["np_norm", "norm", "np_swapaxes", "np_trace", "np_diagonal"]


def _vector(x, ord, axes, keepdims):
    if ord is None or ord == 2:
        if getattr(x.dtype, "is_complex", False):
            a = ag_abs(x)
            return sqrt(reduce_sum(multiply(a, a), axis=axes, keepdims=keepdims))
        return sqrt(reduce_sum(multiply(x, x), axis=axes, keepdims=keepdims))
    a = ag_abs(x)
    if ord == math.inf:
        return reduce_max(a, axis=axes, keepdims=keepdims)
    if ord == -math.inf:
        return reduce_min(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        return reduce_sum(cast(not_equal(x, 0), a.dtype), axis=axes, keepdims=keepdims)
    if ord == 1:
        return reduce_sum(a, axis=axes, keepdims=keepdims)
    if isinstance(ord, bool) or not isinstance(ord, numbers.Real):
        raise ValueError(f"norm: invalid ord {ord!r} for a vector norm")
    p = float(ord)
    return pow(reduce_sum(pow(a, p), axis=axes, keepdims=keepdims), 1.0 / p)


def _matrix(x, ord, axes, keepdims):
    row, col = axes
    if ord is None or ord == "fro":
        return _vector(x, None, axes, keepdims)
    if ord in (2, -2, "nuc"):   # from the singular values (LAPACK dgesdd, as NumPy)
        from .numpy_lapack import singular_values
        rank = rank_of(x)
        s = singular_values(transpose(x, [i for i in range(rank) if i not in axes] + [row, col]))
        pick = {2: reduce_max, -2: reduce_min, "nuc": reduce_sum}[ord]
        out = pick(s, axis=-1)
        if keepdims:
            from .shaping import expand_dims
            for a in sorted(axes):
                out = expand_dims(out, a)
        return out
    a = ag_abs(x)
    if ord in (1, -1):
        inner, outer = row, col       # sum down each column, then over columns
    elif ord in (math.inf, -math.inf):
        inner, outer = col, row       # sum along each row, then over rows
    else:
        raise ValueError(f"norm: invalid ord {ord!r} for a matrix norm")
    sums = reduce_sum(a, axis=inner, keepdims=True)
    pick = reduce_max if ord in (1, math.inf) else reduce_min
    out = pick(sums, axis=outer, keepdims=True)
    if keepdims:
        return out
    from .shaping import squeeze
    return squeeze(out, axis=[row, col])


@locate_errors
def np_norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's `linalg.norm` (see the module docstring for the `ord`s).

    Example: `np.linalg.norm(v)`, `np.linalg.norm(m, ord=1, axis=(0, 1))`.
    """
    t = as_float("norm", tensor_operand("norm", x))
    rank = rank_of(t)
    keepdims = bool(keepdims)
    if axis is None:
        if ord is None:   # the 2-norm of the flattened input, any rank
            axes = None if rank is None else tuple(range(rank))
            return _vector(t, None, axes, keepdims)
        if rank == 1:
            return _vector(t, ord, (0,), keepdims)
        if rank == 2:
            return _matrix(t, ord, (0, 1), keepdims)
        raise ValueError(f"norm: ord={ord!r} needs a 1-D or 2-D input or an axis, got rank {rank}")
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        axes = tuple(normalize_axis("norm", a, rank)[0] for a in axis)
        if axes[0] == axes[1]:
            raise ValueError(f"norm: axis {tuple(axis)} names the same axis twice")
        return _matrix(t, ord, axes, keepdims)
    if isinstance(axis, (tuple, list)) and len(axis) != 1:
        raise ValueError(f"norm: axis must be an int or a pair of ints, got {axis!r}")
    axes = normalize_axis("norm", axis, rank)
    return _vector(t, ord, axes, keepdims)


@public("norm")
@locate_errors
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    """The norm of `tensor` (`tf.norm`): the Euclidean norm of all elements by
    default, a vector norm along one `axis`, or a matrix norm over an axis pair.

    Args:
        tensor: a tensor, array or nested list (integers compute in float64).
        ord: 'euclidean' (or 'fro', 2 for vectors), 1, inf, -inf, 0 or a
            number p for vectors; 'fro', 1, -1, inf, -inf for matrices.
        axis: None, an int or a pair of ints known at trace time.
        keepdims: keep the reduced axes with size 1.
        name: unused (TensorFlow compatibility).

    Returns:
        A floating tensor.

    Raises:
        ValueError: an invalid `ord` or an axis out of range.

    Example:
        >>> print(ag.norm([3.0, 4.0]))
        ag.Tensor(5., shape=(), dtype=float32)
    """
    if ord == "euclidean":
        ord = None
    if axis is None and ord not in (None, "fro"):
        t = tensor_operand("norm", tensor)
        axis = None if rank_of(t) in (1, 2) else tuple(range(rank_of(t)))
    return np_norm(tensor, ord, axis, bool(keepdims))


@locate_errors
def np_swapaxes(a, axis1, axis2):
    """NumPy's `swapaxes`: `a` with two axes exchanged."""
    x = tensor_operand("swapaxes", a)
    rank = rank_of(x)
    (i,) = normalize_axis("swapaxes", axis1, rank)
    (j,) = normalize_axis("swapaxes", axis2, rank)
    perm = list(range(rank))
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(x, perm)


def _diagonal_rows(op: str, a, offset):
    """(x, x with everything off its `offset`-th diagonal zeroed) for a 2-D `a`."""
    x = tensor_operand(op, a)
    if rank_of(x) != 2:
        raise Unsupported(f"a tensor of rank {rank_of(x)} (only 2-D is supported)")
    if isinstance(offset, bool) or not isinstance(offset, numbers.Integral):
        raise TypeError(f"{op}: offset must be an int known at trace time, got {offset!r}")
    from .construct import range as ag_range
    from .elementwise import add, equal, where
    n, m = dims_of(x)
    rows = reshape(ag_range(0, n, 1), [-1, 1])
    cols = reshape(ag_range(0, m, 1), [1, -1])
    # where (not a product with an identity): inf and NaN off the diagonal stay out
    on_diagonal = equal(add(rows, int(offset)), cols)
    from .construct import zeros_like
    return x, where(on_diagonal, x, zeros_like(x))


@locate_errors
def np_trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """NumPy's `trace`: the sum of the `offset`-th diagonal over `axis1`, `axis2`."""
    reject("trace", dtype=dtype, out=out)
    x = tensor_operand("trace", a)
    if (axis1, axis2) != (0, 1) or rank_of(x) != 2:
        from .numpy_diagonal import diagonal
        return reduce_sum(diagonal(x, offset, axis1, axis2, op="trace"), axis=-1)
    _, masked = _diagonal_rows("trace", x, offset)
    return reduce_sum(masked)


@locate_errors
def np_diagonal(a, offset=0, axis1=0, axis2=1):
    """NumPy's `diagonal`: the `offset`-th diagonal over `axis1`, `axis2` (last)."""
    t = tensor_operand("diagonal", a)
    if (axis1, axis2) != (0, 1) or rank_of(t) != 2:
        from .numpy_diagonal import diagonal
        return diagonal(t, offset, axis1, axis2)
    x, masked = _diagonal_rows("diagonal", t, offset)
    n, m = x.shape
    if n is None or m is None:
        raise Unsupported("a tensor whose shape is only known at run time")
    k = int(offset)
    length = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
    if k >= 0:
        rows = reduce_sum(masked, axis=1)      # row i holds a[i, i + k]
        return getitem(rows, slice(0, length))
    cols = reduce_sum(masked, axis=0)          # column j holds a[j - k, j]
    return getitem(cols, slice(0, length))
