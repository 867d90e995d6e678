"""`matmul`: the product of two rank-2 tensors of one numeric dtype; and the
LAPACK ops of `np.linalg` (inv, solve, det, slogdet, cholesky, eigh, qr, svd,
lstsq; below, lowered in codegen/lowering/lapack_call.py).

Inner dimensions are checked statically when both are known, else at run
time (InvalidArgumentError). Integer products wrap in the dtype.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.registry import declare
from ..core.types import TensorType, int32
from ._common import check_kind, check_same_dtype, expect_arity, fmt_shape


def _matmul_rule(types, attrs, consts):
    expect_arity("matmul", types, 2)
    a, b = types
    check_same_dtype("matmul", a.dtype, b.dtype)
    check_kind("matmul", "numeric", a.dtype)
    for t, name in ((a, "a"), (b, "b")):
        if t.rank != 2:
            got = "a tensor of unknown rank" if t.shape is None else f"shape {fmt_shape(t.shape)}"
            raise ValueError(f"matmul: expected rank-2 matrices, got {got} for {name}")
    k1, k2 = a.shape[1], b.shape[0]
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"matmul: the inner dimensions do not match: a has shape "
                         f"{fmt_shape(a.shape)} and b has shape {fmt_shape(b.shape)} ({k1} vs {k2})")
    return [TensorType(a.dtype, (a.shape[0], b.shape[1]))]


def _matmul_reference(a, b):
    if a.shape[1] != b.shape[0]:
        raise InvalidArgumentError(f"matmul: the inner dimensions do not match: a has shape "
                                   f"{a.shape} and b has shape {b.shape}")
    with np.errstate(all="ignore"):
        return np.matmul(a, b)


declare("matmul", _matmul_rule, _matmul_reference, doc="matmul(a[m,k], b[k,n]) -> [m,n]",
        kind="numeric", public=("matmul",), numpy=("matmul", "dot"))


# ---------------------------------------------------------------- LAPACK ops
# `np.linalg` computed by LAPACK (codegen/lowering/lapack_call.py): float32 or
# float64 matrices with any leading batch dims; NumPy's results (it computes
# float32 in float64 and rounds, and so do the lowering and the references).
# A run-time failure (a singular matrix, ...) is an InvalidArgumentError whose
# message is NumPy's LinAlgError message after the public name.

def _matrices(op: str, t: TensorType, what: str = "a", square: bool = True):
    """(batch dims, rows, cols) of a stack of matrices `t`, checked."""
    if not t.dtype.is_floating:
        raise TypeError(f"{op}: expected a float32 or float64 tensor, got {t.dtype.name}")
    if t.shape is None:
        raise ValueError(f"{op}: the rank of {what} must be known at trace time")
    if t.rank < 2:
        raise ValueError(f"{op}: {t.rank}-dimensional array given. Array must be at least "
                         f"two-dimensional (got shape {fmt_shape(t.shape)} for {what})")
    m, n = t.shape[-2:]
    if square and m is not None and n is not None and m != n:
        raise ValueError(f"{op}: Last 2 dimensions of the array must be square (got shape "
                         f"{fmt_shape(t.shape)} for {what})")
    return tuple(t.shape[:-2]), m, n


def _linalg_error(op: str, exc: Exception):
    return InvalidArgumentError(f"{op}: {exc}")


def _lapack_reference(public_name: str, fn):
    """A reference running NumPy's `fn`; its LinAlgError becomes the compiled
    code's InvalidArgumentError (same message)."""
    def reference(*arrays, **attrs):
        try:
            with np.errstate(all="ignore"):
                out = fn(*arrays, **attrs)
        except np.linalg.LinAlgError as exc:
            raise _linalg_error(public_name, exc) from None
        # C-contiguous arrays (NumPy's factors may be transposed views); ascontiguousarray
        # alone would make a scalar 1-D
        if isinstance(out, tuple):
            return tuple(np.array(o, order="C") for o in out)
        return np.array(out, order="C")
    return reference


def _inverse_rule(types, attrs, consts):
    expect_arity("matrix_inverse", types, 1)
    _matrices("inv", types[0])
    return [types[0]]


def _solve_rule(types, attrs, consts):
    expect_arity("matrix_solve", types, 2)
    a, b = types
    check_same_dtype("solve", a.dtype, b.dtype)
    batch, n, _ = _matrices("solve", a)
    bbatch, bn, k = _matrices("solve", b, "b", square=False)
    if len(batch) != len(bbatch) or any(x is not None and y is not None and x != y
                                        for x, y in zip(batch, bbatch)):
        raise ValueError(f"solve: the batch dimensions of a {fmt_shape(a.shape)} and b "
                         f"{fmt_shape(b.shape)} differ")
    if n is not None and bn is not None and n != bn:
        raise ValueError(f"solve: a has shape {fmt_shape(a.shape)} and b has shape "
                         f"{fmt_shape(b.shape)}: b needs {n} rows")
    return [TensorType(a.dtype, tuple(x if x is not None else y for x, y in zip(batch, bbatch))
                       + (n if n is not None else bn, k))]


def _det_rule(types, attrs, consts):
    expect_arity("matrix_determinant", types, 1)
    batch, _, _ = _matrices("det", types[0])
    return [TensorType(types[0].dtype, batch)]


def _slogdet_rule(types, attrs, consts):
    expect_arity("log_matrix_determinant", types, 1)
    batch, _, _ = _matrices("slogdet", types[0])
    return [TensorType(types[0].dtype, batch), TensorType(types[0].dtype, batch)]


def _cholesky_rule(types, attrs, consts):
    expect_arity("cholesky", types, 1)
    _matrices("cholesky", types[0])
    if not isinstance(attrs.get("upper"), bool):
        raise ValueError(f"cholesky: upper must be a bool, got {attrs.get('upper')!r}")
    return [types[0]]


def _eigh_rule(types, attrs, consts):
    expect_arity("self_adjoint_eig", types, 1)
    batch, n, m = _matrices("eigh", types[0])
    if attrs.get("lower") not in (True, False) or attrs.get("compute_v") not in (True, False):
        raise ValueError(f"eigh: lower and compute_v must be bools, got {attrs!r}")
    n = n if n is not None else m
    w = TensorType(types[0].dtype, batch + (n,))
    return [w, types[0]] if attrs["compute_v"] else [w]


def _qr_rule(types, attrs, consts):
    expect_arity("qr", types, 1)
    batch, m, n = _matrices("qr", types[0], square=False)
    if attrs.get("full") not in (True, False):
        raise ValueError(f"qr: full must be a bool, got {attrs.get('full')!r}")
    if attrs["full"]:
        k = m
    else:
        k = None if m is None or n is None else min(m, n)
    dt = types[0].dtype
    return [TensorType(dt, batch + (m, k)), TensorType(dt, batch + (k, n))]


def _svd_rule(types, attrs, consts):
    expect_arity("svd", types, 1)
    batch, m, n = _matrices("svd", types[0], square=False)
    if attrs.get("full_matrices") not in (True, False) or attrs.get("compute_uv") not in (True, False):
        raise ValueError(f"svd: full_matrices and compute_uv must be bools, got {attrs!r}")
    k = None if m is None or n is None else min(m, n)
    dt = types[0].dtype
    s = TensorType(dt, batch + (k,))
    if not attrs["compute_uv"]:
        return [s]
    if attrs["full_matrices"]:
        return [TensorType(dt, batch + (m, m)), s, TensorType(dt, batch + (n, n))]
    return [TensorType(dt, batch + (m, k)), s, TensorType(dt, batch + (k, n))]


def _lstsq_rule(types, attrs, consts):
    expect_arity("lstsq", types, 2)
    a, b = types
    check_same_dtype("lstsq", a.dtype, b.dtype)
    _, m, n = _matrices("lstsq", a, square=False)
    _, m2, k = _matrices("lstsq", b, "b", square=False)
    if a.rank != 2 or b.rank != 2:
        raise ValueError(f"lstsq: expected 2-D a and b, got shapes {fmt_shape(a.shape)} and "
                         f"{fmt_shape(b.shape)}")
    if m is not None and m2 is not None and m != m2:
        raise ValueError("lstsq: Incompatible dimensions")
    rcond = attrs.get("rcond")
    if rcond is not None and not isinstance(rcond, float):
        raise ValueError(f"lstsq: rcond must be a float or None, got {rcond!r}")
    dt = a.dtype
    kk = None if m is None or n is None else min(m, n)
    # residuals: k sums of squares when the rank is n and m > n, else none (a run-time length)
    return [TensorType(dt, (n, k)), TensorType(dt, (None,)), TensorType(int32, ()),
            TensorType(dt, (kk,))]


def _lstsq_ref(a, b, *, rcond):
    if rcond is None:   # NumPy's default, in the float64 it computes in
        rcond = float(np.finfo(np.float64).eps) * max(a.shape)
    x, resids, rank, s = np.linalg.lstsq(a, b, rcond=rcond)
    return x, resids, np.asarray(rank, np.int32), s


def _eigh_ref(a, *, lower, compute_v):
    uplo = "L" if lower else "U"
    if compute_v:
        w, v = np.linalg.eigh(a, UPLO=uplo)
        return w, v
    return np.linalg.eigvalsh(a, UPLO=uplo)


def _qr_ref(a, *, full):
    q, r = np.linalg.qr(a, mode="complete" if full else "reduced")
    return q, r


def _svd_ref(a, *, full_matrices, compute_uv):
    if compute_uv:
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices, compute_uv=True)
        return u, s, vh
    return np.linalg.svd(a, compute_uv=False)


declare("matrix_inverse", _inverse_rule, _lapack_reference("inv", lambda a: np.linalg.inv(a)),
        doc="inv(a[..., n, n]): the inverse (LAPACK dgesv with the identity, as NumPy).")
declare("matrix_solve", _solve_rule, _lapack_reference("solve", lambda a, b: np.linalg.solve(a, b)),
        doc="solve(a[..., n, n], b[..., n, k]): x with a @ x == b (LAPACK dgesv).")
declare("matrix_determinant", _det_rule, _lapack_reference("det", lambda a: np.linalg.det(a)),
        doc="det(a[..., n, n]): sign * exp(log|det|) from LAPACK dgetrf, as NumPy.")
declare("log_matrix_determinant", _slogdet_rule,
        _lapack_reference("slogdet", lambda a: tuple(np.linalg.slogdet(a))),
        doc="slogdet(a[..., n, n]) -> (sign, log|det|) from LAPACK dgetrf (0, -inf when singular).")
declare("cholesky", _cholesky_rule,
        _lapack_reference("cholesky", lambda a, *, upper: np.linalg.cholesky(a, upper=upper)),
        doc="cholesky(a[..., n, n]): the lower (or upper) Cholesky factor (LAPACK dpotrf).")
declare("self_adjoint_eig", _eigh_rule, _lapack_reference("eigh", _eigh_ref),
        doc="eigh(a[..., n, n]) -> (w ascending, v) of a symmetric matrix (LAPACK dsyevd).")
declare("qr", _qr_rule, _lapack_reference("qr", _qr_ref),
        doc="qr(a[..., m, n]) -> (q, r) (LAPACK dgeqrf + dorgqr; reduced or complete).")
declare("lstsq", _lstsq_rule, _lapack_reference("lstsq", _lstsq_ref),
        doc="lstsq(a[m, n], b[m, k], rcond) -> (x, residuals, rank, s) (LAPACK dgelsd).")
declare("svd", _svd_rule, _lapack_reference("svd", _svd_ref),
        doc="svd(a[..., m, n]) -> (u, s, vh) or s (LAPACK dgesdd).")
