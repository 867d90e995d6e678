"""Kernels written the Numba way, as people publish them, in our own words.

The style of `@njit` examples: explicit loops over `x.shape[0]`,
`np.empty`/`np.zeros` outputs filled item by item, `math.` functions on
scalars (`math.erf`, `math.lgamma`, `math.floor`, ...), `complex(x, y)`,
`while` loops with `break`, early `return`, tuple returns, `enumerate`/`zip`,
`range` with steps (also negative ones), integer arithmetic, NumPy scalar
types as casts (`np.float64(i)`) and in-place `x.sort()` / `x.fill(v)`.
Each runs unchanged as plain NumPy and through `ag.function`
(test_published_kernels.py compares the two). Where the usual published form
needs what the contract (API.md §3, §9) refuses, the kernel carries the cast
a user would add (a comment says so) and published_refused.py holds the
unchanged form with its error. `CASES` maps a name to `(kernel, make_args)`.
"""
import math

import numpy as np

# ============================================================ Numba style


def _cnd(d):
    # the cumulative normal distribution through the error function
    return 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))


def black_scholes_loop(price, strike, t, rate, vol):
    n = price.shape[0]
    call = np.empty(n)
    put = np.empty(n)
    for i in range(n):
        sqrt_t = math.sqrt(t[i])
        d1 = (math.log(price[i] / strike[i]) + (rate + 0.5 * vol * vol) * t[i]) / (vol * sqrt_t)
        d2 = d1 - vol * sqrt_t
        discount = math.exp(-rate * t[i])
        call[i] = price[i] * _cnd(d1) - strike[i] * discount * _cnd(d2)
        put[i] = strike[i] * discount * _cnd(-d2) - price[i] * _cnd(-d1)
    return call, put


def nbody_step(pos, vel, mass, dt, soft):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            inv = 1.0 / math.sqrt(dx * dx + dy * dy + dz * dz + soft * soft) ** 3
            acc[i, 0] += mass[j] * dx * inv
            acc[i, 1] += mass[j] * dy * inv
            acc[i, 2] += mass[j] * dz * inv
    vel = vel + dt * acc
    pos = pos + dt * vel
    return pos, vel


def kmeans_assign(points, centroids):
    n, d = points.shape
    k = centroids.shape[0]
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = np.inf
        best_j = -1
        for j in range(k):
            dist = 0.0
            for t in range(d):
                diff = points[i, t] - centroids[j, t]
                dist += diff * diff
            if dist < best:
                best = dist
                best_j = j
        labels[i] = int(best_j)   # cast: an int32 counter into int64 (§3, §9)
    return labels


def jacobi_laplace(grid, tol, max_iter):
    u = grid.copy()
    rows, cols = u.shape
    it = 0
    while True:
        new = u.copy()
        err = 0.0
        for i in range(1, rows - 1):
            for j in range(1, cols - 1):
                new[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
                err = max(err, abs(new[i, j] - u[i, j]))
        u = new
        it += 1
        if err < tol or it >= max_iter:
            break
    return u, it


def life_step(board):
    rows, cols = board.shape
    out = np.zeros_like(board)
    for i in range(rows):
        for j in range(cols):
            count = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if di == 0 and dj == 0:
                        continue
                    count += board[(i + di) % rows, (j + dj) % cols]
            if board[i, j] == 1 and (count == 2 or count == 3):
                out[i, j] = 1
            elif board[i, j] == 0 and count == 3:
                out[i, j] = 1
    return out


def monte_carlo_pi(xs, ys):
    inside = 0
    for i in range(len(xs)):
        if xs[i] * xs[i] + ys[i] * ys[i] <= 1.0:
            inside += 1
    return 4.0 * float(inside) / float(len(xs))   # casts: float with int32 (§3)


def bubble_sort(values):
    a = values.copy()
    n = len(a)
    for i in range(n - 1):
        swapped = False
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                tmp = a[j]
                a[j] = a[j + 1]
                a[j + 1] = tmp
                swapped = True
        if not swapped:
            break
    return a


def insertion_sort(values):
    a = values.copy()
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def binary_search(sorted_values, target):
    lo = 0
    hi = len(sorted_values) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if sorted_values[mid] == target:
            return mid
        elif sorted_values[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


def prime_sieve(n):
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[0] = False
    is_prime[1] = False
    i = 2
    while i * i <= n:
        if is_prime[i]:
            for j in range(i * i, n + 1, i):
                is_prime[j] = False
        i += 1
    return np.nonzero(is_prime)[0]


def matmul_loops(a, b):
    n, m = a.shape
    p = b.shape[1]
    c = np.zeros((n, p))
    for i in range(n):
        for j in range(p):
            s = 0.0
            for k in range(m):
                s += a[i, k] * b[k, j]
            c[i, j] = s
    return c


def lu_decompose(a):
    n = a.shape[0]
    lower = np.eye(n)
    upper = np.zeros((n, n))
    for i in range(n):
        for k in range(i, n):
            total = 0.0
            for j in range(i):
                total += lower[i, j] * upper[j, k]
            upper[i, k] = a[i, k] - total
        for k in range(i + 1, n):
            total = 0.0
            for j in range(i):
                total += lower[k, j] * upper[j, i]
            lower[k, i] = (a[k, i] - total) / upper[i, i]
    return lower, upper


def cumulative_max(x):
    out = np.empty_like(x)
    running = x[0]
    for i in range(x.shape[0]):
        if x[i] > running:
            running = x[i]
        out[i] = running
    return out


def run_lengths(x):
    # the length of the longest run of equal values, and how many runs there are
    runs = 1
    longest = 1
    current = 1
    for i in range(1, len(x)):
        if x[i] == x[i - 1]:
            current += 1
        else:
            runs += 1
            current = 1
        if current > longest:
            longest = current
    return runs, longest


def histogram_loop(x, bins, lo, hi):
    counts = np.zeros(bins, dtype=np.int64)
    width = (hi - lo) / bins
    for v in x:
        if v < lo or v >= hi:
            continue
        k = int(math.floor((v - lo) / width))
        counts[k] += 1
    return counts


def convolve3x3(image, kernel):
    rows, cols = image.shape
    out = np.zeros((rows - 2, cols - 2))
    for i in range(1, rows - 1):
        for j in range(1, cols - 1):
            acc = 0.0
            for di in range(3):
                for dj in range(3):
                    acc += image[i + di - 1, j + dj - 1] * kernel[di, dj]
            out[i - 1, j - 1] = acc
    return out


def bilinear(image, xs, ys):
    out = np.empty(xs.shape[0])
    for k in range(xs.shape[0]):
        x0 = int(math.floor(xs[k]))
        y0 = int(math.floor(ys[k]))
        fx = xs[k] - float(x0)   # cast: float64 - int64 (API.md §3)
        fy = ys[k] - float(y0)
        top = image[y0, x0] * (1 - fx) + image[y0, x0 + 1] * fx
        bottom = image[y0 + 1, x0] * (1 - fx) + image[y0 + 1, x0 + 1] * fx
        out[k] = top * (1 - fy) + bottom * fy
    return out


def _decay(t, y):
    return -2.0 * y + math.sin(t)


def rk4(y0, t_end, h):
    t = 0.0
    y = y0
    steps = 0
    while t < t_end:
        k1 = _decay(t, y)
        k2 = _decay(t + h / 2, y + h * k1 / 2)
        k3 = _decay(t + h / 2, y + h * k2 / 2)
        k4 = _decay(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
        steps += 1
    return y, steps


def horner(coeffs, x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        acc = 0.0
        for k in range(coeffs.shape[0] - 1, -1, -1):
            acc = acc * x[i] + coeffs[k]
        out[i] = acc
    return out


def levenshtein(a, b):
    n = a.shape[0]
    m = b.shape[0]
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        d[i, 0] = int(i)   # casts: int32 counters into int64 (§9)
    for j in range(m + 1):
        d[0, j] = int(j)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[n, m]


def floyd_warshall(dist):
    d = dist.copy()
    n = d.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i, k] + d[k, j] < d[i, j]:
                    d[i, j] = d[i, k] + d[k, j]
    return d


def trapezoid_loop(y, x):
    total = 0.0
    for i in range(1, len(x)):
        total += (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2.0
    return total, np.trapezoid(y, x)


def dot_accumulators(a, b, ia, ib):
    s = 0.0
    t = 0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    for x, y in zip(ia, ib):
        t += x * y
    return s, t


def nan_mean_loop(x):
    total = 0.0
    count = 0
    for v in x:
        if math.isnan(v):
            continue
        total += v
        count += 1
    if count == 0:
        return math.nan
    return total / float(count)   # cast: float64 / int32 (§3)


def first_negative(x):
    for i, v in enumerate(x):
        if v < 0:
            return i
    return -1


def collatz_lengths(n):
    out = np.zeros(n, dtype=np.int64)
    for start in range(1, n + 1):
        k = start
        steps = 0
        while k != 1:
            if k % 2 == 0:
                k = k // 2
            else:
                k = 3 * k + 1
            steps += 1
        out[start - 1] = steps
    return out


def reverse_pairs(x):
    # every second element from the end, and the sum of x[i] * x[n - 1 - i]
    n = x.shape[0]
    picked = np.empty((n + 1) // 2)
    k = 0
    for i in range(n - 1, -1, -2):
        picked[k] = x[i]
        k += 1
    s = 0.0
    for i in range(n // 2):
        s += x[i] * x[n - 1 - i]
    return picked, s


def mandelbrot_escape(xs, ys, max_iter):
    # the Numba tutorial's fractal: an escape count per pixel, complex arithmetic
    out = np.zeros((ys.shape[0], xs.shape[0]), dtype=np.int64)
    for row in range(ys.shape[0]):
        for col in range(xs.shape[0]):
            c = complex(xs[col], ys[row])
            z = 0.0j
            n = max_iter
            for i in range(max_iter):
                z = z * z + c
                if z.real * z.real + z.imag * z.imag >= 4:
                    n = i
                    break
            out[row, col] = int(n)   # cast: int32 counter into int64 (§9)
    return out


def sum_rows(arr):
    total = 0.0
    for row in arr:
        for v in row:
            total += v
    m, n = arr.shape
    direct = 0.0
    for i in range(m):
        for j in range(n):
            direct += arr[i, j]
    return total, direct


def csr_matvec(indptr, indices, data, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            y[i] += data[k] * x[indices[k]]
    return y


def pairwise_distance(points):
    m = points.shape[0]
    d = points.shape[1]
    out = np.empty((m, m), dtype=np.float64)
    for i in range(m):
        for j in range(m):
            tmp = 0.0
            for k in range(d):
                diff = points[i, k] - points[j, k]
                tmp += diff * diff
            out[i, j] = math.sqrt(tmp)
    return out


def gcd_pairs(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        while y != 0:
            x, y = y, x % y
        out[i] = x
    return out


def typed_accumulators(x, k):
    s = np.float64(0.0)
    t = np.int64(0)
    for i in range(x.shape[0]):
        s += x[i] * x[i]
        t += k[i] * k[i]
    return s, t, math.sqrt(s) + math.pi


def select_indices(x, threshold):
    found = []
    for i in range(len(x)):
        if x[i] > threshold:
            found.append(i)
    return np.array(found)


def poisson_loglik(counts, rates):
    # the log-likelihood of Poisson counts, with math.lgamma for log(k!)
    total = 0.0
    for i in range(counts.shape[0]):
        k = counts[i]
        total += k * math.log(rates[i]) - rates[i] - math.lgamma(k + 1.0)
    return total


def weighted_index_sum(x):
    # NumPy scalar types as casts, the way Numba code converts counters and values
    s = 0.0
    codes = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        s += np.float64(i) * x[i]
        codes[i] = np.int64(x[i] * 100.0)
    return s, codes, np.float32(s)


def median_by_sorting(x):
    # sort a copy in place (Numba supports arr.sort()), then take the middle
    y = x.copy()
    y.sort()
    n = y.shape[0]
    if n % 2 == 1:
        return y[n // 2]
    return 0.5 * (y[n // 2 - 1] + y[n // 2])


def reset_and_mark(x, threshold):
    flags = np.empty(x.shape[0], dtype=np.int64)
    flags.fill(0)
    out = np.empty_like(x)
    out.fill(-1.0)
    for i in range(x.shape[0]):
        if x[i] > threshold:
            flags[i] = 1
            out[i] = x[i]
    return flags, out


# ============================================================ inputs


def _bs_args(g):
    n = 6
    return (g.uniform(5.0, 30.0, n), g.uniform(1.0, 100.0, n), g.uniform(0.25, 10.0, n), 0.02, 0.3)


def _nbody_args(g):
    return (g.standard_normal((5, 3)), g.standard_normal((5, 3)) * 0.1, g.uniform(0.5, 1.5, 5),
            0.01, 0.1)


def _grid_args(g):
    grid = np.zeros((6, 7))
    grid[0, :] = 1.0
    grid[:, -1] = g.random(6)
    return grid, 1e-3, 40


def _bilinear_args(g):
    return g.random((5, 6)), g.uniform(0.0, 4.99, 7), g.uniform(0.0, 3.99, 7)


def _nan_args(g):
    x = g.standard_normal(9)
    x[[2, 5]] = np.nan
    return x,


def _graph_args(g):
    d = g.uniform(1.0, 9.0, (5, 5))
    d[g.random((5, 5)) < 0.3] = np.inf
    np.fill_diagonal(d, 0.0)
    return d,


CASES = {
    "black_scholes_loop": (black_scholes_loop, _bs_args),
    "nbody_step": (nbody_step, _nbody_args),
    "kmeans_assign": (kmeans_assign, lambda g: (g.random((8, 2)), g.random((3, 2)))),
    "jacobi_laplace": (jacobi_laplace, _grid_args),
    "life_step": (life_step, lambda g: ((g.random((6, 6)) < 0.4).astype(np.int64),)),
    "monte_carlo_pi": (monte_carlo_pi, lambda g: (g.random(50), g.random(50))),
    "bubble_sort": (bubble_sort, lambda g: (g.standard_normal(9),)),
    "insertion_sort": (insertion_sort, lambda g: (g.integers(-20, 20, 10),)),
    "binary_search": (binary_search, lambda g: (np.sort(g.integers(0, 50, 12)), 17)),
    "prime_sieve": (prime_sieve, lambda g: (60,)),
    "matmul_loops": (matmul_loops, lambda g: (g.random((3, 4)), g.random((4, 2)))),
    "lu_decompose": (lu_decompose, lambda g: (g.random((4, 4)) + 4 * np.eye(4),)),
    "cumulative_max": (cumulative_max, lambda g: (g.standard_normal(10),)),
    "run_lengths": (run_lengths, lambda g: (g.integers(0, 2, 15),)),
    "histogram_loop": (histogram_loop, lambda g: (g.uniform(-1.2, 1.2, 30), 5, -1.0, 1.0)),
    "convolve3x3": (convolve3x3, lambda g: (g.random((6, 5)), g.random((3, 3)))),
    "bilinear": (bilinear, _bilinear_args),
    # y0 a NumPy float64: a compiled state (with Python floats everything runs at trace time)
    "rk4": (rk4, lambda g: (np.float64(1.0), 1.0, 0.125)),
    "rk4_python_floats": (rk4, lambda g: (1.0, 1.0, 0.125)),
    "horner": (horner, lambda g: (g.standard_normal(4), g.standard_normal(5))),
    "levenshtein": (levenshtein, lambda g: (g.integers(0, 3, 6), g.integers(0, 3, 5))),
    "floyd_warshall": (floyd_warshall, _graph_args),
    "trapezoid_loop": (trapezoid_loop, lambda g: (g.random(8), np.sort(g.random(8)))),
    "dot_accumulators": (dot_accumulators, lambda g: (g.random(6), g.random(6),
                                                      g.integers(-9, 9, 5), g.integers(-9, 9, 5))),
    "nan_mean_loop": (nan_mean_loop, _nan_args),
    "first_negative": (first_negative, lambda g: (np.array([0.5, 1.0, -2.0, 3.0, -1.0]),)),
    "collatz_lengths": (collatz_lengths, lambda g: (12,)),
    "reverse_pairs": (reverse_pairs, lambda g: (g.standard_normal(7),)),
    "mandelbrot_escape": (mandelbrot_escape, lambda g: (np.linspace(-2.0, 0.5, 6),
                                                        np.linspace(-1.0, 1.0, 4), 20)),
    "sum_rows": (sum_rows, lambda g: (g.random((3, 4)),)),
    "csr_matvec": (csr_matvec, lambda g: (np.array([0, 2, 3, 3, 6]), np.array([0, 3, 1, 0, 2, 3]),
                                          g.random(6), g.random(4))),
    "pairwise_distance": (pairwise_distance, lambda g: (g.random((5, 3)),)),
    "gcd_pairs": (gcd_pairs, lambda g: (g.integers(1, 100, 6), g.integers(1, 100, 6))),
    "typed_accumulators": (typed_accumulators, lambda g: (g.random(6), g.integers(-5, 5, 6))),
    "select_indices": (select_indices, lambda g: (g.random(10), 0.5)),
    "poisson_loglik": (poisson_loglik, lambda g: (g.integers(0, 9, 7).astype(np.float64),
                                                  g.uniform(0.5, 6.0, 7))),
    "weighted_index_sum": (weighted_index_sum, lambda g: (g.random(6),)),
    "median_by_sorting": (median_by_sorting, lambda g: (g.standard_normal(8),)),
    "median_by_sorting_odd": (median_by_sorting, lambda g: (g.standard_normal(7),)),
    "reset_and_mark": (reset_and_mark, lambda g: (g.random(8), 0.5)),
}
