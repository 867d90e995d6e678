"""npbench-style kernels (tests/autograph/npbench_*.py): autograph against
NumPy (the same function run plainly) and Numba (`numba.njit` of the same
source, where Numba compiles it), measured in the same run.

Every column calls the kernel on fresh copies of the array arguments (the
published kernels write into their arguments; the copies are timed in every
column alike). Loop counts (`TSTEPS`, `nit`, ...) are passed as `np.int64`
so the time loop compiles to one loop instead of unrolling at trace time
(API.md §4); NumPy and Numba see the same values. Results are checked
against NumPy before timing; ratios are reference / autograph (above 1:
autograph faster). Timings are printed, never asserted.

    python -m bench.npbench_style [--scale 1.0] [--repeat 5] [--only jacobi_2d,hdiff]

Not in `make bench`'s `ROW_MODULES` (it would add about a minute); its
`npbench_rows` is a `@row` function all the same.
"""
from __future__ import annotations

import copy
import os
import sys
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (ROOT, os.path.join(ROOT, "tests", "autograph")):
    if p not in sys.path:
        sys.path.insert(0, p)

import autograph as ag  # noqa: E402
from bench.rows import Context, Row, row  # noqa: E402

import npbench_apps as apps  # noqa: E402
import npbench_polybench as poly  # noqa: E402


def _spd(rng, n):
    a = rng.random((n, n))
    return a @ a.T + n * np.eye(n)


def _i(n):
    return np.int64(n)


def _inputs(ctx: Context):
    """name -> (kernel, args) at npbench's small ("S") sizes, scaled."""
    g = ctx.rng(0)
    n = ctx.n
    N2 = n(120, 8)
    N3 = n(24, 6)
    return {
        "jacobi_1d": (poly.jacobi_1d, (_i(50), g.random(n(4000, 16)), g.random(n(4000, 16)))),
        "jacobi_2d": (poly.jacobi_2d, (_i(20), g.random((N2, N2)), g.random((N2, N2)))),
        "heat_3d": (poly.heat_3d, (_i(10), g.random((N3, N3, N3)), g.random((N3, N3, N3)))),
        "seidel_2d": (poly.seidel_2d, (_i(4), _i(n(60, 6)), g.random((n(60, 6), n(60, 6))))),
        "fdtd_2d": (poly.fdtd_2d, (_i(20), g.random((N2, N2 + 10)), g.random((N2, N2 + 10)),
                                   g.random((N2, N2 + 10)), g.random(20))),
        "cholesky": (poly.cholesky, (_spd(g, n(80, 6)),)),
        "lu": (poly.lu, (_spd(g, n(60, 6)),)),
        "trisolv": (poly.trisolv, (_spd(g, n(400, 6)), g.random(n(400, 6)),
                                   g.random(n(400, 6)))),
        "durbin": (poly.durbin, (g.random(n(400, 8)) * 0.1,)),
        "gramschmidt": (poly.gramschmidt, (_spd(g, n(60, 6)),)),
        "syrk": (poly.syrk, (1.5, 1.2, g.random((n(60, 6), n(60, 6))),
                             g.random((n(60, 6), n(50, 5))))),
        "nussinov": (poly.nussinov, (_i(n(60, 6)), g.integers(0, 4, n(60, 6)).astype(np.int32))),
        "floyd_warshall": (poly.floyd_warshall,
                           (g.integers(1, 100, (n(100, 6), n(100, 6))).astype(np.int32),)),
        "go_fast": (apps.go_fast, (g.random((n(300, 8), n(300, 8))),)),
        "arc_distance": (apps.arc_distance, tuple(g.random(n(100_000, 16)) for _ in range(4))),
        "softmax": (apps.softmax, (g.random((4, 8, 32, 32)).astype(np.float32),)),
        "hdiff": (apps.hdiff, (g.random((n(64, 4) + 4, n(64, 4) + 4, 16)),
                               g.random((n(64, 4), n(64, 4), 16)),
                               g.random((n(64, 4), n(64, 4), 16)))),
        "spmv": (apps.spmv, apps._csr(g, n(2000, 8), 8)),
        "cavity_flow": (apps.cavity_flow, (n(41, 7), n(41, 7), _i(20), _i(20),
                                           np.zeros((n(41, 7), n(41, 7))),
                                           np.zeros((n(41, 7), n(41, 7))), 0.001,
                                           2.0 / (n(41, 7) - 1), 2.0 / (n(41, 7) - 1),
                                           np.zeros((n(41, 7), n(41, 7))), 1.0, 0.1)),
    }


def _copies(args):
    return [copy.deepcopy(a) if isinstance(a, np.ndarray) else a for a in args]


def _same(got, want) -> bool:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    return len(got) == len(want) and all(
        np.allclose(np.asarray(g), w, rtol=1e-6 if np.asarray(w).dtype == np.float32 else 1e-9)
        for g, w in zip(got, want))


@row
def npbench_rows(ctx: Context, only=None):
    """One row per kernel: autograph against NumPy and Numba (same source)."""
    rows = []
    for name, (kernel, args) in _inputs(ctx).items():
        if only and name not in only:
            continue
        want = kernel(*_copies(args))
        refs, note = {"NumPy": ctx.time(lambda: kernel(*_copies(args)))}, ""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compiled = ag.function(kernel)
                ok = _same(compiled(*_copies(args)), want)
            mine = ctx.time(lambda: compiled(*_copies(args))) if ok else None
            note = "" if ok else "autograph result differs"
        except Exception as e:   # print the failure in place of the figure
            mine, note = None, f"autograph: {type(e).__name__}: {str(e).splitlines()[0][:60]}"
        if ctx.numba is not None:
            try:
                jitted = ctx.numba.njit(kernel)
                ok = _same(jitted(*_copies(args)), want)
                refs["Numba"] = ctx.time(lambda: jitted(*_copies(args))) if ok else None
            except Exception as e:
                refs["Numba"] = None
                note += f" numba: {type(e).__name__}"
        rows.append(Row(f"npbench {name}", mine, refs, goal="near Numba", note=note.strip()))
    return rows


def main(argv=None) -> None:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="")
    args = parser.parse_args(argv)
    try:
        import numba
    except ImportError:
        numba = None
    warnings.simplefilter("ignore")   # Numba's performance hints about non-contiguous `@`
    ctx = Context(scale=args.scale, repeat=args.repeat, numba=numba)
    only = set(args.only.split(",")) if args.only else None
    print(f"{'kernel':28s} {'autograph':>12s} {'NumPy':>10s} {'Numba':>10s}  ratios")
    for r in npbench_rows(ctx, only):
        mine = "-" if r.autograph is None else f"{r.autograph:.3f} ms"
        cols = [("-" if r.refs.get(k) is None else f"{r.refs[k]:.3f}") for k in ("NumPy", "Numba")]
        ratios = ", ".join(f"{k} {v:.2f}x" for k, v in r.ratios().items() if v is not None)
        print(f"{r.what:28s} {mine:>12s} {cols[0]:>10s} {cols[1]:>10s}  {ratios}  {r.note}")


if __name__ == "__main__":
    main()
