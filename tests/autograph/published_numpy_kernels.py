"""Vectorised NumPy kernels, as people publish them, in our own words.

`np.where`, fancy and boolean indexing (read and written), `np.einsum`,
broadcasting with `None`/`np.newaxis`, reductions with `axis`/`keepdims`,
sorting, searching and counting (`argsort`, `searchsorted`, `bincount`,
`unique` with its inverse, the set routines), running extremes with
`np.maximum.accumulate`, `np.convolve`, `np.pad`, `np.roll`, `np.diff`,
`np.percentile`/`np.median`, `np.linalg`, `np.meshgrid`/`np.trapezoid`,
`np.vectorize` of a scalar rule, `astype` and `reshape(-1)`. The Numba-style loop kernels are in
published_kernels.py; test_published_kernels.py runs both against NumPy.

`CASES` maps a name to `(kernel, make_args)`.
"""
import numpy as np

_A1, _A2, _A3, _A4, _A5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
_RSQRT2PI = 0.39894228040143267794


def _cnd_poly(d):
    # Abramowitz-Stegun's polynomial, as the classic vectorised example writes it
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    ret = _RSQRT2PI * np.exp(-0.5 * d * d) * (k * (_A1 + k * (_A2 + k * (_A3 + k * (_A4 + k * _A5)))))
    return np.where(d > 0, 1.0 - ret, ret)


def black_scholes_numpy(price, strike, t, rate, vol):
    sqrt_t = np.sqrt(t)
    d1 = (np.log(price / strike) + (rate + 0.5 * vol * vol) * t) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    exp_rt = np.exp(-rate * t)
    call = price * _cnd_poly(d1) - strike * exp_rt * _cnd_poly(d2)
    put = strike * exp_rt * (1.0 - _cnd_poly(d2)) - price * (1.0 - _cnd_poly(d1))
    return call, put



def distance_matrix(a, b):
    diff = a[:, None, :] - b[None, :, :]
    d = np.sqrt((diff ** 2).sum(axis=-1))
    return d, np.linalg.norm(a[:, np.newaxis] - b[np.newaxis], axis=2)


def logsumexp_softmax(x):
    m = x.max(axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))
    return lse.reshape(-1), np.exp(x - lse)


def kmeans_step(points, centroids):
    d2 = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    labels = np.argmin(d2, axis=1)
    new = np.zeros_like(centroids)
    for j in range(centroids.shape[0]):
        members = points[labels == int(j)]   # cast: int64 labels, an int32 counter (§9)
        if members.shape[0] > 0:
            new[j] = members.mean(axis=0)
        else:
            new[j] = centroids[j]
    return labels, new


def moving_average(x, w):
    conv = np.convolve(x, np.ones(w) / w, mode="valid")
    c = np.cumsum(np.insert(x, 0, 0.0))
    return conv, (c[w:] - c[:-w]) / w


def clip_and_mask(x, lo, hi):
    y = np.clip(x, lo, hi)
    y[np.isnan(x)] = 0.0
    neg = x < 0
    count = np.count_nonzero(neg)
    z = np.where(neg, -x, x)
    return y, z, count, x[x > 0.5].sum()


def robust_stats(x):
    med = np.median(x, axis=0)
    q1, q3 = np.percentile(x, [25, 75], axis=0)
    mad = np.median(np.abs(x - med), axis=0)
    return med, q3 - q1, mad, x.std(axis=0), x.var()


def linear_algebra(a, b):
    spd = a @ a.T + a.shape[0] * np.eye(a.shape[0])
    chol = np.linalg.cholesky(spd)
    x = np.linalg.solve(spd, b)
    inv = np.linalg.inv(spd)
    det = np.linalg.det(spd)
    return chol, x, inv @ b, det, np.tril(a, -1) + np.triu(a)


def products(u, v, a):
    return np.outer(u, v), np.kron(a, np.eye(2)), np.einsum("ij,jk->ik", a, a.T), \
        np.einsum("i,i->", u, u), u.dot(v[: u.shape[0]])


def shifts_and_pads(x):
    rolled = np.roll(x, 2)
    padded = np.pad(x, (1, 2), mode="constant")
    edge = np.pad(x, 2, mode="edge")
    d = np.diff(x)
    d2 = np.diff(x, n=2)
    return rolled, padded, edge, d, d2, np.cumsum(x)[::-1]


def counting(labels, values):
    counts = np.bincount(labels)
    sums = np.bincount(labels, weights=values)
    order = np.argsort(values)
    ranks = np.empty_like(order)
    ranks[order] = np.arange(values.shape[0])
    uniq = np.unique(labels)
    return counts, sums, ranks, uniq


def searchsorted_bins(edges, x):
    idx = np.searchsorted(edges, x, side="right") - 1
    idx = np.clip(idx, 0, edges.shape[0] - 2)
    centers = (edges[:-1] + edges[1:]) / 2
    return idx, centers[idx]


def grid_eval(n):
    xs = np.linspace(-1.0, 1.0, n)
    ys = np.linspace(0.0, 2.0, n + 1)
    gx, gy = np.meshgrid(xs, ys)
    f = np.exp(-(gx ** 2 + gy ** 2))
    return f, np.trapezoid(np.trapezoid(f, xs, axis=1), ys)


def normalise_rows(x):
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    out = x / norms
    top = out.argmax(axis=1)
    return out, top, out.max(), out.T.mean(axis=0)


def image_ops(img):
    # uint8 image to float, 2x2 box down-sampling, then back to uint8
    f = img.astype(np.float64) / 255.0
    h, w = f.shape
    small = f.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
    flat = small.reshape(-1)
    return (np.clip(small * 255.0, 0, 255)).astype(np.uint8), flat.argmax()


def polyfit_eval(coeffs, x):
    return np.polyval(coeffs, x), np.vander(x, 3) @ coeffs[-3:]


def clean_signal(x):
    if np.isnan(x).any():
        return x[::-1] * 0.0
    y = x.copy()
    y[y < 0] = 0.0
    y[::2] += 1.0
    return y[1:-1:2] - y[-1]


def _tax(income):
    # a scalar rule with branches, applied with np.vectorize as tutorials do
    if income <= 10.0:
        return 0.0
    elif income <= 40.0:
        return 0.2 * (income - 10.0)
    return 6.0 + 0.4 * (income - 40.0)


def vectorized_rule(incomes):
    tax = np.vectorize(_tax)
    owed = tax(incomes)
    return owed, owed.sum() / incomes.sum()


def drawdown(prices):
    # the largest fall from a running peak, vectorised
    peak = np.maximum.accumulate(prices)
    falls = (peak - prices) / peak
    trough = np.argmax(falls)
    return falls.max(), trough, np.minimum.accumulate(prices[::-1])[::-1]


def encode_categories(labels, other):
    values, codes = np.unique(labels, return_inverse=True)
    counts = np.bincount(codes.reshape(-1))   # NumPy 2: codes has the labels' shape
    return (values, codes, counts, np.union1d(labels, other), np.intersect1d(labels, other),
            np.setdiff1d(labels, other))


def layered(a, b):
    stacked = np.dstack((a, b))
    steps = np.ediff1d(a, to_begin=0.0)
    return stacked.sum(axis=2), steps


def _clip_args(g):
    x = g.standard_normal((4, 5))
    x[1, 2] = np.nan
    return x, -0.5, 0.8


def _bs_args(g):
    n = 6
    return (g.uniform(5.0, 30.0, n), g.uniform(1.0, 100.0, n), g.uniform(0.25, 10.0, n), 0.02, 0.3)


CASES = {
    "black_scholes_numpy": (black_scholes_numpy, _bs_args),
    "distance_matrix": (distance_matrix, lambda g: (g.random((4, 3)), g.random((5, 3)))),
    "logsumexp_softmax": (logsumexp_softmax, lambda g: (g.standard_normal((3, 5)),)),
    "kmeans_step": (kmeans_step, lambda g: (g.random((10, 2)), g.random((3, 2)))),
    "moving_average": (moving_average, lambda g: (g.random(10), 3)),
    "clip_and_mask": (clip_and_mask, _clip_args),
    "robust_stats": (robust_stats, lambda g: (g.standard_normal((7, 3)),)),
    "linear_algebra": (linear_algebra, lambda g: (g.random((4, 4)), g.random(4))),
    "products": (products, lambda g: (g.random(3), g.random(4), g.random((2, 2)))),
    "shifts_and_pads": (shifts_and_pads, lambda g: (g.random(7),)),
    "counting": (counting, lambda g: (g.integers(0, 5, 12), g.standard_normal(12))),
    "searchsorted_bins": (searchsorted_bins, lambda g: (np.linspace(0.0, 1.0, 5), g.random(8))),
    "grid_eval": (grid_eval, lambda g: (5,)),
    "normalise_rows": (normalise_rows, lambda g: (g.random((4, 3)) + 0.1,)),
    "image_ops": (image_ops, lambda g: (g.integers(0, 256, (4, 6)).astype(np.uint8),)),
    "polyfit_eval": (polyfit_eval, lambda g: (g.standard_normal(4), g.standard_normal(5))),
    "clean_signal": (clean_signal, lambda g: (g.standard_normal(9),)),
    "vectorized_rule": (vectorized_rule, lambda g: (g.uniform(0.0, 80.0, (3, 4)),)),
    "drawdown": (drawdown, lambda g: (np.cumprod(1.0 + 0.1 * g.standard_normal(12)),)),
    "encode_categories": (encode_categories, lambda g: (g.integers(0, 6, (3, 4)),
                                                        g.integers(3, 9, 5))),
    "layered": (layered, lambda g: (g.random((3, 4)), g.random((3, 4)))),
}
