"""Issue 8 (part B) rows of `make bench`: matmul through BLAS, vector maths,
results dropped each call. Each row times autograph and NumPy in the same
run (interleaved samples, minimum of the medians) and gives NumPy/autograph
(above 1: autograph is faster).

    python bench/native_perf.py [--repeat 7] [--ulp]

`rows()` returns the figures as dicts (name, autograph_ms, numpy_ms, ratio)
for a JSON report; `--ulp` prints the max-ulp table of docs/ARCHITECTURE.md
("Vector maths") measured against np.longdouble.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402


def _per_call_ms(fn, args, budget=0.05) -> float:
    fn(*args)
    n, t = 1, 0.0
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn(*args)
        t = time.perf_counter() - t0
        if t >= budget:
            return t / n * 1e3
        n *= 2


def _pair(ag_fn, np_fn, args, repeat: int):
    """(autograph ms, NumPy ms): medians of interleaved samples."""
    a, b = [], []
    for _ in range(repeat):
        a.append(_per_call_ms(ag_fn, args))
        b.append(_per_call_ms(np_fn, args))
    return statistics.median(a), statistics.median(b)


def _unary(ag, name: str):
    """`ag.math.<name>` as a one-argument function (a closure: a default
    argument would take the slower call path of functions with defaults)."""
    fn = getattr(ag.math, name)
    return ag.function(lambda x: fn(x), autograph=False)


def _cases():
    import autograph as ag
    from autograph.codegen.abi import blas

    rng = np.random.default_rng(0)
    out = []

    x = rng.standard_normal((512, 512)).astype(np.float32)
    w = rng.standard_normal((512, 512)).astype(np.float32)
    bias = rng.standard_normal(512).astype(np.float32)
    k6 = ag.function(lambda x, w, b: ag.nn.relu(ag.matmul(x, w) + b), autograph=False)
    out.append(("K6 relu(x@W+b) 512 f32", k6, lambda x, w, b: np.maximum(x @ w + b, 0), (x, w, bias)))

    def k6_own(x, w, b):
        with blas.disabled():
            return k6(x, w, b)
    out.append(("K6 own loop (no BLAS)", k6_own, lambda x, w, b: np.maximum(x @ w + b, 0),
                (x, w, bias)))

    x1 = rng.standard_normal((1, 512)).astype(np.float32)
    x2 = rng.standard_normal((10000, 512)).astype(np.float32)
    mt = ag.function(lambda a, b: ag.matmul(a, ag.transpose(b)), autograph=False)
    out.append(("matmul(x1, x2^T) 1x512.10000x512", mt, lambda a, b: np.matmul(a, b.T), (x1, x2)))

    xt = rng.standard_normal((512, 512))
    wt = rng.standard_normal((512, 512))
    tt = ag.function(lambda a, b: ag.matmul(ag.transpose(a), b), autograph=False)
    out.append(("matmul(a^T, b) 512 f64", tt, lambda a, b: a.T @ b, (xt, wt)))

    for dt in (np.float64, np.float32):
        v = (rng.random(100_000) * 4 + 0.01).astype(dt)
        for name in ("exp", "log", "log1p", "expm1", "tanh", "sin", "cos", "tan"):
            f = _unary(ag, name)
            out.append((f"{name} 100k {np.dtype(dt).name}", f, getattr(np, name), (v,)))

    from autograph.codegen.abi import threads
    big_x, big_y = rng.random(1 << 20), rng.random(1 << 20)
    fused = ag.function(lambda x, y: ag.math.exp(x) * 2.0 + ag.math.sqrt(y + 1.0), autograph=False)
    np_fused = lambda x, y: np.exp(x) * 2.0 + np.sqrt(y + 1.0)  # noqa: E731

    def one_thread(x, y):
        saved = threads.THREADS[0]
        threads.THREADS[0] = 1
        try:
            return fused(x, y)
        finally:
            threads.THREADS[0] = saved
    out.append(("exp(x)*2+sqrt(y+1) 1M, all threads", fused, np_fused, (big_x, big_y)))
    out.append(("exp(x)*2+sqrt(y+1) 1M, one thread", one_thread, np_fused, (big_x, big_y)))

    a = rng.standard_normal((512, 512))
    shift = ag.function(lambda a: a[1:] + a[:-1], autograph=False)
    kept = []

    def keep(a):
        r = shift(a)
        kept.append(r)
        if len(kept) > 64:
            kept.pop(0)
        return r
    out.append(("a[1:]+a[:-1] 512x512, dropped", shift, lambda a: a[1:] + a[:-1], (a,)))
    out.append(("a[1:]+a[:-1] 512x512, kept", keep, lambda a: a[1:] + a[:-1], (a,)))
    return out


def rows(repeat: int = 7) -> list:
    """The figures: [{name, autograph_ms, numpy_ms, ratio}] (ratio = NumPy / autograph)."""
    result = []
    for name, ag_fn, np_fn, args in _cases():
        t_ag, t_np = _pair(ag_fn, np_fn, args, repeat)
        result.append({"name": name, "autograph_ms": t_ag, "numpy_ms": t_np, "ratio": t_np / t_ag})
    return result


def ulp_table(n: int = 2_000_000) -> list:
    """[(function, dtype, max ulp autograph, max ulp NumPy)] against np.longdouble,
    over `n` random bit patterns (all finite floats equally likely) plus dense
    ranges around each function's branch points."""
    import autograph as ag

    ranges = {"log": [(0.5, 2.0)], "log1p": [(-0.999, 3.0), (-1e-6, 1e-6)],
              "expm1": [(-45.0, 45.0), (-1.2, 1.2)], "tanh": [(-25.0, 25.0), (-0.7, 0.7)],
              "exp": [(-750.0, 710.0), (-1.0, 1.0)]}
    rng = np.random.default_rng(1)
    table = []
    for name, lims in ranges.items():
        f = _unary(ag, name)
        for dt in (np.float32, np.float64):
            if dt == np.float32:
                x = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(dt)
            else:
                x = rng.integers(0, 2 ** 64, n, dtype=np.uint64).view(dt)
            x = np.concatenate([x[np.isfinite(x)]] + [np.linspace(lo, hi, n // 4).astype(dt)
                                                       for lo, hi in lims])
            with np.errstate(all="ignore"):
                ref = getattr(np, name)(x.astype(np.longdouble))
                ref_t = ref.astype(dt)
                worst = []
                for got in (np.asarray(f(x)), getattr(np, name)(x)):
                    ok = np.isfinite(ref_t) & np.isfinite(got)
                    err = np.abs(got[ok].astype(np.longdouble) - ref[ok]) / \
                        np.spacing(np.abs(ref_t[ok])).astype(np.longdouble)
                    worst.append(float(err.max()))
            table.append((name, np.dtype(dt).name, worst[0], worst[1]))
    return table


_IN_ISSUE_TABLE = ("K6 relu(x@W+b) 512 f32", "matmul(x1, x2^T) 1x512.10000x512", "log 100k float64",
                   "a[1:]+a[:-1] 512x512, dropped", "a[1:]+a[:-1] 512x512, kept")

try:                                   # the table of `make bench` (bench/rows.py), when present
    from bench.rows import Row, row
except ImportError:                    # pragma: no cover - run as a script from elsewhere
    row = None

if row is not None:
    @row
    def native_rows(ctx) -> list:
        """Matmul without BLAS / with a transposed operand, the other vector maths,
        a threaded fused loop (the issue's own rows are in bench/issue_rows.py)."""
        out = []
        one_thread = None
        for name, ag_fn, np_fn, args in _cases():
            if name in _IN_ISSUE_TABLE:
                continue
            if name.endswith("one thread"):
                one_thread = ctx.time(lambda: ag_fn(*args))
                out[-1].refs["autograph, one thread"] = one_thread
                continue
            refs = {"NumPy": ctx.time(lambda: np_fn(*args))}
            goal = "faster than one thread" if name.endswith("all threads") else "within 1.2x of NumPy"
            out.append(Row(name, ctx.time(lambda: ag_fn(*args)), refs, goal=goal))
        return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--ulp", action="store_true", help="print the max-ulp table instead")
    args = parser.parse_args(argv)
    if args.ulp:
        print(f"{'function':<8} {'dtype':<8} {'autograph':>10} {'NumPy':>8}   (max ulp)")
        for name, dt, mine, theirs in ulp_table():
            print(f"{name:<8} {dt:<8} {mine:10.2f} {theirs:8.2f}")
        return 0
    from autograph.codegen.abi import blas
    print(f"matmul, vector maths, dropped results (BLAS: {blas.load() or 'none'})")
    print(f"  {'row':<36} {'autograph':>10} {'NumPy':>9} {'NumPy/ag':>9}")
    for r in rows(args.repeat):
        print(f"  {r['name']:<36} {r['autograph_ms']:9.3f}m {r['numpy_ms']:8.3f}m {r['ratio']:9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
