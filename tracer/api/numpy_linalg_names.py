"""NumPy 2's other `np.linalg` names, built on functions that exist:
`svdvals`, `matrix_norm`, `vector_norm`, `matrix_transpose`, `multi_dot`,
`outer`, `vecdot` and `matmul` (dispatched by identity: `BY_FUNCTION`).

`multi_dot` multiplies in the order NumPy chooses (its cost of each
association, from the static shapes), so results equal NumPy's `dot`
chain; with dimensions known only at run time it multiplies left to right
(equal within rounding). `vector_norm` over several axes at once is not
supported.
"""
from __future__ import annotations

import numbers

import numpy as np

from .common import locate_errors, rank_of
from .elementwise import multiply
from .numpy_functions import Unsupported, np_dot, np_outer, reject, tensor_operand
from .numpy_lapack import singular_values, _matrix, _swap
from .numpy_linalg import np_norm
from .reduce import reduce_sum
from .shaping import reshape

__all__ = ["np_svdvals", "np_matrix_norm", "np_vector_norm", "np_matrix_transpose",
           "np_multi_dot", "np_linalg_outer", "np_vecdot", "BY_FUNCTION"]


@locate_errors
def np_svdvals(x, /):
    """NumPy's `linalg.svdvals`: `svd(x, compute_uv=False)`."""
    return singular_values(_matrix("svdvals", x, square=False))


@locate_errors
def np_matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """NumPy's `linalg.matrix_norm`: `norm` over the last two axes."""
    return np_norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


@locate_errors
def np_vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """NumPy's `linalg.vector_norm`: `norm` of the flattened tensor (axis
    None) or along one axis, `keepdims` giving size-1 axes back."""
    t = tensor_operand("vector_norm", x)
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise Unsupported("several axes at once")
        axis = axis[0]
    if axis is None:
        rank = rank_of(t)
        out = np_norm(reshape(t, [-1]), ord=ord, axis=0)
        return reshape(out, [1] * rank) if keepdims else out
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"vector_norm: axis must be an int or a tuple of ints, got {axis!r}")
    return np_norm(t, ord=ord, axis=int(axis), keepdims=bool(keepdims))


@locate_errors
def np_matrix_transpose(x, /):
    """NumPy's `linalg.matrix_transpose`: the last two axes exchanged."""
    t = tensor_operand("matrix_transpose", x)
    if rank_of(t) is None or rank_of(t) < 2:
        raise ValueError("matrix_transpose: Input array must be at least 2-dimensional")
    return _swap(t)


def _chain_order(dims):
    """NumPy's `_multi_dot_matrix_chain_order`: split points s[i][j]."""
    n = len(dims) - 1
    m = [[0.0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            m[i][j] = np.inf
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if q < m[i][j]:
                    m[i][j], s[i][j] = q, k
    return s


@locate_errors
def np_multi_dot(arrays, *, out=None):
    """NumPy's `linalg.multi_dot`: the product of a chain of matrices (the
    first and last may be 1-D), associated as NumPy associates it."""
    reject("multi_dot", out=out)
    xs = [tensor_operand("multi_dot", a) for a in arrays]
    n = len(xs)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return np_dot(xs[0], xs[1])
    first, last = rank_of(xs[0]), rank_of(xs[-1])
    if first == 1:
        xs[0] = reshape(xs[0], [1, -1])
    if last == 1:
        xs[-1] = reshape(xs[-1], [-1, 1])
    for x in xs:
        if rank_of(x) != 2:
            raise ValueError(f"multi_dot: {rank_of(x)}-dimensional array given. Array must be "
                             f"two-dimensional")
    dims = [x.shape[0] for x in xs] + [xs[-1].shape[1]]
    if None in dims:
        result = xs[0]
        for x in xs[1:]:
            result = np_dot(result, x)
    elif n == 3:
        a0, a1b0, b1c0, c1 = dims
        if a0 * b1c0 * (a1b0 + c1) < a1b0 * c1 * (a0 + b1c0):
            result = np_dot(np_dot(xs[0], xs[1]), xs[2])
        else:
            result = np_dot(xs[0], np_dot(xs[1], xs[2]))
    else:
        s = _chain_order(dims)

        def chain(i, j):
            if i == j:
                return xs[i]
            return np_dot(chain(i, s[i][j]), chain(s[i][j] + 1, j))
        result = chain(0, n - 1)
    if first == 1 and last == 1:
        return reshape(result, [])
    if first == 1 or last == 1:
        return reshape(result, [-1])
    return result


@locate_errors
def np_linalg_outer(x1, x2, /):
    """NumPy's `linalg.outer` of two 1-D tensors."""
    for x in (x1, x2):
        r = rank_of(tensor_operand("outer", x))
        if r != 1:
            raise ValueError(f"outer: Input arrays must be one-dimensional, but they are "
                             f"{r}-dimensional")
    return np_outer(x1, x2)


@locate_errors
def np_vecdot(x1, x2, /, *, axis=-1):
    """NumPy's `linalg.vecdot` of real tensors: sum(x1 * x2) along `axis`."""
    a, b = tensor_operand("vecdot", x1), tensor_operand("vecdot", x2)
    if getattr(a.dtype, "is_complex", False) or getattr(b.dtype, "is_complex", False):
        raise Unsupported("complex tensors")
    return reduce_sum(multiply(a, b), axis=axis)


def _matmul(x1, x2, /):
    """NumPy's `linalg.matmul`: what `np.matmul` does on tensors."""
    from .numpy_protocol import dispatch_table
    return dispatch_table()["matmul"](x1, x2)


BY_FUNCTION = {np.linalg.svdvals: np_svdvals, np.linalg.matrix_norm: np_matrix_norm,
               np.linalg.vector_norm: np_vector_norm,
               np.linalg.matrix_transpose: np_matrix_transpose,
               np.linalg.multi_dot: np_multi_dot, np.linalg.outer: np_linalg_outer,
               np.linalg.vecdot: np_vecdot, np.linalg.matmul: _matmul} \
    if hasattr(np.linalg, "svdvals") else {np.linalg.multi_dot: np_multi_dot}
