"""Gradient rules of the LAPACK ops (`tracer/ops/linalg.py`): inv, solve,
det, slogdet, cholesky, eigh. Same rule form as `rules_math`; written with the
public ops (the LAPACK ops among them), so they run eagerly and compiled.

With Y = inv(A), X = solve(A, B), L = cholesky(A) and upstream gradient G:

* inv:      dA = -Y^T G Y^T
* solve:    dB = solve(A^T, G), dA = -dB X^T
* det:      dA = g * det(A) * inv(A)^T (a singular A fails as inv does)
* slogdet:  dA = g_log * inv(A)^T (the sign is flat)
* cholesky: with P = tril(L^T G) with its diagonal halved and
            S = L^-T P L^-1, dA = (S + S^T) / 2 (Murray 2016, as TensorFlow),
            the gradient with respect to a symmetric A. For upper=True,
            L = U^T and G^T.
* eigh:     with F[i, j] = 1 / (w_j - w_i) off the diagonal (0 on it),
            G = V (diag(g_w) + F * (V^T g_V)) V^T; as TensorFlow, the
            gradient is on the triangle dsyevd reads: G + G^T off the
            diagonal, G on it. Repeated eigenvalues give inf/NaN (as TF).

Stacked matrices multiply with `einsum('...ij,...jk->...ik')`.
"""
from __future__ import annotations

from .. import api
from ..api.common import rank_of
from ..core.registry import REGISTRY, set_grad
from ..tracing.symbolic import bind

__all__ = ["RULES"]

A = api


def _t(x):
    """x with its last two axes exchanged."""
    r = rank_of(x)
    return A.transpose(x, list(range(r - 2)) + [r - 1, r - 2])


def _mm(a, b):
    if rank_of(a) == 2 and rank_of(b) == 2:
        return A.matmul(a, b)
    from ..api.numpy_setops import np_einsum
    return np_einsum("...ij,...jk->...ik", a, b)


def _scale(g, m):
    """Per-matrix scalars g[...] times the matrices m[..., i, j]."""
    return A.multiply(A.expand_dims(A.expand_dims(g, -1), -1), m)


def _inverse(inputs, outputs, attrs, grads):
    yt = _t(outputs[0])
    return [A.negative(_mm(_mm(yt, grads[0]), yt))]


def _solve(inputs, outputs, attrs, grads):
    a, _ = inputs
    gb = bind("matrix_solve", _t(a), grads[0])
    return [A.negative(_mm(gb, _t(outputs[0]))), gb]


def _det(inputs, outputs, attrs, grads):
    (a,) = inputs
    inv_t = _t(bind("matrix_inverse", a))
    return [_scale(A.multiply(grads[0], outputs[0]), inv_t)]


def _slogdet(inputs, outputs, attrs, grads):
    (a,) = inputs
    g = grads[1]
    if g is None:            # only the sign was used: flat
        return [None]
    return [_scale(g, _t(bind("matrix_inverse", a)))]


def _lower_mask(x):
    """i1 tensor, True on and below the diagonal of x's matrices."""
    n = A.shape(x)[-1]
    idx = A.range(0, n, 1)
    return A.greater_equal(A.expand_dims(idx, -1), A.expand_dims(idx, 0))


def _cholesky(inputs, outputs, attrs, grads):
    factor, g = outputs[0], grads[0]   # L (lower)
    if attrs["upper"]:
        factor, g = _t(factor), _t(g)
    middle = _mm(_t(factor), g)
    n = A.shape(middle)[-1]
    eye = A.cast(A.eye(n), middle.dtype)
    lower = _lower_mask(middle)
    middle = A.where(lower, A.multiply(middle, A.subtract(1.0, A.multiply(eye, 0.5))),
                     A.zeros_like(middle))
    l_inv = bind("matrix_inverse", factor)
    s = _mm(_mm(_t(l_inv), middle), l_inv)
    return [A.multiply(A.add(s, _t(s)), 0.5)]


def _eigh(inputs, outputs, attrs, grads):
    (a,) = inputs
    lower = attrs["lower"]
    if attrs["compute_v"]:
        (w, v), (gw, gv) = outputs, grads
    else:   # eigvalsh: the eigenvectors are needed all the same
        w, v = bind("self_adjoint_eig", a, lower=lower, compute_v=True)
        gw, gv = grads[0], None
    n = A.shape(w)[-1]
    eye = A.cast(A.eye(n), w.dtype)
    inner = A.multiply(eye, A.expand_dims(gw, -2))                    # diag(gw)
    if gv is not None:
        gap = A.subtract(A.expand_dims(w, -2), A.expand_dims(w, -1))   # [i, j] = w_j - w_i
        off = A.not_equal(eye, 1.0)
        f = A.where(off, A.divide(1.0, A.where(off, gap, A.ones_like(gap))), A.zeros_like(gap))
        inner = A.add(inner, A.multiply(f, _mm(_t(v), gv)))
    g = _mm(_mm(v, inner), _t(v))
    # dsyevd reads one triangle: the gradient lives there (G + G^T off the diagonal, G on it)
    sym = A.add(g, _t(g))
    mask = _lower_mask(sym)        # [n, n]: broadcast over batch dims
    if not lower:
        mask = A.transpose(mask)
    halved = A.multiply(sym, A.subtract(1.0, A.multiply(eye, 0.5)))
    return [A.where(mask, halved, A.zeros_like(halved))]


RULES = {"matrix_inverse": _inverse, "matrix_solve": _solve, "matrix_determinant": _det,
         "log_matrix_determinant": _slogdet, "cholesky": _cholesky, "self_adjoint_eig": _eigh}

for _name, _rule in RULES.items():
    if _name in REGISTRY and REGISTRY[_name].grad is None:
        set_grad(_name, _rule)
