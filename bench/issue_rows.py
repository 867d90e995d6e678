"""The rows of issue 8's table (bench/rows.py): loops, arrays, start-up, compile time, calls.

Every row measures autograph and its references in this run. Inputs follow
KERNELS.md (`np.random.default_rng(0)`); results are checked against the
reference before anything is timed (a mismatch is reported in the row's note
instead of a figure).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

from bench.rows import Context, Row, row
from examples import harness

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _checked(ctx: Context, fn, args, want, rtol=1e-9, atol=1e-9):
    """Milliseconds per call of fn(*args), or (None, why) if its result is wrong."""
    miss = harness.check(fn(*args), want, rtol, atol)
    if miss:
        return None, f"wrong result: {miss}"
    return ctx.time(lambda: fn(*args)), ""


def _numba_ms(ctx: Context, name: str, args, want, rtol=1e-9, atol=1e-9, fastmath=False):
    nk = ctx.numba_kernels
    if nk is None:
        return None
    fn = nk.BY_NAME.get(name)
    if fn is None:
        return None
    if fastmath:
        fn = ctx.numba.njit(fastmath=True)(fn.py_func)
    ms, why = _checked(ctx, fn, args, want, rtol, atol)
    return ms


@row
def loops(ctx: Context):
    """K3, K4 (strict and fastmath), K5, K10 (item assignment and TensorArray) against Numba."""
    import autograph as ag
    from examples import kernels as K

    rows = []
    k = harness.BY_ID["K3"]
    data = k.inputs(ctx.scale)
    want = k.ref(*data)
    ms, why = _checked(ctx, K.collatz_total, data, want, 0, 0)
    rows.append(Row("K3 Collatz", ms, {"Numba": _numba_ms(ctx, "collatz_total", data, want, 0, 0),
                                       "autograph, one thread": _one_thread(ctx, K.collatz_total, data)},
                    goal="faster than Numba", note=why))

    k = harness.BY_ID["K4"]
    data = k.inputs(ctx.scale)
    want = k.ref(*data)
    ms, why = _checked(ctx, K.branchy_sum, data, want)
    nb = _numba_ms(ctx, "branchy_sum", data, want)
    nb_fast = _numba_ms(ctx, "branchy_sum", data, want, fastmath=True)
    rows.append(Row("K4 branchy loop", ms, {"Numba": nb, "Numba fastmath": nb_fast},
                    goal="faster than both", note=why))
    fast = ag.function(K.branchy_sum.python_function, fastmath=True)
    ms, why = _checked(ctx, fast, data, want, 1e-9, 1e-6)
    rows.append(Row("K4 branchy loop, ag.function(fastmath=True)", ms,
                    {"Numba": nb, "Numba fastmath": nb_fast,
                     "autograph, one thread": _one_thread(ctx, fast, data)}, goal="faster than Numba fastmath",
                    note=why or "tolerance rtol 1e-9"))

    k = harness.BY_ID["K5"]
    data = k.inputs(ctx.scale)
    want = k.ref(*data)
    ms, why = _checked(ctx, K.mandelbrot_total, data, want, 0, 0)
    rows.append(Row("K5 Mandelbrot", ms, {"Numba": _numba_ms(ctx, "mandelbrot_total", data, want, 0, 0),
                                          "autograph, one thread": _one_thread(ctx, K.mandelbrot_total, data)},
                    goal="faster than Numba", note=why))

    k = harness.BY_ID["K10"]
    data = k.inputs(ctx.scale)
    want = np.cumsum(data[0])
    nb = _numba_ms(ctx, "prefix_sum", data, want)
    numpy_ms = ctx.time(lambda: np.cumsum(data[0]))
    ms, why = _checked(ctx, K.prefix_sum, data, want)
    rows.append(Row("K10 prefix sum (item assignment)", ms, {"Numba": nb, "NumPy cumsum": numpy_ms},
                    goal="faster than Numba", note=why))
    ms, why = _checked(ctx, K.prefix_sum_ta, data, want)
    rows.append(Row("K10 prefix sum (TensorArray)", ms, {"Numba": nb, "NumPy cumsum": numpy_ms},
                    goal="faster than Numba", note=why))
    return rows


def _one_thread(ctx: Context, fn, data) -> float:
    """fn(*data) timed with the compiled loops' thread count set to 1."""
    from autograph.codegen.abi import threads
    saved = threads.THREADS[0]
    threads.THREADS[0] = 1
    try:
        return ctx.time(lambda: fn(*data))
    finally:
        threads.THREADS[0] = saved


def _jax_softmax(ctx: Context, data) -> dict:
    """{"JAX": ms} for jax.nn.softmax over the last axis, jitted; {} without jax."""
    try:
        import jax
    except ImportError:
        return {}
    f = jax.jit(lambda v: jax.nn.softmax(v, axis=-1))
    x = jax.numpy.asarray(data[0])
    f(x).block_until_ready()
    return {"JAX": ctx.time(lambda: f(x).block_until_ready())}


@row
def arrays(ctx: Context):
    """K6, matmul with a transposed operand, log, K9 softmax, a dropped slice sum."""
    import autograph as ag
    from examples import kernels as K

    rows = []
    k = harness.BY_ID["K6"]
    data = k.inputs(ctx.scale)
    ms, why = _checked(ctx, K.dense_relu, data, k.ref(*data), 1e-4, 1e-4)
    rows.append(Row("K6 dense relu(x@W+b) 512", ms, {"NumPy": ctx.time(lambda: k.numpy(*data))},
                    goal="within 1.2x of NumPy", note=why))

    rng = ctx.rng()
    x1 = rng.standard_normal((1, 512)).astype(np.float32)
    x2 = rng.standard_normal((ctx.n(10000), 512)).astype(np.float32)
    mt = ag.function(lambda a, b: ag.matmul(a, ag.transpose(b)))
    ms, why = _checked(ctx, mt, (x1, x2), x1 @ x2.T, 1e-4, 1e-3)
    rows.append(Row("matmul(x1, transpose(x2)) 1x512 by (10000x512)T f32", ms,
                    {"NumPy": ctx.time(lambda: x1 @ x2.T)}, goal="within 1.2x of NumPy", note=why))

    x = rng.uniform(0.01, 100.0, ctx.n(100_000))
    lg = ag.function(lambda v: ag.math.log(v))
    ms, why = _checked(ctx, lg, (x,), np.log(x), 1e-15, 0)
    rows.append(Row("log on 100k float64", ms, {"NumPy": ctx.time(lambda: np.log(x))},
                    goal="within 1.2x of NumPy", note=why))

    k = harness.BY_ID["K9"]
    data = k.inputs(ctx.scale)
    ms, why = _checked(ctx, K.softmax, data, k.ref(*data), 1e-5, 1e-6)
    rows.append(Row("K9 softmax 2000x1000", ms, dict({"NumPy": ctx.time(lambda: k.numpy(*data)),
                                                       "autograph, one thread": _one_thread(ctx, K.softmax, data)},
                                                      **_jax_softmax(ctx, data)),
                    goal="<= 1/8 of NumPy, faster than JAX", note=why))

    a = rng.standard_normal((512, 512))
    pair = ag.function(lambda v: v[1:] + v[:-1])
    ms, why = _checked(ctx, pair, (a,), a[1:] + a[:-1], 0, 0)
    kept = []

    def keep():
        kept.append(pair(a))
        if len(kept) > 64:
            kept.clear()
    kept_ms = ctx.time(keep)
    rows.append(Row("a[1:] + a[:-1] 512x512, result dropped", ms,
                    {"same, results kept": kept_ms, "NumPy": ctx.time(lambda: a[1:] + a[:-1])},
                    goal="within 1.2x of the kept case", note=why))
    return rows


_FIRST_CALL = """
import sys, time
sys.path.insert(0, {root!r})
import numpy as np
{imp}
x = np.random.default_rng(0).standard_normal(1000)
xs = np.linspace(-2.0, 1.0, 40); ys = np.linspace(-1.2, 1.2, 30)
t3 = time.perf_counter(); k4(x); t4 = time.perf_counter()
k5(xs, ys); t5 = time.perf_counter()
print((t4 - t3) * 1e3, (t5 - t4) * 1e3)
"""

_AG_IMP = "import autograph\nfrom examples.kernels import branchy_sum as k4, mandelbrot_total as k5"
_NB_IMP = "import numba\nfrom bench.numba_kernels import branchy_sum as k4, mandelbrot_total as k5"


def _child(code: str, env: dict):
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError((out.stderr.strip().splitlines() or ["?"])[-1])
    return [float(v) for v in out.stdout.split()[-2:]]


_PROCESSES = 5   # fresh processes per figure (medians)


def _median_child(code: str, envs) -> list:
    """Per-kernel medians of `_child` over the environments `envs` (one process each)."""
    runs = [_child(code, e) for e in envs]
    return [statistics.median(r[i] for r in runs) for i in range(2)]


@row
def startup(ctx: Context):
    """First calls of K4 and K5 in a fresh process: empty and warm disk cache, and Numba.

    Medians over `_PROCESSES` processes. The children get a bytecode cache
    (PYTHONPYCACHEPREFIX, primed by one run), as an installed package has its
    .pyc files (Numba's, installed, has them too); with PYTHONDONTWRITEBYTECODE
    a source tree recompiles every module it imports in every process
    (bench/startup.py measures both)."""
    rows = []
    ag_code = _FIRST_CALL.format(root=ROOT, imp=_AG_IMP)
    with tempfile.TemporaryDirectory(prefix="autograph-bench-") as tmp:
        base = dict(os.environ, PYTHONPYCACHEPREFIX=os.path.join(tmp, "pyc"))
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        base.pop("AUTOGRAPH_DISABLE_CACHE", None)

        def fresh_cache() -> dict:
            return dict(base, AUTOGRAPH_CACHE_DIR=tempfile.mkdtemp(dir=tmp))

        _child(ag_code, fresh_cache())                        # primes the bytecode cache
        cold = _median_child(ag_code, [fresh_cache() for _ in range(_PROCESSES)])
        warm_env = fresh_cache()
        _child(ag_code, warm_env)                             # fills the disk cache
        warm = _median_child(ag_code, [warm_env] * _PROCESSES)
        nb = None
        if ctx.numba is not None:
            nb_code = _FIRST_CALL.format(root=ROOT, imp=_NB_IMP)
            _child(nb_code, dict(base))
            nb = _median_child(nb_code, [dict(base)] * _PROCESSES)
    note = f"median of {_PROCESSES} processes, with a bytecode cache"
    for i, name in enumerate(("K4", "K5")):
        rows.append(Row(f"first call, fresh process, {name}", cold[i],
                        {"Numba": None if nb is None else nb[i]}, goal="< 100 ms", note=note))
        rows.append(Row(f"first call, fresh process, warm disk cache, {name}", warm[i], {},
                        goal="< 10 ms", note=note))
    return rows


_COMPILE = """
import os, sys, time, warnings
os.environ["AUTOGRAPH_DISABLE_CACHE"] = "1"
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
import numpy as np
import autograph as ag
{body}
t0 = time.perf_counter()
cf = f.get_concrete_function(x)
t1 = time.perf_counter()
cf.kernel
t2 = time.perf_counter()
ops = sum(1 for _ in cf.graph.walk())
print(t1 - t0, t2 - t1, ops)
"""

_UNROLLED = """
def unrolled(y):
    for i in range(1250):
        y = y * 1.0001 + ag.sin(y) - 0.5 * y
    return y
f = ag.function(unrolled, autograph=False)
x = np.linspace(0.0, 1.0, 100)
"""

_STENCIL = """
def stencil(u):
    for _ in range(100):
        u = ag.concat([u[:1], 0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:], u[-1:]], 0)
    return u
f = ag.function(stencil)
x = np.linspace(0.0, 1.0, 1000)
"""


@row
def compile_time(ctx: Context):
    """Trace + compile (seconds, disk cache off) of an unrolled ~5,000-op function and a stencil."""
    rows = []
    for what, body, goal in (("compile, unrolled function (1250 x 4 ops)", _UNROLLED, "< 1.5 s"),
                             ("compile, 100-step stencil unrolled from range(100)", _STENCIL, "< 3 s")):
        # A file, not `-c`: AutoGraph converts functions from their source.
        with tempfile.NamedTemporaryFile("w", suffix="_ag_compile.py", delete=False) as fh:
            fh.write(_COMPILE.format(root=ROOT, body=textwrap.dedent(body)))
        try:
            out = subprocess.run([sys.executable, fh.name], capture_output=True, text=True, timeout=1200)
        finally:
            os.unlink(fh.name)
        if out.returncode != 0:
            rows.append(Row(what, None, unit="s", goal=goal,
                            note=(out.stderr.strip().splitlines() or ["?"])[-1]))
            continue
        trace, comp, ops = out.stdout.split()[-3:]
        rows.append(Row(what, float(trace) + float(comp), {}, unit="s", goal=goal,
                        note=f"{int(float(ops))} ops after the passes: trace {float(trace):.2f} s, "
                             f"compile {float(comp):.2f} s"))
    return rows


@row
def calls(ctx: Context):
    """A cached call with keyword arguments against the same call with positional ones (us)."""
    import time

    import autograph as ag

    @ag.function
    def f(x, y, k=2.0):
        return x * k + y

    x, y = ag.constant(1.0), ag.constant(2.0)

    def per_call(call, n=100_000):
        call()
        call()
        best = float("inf")
        for _ in range(max(ctx.repeat, 3)):
            t0 = time.perf_counter()
            for _ in range(n):
                call()
            best = min(best, (time.perf_counter() - t0) / n)
        return best * 1e6

    base = per_call(lambda: None)   # the lambda's own cost, taken off both
    pos = per_call(lambda: f(x, y)) - base
    kw = per_call(lambda: f(x, y=y)) - base
    kw2 = per_call(lambda: f(x=x, y=y, k=2.0)) - base
    return [Row("cached call, keyword arguments f(x, y=y)", kw, {"positional f(x, y)": pos}, unit="us",
                goal="< 0.3 us"),
            Row("cached call, keyword arguments f(x=x, y=y, k=2.0)", kw2, {"positional f(x, y)": pos},
                unit="us", goal="< 0.3 us")]
