"""The KERNELS.md kernels as Numba `@njit` loops (the speed peer of `bench/run.py`).

Importing this module needs numba; `bench/run.py` skips the Numba column when
it is missing.  Each function mirrors `examples/kernels.py` line for line.
"""
import math

import numpy as np
from numba import njit


@njit(cache=False)
def mean_square(x, y):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] ** 2 * 3 + y[i]
    return acc / x.shape[0]


@njit(cache=False)
def scaled_elu(z, scale=1.0507, alpha=1.67326):
    out = np.empty_like(z)
    s = np.float32(scale)
    a = np.float32(alpha)
    for i in range(z.shape[0]):
        v = z[i]
        out[i] = s * (v if v >= 0 else a * (math.exp(v) - 1))
    return out


@njit(cache=False)
def collatz_total(n):
    total = 0
    for start in range(1, n + 1):
        v = start
        while v != 1:
            if v % 2 == 0:
                v = v // 2
            else:
                v = 3 * v + 1
            total += 1
    return total


@njit(cache=False)
def branchy_sum(x):
    acc = 0.0
    for i in range(len(x)):
        v = x[i]
        if v > 0:
            acc += v * v
        else:
            acc -= v / 2
    return acc


@njit(cache=False)
def mandelbrot_total(xs, ys, max_iter=100):
    total = 0
    for j in range(len(ys)):
        cy = ys[j]
        for i in range(len(xs)):
            cx = xs[i]
            zx = 0.0
            zy = 0.0
            count = 0
            for _ in range(max_iter):
                zx2 = zx * zx
                zy2 = zy * zy
                if zx2 + zy2 > 4.0:
                    break
                zy = 2.0 * zx * zy + cy
                zx = zx2 - zy2 + cx
                count += 1
            total += count
    return total


@njit(cache=False)
def dense_relu(x, w, b):
    return np.maximum(x @ w + b, np.float32(0))


@njit(cache=False)
def softmax(x):
    out = np.empty_like(x)
    for r in range(x.shape[0]):
        m = x[r, 0]
        for c in range(1, x.shape[1]):
            m = max(m, x[r, c])
        s = 0.0
        for c in range(x.shape[1]):
            e = math.exp(x[r, c] - m)
            out[r, c] = e
            s += e
        for c in range(x.shape[1]):
            out[r, c] = out[r, c] / s
    return out


@njit(cache=False)
def prefix_sum(x):
    out = np.empty_like(x)
    acc = 0.0
    for i in range(len(x)):
        acc += x[i]
        out[i] = acc
    return out


@njit(cache=False)
def add_one(x):
    return x + 1


def _has_scipy() -> bool:
    # Numba's `@` / np.dot call BLAS through SciPy.
    try:
        import scipy.linalg  # noqa: F401
    except ImportError:
        return False
    return True


BY_NAME = {
    "mean_square": mean_square,
    "scaled_elu": scaled_elu,
    "collatz_total": collatz_total,
    "branchy_sum": branchy_sum,
    "mandelbrot_total": mandelbrot_total,
    "softmax": softmax,
    "prefix_sum": prefix_sum,
}
if _has_scipy():
    BY_NAME["dense_relu"] = dense_relu
