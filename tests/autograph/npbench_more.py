"""npbench's newer kernels (image processing, wdist, Krylov solvers) and its
complex ones (stockham_fft, scattering_self_energies: complex `@`), in
our own words, with the NumPy habits of the published NumPy versions:
`astype` to and from uint8, `np.convolve(mode='valid')`, `np.clip`, tuple
unpacking of `A.shape`, `(x ** 2).sum()`, `np.shares_memory` in an
`assert`, a `break` on a traced condition in a `for` over a Python range,
`m = min(max_iter, n)` changed before a `break` and then used to slice,
`np.linalg.lstsq`. npbench passes the solvers a scipy CSR matrix; they are
the same kernels with a dense `A`.
(hist is in npbench_refused.py.)

Kernels whose published form writes into an argument return it (a comment
says so at each; API.md §2, §9). `CASES` maps a name to
`(kernel, make_args)`.
"""
import numpy as np


def blur(image, output):
    image = image.astype(np.float32)
    blur_x = np.empty((image.shape[0], image.shape[1] - 2), dtype=np.float32)
    blur_y = np.empty(output.shape, dtype=np.float32)
    filter = np.array([1.0, 1.0, 1.0], dtype=np.float32) / 3.0
    for y in range(blur_x.shape[0]):
        blur_x[y, :] = np.convolve(image[y, :], filter, mode='valid')
    for x in range(blur_y.shape[1]):
        blur_y[:, x] = np.convolve(blur_x[:, x], filter, mode='valid')
    output = np.clip(blur_y, 0.0, 255.0).astype(np.uint8)
    return output


def blur_cols_transpose(img, alpha):
    blur = np.empty(img.shape, dtype=np.float32)
    blur[0, :, :] = img[0, :, :]
    for y in range(1, blur.shape[0]):
        blur[y, :, :] = (1.0 - alpha) * blur[y - 1, :, :] + alpha * img[y, :, :]
    for y in range(blur.shape[0] - 2, 0):   # (an empty range, as published)
        blur[y, :, :] = (1.0 - alpha) * blur[y + 1, :, :] + alpha * blur[y, :, :]
    blur_T = np.transpose(blur, axes=(1, 0, 2))
    return blur_T


def iir_blur(image, output):
    image = image.astype(np.float32)
    alpha = 0.1
    blur_y = blur_cols_transpose(image, alpha)
    blur = blur_cols_transpose(blur_y, alpha)
    output = np.clip(blur, 0, 255).astype(np.uint8)
    return output


def wdist(A, B, W):
    k, m = A.shape
    _, n = B.shape
    D = np.zeros((m, n))
    for ii in range(m):
        for jj in range(n):
            wdiff = (A[:, ii] - B[:, jj]) / W[:, ii]
            D[ii, jj] = np.sqrt((wdiff**2).sum())
    return D


def permute_3d(A, B):
    B = np.transpose(A, (2, 1, 0)).copy()
    assert not np.shares_memory(A, B)
    return B


def cg(A, x, b, max_iter=100, tol=np.float64(1e-6)):
    r = b - A @ x
    p = r
    rsold = r @ r
    for i in range(max_iter):
        Ap = A @ p
        alpha = rsold / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rsnew = r @ r
        if np.sqrt(rsnew) < tol:
            break
        p = r + (rsnew / rsold) * p
        rsold = rsnew
    return x


def hand_gmres(A, x, b, max_iter=100, tol=1e-6):
    n = b.shape[0]
    m = min(max_iter, n)   # the Krylov subspace's dimension
    Q = np.empty((n, m + 1))
    H = np.zeros((m + 1, m))
    r = b - A @ x
    beta = np.linalg.norm(r)
    Q[:, 0] = r / beta
    for k in range(m):
        y = A @ Q[:, k]
        for j in range(k + 1):
            H[j, k] = Q[:, j] @ y
            y -= H[j, k] * Q[:, j]
        H[k + 1, k] = np.linalg.norm(y)
        if abs(H[k + 1, k]) < tol:
            m = k + 1
            break
        Q[:, k + 1] = y / H[k + 1, k]
    e1 = np.zeros(m + 1)
    e1[0] = 1.0
    y = np.linalg.lstsq(H[:m, :], beta * e1[:m], rcond=None)[0]
    x += Q[:, :m] @ y
    return x  # published: writes x and returns it


def bicgstab(A, b, x, max_iter=100, tol=np.float64(1e-6)):
    n = A.shape[0]  # noqa: F841  (the published kernel's name)
    r = b - A @ x
    rho_prev = alpha = omega = 1.0
    p = v = np.zeros_like(b)
    r_tilde = np.copy(r)
    x = np.copy(x)
    for i in range(max_iter):
        rho = np.dot(r_tilde.T, r)
        beta = (rho / rho_prev) * (alpha / omega)
        p = r + beta * (p - omega * v)
        v = A @ p
        alpha = rho / np.dot(r_tilde.T, v)
        s = r - alpha * v
        t = A @ s
        omega = np.dot(t.T, s) / np.dot(t.T, t)
        x = x + alpha * p + omega * s
        r = s - omega * t
        if np.linalg.norm(r) < tol:
            break
        rho_prev = rho
    return x


def hand_minres(A, b, x, max_iter=100, tol=1e-6):
    r = b - A @ x
    p = r
    for _ in range(max_iter):
        Ap = A @ p
        alpha = (r @ r) / (p @ Ap)
        x = x + alpha * p
        r_new = r - alpha * Ap
        if np.linalg.norm(r_new) < tol:
            break
        beta = (r_new @ r_new) / (r @ r)
        p = r_new + beta * p
        r = r_new
    return x


def stockham_fft(N, R, K, x, y):
    i_coord, j_coord = np.mgrid[0:R, 0:R]
    dft_mat = np.exp(-2j * np.pi * i_coord * j_coord / R)
    y[:] = x[:]
    ii_coord, jj_coord = np.mgrid[0:R, 0:R**K]
    for i in range(K):
        yv = np.reshape(y, (R**i, R, R**(K - i - 1)))
        tmp_perm = np.transpose(yv, axes=(1, 0, 2))
        D = np.empty((R, R**i, R**(K - i - 1)), dtype=np.complex128)
        tmp = np.exp(-2j * np.pi * ii_coord[:, :R**i] * jj_coord[:, :R**i] / R**(i + 1))
        D[:] = np.repeat(np.reshape(tmp, (R, R**i, 1)), R**(K - i - 1), axis=2)
        tmp_twid = np.reshape(tmp_perm, (N, )) * np.reshape(D, (N, ))
        y[:] = np.reshape(dft_mat @ np.reshape(tmp_twid, (R, R**(K - 1))), (N, ))
    return y  # published: writes y


def scattering_self_energies(neigh_idx, dH, G, D, Sigma):
    for k in range(G.shape[0]):
        for E in range(G.shape[1]):
            for q in range(D.shape[0]):
                for w in range(D.shape[1]):
                    for i in range(D.shape[-2]):
                        for j in range(D.shape[-1]):
                            for a in range(neigh_idx.shape[0]):
                                for b in range(neigh_idx.shape[1]):
                                    if E - w >= 0:
                                        dHG = G[k, E - w, neigh_idx[a, b]] @ dH[a, b, i]
                                        dHD = dH[a, b, j] * D[q, w, a, b, i, j]
                                        Sigma[k, E, a] += dHG @ dHD
    return Sigma  # published: writes Sigma


def _c(rng, *shape):
    return rng.random(shape) + 1j * rng.random(shape)


def _scattering_args(g):
    Nkz, NE, Nqz, Nw, N3D, NA, NB, Norb = 1, 2, 1, 2, 2, 2, 2, 2
    return (g.integers(0, NA, (NA, NB)), _c(g, NA, NB, N3D, Norb, Norb),
            _c(g, Nkz, NE, NA, Norb, Norb), _c(g, Nqz, Nw, NA, NB, N3D, N3D),
            np.zeros((Nkz, NE, NA, Norb, Norb), np.complex128))



def _image(g, *shape):
    return g.integers(0, 256, shape).astype(np.uint8)


def _spd(g, n):
    a = g.random((n, n))
    return a @ a.T + n * np.eye(n)


CASES = {
    "blur": (blur, lambda g: (_image(g, 7, 8), np.zeros((5, 6), np.uint8))),
    "iir_blur": (iir_blur, lambda g: (_image(g, 5, 6, 3), np.zeros((5, 6, 3), np.uint8))),
    "wdist": (wdist, lambda g: (g.random((4, 5)), g.random((4, 6)), g.random((4, 5)) + 0.5)),
    "permute_3d": (permute_3d, lambda g: (g.random((3, 4, 5)), np.zeros((5, 4, 3)))),
    "cg": (cg, lambda g: (_spd(g, 8), np.zeros(8), g.random(8))),
    "gmres": (hand_gmres, lambda g: (_spd(g, 8), np.zeros(8), g.random(8))),
    "bicgstab": (bicgstab, lambda g: (_spd(g, 8), g.random(8), np.zeros(8))),
    "minres": (hand_minres, lambda g: (_spd(g, 8), g.random(8), np.zeros(8))),
    "stockham_fft": (stockham_fft, lambda g: (8, 2, 3, _c(g, 8), np.zeros(8, np.complex128))),
    "scattering_self_energies": (scattering_self_energies, _scattering_args),
}
