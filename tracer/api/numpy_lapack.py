"""Linear algebra by LAPACK: `np.linalg.inv/solve/det/slogdet/cholesky/eigh/
eigvalsh/qr/svd/lstsq/pinv/matrix_rank/cond` (NumPy's, dispatched by identity: `BY_FUNCTION`).

The ops (`tracer/ops/linalg.py`) call the LAPACK routines NumPy's
`numpy.linalg` calls, with the same arguments, so results are NumPy's bit
for bit, eagerly and compiled (`codegen/lowering/lapack_call.py`). As in
NumPy, float32 is computed in float64 and rounded, and integer and bool
inputs compute in float64 (`_commonType`). Complex matrices are not
supported. Matrices may be stacked (leading batch dims), except for pinv
(2-D only: it multiplies matrices).

Where NumPy raises LinAlgError (a singular matrix for inv/solve, a matrix
that is not positive definite for cholesky, no convergence), autograph
raises InvalidArgumentError (also a ValueError, like LinAlgError) with
NumPy's message after the function's name, naming the user's line.
"""
from __future__ import annotations

import numbers

import numpy as np

from .common import locate_errors, rank_of
from .elementwise import cast, divide, greater, logical_and, logical_not, multiply, where
from .numpy_functions import Unsupported, tensor_operand
from .public import entry_of_op
from .reduce import reduce_any, reduce_max, reduce_sum
from .shaping import expand_dims, squeeze, transpose
from .slicing import getitem
from ..core.types import float32, float64, int64
from ..tracing.symbolic import bind

__all__ = ["np_inv", "np_solve", "np_det", "np_slogdet", "np_cholesky", "np_eigh", "np_eigvalsh",
           "np_qr", "np_svd", "np_pinv", "np_matrix_rank", "np_cond", "np_lstsq", "singular_values",
           "BY_FUNCTION"]

try:   # NumPy >= 2 returns named tuples
    from numpy.linalg._linalg import EighResult, QRResult, SlogdetResult, SVDResult
except ImportError:  # pragma: no cover - NumPy 1
    EighResult = QRResult = SlogdetResult = SVDResult = None


def _named(cls, *values):
    return tuple(values) if cls is None else cls(*values)


def _matrix(op: str, a, square: bool = True):
    """`a` as a float tensor of rank >= 2 (integers and bools as float64)."""
    x = tensor_operand(op, a)
    d = x.dtype
    if getattr(d, "is_complex", False):
        raise Unsupported("complex matrices")
    if not d.is_floating:
        if not (d.is_integer or d.is_bool):
            raise TypeError(f"{op}: expected a numeric matrix, got dtype {d.name}")
        x = cast(x, float64)
    rank = rank_of(x)
    if rank is None:
        raise ValueError(f"{op}: the rank of the matrix must be known at trace time")
    if rank < 2:
        raise ValueError(f"{op}: {rank}-dimensional array given. Array must be at least "
                         f"two-dimensional")
    if square:
        m, n = x.shape[-2:]
        if m is not None and n is not None and m != n:
            raise ValueError(f"{op}: Last 2 dimensions of the array must be square")
    return x


def _swap(x):
    """x with its last two axes exchanged (the matrices transposed)."""
    rank = rank_of(x)
    return transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2])


def _common(*xs):
    """Cast float matrices to one dtype (float64 unless all are float32), as NumPy."""
    dt = float32 if all(x.dtype == float32 for x in xs) else float64
    return [x if x.dtype == dt else cast(x, dt) for x in xs]


# ---------------------------------------------------------------- NumPy


@locate_errors
def np_inv(a):
    """NumPy's `linalg.inv`: the inverse of each square matrix (LAPACK dgesv
    against the identity, as NumPy). Singular: InvalidArgumentError
    "inv: Singular matrix"."""
    return bind("matrix_inverse", _matrix("inv", a))


@locate_errors
def np_solve(a, b):
    """NumPy's `linalg.solve`: x with a @ x == b; b of shape (M,) is one vector
    (NumPy 2), else a stack of (M, K) matrices. Batch dims must be equal or
    static (they are broadcast)."""
    x = _matrix("solve", a)
    y = tensor_operand("solve", b)
    if getattr(y.dtype, "is_complex", False):
        raise Unsupported("complex matrices")
    if not y.dtype.is_floating:
        y = cast(y, float64)
    x, y = _common(x, y)
    if rank_of(y) is None or rank_of(y) < 1:
        raise ValueError("solve: b must be at least one-dimensional")
    vector = rank_of(y) == 1
    if vector:
        y = expand_dims(y, -1)
    x, y = _same_batch("solve", x, y)
    out = bind("matrix_solve", x, y)
    return squeeze(out, axis=[-1]) if vector else out


def _same_batch(op: str, x, y):
    """x and y with equal batch dims: broadcast when their ranks or static
    batch dims differ (the shapes must then be known at trace time)."""
    bx, by = x.shape[:-2], y.shape[:-2]
    if len(bx) == len(by) and all(p is None or q is None or p == q for p, q in zip(bx, by)):
        return x, y
    if None in x.shape or None in y.shape:
        raise Unsupported("batch dimensions that differ, with dims only known at run time")
    try:
        batch = np.broadcast_shapes(tuple(bx), tuple(by))
    except ValueError:
        raise ValueError(f"{op}: the batch dimensions {tuple(bx)} and {tuple(by)} do not "
                         f"broadcast") from None
    from .numpy_statistics import broadcast_to
    return (broadcast_to(x, list(batch) + list(x.shape[-2:])),
            broadcast_to(y, list(batch) + list(y.shape[-2:])))


@locate_errors
def np_det(a):
    """NumPy's `linalg.det`: sign * exp(log|det|) from an LU factorisation
    (dgetrf), as NumPy; 0 for a singular matrix."""
    return bind("matrix_determinant", _matrix("det", a))


@locate_errors
def np_slogdet(a):
    """NumPy's `linalg.slogdet`: (sign, logabsdet); (0, -inf) when singular."""
    sign, logdet = bind("log_matrix_determinant", _matrix("slogdet", a))
    return _named(SlogdetResult, sign, logdet)


@locate_errors
def np_cholesky(a, /, *, upper=False):
    """NumPy's `linalg.cholesky`: the lower factor L (a = L @ L.T), or the
    upper one with `upper=True`. Not positive definite: InvalidArgumentError
    "cholesky: Matrix is not positive definite"."""
    return bind("cholesky", _matrix("cholesky", a), upper=bool(upper))


def _uplo(UPLO) -> bool:
    u = str(UPLO).upper()
    if u not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return u == "L"


@locate_errors
def np_eigh(a, UPLO="L"):
    """NumPy's `linalg.eigh`: (eigenvalues ascending, eigenvectors as columns)
    of symmetric matrices, reading the `UPLO` triangle (dsyevd)."""
    w, v = bind("self_adjoint_eig", _matrix("eigh", a), lower=_uplo(UPLO), compute_v=True)
    return _named(EighResult, w, v)


@locate_errors
def np_eigvalsh(a, UPLO="L"):
    """NumPy's `linalg.eigvalsh`: the eigenvalues (ascending) of symmetric matrices."""
    return bind("self_adjoint_eig", _matrix("eigvalsh", a), lower=_uplo(UPLO), compute_v=False)


@locate_errors
def np_qr(a, mode="reduced"):
    """NumPy's `linalg.qr` with mode 'reduced' (q: (M, K), r: (K, N)),
    'complete' (q: (M, M), r: (M, N)) or 'r' (r alone); not 'raw'."""
    if mode not in ("reduced", "complete", "r"):
        if mode == "raw":
            raise Unsupported("mode='raw'")
        raise ValueError(f"Unrecognized mode '{mode}'")
    q, r = bind("qr", _matrix("qr", a, square=False), full=mode == "complete")
    return r if mode == "r" else _named(QRResult, q, r)


@locate_errors
def np_svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """NumPy's `linalg.svd` (dgesdd): (u, s, vh) with a = u @ diag(s) @ vh,
    or s alone; `hermitian=True` is not supported."""
    if hermitian:
        raise Unsupported("hermitian=True")
    x = _matrix("svd", a, square=False)
    if not compute_uv:
        return bind("svd", x, full_matrices=False, compute_uv=False)
    u, s, vh = bind("svd", x, full_matrices=bool(full_matrices), compute_uv=True)
    return _named(SVDResult, u, s, vh)


@locate_errors
def np_lstsq(a, b, rcond=None):
    """NumPy's `linalg.lstsq` (dgelsd) of 2-D a and 1-D or 2-D b: (x,
    residuals, rank (int32), singular values). The residuals have a length
    known at run time: b's columns when the rank is N and M > N, else 0."""
    x = _matrix("lstsq", a, square=False)
    if rank_of(x) != 2:
        raise ValueError(f"lstsq: {rank_of(x)}-dimensional array given. Array must be "
                         f"two-dimensional")
    y = tensor_operand("lstsq", b)
    if getattr(y.dtype, "is_complex", False):
        raise Unsupported("complex matrices")
    if not y.dtype.is_floating:
        y = cast(y, float64)
    if rank_of(y) not in (1, 2):
        raise ValueError(f"lstsq: {rank_of(y)}-dimensional array given. Array must be "
                         f"two-dimensional")
    x, y = _common(x, y)
    vector = rank_of(y) == 1
    if vector:
        y = expand_dims(y, -1)
    if rcond is not None and (isinstance(rcond, bool) or not isinstance(rcond, numbers.Real)):
        raise Unsupported("an rcond that is not a Python number")
    if y.shape[-1] == 0:
        raise Unsupported("a b without columns")
    sol, resids, rank, s = bind("lstsq", x, y, rcond=None if rcond is None else float(rcond))
    return (squeeze(sol, axis=[-1]) if vector else sol), resids, rank, s


def singular_values(x):
    """The singular values (descending) of the float matrices x[..., M, N], as
    `np.linalg.svd(x, compute_uv=False)` (dgesdd 'N'); for `np.linalg.norm`."""
    return bind("svd", x, full_matrices=False, compute_uv=False)


_NoValue = getattr(np, "_NoValue", None)


def _pinv(x, rcond: float):
    """NumPy's pinv arithmetic on a 2-D float matrix."""
    u, s, vt = bind("svd", x, full_matrices=False, compute_uv=True)
    cutoff = multiply(reduce_max(s, axis=-1, keepdims=True), rcond)   # NumPy: rcond * amax(s)
    large = greater(s, cutoff)
    s = where(large, divide(1.0, s), 0.0)
    return transpose(vt) @ multiply(expand_dims(s, -1), transpose(u))


@locate_errors
def np_pinv(a, rcond=None, hermitian=False, *, rtol=_NoValue):
    """NumPy's `linalg.pinv` of a 2-D matrix: from its SVD, singular values at
    or below rcond * max(s) discarded (rcond default 1e-15, as NumPy)."""
    if hermitian:
        raise Unsupported("hermitian=True")
    x = _matrix("pinv", a, square=False)
    if rank_of(x) != 2:
        raise Unsupported("a stack of matrices (only 2-D)")
    if rcond is None:
        if rtol is _NoValue:
            rcond = 1e-15
        elif rtol is None:
            if None in x.shape:
                raise Unsupported("rtol=None with dims only known at run time")
            rcond = max(x.shape) * float(np.finfo(x.dtype.np_dtype).eps)
        else:
            rcond = rtol
    elif rtol is not _NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if isinstance(rcond, bool) or not isinstance(rcond, numbers.Real):
        raise Unsupported("an rcond that is not a Python number")
    m, n = x.shape
    if m == 0 or n == 0:
        from .construct import zeros
        return zeros([n, m], x.dtype)
    return _pinv(x, float(rcond))


@locate_errors
def np_matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """NumPy's `linalg.matrix_rank` of matrices (rank >= 2): the number of
    singular values above max(s) * max(M, N) * eps (or `tol`), int64."""
    if hermitian:
        raise Unsupported("hermitian=True")
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    x = tensor_operand("matrix_rank", A)
    if rank_of(x) is not None and rank_of(x) < 2:
        raise Unsupported("a 0-D or 1-D input (NumPy returns a Python int)")
    x = _matrix("matrix_rank", x, square=False)
    s = bind("svd", x, full_matrices=False, compute_uv=False)
    for name, v in (("tol", tol), ("rtol", rtol)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real)):
            raise Unsupported(f"a {name} that is not a Python number")
    if tol is None:
        if rtol is None:
            if None in x.shape[-2:]:
                raise Unsupported("dims only known at run time (the default tolerance needs them)")
            rtol = max(x.shape[-2:]) * float(np.finfo(s.dtype.np_dtype).eps)
        limit = multiply(reduce_max(s, axis=-1, keepdims=True), float(rtol))
    else:
        limit = float(tol)
    return reduce_sum(cast(greater(s, limit), int64), axis=-1)


@locate_errors
def np_cond(x, p=None):
    """NumPy's `linalg.cond` for p None/2 (s_max / s_min) or -2 (s_min /
    s_max); a NaN ratio (0 / 0) becomes inf unless the matrix holds a NaN."""
    if p not in (None, 2, -2):
        raise Unsupported(f"p={p!r} (only None, 2 and -2)")
    t = _matrix("cond", x, square=False)
    if 0 in t.shape[-2:]:
        raise ValueError("cond: cond is not defined on empty arrays")
    s = bind("svd", t, full_matrices=False, compute_uv=False)
    first, last = getitem(s, (Ellipsis, 0)), getitem(s, (Ellipsis, -1))
    r = divide(last, first) if p == -2 else divide(first, last)
    is_nan = entry_of_op("isnan").function   # generated with the elementwise ops
    nan_input = reduce_any(is_nan(t), axis=[-2, -1])
    return where(logical_and(is_nan(r), logical_not(nan_input)), float("inf"), r)


BY_FUNCTION = {np.linalg.inv: np_inv, np.linalg.solve: np_solve, np.linalg.det: np_det,
               np.linalg.slogdet: np_slogdet, np.linalg.cholesky: np_cholesky,
               np.linalg.eigh: np_eigh, np.linalg.eigvalsh: np_eigvalsh, np.linalg.qr: np_qr,
               np.linalg.svd: np_svd, np.linalg.pinv: np_pinv,
               np.linalg.matrix_rank: np_matrix_rank, np.linalg.cond: np_cond,
               np.linalg.lstsq: np_lstsq}
