"""`ag.linalg.inv/solve/det/slogdet/cholesky/eigh/eigvalsh/qr/svd/pinv`:
TensorFlow's `tf.linalg` names and semantics, on the LAPACK ops of
`tracer/ops/linalg.py` (NumPy's `np.linalg` functions, their helpers and the
precision rules are in `numpy_lapack`)."""
from __future__ import annotations

import numbers
from typing import Optional

import numpy as np

from .annotations import ArrayLike
from .common import locate_errors, rank_of
from .numpy_lapack import _common, _matrix, _pinv, _same_batch, _swap
from .public import public
from ..tracing.symbolic import bind

__all__ = ["inv", "solve", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "qr", "svd", "pinv"]


@public("linalg.inv")
@locate_errors
def inv(input, adjoint: bool = False, name=None):
    """The inverse of each square matrix of `input` (`tf.linalg.inv`):
    NumPy's `np.linalg.inv`, bit for bit (LAPACK dgesv against the identity).

    Args:
        input: a float32/float64 tensor of shape [..., M, M] (integers as float64).
        adjoint: invert the transposed matrices instead.
        name: unused (TensorFlow compatibility).

    Returns:
        A tensor of the same shape and dtype.

    Raises:
        InvalidArgumentError: a singular matrix ("inv: Singular matrix").
        ValueError: not a stack of square matrices.

    Example:
        >>> print(ag.linalg.inv([[2.0, 0.0], [0.0, 4.0]]))
        ag.Tensor([[0.5  0.  ]
         [0.   0.25]], shape=(2, 2), dtype=float32)
    """
    x = _matrix("inv", input)
    return bind("matrix_inverse", _swap(x) if adjoint else x)


@public("linalg.solve")
@locate_errors
def solve(matrix: ArrayLike, rhs: ArrayLike, adjoint: bool = False, name=None):
    """x with matrix @ x == rhs (`tf.linalg.solve`): LAPACK dgesv, as
    `np.linalg.solve`.

    Args:
        matrix: a float tensor of shape [..., M, M].
        rhs: a float tensor of shape [..., M, K] (always matrices, as TensorFlow).
        adjoint: solve with the transposed matrices instead.
        name: unused (TensorFlow compatibility).

    Returns:
        A tensor of shape [..., M, K].

    Raises:
        InvalidArgumentError: a singular matrix ("solve: Singular matrix").
        ValueError: shapes that do not match.

    Example:
        >>> print(ag.linalg.solve([[2.0, 0.0], [0.0, 4.0]], [[1.0], [2.0]]))
        ag.Tensor([[0.5]
         [0.5]], shape=(2, 1), dtype=float32)
    """
    x = _matrix("solve", matrix)
    y = _matrix("solve", rhs, square=False)
    x, y = _common(x, y)
    x, y = _same_batch("solve", _swap(x) if adjoint else x, y)
    return bind("matrix_solve", x, y)


@public("linalg.det")
@locate_errors
def det(input, name=None):
    """The determinant of each square matrix (`tf.linalg.det`), computed as
    NumPy's `np.linalg.det`: sign * exp(log|det|) from an LU factorisation.

    Args:
        input: a float tensor of shape [..., M, M].
        name: unused (TensorFlow compatibility).

    Returns:
        A tensor of shape [...] (0 for a singular matrix).

    Raises:
        ValueError: not a stack of square matrices.

    Example:
        >>> print(ag.linalg.det([[1.0, 2.0], [3.0, 4.0]]))
        ag.Tensor(-2., shape=(), dtype=float32)
    """
    return bind("matrix_determinant", _matrix("det", input))


@public("linalg.slogdet")
@locate_errors
def slogdet(input, name=None):
    """(sign, log|det|) of each square matrix (`tf.linalg.slogdet`, NumPy's
    `np.linalg.slogdet`): no overflow where the determinant would.

    Args:
        input: a float tensor of shape [..., M, M].
        name: unused (TensorFlow compatibility).

    Returns:
        (sign, log_abs_determinant), each of shape [...]; (0, -inf) for a
        singular matrix.

    Raises:
        ValueError: not a stack of square matrices.

    Example:
        >>> sign, logdet = ag.linalg.slogdet([[1.0, 2.0], [3.0, 4.0]])
        >>> print(sign)
        ag.Tensor(-1., shape=(), dtype=float32)
    """
    sign, logdet = bind("log_matrix_determinant", _matrix("slogdet", input))
    return sign, logdet


@public("linalg.cholesky")
@locate_errors
def cholesky(input, name=None):
    """The lower Cholesky factor L of each symmetric positive definite matrix
    (input = L @ L^T; `tf.linalg.cholesky`, `np.linalg.cholesky`: dpotrf).

    Args:
        input: a float tensor of shape [..., M, M]; only its lower triangle is read.
        name: unused (TensorFlow compatibility).

    Returns:
        A tensor of the same shape, zero above the diagonal.

    Raises:
        InvalidArgumentError: "cholesky: Matrix is not positive definite".
        ValueError: not a stack of square matrices.

    Example:
        >>> print(ag.linalg.cholesky([[4.0, 2.0], [2.0, 5.0]]))
        ag.Tensor([[2. 0.]
         [1. 2.]], shape=(2, 2), dtype=float32)
    """
    return bind("cholesky", _matrix("cholesky", input), upper=False)


@public("linalg.eigh")
@locate_errors
def eigh(tensor, name=None):
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric
    matrices, read from their lower triangle (`tf.linalg.eigh`,
    `np.linalg.eigh`: dsyevd).

    Args:
        tensor: a float tensor of shape [..., M, M].
        name: unused (TensorFlow compatibility).

    Returns:
        (e, v): e of shape [..., M], v of shape [..., M, M] with
        tensor @ v[..., :, i] == e[..., i] * v[..., :, i].

    Raises:
        InvalidArgumentError: "eigh: Eigenvalues did not converge".
        ValueError: not a stack of square matrices.

    Example:
        >>> e, v = ag.linalg.eigh([[2.0, 0.0], [0.0, 1.0]])
        >>> print(e)
        ag.Tensor([1. 2.], shape=(2,), dtype=float32)
    """
    w, v = bind("self_adjoint_eig", _matrix("eigh", tensor), lower=True, compute_v=True)
    return w, v


@public("linalg.eigvalsh")
@locate_errors
def eigvalsh(tensor, name=None):
    """The eigenvalues (ascending) of symmetric matrices, read from their
    lower triangle (`tf.linalg.eigvalsh`, `np.linalg.eigvalsh`).

    Args:
        tensor: a float tensor of shape [..., M, M].
        name: unused (TensorFlow compatibility).

    Returns:
        A tensor of shape [..., M].

    Raises:
        InvalidArgumentError: "eigvalsh: Eigenvalues did not converge".
        ValueError: not a stack of square matrices.

    Example:
        >>> print(ag.linalg.eigvalsh([[2.0, 1.0], [1.0, 2.0]]))
        ag.Tensor([1. 3.], shape=(2,), dtype=float32)
    """
    return bind("self_adjoint_eig", _matrix("eigvalsh", tensor), lower=True, compute_v=False)


@public("linalg.qr")
@locate_errors
def qr(input, full_matrices: bool = False, name=None):
    """The QR decomposition of each matrix (`tf.linalg.qr`; NumPy's
    `np.linalg.qr` modes 'reduced' and 'complete': dgeqrf + dorgqr).

    Args:
        input: a float tensor of shape [..., M, N].
        full_matrices: q of shape [..., M, M] and r [..., M, N]; else
            [..., M, K] and [..., K, N] with K = min(M, N).
        name: unused (TensorFlow compatibility).

    Returns:
        (q, r): q with orthonormal columns, r upper triangular, input == q @ r.

    Raises:
        ValueError: an input of rank below 2.

    Example:
        >>> q, r = ag.linalg.qr([[3.0, 0.0], [4.0, 1.0]])
        >>> print(r)
        ag.Tensor([[-5.  -0.8]
         [ 0.   0.6]], shape=(2, 2), dtype=float32)
    """
    q, r = bind("qr", _matrix("qr", input, square=False), full=bool(full_matrices))
    return q, r


@public("linalg.svd")
@locate_errors
def svd(tensor, full_matrices: bool = False, compute_uv: bool = True, name=None):
    """The singular value decomposition of each matrix (`tf.linalg.svd`):
    tensor == u @ diag(s) @ transpose(v). Note TensorFlow's order (s, u, v)
    and that v is not transposed (NumPy's svd returns u, s, vh). Computed
    by LAPACK dgesdd, as `np.linalg.svd`.

    Args:
        tensor: a float tensor of shape [..., M, N].
        full_matrices: u of shape [..., M, M] and v [..., N, N]; else
            [..., M, K] and [..., N, K] with K = min(M, N).
        compute_uv: when False, only s.
        name: unused (TensorFlow compatibility).

    Returns:
        (s, u, v), or s alone; s of shape [..., K], descending.

    Raises:
        InvalidArgumentError: "svd: SVD did not converge".
        ValueError: an input of rank below 2.

    Example:
        >>> print(ag.linalg.svd([[3.0, 0.0], [0.0, -4.0]], compute_uv=False))
        ag.Tensor([4. 3.], shape=(2,), dtype=float32)
    """
    x = _matrix("svd", tensor, square=False)
    if not compute_uv:
        return bind("svd", x, full_matrices=False, compute_uv=False)
    u, s, vh = bind("svd", x, full_matrices=bool(full_matrices), compute_uv=True)
    return s, u, _swap(vh)


@public("linalg.pinv")
@locate_errors
def pinv(a, rcond: Optional[float] = None, validate_args: bool = False, name=None):
    """The Moore-Penrose pseudo-inverse of a matrix (`tf.linalg.pinv`), from
    its SVD: singular values at or below rcond * max(s) count as zero.

    Args:
        a: a float tensor of shape [M, N] (2-D only).
        rcond: a Python number; default 10 * max(M, N) * eps, as TensorFlow.
        validate_args: unused (TensorFlow compatibility).
        name: unused (TensorFlow compatibility).

    Returns:
        A tensor of shape [N, M].

    Raises:
        ValueError: an input that is not 2-D, or dims unknown at trace time
            without an rcond.

    Example:
        >>> print(ag.linalg.pinv([[2.0, 0.0], [0.0, 0.0]]))
        ag.Tensor([[0.5 0. ]
         [0.  0. ]], shape=(2, 2), dtype=float32)
    """
    x = _matrix("pinv", a, square=False)
    if rank_of(x) != 2:
        raise ValueError(f"pinv: expected a 2-D matrix, got rank {rank_of(x)}")
    if rcond is None:
        if None in x.shape:
            raise ValueError("pinv: give rcond when the matrix dims are only known at run time")
        rcond = 10.0 * max(x.shape) * float(np.finfo(x.dtype.np_dtype).eps)
    if isinstance(rcond, bool) or not isinstance(rcond, numbers.Real):
        raise ValueError(f"pinv: rcond must be a Python number, got {rcond!r}")
    m, n = x.shape
    if m == 0 or n == 0:
        from .construct import zeros
        return zeros([n, m], x.dtype)
    return _pinv(x, float(rcond))
