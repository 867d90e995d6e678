"""Inputs, NumPy / pure-Python references and timing for the example kernels.

Shared by `examples/demo.py`, `bench/run.py` and `tests/test_examples.py`.
Inputs come from `np.random.default_rng(0)` as KERNELS.md says; `scale`
shrinks the sizes (1.0 gives KERNELS.md's sizes).  Nothing here imports
`autograph`.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional, Tuple

import numpy as np

SELU_SCALE = 1.0507
SELU_ALPHA = 1.67326
MANDEL_ITER = 100


def _n(size: int, scale: float, minimum: int = 1) -> int:
    return max(minimum, int(round(size * scale)))


# --------------------------------------------------------------------------- inputs


def inputs_k1(scale: float = 1.0):
    rng = np.random.default_rng(0)
    n = _n(4_000_000, scale)
    return (rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32))


def inputs_k2(scale: float = 1.0):
    rng = np.random.default_rng(0)
    return (rng.standard_normal(_n(4_000_000, scale), dtype=np.float32),)


def inputs_k3(scale: float = 1.0):
    return (np.int64(_n(300_000, scale)),)


def inputs_k4(scale: float = 1.0):
    rng = np.random.default_rng(0)
    return (rng.standard_normal(_n(2_000_000, scale)),)


def inputs_k5(scale: float = 1.0):
    # the grid is 400 x 300; `scale` shrinks its area
    s = scale ** 0.5
    xs = np.linspace(-2.0, 1.0, _n(400, s, 2))
    ys = np.linspace(-1.2, 1.2, _n(300, s, 2))
    return (xs, ys)


def inputs_k6(scale: float = 1.0):
    rng = np.random.default_rng(0)
    n = _n(512, scale ** (1 / 3), 2)
    return (rng.standard_normal((n, n), dtype=np.float32),
            rng.standard_normal((n, n), dtype=np.float32),
            rng.standard_normal(n, dtype=np.float32))


def inputs_k9(scale: float = 1.0):
    rng = np.random.default_rng(0)
    s = scale ** 0.5
    return (rng.standard_normal((_n(2000, s), _n(1000, s)), dtype=np.float32),)


def inputs_k10(scale: float = 1.0):
    rng = np.random.default_rng(0)
    return (rng.standard_normal(_n(1_000_000, scale)),)


# --------------------------------------------------------------------------- references
# `ref_*` compute in float64 (the correctness reference); `numpy_*` are the
# vectorised NumPy versions a user would write (the speed reference).


def ref_k1(x, y):
    x = x.astype(np.float64)
    return float(np.mean(x ** 2 * 3 + y.astype(np.float64)))


def numpy_k1(x, y):
    return np.mean(x ** 2 * 3 + y)


def ref_k2(z, scale=SELU_SCALE, alpha=SELU_ALPHA):
    z = z.astype(np.float64)
    return scale * np.where(z >= 0, z, alpha * np.expm1(np.minimum(z, 0)))


def numpy_k2(z, scale=SELU_SCALE, alpha=SELU_ALPHA):
    return np.float32(scale) * np.where(z >= 0, z, np.float32(alpha) * np.expm1(np.minimum(z, 0)))


def python_k3(n) -> int:
    """Total Collatz steps of every start 1..n, in pure Python."""
    total = 0
    for start in range(1, int(n) + 1):
        v = start
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            total += 1
    return total


def numpy_k3(n) -> int:
    """The same, vectorised over all starts (each round steps every unfinished one)."""
    v = np.arange(2, int(n) + 1, dtype=np.int64)
    total = 0
    while v.size:
        total += v.size
        v = np.where(v % 2 == 0, v // 2, 3 * v + 1)
        v = v[v != 1]
    return total


def python_k4(x) -> float:
    acc = 0.0
    for v in x.tolist():
        if v > 0:
            acc += v * v
        else:
            acc -= v / 2
    return acc


def numpy_k4(x) -> float:
    return float(np.sum(np.where(x > 0, x * x, -x / 2)))


def numpy_mandelbrot(xs, ys, max_iter: int = MANDEL_ITER) -> np.ndarray:
    """Escape counts on the grid (ys rows, xs columns), vectorised NumPy.

    Same arithmetic, in the same order, as the scalar loop of `kernels.mandelbrot`.
    """
    cx = np.broadcast_to(np.asarray(xs, np.float64)[None, :], (len(ys), len(xs)))
    cy = np.broadcast_to(np.asarray(ys, np.float64)[:, None], (len(ys), len(xs)))
    zx = np.zeros(cx.shape)
    zy = np.zeros(cx.shape)
    counts = np.zeros(cx.shape, dtype=np.int32)
    active = np.ones(cx.shape, dtype=bool)
    for _ in range(max_iter):
        zx2 = zx * zx
        zy2 = zy * zy
        active &= ~(zx2 + zy2 > 4.0)
        if not active.any():
            break
        zy = np.where(active, 2.0 * zx * zy + cy, zy)
        zx = np.where(active, zx2 - zy2 + cx, zx)
        counts += active
    return counts


def numpy_k5(xs, ys, max_iter: int = MANDEL_ITER) -> int:
    return int(numpy_mandelbrot(xs, ys, max_iter).sum())


def python_mandelbrot(xs, ys, max_iter: int = MANDEL_ITER) -> np.ndarray:
    counts = np.zeros((len(ys), len(xs)), dtype=np.int32)
    for j, cy in enumerate(ys.tolist()):
        for i, cx in enumerate(xs.tolist()):
            zx = zy = 0.0
            count = 0
            for _ in range(max_iter):
                zx2 = zx * zx
                zy2 = zy * zy
                if zx2 + zy2 > 4.0:
                    break
                zy = 2.0 * zx * zy + cy
                zx = zx2 - zy2 + cx
                count += 1
            counts[j, i] = count
    return counts


def ref_k6(x, w, b):
    return np.maximum(x.astype(np.float64) @ w.astype(np.float64) + b, 0.0)


def numpy_k6(x, w, b):
    return np.maximum(x @ w + b, 0)


def ref_k9(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def numpy_k9(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def numpy_k10(x):
    return np.cumsum(x)


# --------------------------------------------------------------------------- table


@dataclass
class Kernel:
    """One benchmark kernel: its name in `examples.kernels`, inputs and references."""

    id: str
    name: str
    title: str
    inputs: Callable
    ref: Callable                      # float64 / exact reference
    numpy: Callable                    # what the speed comparison runs
    numpy_label: str
    rtol: float = 1e-6
    atol: float = 0.0
    extra: Dict[str, object] = field(default_factory=dict)


KERNELS = [
    Kernel("K1", "mean_square", "reduce_mean(x**2*3 + y), float32", inputs_k1,
           ref_k1, numpy_k1, "NumPy (vectorised)", rtol=1e-4, atol=1e-5),
    Kernel("K2", "scaled_elu", "scaled ELU, float32", inputs_k2,
           ref_k2, numpy_k2, "NumPy (vectorised)", rtol=1e-5, atol=1e-6),
    Kernel("K3", "collatz_total", "total Collatz steps 1..N, int64", inputs_k3,
           numpy_k3, numpy_k3, "NumPy (vectorised over starts)", rtol=0),
    Kernel("K4", "branchy_sum", "branchy loop, float64", inputs_k4,
           numpy_k4, numpy_k4, "NumPy (vectorised where+sum)", rtol=1e-9, atol=1e-9),
    Kernel("K5", "mandelbrot_total", "Mandelbrot counts summed, 100 iterations", inputs_k5,
           numpy_k5, numpy_k5, "NumPy (vectorised over the grid)", rtol=0),
    Kernel("K6", "dense_relu", "relu(x @ W + b), float32", inputs_k6,
           ref_k6, numpy_k6, "NumPy (OpenBLAS)", rtol=1e-3, atol=1e-3),
    Kernel("K9", "softmax", "softmax over the last axis, float32", inputs_k9,
           ref_k9, numpy_k9, "NumPy (vectorised)", rtol=1e-5, atol=1e-7),
    Kernel("K10", "prefix_sum", "prefix sum with item assignment, float64", inputs_k10,
           numpy_k10, numpy_k10, "NumPy (cumsum)", rtol=1e-9, atol=1e-9),
]

BY_ID = {k.id: k for k in KERNELS}


def check(got, want, rtol: float, atol: float = 0.0) -> Optional[str]:
    """None if `got` matches `want`; otherwise a one-line description of the mismatch."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape} != expected {want.shape}"
    if rtol == 0 and atol == 0:
        if np.array_equal(got, want):
            return None
    elif np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol):
        return None
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    where = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.ndim else ()
    return (f"max abs difference {float(diff.max()):.3g} at {tuple(int(i) for i in where)} "
            f"(got {got[where].item()!r}, expected {want[where].item()!r})")


# --------------------------------------------------------------------------- timing


def median_ms(fn: Callable[[], object], repeat: int = 5, min_time: float = 0.05,
              max_calls: int = 1000) -> float:
    """Median wall time of one call of `fn` in milliseconds.

    Each of `repeat` samples times enough back-to-back calls to last about
    `min_time` seconds (at most `max_calls`), so fast kernels are not lost in
    timer resolution.
    """
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    number = max(1, min(max_calls, int(min_time / max(once, 1e-9))))
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number)
    return statistics.median(samples) * 1e3


def fmt_ms(ms: Optional[float]) -> str:
    if ms is None:
        return "-"
    if ms >= 100:
        return f"{ms:.0f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.4f}"


def fmt_ratio(num: Optional[float], den: Optional[float]) -> str:
    """`den / num` as 'N.NNx' (how many times faster `num` is than `den`)."""
    if num is None or den is None or num <= 0:
        return "-"
    return f"{den / num:.2f}x"


def first_call_ms(fn: Callable[[], object]) -> Tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1e3, out


# --------------------------------------------------------------------------- one kernel


@dataclass
class Result:
    """What `measure` found for one kernel (times in ms; None when not measured)."""

    kernel: Kernel
    first_ms: Optional[float] = None     # first call: trace + compile + run
    ms: Optional[float] = None           # median of cached calls
    numpy_ms: Optional[float] = None
    error: Optional[str] = None          # the call raised: "TypeName: message"
    mismatch: Optional[str] = None       # ran, but disagrees with the reference

    @property
    def ok(self) -> bool:
        return self.error is None and self.mismatch is None


def measure(kernel: Kernel, fn: Callable, args: tuple, repeat: int = 5,
            time_numpy: bool = True) -> Result:
    """Compile `fn` by calling it, check it against the reference, then time it and NumPy.

    Nothing is timed when the first call fails or the result is wrong.
    """
    res = Result(kernel)
    try:
        res.first_ms, out = first_call_ms(lambda: fn(*args))
    except Exception as exc:  # reported, never raised: one kernel must not stop the others
        res.error = one_line(exc)
        return res
    res.mismatch = check(out, kernel.ref(*args), kernel.rtol, kernel.atol)
    if res.mismatch:
        return res
    res.ms = median_ms(lambda: fn(*args), repeat=repeat)
    if time_numpy:
        res.numpy_ms = median_ms(lambda: kernel.numpy(*args), repeat=repeat)
    return res


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"
