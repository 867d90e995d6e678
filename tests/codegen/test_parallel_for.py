"""Counted loops with independent iterations on the thread pool
(codegen/lowering/split_safety.py decides, parallel_for.py lowers).

Differential: every loop is run with 1, 2 and 3 threads (THREADS set in
process, as test_parallel_loops.py does) and compared with plain Python;
integers and written tensors bit for bit, fastmath floats within a stated
tolerance (and identical for 2 and 3 threads: the blocks do not depend on
the count). Whether a loop was split is read from the LLVM IR (its chunk
function is `ag.parallel.for<N>`), never from timings."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import autograph as ag
from alloc_counting import run_child
from autograph.codegen.abi import threads
from autograph.codegen.lowering import parallel_for
from examples import kernels as K

COUNTS = (1, 2, 3)


def _with_threads(count, fn, *args):
    from autograph.codegen.jit import engine
    engine.ensure_started()
    saved = threads.THREADS[0]
    threads.THREADS[0] = count
    try:
        out = fn(*args)
        return out if isinstance(out, tuple) else np.asarray(out)
    finally:
        threads.THREADS[0] = saved


def _split(fn, *args) -> bool:
    return "ag.parallel.for" in fn.get_concrete_function(*args).llvm_ir()


def _least(fn, *args) -> int:
    """The trip count from which `fn`'s first loop is split (scalar bodies:
    from the body's weight), traced on small arguments of the same kind."""
    loop = next(o for o in fn.get_concrete_function(*args).graph.body.ops if o.name == "while")
    return parallel_for.min_trip(loop.regions[1])


def _decisions(caplog, fn, *args):
    """The debug lines of lowering `fn`'s graph again (a cached kernel logs nothing)."""
    from autograph.codegen.lowering.driver import lower_graph
    graph = fn.get_concrete_function(*args).graph
    caplog.clear()
    with caplog.at_level("DEBUG", logger="autograph.codegen"):
        lower_graph(graph, "k", "k.module")
    return [r.getMessage() for r in caplog.records]


def _reason(caplog, fn, *args) -> str:
    """The debug lines that say why `fn`'s loops were kept serial."""
    return "\n".join(m for m in _decisions(caplog, fn, *args) if "kept serial" in m)


def _all_counts(fn, *args):
    return [_with_threads(c, fn, *args) for c in COUNTS]


# ---------------------------------------------------------------- the kernels

def _steps(m):
    n = 0
    while m != 1:
        m = m // 2 if m % 2 == 0 else 3 * m + 1
        n += 1
    return n


def _collatz_py(n):
    return sum(_steps(s) for s in range(1, n + 1))


@pytest.mark.parametrize("n", [0, 1, 2, 64, 65, 1000, 4099, 20011])
def test_collatz_k3_split_equals_python(n):
    arg = np.int64(n)
    assert _split(K.collatz_total, arg)
    want = _collatz_py(n)
    for got in _all_counts(K.collatz_total, arg):
        assert int(got) == want


def _mandelbrot_py(xs, ys, max_iter=100):
    out = np.zeros((len(ys), len(xs)), np.int32)
    for j, cy in enumerate(ys):
        for i, cx in enumerate(xs):
            zx = zy = 0.0
            count = 0
            for _ in range(max_iter):
                zx2, zy2 = zx * zx, zy * zy
                if zx2 + zy2 > 4.0:
                    break
                zy = 2.0 * zx * zy + cy
                zx = zx2 - zy2 + cx
                count += 1
            out[j, i] = count
    return out


def test_mandelbrot_k5_grid_and_total_split_equal_python():
    xs, ys = np.linspace(-2.0, 1.0, 41), np.linspace(-1.2, 1.2, 97)   # rows: uneven cost
    want = _mandelbrot_py(xs, ys)
    assert _split(K.mandelbrot, xs, ys) and _split(K.mandelbrot_total, xs, ys)
    for got in _all_counts(K.mandelbrot, xs, ys):
        np.testing.assert_array_equal(got, want)
    for got in _all_counts(K.mandelbrot_total, xs, ys):
        assert int(got) == int(want.sum())


def test_branchy_sum_k4_fastmath_is_split_and_deterministic():
    fast = ag.function(K.branchy_sum.python_function, fastmath=True)
    n = _least(fast, np.ones(8)) + 4097                            # not a multiple of a block
    x = np.random.default_rng(1).standard_normal(n)
    assert _split(fast, x)
    assert not _split(K.branchy_sum, x)             # without fastmath a float sum stays serial
    want = float(np.sum(np.where(x > 0, x * x, -x / 2)))
    one, two, three = (float(v) for v in _all_counts(fast, x))
    assert two == three                             # blocks do not depend on the thread count
    for got in (one, two):
        assert abs(got - want) <= 1e-12 * float(np.sum(np.abs(x) * (np.abs(x) + 1)))
    strict = [float(v) for v in _all_counts(K.branchy_sum, x)]
    assert strict[0] == strict[1] == strict[2]


# ---------------------------------------------------------------- more loops

@ag.function
def _int_reductions(x):
    s = ag.constant(0, ag.int64)
    p = ag.constant(1, ag.int64)
    hi = ag.constant(-2**63, ag.int64)
    lo = ag.constant(2**63 - 1, ag.int64)
    bits = ag.constant(0, ag.int64)
    for i in range(len(x)):
        v = x[i]
        s += v * v
        p = p * (v | 1)                 # wraps: still associative
        hi = ag.maximum(hi, v)
        lo = ag.minimum(lo, v - 3)
        bits = bits ^ (v << ag.cast(i % 7, ag.int64))
    return s, p, hi, lo, bits


def test_integer_reductions_of_every_kind():
    x = np.random.default_rng(2).integers(-10**6, 10**6, _least(_int_reductions, np.ones(8, np.int64)) + 123)
    assert _split(_int_reductions, x)
    shifted = x << (np.arange(len(x)) % 7)
    # NumPy's int64 arithmetic wraps as the compiled code does
    want = (int(np.sum(x * x)), int(np.prod(x | 1)), int(x.max()), int(x.min()) - 3,
            int(np.bitwise_xor.reduce(shifted)))
    for got in _all_counts(_int_reductions, x):
        assert tuple(int(g) for g in got) == want


@ag.function
def _any_all(x):
    seen = False
    every = True
    for i in range(len(x)):
        seen = seen or x[i] > 0.99999
        every = every and x[i] >= 0.0
    return seen, every


def test_bool_reductions():
    x = np.random.default_rng(3).random(_least(_any_all, np.ones(8)) + 5)
    assert _split(_any_all, x)
    for got in _all_counts(_any_all, x):
        assert (bool(got[0]), bool(got[1])) == (bool((x > 0.99999).any()), True)


@ag.function
def _steps_per_start(starts):
    out = ag.zeros_like(starts)
    for i in range(len(starts)):
        m = starts[i]
        n = 0
        while m != 1:                   # very uneven cost per iteration
            if m % 2 == 0:
                m = m // 2
            else:
                m = 3 * m + 1
            n += 1
        out[i] = ag.cast(n, ag.int64)
    return out


def test_uneven_iterations_writing_rows():
    starts = np.arange(1, 3001, dtype=np.int64)[::-1].copy()
    assert _split(_steps_per_start, starts)
    want = np.array([_steps(int(s)) for s in starts], np.int64)
    for got in _all_counts(_steps_per_start, starts):
        np.testing.assert_array_equal(got, want)


@ag.function
def _scale_rows(a, x):
    out = ag.zeros_like(a)
    for i in range(a.shape[0]):         # traces as `300 > i`: a counted loop too
        for j in range(len(x)):
            out[i, j] = a[i, j] * 2.0 + x[j]
        out[i, 0] = out[i, 0] + 1.0     # read back its own row
    return out


def test_nested_loops_write_their_row_and_read_it_back():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(64)
    a = rng.standard_normal((_least(_scale_rows, np.ones((8, 64)), x) + 7, 64))
    want = a * 2.0 + x
    want[:, 0] += 1.0
    assert _split(_scale_rows, a, x)
    for got in _all_counts(_scale_rows, a, x):
        np.testing.assert_array_equal(got, want)


@ag.function
def _digit_sums(x):
    acc = ag.constant(0, ag.int64)
    for i in range(len(x)):
        v = x[i]
        while v > 0:                     # a loop of its own: split from a few hundred iterations
            acc += v % 10
            v = v // 10
    return acc


@pytest.mark.parametrize("size", ["0", "1", "least-1", "least", "least+1", "8195", "70001"])
def test_trip_counts_around_the_threshold_and_blocks(size):
    least = _least(_digit_sums, np.ones(8, np.int64))
    n = eval(size, {"least": least})
    x = np.arange(n, dtype=np.int64) * 7919
    want = sum(sum(int(d) for d in str(v)) for v in x.tolist())
    assert _split(_digit_sums, x) == (n >= least)
    for got in _all_counts(_digit_sums, x):
        assert int(got) == want


@ag.function
def _first_n(x, n):
    out = ag.zeros_like(x)
    acc = ag.constant(0, ag.int64)
    for i in ag.range(n):                # nothing proves n <= len(x): checked at run time
        v = x[i]
        while v > 0:
            acc += v % 10
            v = v // 10
        out[i] = x[i] % 7
    return out, acc


def test_a_bound_checked_at_run_time():
    x = np.arange(20000, dtype=np.int64) * 7919
    dynamic = [ag.TensorSpec([None], ag.int64), ag.TensorSpec([], ag.int64)]
    for signature in (None, dynamic):               # static shapes, then unknown ones
        f = ag.function(_first_n.python_function, input_signature=signature)
        assert _split(f, x, np.int64(16000))
        assert _least(f, x, np.int64(16000)) < 16000       # the pool really runs it
        want = sum(sum(int(d) for d in str(v)) for v in x[:16000].tolist())
        want_out = np.zeros_like(x)
        want_out[:16000] = x[:16000] % 7
        for count in COUNTS:
            out, acc = _with_threads(count, f, x, np.int64(16000))
            assert int(acc) == want
            np.testing.assert_array_equal(np.asarray(out), want_out)
            with pytest.raises(ag.errors.InvalidArgumentError, match="index 20000 is out of bounds for axis 0 "
                                                                     "with size 20000"):
                _with_threads(count, f, x, np.int64(24000))


# ---------------------------------------------------------------- loops that stay serial

@ag.function
def _prefix(x):
    out = ag.zeros_like(x)
    out[0] = x[0]
    for i in range(1, len(x)):
        out[i] = out[i - 1] + x[i]
    return out


@ag.function
def _reads_next(x):
    out = ag.ones_like(x)
    for i in range(len(x) - 1):
        out[i] = out[i + 1] + x[i]
    return out


@ag.function
def _float_sum(x):
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] * x[i]
    return acc


@ag.function
def _last(x):
    last = ag.constant(0, ag.int64)
    for i in range(len(x)):
        last = x[i]                      # order matters: not a reduction
    return last


def test_dependent_loops_stay_serial_and_correct(caplog):
    x = np.random.default_rng(5).integers(0, 100, 5000).astype(np.float64)
    xi = x.astype(np.int64)
    for fn, arg, why in ((_prefix, x, "carried tensor 1 (float64[5000]) is not only read and written "
                                      "at the counter's row"),
                         (_reads_next, x, "carried tensor 1 (float64[5000]) is not only read and written"),
                         (_float_sum, x, "a float accumulator is split only with fastmath=True"),
                         (_last, xi, "carried value 1 (int64[]): it is neither unchanged nor a reduction")):
        assert why in _reason(caplog, fn, arg), fn
        assert not _split(fn, arg)
    for got in _all_counts(_prefix, x):
        np.testing.assert_array_equal(got, np.cumsum(x))
    want = np.ones_like(x)
    want[:-1] = 1.0 + x[:-1]             # out[i + 1] is read before iteration i + 1 writes it
    for got in _all_counts(_reads_next, x):
        np.testing.assert_array_equal(got, want)
    for got in _all_counts(_float_sum, x):
        assert float(got) == float(np.sum(x * x))   # small integers: exact in any order
    for got in _all_counts(_last, xi):
        assert int(got) == int(xi[-1])


@ag.function
def _gather(x, idx):
    acc = ag.constant(0, ag.int64)
    for i in range(len(idx)):
        for t in ag.range(2):            # a loop of its own
            acc += x[idx[i]] + ag.cast(t, ag.int64)    # an index nothing proves in bounds
    return acc


def test_a_body_that_can_raise_stays_serial_and_reports_the_first_error(caplog):
    x = np.arange(10, dtype=np.int64)
    idx = np.zeros(_least(_gather, x, np.zeros(8, np.int64)) + 6000, np.int64)
    idx[1000], idx[5000] = 123, 456      # the first bad index in order is 123
    assert "strided_slice may raise: index {0} is out of bounds" in _reason(caplog, _gather, x, idx)
    assert not _split(_gather, x, idx)
    for count in COUNTS:
        with pytest.raises(ag.errors.InvalidArgumentError, match="index 123 is out of bounds for axis 0 with size 10"):
            _with_threads(count, _gather, x, idx)


@ag.function
def _printing(x):
    acc = ag.constant(0, ag.int64)
    for i in range(len(x)):
        if x[i] < 0:
            ag.print("negative", i)
        acc += x[i]
    return acc


def test_a_loop_with_print_stays_serial(capfd, caplog):
    x = np.ones(5000, np.int64)
    x[7] = -1
    assert "the body has print at" in _reason(caplog, _printing, x)
    assert not _split(_printing, x)
    assert int(_with_threads(2, _printing, x)) == int(x.sum())
    assert "negative 7" in capfd.readouterr().out


def _copies(fn, *args, instruction: str):
    """How often `instruction` is emitted in the kernel's own function and in
    its chunk functions (LLVM IR before optimisation): where the loop's body is."""
    kernel = chunk = 0
    for part in fn.get_concrete_function(*args).llvm_ir().split("\ndefine ")[1:]:
        name = part.split("(")[0]
        count = part.count(f" = {instruction} ")
        if "ag.parallel.for" in name:
            chunk += count
        elif not name.endswith(('__entry"', '__dispatch"')):
            kernel += count
    return kernel, chunk


def test_the_chunk_is_the_only_copy_unless_the_serial_loop_is_needed():
    xs, ys = np.linspace(-2.0, 1.0, 41), np.linspace(-1.2, 1.2, 97)
    kernel, chunk = _copies(K.mandelbrot_total, xs, ys, instruction="fmul")
    assert kernel == 0 and chunk > 0                  # one thread calls the chunk itself
    # a bound checked at run time: its failure runs the serial loop, which raises
    kernel, chunk = _copies(_first_n, np.arange(20000, dtype=np.int64), np.int64(16000), instruction="srem")
    assert kernel == chunk > 0
    # a fastmath float sum: one thread keeps the serial loop's own rounding
    fast = ag.function(K.branchy_sum.python_function, fastmath=True)
    x = np.ones(_least(fast, np.ones(8)) + 4097)
    kernel, chunk = _copies(fast, x, instruction="fmul")
    assert kernel == chunk > 0


def test_one_thread_runs_the_chunk_over_one_block_for_any_trip():
    f = ag.function(_digit_sums.python_function, input_signature=[ag.TensorSpec([None], ag.int64)])
    least = _least(_digit_sums, np.ones(8, np.int64))
    assert _split(f, np.ones(8, np.int64))            # the trip is only known at run time
    for n in (0, 1, least - 1, least, 3 * least + 1):
        x = np.arange(n, dtype=np.int64) * 7919
        want = sum(sum(int(d) for d in str(v)) for v in x.tolist())
        for got in _all_counts(f, x):
            assert int(got) == want


def test_the_decision_is_logged(caplog):
    lines = _decisions(caplog, K.collatz_total, np.int64(100))
    assert any(m.startswith("split loop at ") and m.endswith(
        "kernels.py:44 across threads: 1 reductions, 0 written tensors") for m in lines), lines


_ENV_CHILD = """
import hashlib, sys
import numpy as np
import autograph as ag
from autograph.codegen.abi import threads
from examples import kernels as K

xs, ys = np.linspace(-2.0, 1.0, 50), np.linspace(-1.2, 1.2, 80)
grid = np.asarray(K.mandelbrot(xs, ys))
total = int(K.collatz_total(np.int64(5000)))
print(int(threads.THREADS[0]), threads.jobs()[0] > 0, total, hashlib.sha256(grid.tobytes()).hexdigest())
"""


def test_autograph_num_threads_1_2_3_in_subprocesses(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(_ENV_CHILD)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    outs = []
    for count in ("1", "2", "3"):
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=root,
                              env=dict(os.environ, AUTOGRAPH_NUM_THREADS=count, PYTHONPATH=root),
                              timeout=120)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout.split())
    # one thread: the serial loops, the pool never called; two and three: split
    assert [o[:2] for o in outs] == [["1", "False"], ["2", "True"], ["3", "True"]]
    assert outs[0][2:] == outs[1][2:] == outs[2][2:]
    assert int(outs[0][2]) == _collatz_py(5000)


# ---------------------------------------------------------------- Ctrl-C

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the SIGINT handler is Linux only")
def test_ctrl_c_stops_a_split_loop(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent("""
        import faulthandler, os, signal, threading, time
        faulthandler.dump_traceback_later(60, exit=True)
        import numpy as np
        import autograph as ag
        from autograph.codegen.abi import threads
        from examples import kernels as K

        @ag.function
        def light(n):
            acc = ag.constant(0, ag.int64)
            for i in ag.range(n):
                acc += i % 7
            return acc

        FOREVER = np.int64(10**15)
        # a body with loops, and a scalar one; on one thread the chunk runs on the calling one
        for count, f in ((2, K.collatz_total), (2, light), (1, K.collatz_total), (1, light)):
            assert "ag.parallel.for" in f.get_concrete_function(FOREVER).llvm_ir()
            threads.THREADS[0] = count
            threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
            t0 = time.perf_counter()
            try:
                f(FOREVER)
                raise SystemExit("not interrupted")
            except KeyboardInterrupt:
                assert time.perf_counter() - t0 < 10
        assert int(K.collatz_total(np.int64(10))) == 67
        assert int(light(np.int64(1000))) == sum(i % 7 for i in range(1000))
        print("ok")
    """))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, AUTOGRAPH_DISABLE_CACHE="1", PYTHONPATH=root)
    out = subprocess.run([sys.executable, str(script)], cwd=root, env=env, capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0 and "ok" in out.stdout, out.stdout + out.stderr


_FREED_CHILD = r"""
import faulthandler, os, signal, threading
faulthandler.dump_traceback_later(60, exit=True)
hits = []
signal.signal(signal.SIGINT, lambda *a: hits.append(1))   # not in a ctypes callback
import autograph as ag
from autograph.codegen.abi import threads

@ag.function(input_signature=[ag.TensorSpec([None], ag.int64), ag.TensorSpec([], ag.int64)])
def sums(x, reps):
    acc = ag.constant(0, ag.int64)         # partials: the heap when split, else the stack
    for i in range(len(x)):
        for t in ag.range(reps):
            acc += x[i] % 10 + t
    return acc

@ag.function
def rows(x, reps):                          # static shapes: no guard either
    out = ag.zeros_like(x)                  # written in place by the chunk
    acc = ag.constant(0, ag.int64)
    for i in range(len(x)):
        for t in ag.range(reps):
            acc += x[i] % 10 + t
        out[i] = x[i] % 7
    return out, acc

x = np.arange(5000, dtype=np.int64)
for f in (sums, rows):                      # the chunk is the only copy: no serial loop
    assert "pfor.serial" not in f.get_concrete_function(x, np.int64(1)).llvm_ir()
for count in (1, 2):
    threads.THREADS[0] = count
    for n in (0, 3, 5000):
        assert int(sums(x[:n], np.int64(2))) == int(2 * (x[:n] % 10).sum() + n), (count, n)
    out, acc = rows(x, np.int64(2))
    assert np.array_equal(np.asarray(out), x % 7) and int(acc) == int(2 * (x % 10).sum() + 5000)
    del out, acc
    for f in (sums, rows):
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:
            f(x, np.int64(10**15))
            raise SystemExit("not interrupted")
        except KeyboardInterrupt:
            pass
gc.collect()
assert len(hits) == 4, hits
assert not problems, problems
assert not live, f"{len(live)} buffers leaked: {sorted(live.values())}"
print("balanced")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the SIGINT handler is Linux only")
def test_buffers_and_partials_are_freed_once_on_every_path():
    proc = run_child(_FREED_CHILD, timeout=180, AUTOGRAPH_DISABLE_CACHE="1")
    assert proc.returncode == 0 and "balanced" in proc.stdout, proc.stdout + proc.stderr


@ag.function(fastmath=True)
def _float32_stats(x):
    top = ag.constant(-np.inf, ag.float32)
    s = ag.constant(0.0, ag.float32)
    for i in range(len(x)):
        top = ag.maximum(top, x[i])
        s += x[i] * x[i]
    return top, s


def test_fastmath_float32_max_and_sum():
    n = _least(_float32_stats, np.ones(8, np.float32)) + 77
    x = np.random.default_rng(6).standard_normal(n).astype(np.float32)
    assert _split(_float32_stats, x)
    results = _all_counts(_float32_stats, x)
    assert [float(r[0]) for r in results] == [float(x.max())] * 3      # max is exact in any order
    assert float(results[1][1]) == float(results[2][1])
    exact = float(np.sum(x.astype(np.float64) ** 2))
    # one thread: the serial loop's few float32 partial sums over millions of terms (~1e-2);
    # split: a partial per block of >= 4096 terms, combined in order (~1e-6)
    np.testing.assert_allclose(float(results[0][1]), exact, rtol=5e-2)
    np.testing.assert_allclose(float(results[1][1]), exact, rtol=1e-5)


@ag.function
def _inside_outer(x, reps):
    out = ag.constant(0, ag.int64)
    for r in ag.range(reps):                 # reads `total` of the previous pass: serial
        total = out
        for s in range(-3, len(x)):          # negative start, no indexing: split
            for t in ag.range(2):           # compiled: a body with a loop of its own
                total += ag.cast(s, ag.int64) * r + ag.cast(t, ag.int64)
        out = total % 1000003
    return out


def _least_inner() -> int:
    outer = next(o for o in _inside_outer.get_concrete_function(np.zeros(8), np.int64(1)).graph.body.ops
                 if o.name == "while")
    inner = next(o for o in outer.regions[1].ops if o.name == "while")
    return parallel_for.min_trip(inner.regions[1])


def test_a_split_loop_inside_a_serial_one():
    x = np.zeros(_least_inner() + 10)
    want = 0
    for r in range(3):
        want = (want + sum(s * r + t for s in range(-3, len(x)) for t in range(2))) % 1000003
    assert _split(_inside_outer, x, np.int64(3))
    for got in _all_counts(_inside_outer, x, np.int64(3)):
        assert int(got) == want


_KINDS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "max": (lambda a, b: ag.maximum(a, b), max),
    "min": (lambda a, b: ag.minimum(a, b), min),
    "and": (lambda a, b: a & b, lambda a, b: a & b),
    "or": (lambda a, b: a | b, lambda a, b: a | b),
    "xor": (lambda a, b: a ^ b, lambda a, b: a ^ b),
}


def _kind_loop(combine, dtype):
    @ag.function
    def f(x, start):
        acc = start
        for i in range(len(x)):
            for t in ag.range(2):        # a loop of its own: split from a few thousand iterations
                acc = combine(acc, x[i] + ag.cast(t, dtype))
        return acc
    return f


@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64"])
@pytest.mark.parametrize("kind", sorted(_KINDS))
def test_every_integer_reduction_kind_and_dtype(kind, dtype):
    staged, plain = _KINDS[kind]
    f = _kind_loop(staged, getattr(ag, dtype))
    info = np.iinfo(dtype)
    rng = np.random.default_rng(len(kind))
    small = np.ones(8, dtype)
    n = _least(f, small, small[0]) + 1001
    hi = min(int(info.max), 1000) if kind != "mul" else 3
    x = rng.integers(max(int(info.min), -1000), hi, n).astype(dtype)
    x[x == 0] = 1
    start = np.array(7, dtype)
    assert _split(f, x, start)
    bits = np.dtype(dtype).itemsize * 8

    def wrap(v):
        v %= 1 << bits
        return v - (1 << bits) if info.min < 0 and v >= 1 << (bits - 1) else v

    want = int(start)
    for v in x.tolist():
        for t in range(2):
            want = wrap(plain(want, wrap(v + t)))
    for got in _all_counts(f, x, start):
        assert int(got) == want
