"""The benchmark kernels of KERNELS.md, written the way a user would.

The loop kernels are plain Python loops under `@ag.function`; the array
kernels use `ag` operations.  Importing this module only defines functions;
`python examples/kernels.py` runs each on a small input.

    K1  mean_square(x, y)          reduce_mean(x**2 * 3 + y)
    K2  scaled_elu(z)              scale * where(z >= 0, z, alpha * elu(z))
    K3  collatz_total(n)           total Collatz steps of every start 1..n
    K4  branchy_sum(x)             a loop with a data-dependent branch
    K5  mandelbrot_total(xs, ys)   Mandelbrot iteration counts summed over the grid
        mandelbrot(xs, ys)         the grid of counts itself (uses item assignment)
    K6  dense_relu(x, w, b)        relu(x @ w + b)
    K7  add_one(x)                 x + 1 (the cost of a cached call)
    K9  softmax(x)                 numerically stable softmax over the last axis
    K10 prefix_sum(x)              out[i] = out[i-1] + x[i] (item assignment)
        prefix_sum_ta(x)           the same with a TensorArray
"""
import autograph as ag

SELU_SCALE = 1.0507
SELU_ALPHA = 1.67326


# K1 -- the seeds' first example, on vectors.
@ag.function
def mean_square(x, y):
    return ag.reduce_mean(x ** 2 * 3 + y)


# K2 -- scaled ELU; scale and alpha are Python floats, so they are constants
# of the trace and take the dtype of `z`.
@ag.function
def scaled_elu(z, scale=SELU_SCALE, alpha=SELU_ALPHA):
    return scale * ag.where(z >= 0, z, alpha * ag.nn.elu(z))


# K3 -- total Collatz steps for every start 1..n.  `n` is a traced int64
# scalar, so `ag.range` gives a compiled loop; the `while` on a tensor
# condition compiles too.
@ag.function
def collatz_total(n):
    total = ag.constant(0, dtype=ag.int64)
    for start in ag.range(1, n + 1):
        v = start
        while v != 1:
            if v % 2 == 0:
                v = v // 2
            else:
                v = 3 * v + 1
            total += 1
    return total


# K4 -- a branchy loop, Numba style: `range(len(x))` of a traced tensor is a
# compiled loop, and `acc` carries x's dtype.
@ag.function
def branchy_sum(x):
    acc = 0.0
    for i in range(len(x)):
        v = x[i]
        if v > 0:
            acc += v * v
        else:
            acc -= v / 2
    return acc


# K5 -- Mandelbrot: the escape-time count of every grid point (xs[i], ys[j]),
# at most `max_iter` iterations, escaping when |z|^2 > 4 (a `break` in the
# inner loop).  This version returns the sum of all counts (a scalar), which
# needs no item assignment; `mandelbrot` below returns the grid.
@ag.function
def mandelbrot_total(xs, ys, max_iter=100):
    total = 0
    for j in range(len(ys)):
        cy = ys[j]
        for i in range(len(xs)):
            cx = xs[i]
            zx = 0.0
            zy = 0.0
            count = 0
            for _ in ag.range(max_iter):
                zx2 = zx * zx
                zy2 = zy * zy
                if zx2 + zy2 > 4.0:
                    break
                zy = 2.0 * zx * zy + cy
                zx = zx2 - zy2 + cx
                count += 1
            total += count
    return total


# K5 with the grid of counts, `counts[j, i] = count` (a functional update).
@ag.function
def mandelbrot(xs, ys, max_iter=100):
    counts = ag.zeros((ys.shape[0], xs.shape[0]), dtype=ag.int32)
    for j in range(len(ys)):
        cy = ys[j]
        for i in range(len(xs)):
            cx = xs[i]
            zx = 0.0
            zy = 0.0
            count = 0
            for _ in ag.range(max_iter):
                zx2 = zx * zx
                zy2 = zy * zy
                if zx2 + zy2 > 4.0:
                    break
                zy = 2.0 * zx * zy + cy
                zx = zx2 - zy2 + cx
                count += 1
            counts[j, i] = count
    return counts


# K6 -- a dense layer.
@ag.function
def dense_relu(x, w, b):
    return ag.nn.relu(x @ w + b)


# K7 -- the smallest possible kernel: what a cached call costs.
@ag.function
def add_one(x):
    return x + 1


# K9 -- numerically stable softmax over the last axis.
@ag.function
def softmax(x):
    e = ag.exp(x - ag.reduce_max(x, axis=-1, keepdims=True))
    return e / ag.reduce_sum(e, axis=-1, keepdims=True)


# K10 -- prefix sum with item assignment ...
@ag.function
def prefix_sum(x):
    out = ag.zeros_like(x)
    acc = 0.0
    for i in range(len(x)):
        acc += x[i]
        out[i] = acc
    return out


# ... and with a TensorArray.
@ag.function
def prefix_sum_ta(x):
    ta = ag.TensorArray(x.dtype, size=len(x))
    acc = 0.0
    for i in range(len(x)):
        acc += x[i]
        ta = ta.write(i, acc)
    return ta.stack()


def main():
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.standard_normal(8).astype(np.float32)
    y = rng.standard_normal(8).astype(np.float32)
    print("K1 mean_square     ", float(mean_square(x, y)))
    print("K2 scaled_elu      ", np.asarray(scaled_elu(x)))
    print("K3 collatz_total   ", int(collatz_total(np.int64(100))))
    print("K4 branchy_sum     ", float(branchy_sum(x.astype(np.float64))))
    xs = np.linspace(-2.0, 1.0, 12)
    ys = np.linspace(-1.2, 1.2, 9)
    print("K5 mandelbrot_total", int(mandelbrot_total(xs, ys)))
    print("K9 softmax         ", np.asarray(softmax(x.reshape(2, 4))))


if __name__ == "__main__":
    main()
