"""Published Numba-style lines that the contract refuses, unchanged.

Each function is the unchanged form of a kernel in published_kernels.py
(or published_numpy_kernels.py), cut down to the line that mixes dtypes. It
runs as plain NumPy; through `ag.function` it raises the clear TypeError of
API.md §3/§9 (no silent promotion: a loop counter over `range(len(x))` or
`range(x.shape[0])` is int32, `int(t)` and `math.floor` give int64, a Python
int loop variable takes the int32 its body gives it). The kernels in
published_kernels.py carry the cast the error names.

`ERRORS` maps a name to `(kernel, make_args, regex of the message)`.
"""
import math

import numpy as np


def bilinear_weight(xs):
    # published: fx = xs[k] - x0 with x0 = int(math.floor(xs[k])) (int64)
    out = np.empty(xs.shape[0])
    for k in range(xs.shape[0]):
        x0 = int(math.floor(xs[k]))
        out[k] = xs[k] - x0
    return out


def store_best_index(points, centroids):
    # published: labels[i] = best_j, best_j an int32 loop counter, labels int64
    labels = np.empty(points.shape[0], dtype=np.int64)
    for i in range(points.shape[0]):
        best = np.inf
        best_j = -1
        for j in range(centroids.shape[0]):
            dist = abs(points[i] - centroids[j])
            if dist < best:
                best = dist
                best_j = j
        labels[i] = best_j
    return labels


def compare_labels(labels, centroids):
    # published: points[labels == j] with int64 labels and an int32 counter j
    sizes = np.zeros(centroids.shape[0], dtype=np.int64)
    for j in range(centroids.shape[0]):
        sizes[j] = (labels == j).sum()
    return sizes


def store_counter(n):
    # published: d[i, 0] = i into an int64 table
    d = np.zeros((n.shape[0], 2), dtype=np.int64)
    for i in range(n.shape[0]):
        d[i, 0] = i
    return d


def pi_estimate(xs, ys):
    # published: return 4.0 * inside / len(xs), inside an int32 counter
    inside = 0
    for i in range(len(xs)):
        if xs[i] * xs[i] + ys[i] * ys[i] <= 1.0:
            inside += 1
    return 4.0 * inside / len(xs)


def mean_of_finite(x):
    # published: total / count, count an int32 counter
    total = 0.0
    count = 0
    for v in x:
        if not math.isnan(v):
            total += v
            count += 1
    return total / count


def weighted_by_position(a, b):
    # published: s += i * u * v with i from enumerate (int32) and float64 data
    s = 0.0
    for i, (u, v) in enumerate(zip(a, b)):
        s += i * u * v
    return s


_SUB = r"subtract: the operands have different dtypes float64 and int64; NumPy would have " \
       r"promoted to float64.*use ag\.cast\(x, ag\.float64\)"
_SET = r"set_item: cannot assign an int32 value to an int64 tensor; use ag\.cast\(value, " \
       r"ag\.int64\).*NumPy would have cast it to int64"

ERRORS = {
    "bilinear_weight": (bilinear_weight, lambda g: (g.uniform(0.0, 4.0, 5),), _SUB),
    "store_best_index": (store_best_index, lambda g: (g.random(6), g.random(3)), _SET),
    "compare_labels": (compare_labels, lambda g: (g.integers(0, 3, 8), g.random((3, 2))),
                       r"equal: the operands have different dtypes int64 and int32; NumPy would "
                       r"have promoted to int64"),
    "store_counter": (store_counter, lambda g: (g.random(4),), _SET),
    "pi_estimate": (pi_estimate, lambda g: (g.random(20), g.random(20)),
                    r"multiply: cannot use the float 4\.0 with a tensor of dtype int32; use "
                    r"ag\.cast\(x, ag\.float64\).*NumPy would have promoted to float64"),
    "mean_of_finite": (mean_of_finite, lambda g: (g.standard_normal(6),),
                       r"divide: the operands have different dtypes float64 and int32; NumPy "
                       r"would have promoted to float64"),
    "weighted_by_position": (weighted_by_position, lambda g: (g.random(4), g.random(4)),
                             r"multiply: the operands have different dtypes (int32 and float64|"
                             r"float64 and int32); NumPy would have promoted to float64"),
}
