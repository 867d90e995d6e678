"""Bench rows for slices read in place (codegen/lowering/views.py): stencils
written the NumPy way.

Each function's unchanged source is compiled by `ag.function` and by
`numba.njit` (when installed: Numba compiles the same slicing code) and run
by NumPy, in the same run; results are checked against NumPy before timing.
"autograph, one thread" is the same kernel with the thread pool off.
Registered in `bench.rows.ROW_MODULES`; alone: `python -m bench.slice_views`.
"""
from __future__ import annotations

import numpy as np

import autograph as ag
from bench.rows import Context, Row, row


def shifted_pair(a):
    return a[1:] + a[:-1]


def stencil_1d(u):
    return u[1:-1] + u[2:] + u[:-2]


def jacobi_2d(a):
    return 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])


def even_odd(x, y):
    return x[::2] * y[1::2]


def heat_slices(u0, alpha, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return u


def _one_thread(ctx: Context, fn, args) -> float:
    from autograph.codegen.abi import threads
    saved = threads.THREADS[0]
    threads.THREADS[0] = 1
    try:
        return ctx.time(lambda: fn(*args))
    finally:
        threads.THREADS[0] = saved


def _cases(ctx: Context):
    rng = ctx.rng(7)
    n1 = ctx.n(1_000_000, 16)
    n2 = ctx.n(1000, 8)
    return [
        ("a[1:] + a[:-1] 512x512 f64", shifted_pair, (rng.standard_normal((512, 512)),)),
        ("u[1:-1] + u[2:] + u[:-2], 1M f64", stencil_1d, (rng.standard_normal(n1),)),
        ("2-D Jacobi step 1000x1000 f64", jacobi_2d, (rng.standard_normal((n2, n2)),)),
        ("x[::2] * y[1::2], 1M f64", even_odd, (rng.standard_normal(n1), rng.standard_normal(n1))),
        ("heat_1d as NumPy slices, n=2000, 50 steps", heat_slices,
         (np.sin(np.linspace(0.0, np.pi, ctx.n(2000, 16))), 0.25, 50)),
    ]


@row
def slice_view_rows(ctx: Context):
    """One row per stencil: autograph (threads, one thread) against NumPy and Numba."""
    rows = []
    for what, fn, args in _cases(ctx):
        want = fn(*args)
        compiled = ag.function(fn)
        got = np.asarray(compiled(*args))
        ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-12, atol=1e-12)
        mine = ctx.time(lambda: compiled(*args)) if ok else None
        refs = {"NumPy": ctx.time(lambda: fn(*args)),
                "autograph, one thread": _one_thread(ctx, compiled, args) if ok else None}
        note = "" if ok else "autograph result differs"
        if ctx.numba is not None:
            jitted = ctx.numba.njit(fn)
            refs["Numba"] = ctx.time(lambda: jitted(*args)) \
                if np.allclose(jitted(*args), want, rtol=1e-12, atol=1e-12) else None
        rows.append(Row(what, mine, refs, goal="faster than NumPy and Numba", note=note))
    return rows


def main(argv=None) -> None:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    try:
        import numba
    except ImportError:
        numba = None
    ctx = Context(scale=args.scale, repeat=args.repeat, numba=numba)
    for r in slice_view_rows(ctx):
        refs = ", ".join(f"{k} {v:.3f} ms" for k, v in r.refs.items() if v is not None)
        ratios = ", ".join(f"{k} {v:.2f}x" for k, v in r.ratios().items() if v is not None)
        mine = "-" if r.autograph is None else f"{r.autograph:.3f} ms"
        print(f"{r.what:44s} {mine:>10s} | {refs} | {ratios} {r.note}")


if __name__ == "__main__":
    main()
