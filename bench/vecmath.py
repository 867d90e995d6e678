"""Vector maths: speed against NumPy (one thread) and max ulp error of every
routine of codegen/llvm/vecmath*.py and mathfns.py.

    python bench/vecmath.py speed [--repeat 9] [--sizes 100000 1000000] [--clock cpu]
    python bench/vecmath.py ulp [--n 4000000] [--all-f32 [--stride K]] [names...]

`speed` times `ag.math.<name>(x)` and NumPy's own loop on the same array, in
one process, interleaved (AUTOGRAPH_NUM_THREADS=1 is set before autograph is
imported), and prints median and minimum per call and NumPy/autograph (above
1: autograph is faster). `ulp` measures the max error in units of the last
place against np.longdouble (80-bit x87 on x86-64, whose libm functions are
correctly reduced for huge arguments): float32 over every finite bit pattern
in the function's domain with --all-f32 (else random bit patterns), float64
over random bit patterns (every finite double equally likely) plus dense
ranges around each branch point. NumPy's own error is shown next to ours.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("AUTOGRAPH_NUM_THREADS", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402


def _sigmoid_np(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _sigmoid_ref(x):
    """Sigmoid in np.longdouble without overflow."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


# name: (NumPy function, arity, speed-test inputs (lo, hi) per argument, dense ulp ranges)
FUNCTIONS = {
    "exp": (np.exp, 1, [(-50, 50)], [(-750.0, 710.0), (-1.0, 1.0)]),
    "log": (np.log, 1, [(0.01, 100)], [(0.5, 2.0), (1e-3, 1e3)]),
    "log1p": (np.log1p, 1, [(-0.9, 10)], [(-0.999, 3.0), (-1e-6, 1e-6)]),
    "expm1": (np.expm1, 1, [(-5, 5)], [(-45.0, 45.0), (-1.2, 1.2), (-1e-6, 1e-6)]),
    "tanh": (np.tanh, 1, [(-5, 5)], [(-25.0, 25.0), (-0.7, 0.7)]),
    "sigmoid": (_sigmoid_np, 1, [(-20, 20)], [(-40.0, 40.0), (-1.0, 1.0)]),
    "sin": (np.sin, 1, [(-100, 100)], [(-20.0, 20.0), (-7e4, 7e4), (-1e6, 1e6), (-1e9, 1e9)]),
    "cos": (np.cos, 1, [(-100, 100)], [(-20.0, 20.0), (-7e4, 7e4), (-1e6, 1e6), (-1e9, 1e9)]),
    "tan": (np.tan, 1, [(-100, 100)], [(-20.0, 20.0), (-7e4, 7e4), (-1e6, 1e6), (-1e9, 1e9)]),
    "pow": (np.power, 2, [(0.1, 10), (-5, 5)], None),
    "sqrt": (np.sqrt, 1, [(0, 100)], [(0.0, 4.0)]),
    "sinh": (np.sinh, 1, [(-5, 5)], [(-25.0, 25.0), (-1.0, 1.0)]),
    "cosh": (np.cosh, 1, [(-5, 5)], [(-25.0, 25.0), (-1.0, 1.0)]),
    "atan": (np.arctan, 1, [(-5, 5)], [(-5.0, 5.0)]),
    "exp2": (np.exp2, 1, [(-50, 50)], [(-1100.0, 1030.0), (-2.0, 2.0)]),
    "log2": (np.log2, 1, [(0.01, 100)], [(0.5, 2.0), (1e-3, 1e3)]),
    "log10": (np.log10, 1, [(0.01, 100)], [(0.5, 2.0), (1e-3, 1e3)]),
}
REFERENCE = {"sigmoid": _sigmoid_ref}


def _kernel(name: str):
    import autograph as ag
    fn = getattr(ag.math, name)
    if FUNCTIONS[name][1] == 2:
        return ag.function(lambda x, y: fn(x, y), autograph=False)
    return ag.function(lambda x: fn(x), autograph=False)


# speed's clock: wall time, or with --clock cpu the thread's CPU time (time.thread_time,
# which leaves out the time the thread waits for a core on a busy host)
_CLOCK = {"wall": time.perf_counter, "cpu": time.thread_time}
_clock = time.perf_counter


def _per_call_s(fn, args, budget=0.02) -> float:
    fn(*args)
    n = 1
    while True:
        t0 = _clock()
        for _ in range(n):
            fn(*args)
        t = _clock() - t0
        if t >= budget:
            return t / n
        n *= 2


def speed(names, sizes, repeat: int):
    """[(name, dtype, size, ours median s, ours min s, NumPy median s, NumPy min s)]."""
    rng = np.random.default_rng(0)
    out = []
    for name in names:
        np_fn, arity, lims, _ = FUNCTIONS[name]
        f = _kernel(name)
        for dt in (np.float32, np.float64):
            for n in sizes:
                args = tuple(rng.uniform(lo, hi, n).astype(dt) for lo, hi in lims)
                a, b = [], []
                for _ in range(repeat):
                    a.append(_per_call_s(f, args))
                    b.append(_per_call_s(np_fn, args))
                out.append((name, np.dtype(dt).name, n, statistics.median(a), min(a),
                            statistics.median(b), min(b)))
    return out


def _bits_sample(dt, n, rng):
    if dt == np.float32:
        x = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(dt)
    else:
        x = rng.integers(0, 2 ** 64, n, dtype=np.uint64).view(dt)
    return x[np.isfinite(x)]


def _all_f32():
    """Every finite float32 (4.3e9 values: done in slices by the caller)."""
    return np.arange(0, 2 ** 32, dtype=np.uint64).astype(np.uint32)


def max_ulp(got, ref, dt) -> float:
    """Max |got - ref| / ulp(ref rounded to dt) over finite results."""
    with np.errstate(all="ignore"):
        ref_t = ref.astype(dt)
    ok = np.isfinite(ref_t) & np.isfinite(got)
    if not ok.any():
        return 0.0
    sp = np.spacing(np.abs(ref_t[ok])).astype(np.longdouble)
    return float((np.abs(got[ok].astype(np.longdouble) - ref[ok]) / sp).max())


def _pow_inputs(dt, n, rng):
    """Bases over the whole range with exponents that keep results finite-ish,
    plus dense (base near 1, large exponent) and integer-exponent cases."""
    x = np.abs(_bits_sample(dt, n, rng))
    lg = np.log2(x.astype(np.float64))
    lim = 120.0 if dt == np.float32 else 1000.0
    y = rng.uniform(-1, 1, x.size) * lim / np.maximum(np.abs(lg), 1.0)
    x2 = rng.uniform(0.5, 2.0, n)
    y2 = rng.uniform(-1, 1, n) * (lim / 1.0)
    x3 = rng.uniform(-10, 10, n)
    y3 = rng.integers(-30, 30, n).astype(np.float64)
    xs = np.concatenate([x, x2, x3]).astype(dt)
    ys = np.concatenate([y, y2, y3]).astype(dt)
    return xs, ys


def ulp(names, n: int, all_f32: bool, stride: int = 1):
    """[(name, dtype, ours, NumPy, sample size)]; with `all_f32`, float32 over every
    `stride`-th bit pattern (1: all of them)."""
    rng = np.random.default_rng(1)
    out = []
    for name in names:
        np_fn, arity, _, ranges = FUNCTIONS[name]
        f = _kernel(name)
        ref_fn = REFERENCE.get(name, np_fn)
        for dt in (np.float32, np.float64):
            worst_ours = worst_np = 0.0
            count = 0
            if arity == 2:
                chunks = [_pow_inputs(dt, n, rng)]
            elif dt == np.float32 and all_f32:
                step = 1 << 24
                chunks = ((np.arange(s, min(s + step, 2 ** 32), stride, dtype=np.uint64)
                           .astype(np.uint32).view(dt),) for s in range(0, 2 ** 32, step))
            else:
                # one call per piece: an array with a huge argument runs sin/cos/tan's
                # exact re-run (lowering/fixup.py), one without their fast routine
                chunks = [(_bits_sample(dt, n, rng),)] + [(np.linspace(lo, hi, n // 4).astype(dt),)
                                                          for lo, hi in ranges]
            for args in chunks:
                args = tuple(a[np.isfinite(a)] for a in args) if arity == 1 else args
                with np.errstate(all="ignore"):
                    ref = ref_fn(*(a.astype(np.longdouble) for a in args))
                    got = np.asarray(f(*args))
                    theirs = np_fn(*args)
                worst_ours = max(worst_ours, max_ulp(got, ref, dt))
                worst_np = max(worst_np, max_ulp(theirs, ref, dt))
                count += args[0].size
            out.append((name, np.dtype(dt).name, worst_ours, worst_np, count))
            print(f"{name:<8} {np.dtype(dt).name:<8} {worst_ours:8.2f} {worst_np:8.2f}  ({count} values)",
                  flush=True)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sp = sub.add_parser("speed")
    sp.add_argument("--repeat", type=int, default=9)
    sp.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    sp.add_argument("--clock", choices=sorted(_CLOCK), default="wall",
                    help="wall: perf_counter; cpu: the thread's CPU time (busy hosts)")
    sp.add_argument("names", nargs="*")
    up = sub.add_parser("ulp")
    up.add_argument("--n", type=int, default=4_000_000)
    up.add_argument("--all-f32", action="store_true")
    up.add_argument("--stride", type=int, default=1, help="with --all-f32: every k-th pattern")
    up.add_argument("names", nargs="*")
    args = parser.parse_args(argv)
    names = args.names or list(FUNCTIONS)
    if args.what == "speed":
        global _clock
        _clock = _CLOCK[args.clock]
        print(f"{'function':<8} {'dtype':<8} {'n':>8} {'ours med':>10} {'min':>9} {'NumPy med':>10} "
              f"{'min':>9} {'NumPy/ours':>10}   (microseconds; ratio of minima)")
        for name, dt, n, am, amin, bm, bmin in speed(names, args.sizes, args.repeat):
            print(f"{name:<8} {dt:<8} {n:>8} {am*1e6:10.1f} {amin*1e6:9.1f} {bm*1e6:10.1f} "
                  f"{bmin*1e6:9.1f} {bmin/amin:10.2f}", flush=True)
    else:
        print(f"{'function':<8} {'dtype':<8} {'ours':>8} {'NumPy':>8}   (max ulp vs np.longdouble)")
        ulp(names, args.n, args.all_f32, args.stride)
    return 0


if __name__ == "__main__":
    sys.exit(main())
