"""Large fused elementwise loops on the thread pool (codegen/lowering/parallel.py,
codegen/abi/threads.py): the same results with threads on and off (every
element is computed by the same code, so floats are identical too), the pool
is used only from MIN_PARALLEL elements, expressions that may fault stay in
the kernel, AUTOGRAPH_NUM_THREADS is checked, and a forked child works."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import autograph as ag
from autograph.codegen.abi import threads

N = threads.MIN_PARALLEL + 1000          # not a multiple of the chunk alignment


@ag.function
def _float_expr(x, y, s):
    return ag.math.exp(x) * s + ag.math.log(y + 1.0) - ag.math.tanh(x * y)


@ag.function
def _int_expr(x, y):
    return (x * y + 7) ^ (x - y)


class _Jobs:
    """Calls of autograph_parallel_for since the fixture started (the pool counts them)."""

    def __init__(self):
        from autograph.codegen.jit import engine
        engine.ensure_started()
        self.start = threads.jobs()

    def calls(self) -> int:
        return threads.jobs()[0] - self.start[0]

    def __bool__(self) -> bool:
        return self.calls() > 0


@pytest.fixture
def count_calls():
    return _Jobs()


def _with_threads(count, fn, *args):
    from autograph.codegen.jit import engine
    engine.ensure_started()                 # which reads AUTOGRAPH_NUM_THREADS into THREADS
    saved = threads.THREADS[0]
    threads.THREADS[0] = count
    try:
        return np.asarray(fn(*args))
    finally:
        threads.THREADS[0] = saved


def test_threads_on_and_off_give_identical_results(count_calls):
    rng = np.random.default_rng(0)
    x, y = rng.random(N), rng.random(N)
    xi, yi = rng.integers(-1000, 1000, N), rng.integers(-1000, 1000, N)
    one = _with_threads(1, _float_expr, x, y, 2.5)
    assert not count_calls                  # one thread: the chunk is called directly
    many = _with_threads(4, _float_expr, x, y, 2.5)
    assert count_calls.calls() == 1
    if threads.POOL[threads.POOL_WORKERS] > 0:     # a machine with 2+ cores: workers exist
        assert threads.jobs()[1] > count_calls.start[1]
    np.testing.assert_array_equal(one, many)
    np.testing.assert_allclose(many, np.exp(x) * 2.5 + np.log(y + 1.0) - np.tanh(x * y), rtol=1e-14)
    np.testing.assert_array_equal(_with_threads(1, _int_expr, xi, yi), _with_threads(3, _int_expr, xi, yi))
    np.testing.assert_array_equal(_with_threads(3, _int_expr, xi, yi), (xi * yi + 7) ^ (xi - yi))


def test_small_loops_stay_on_one_thread(count_calls):
    x = np.ones(threads.MIN_PARALLEL - 1)
    np.testing.assert_allclose(_with_threads(4, _float_expr, x, x, 1.0),
                               np.exp(x) + np.log(2.0) - np.tanh(1.0), rtol=1e-15)
    assert not count_calls


def test_dynamic_sizes_decide_at_run_time(count_calls):
    f = ag.function(lambda x: ag.math.log(ag.math.exp(x)) * 3.0,
                    input_signature=[ag.TensorSpec([None], ag.float64)])
    _with_threads(2, f, np.ones(10))
    assert not count_calls
    x = np.linspace(0, 1, N)
    out = _with_threads(2, f, x)
    assert count_calls.calls() == 1
    np.testing.assert_allclose(out, x * 3.0, rtol=1e-15, atol=1e-15)


def test_cheap_loops_need_more_elements(count_calls):
    from autograph.codegen.lowering.parallel import min_elements   # noqa: F401  (documented rule)
    f = ag.function(lambda x: x * 3.0 + 1.0)
    x = np.arange(float(N))
    np.testing.assert_array_equal(_with_threads(2, f, x), x * 3.0 + 1.0)
    assert not count_calls        # weight 3: split only from MIN_WORK / 3 elements


def test_chunks_cover_every_element_exactly_once():
    x = np.arange(float(N))
    for count in (2, 3, 7):
        f = ag.function(lambda v: ag.math.sqrt(ag.math.exp(v * 0.0)) + v)
        np.testing.assert_array_equal(_with_threads(count, f, x), x + 1.0)


def test_an_expression_that_may_fault_keeps_its_error(count_calls):
    @ag.function
    def div(x, y):
        return x // y + 1

    x = np.arange(N, dtype=np.int64)
    y = np.ones(N, dtype=np.int64)
    y[N - 5] = 0
    with pytest.raises(ag.errors.InvalidArgumentError, match="division by zero|modulo by zero"):
        _with_threads(4, div, x, y)
    assert not count_calls                  # not outlined: faults need the kernel's error exit
    y[N - 5] = 1
    np.testing.assert_array_equal(_with_threads(4, div, x, y), x + 1)


def _run(tmp_path, code, **env):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=dict(os.environ, **env), timeout=120)


CHILD = f"""
    import numpy as np, autograph as ag
    from autograph.codegen.abi import threads
    @ag.function
    def f(x):
        return ag.math.sqrt(x) * 2.0 + x
    x = np.arange({2 * N}.0)
    r = np.asarray(f(x))
    assert np.array_equal(r, np.sqrt(x) * 2.0 + x)
    print(int(threads.THREADS[0]), r.sum().hex())
"""


def test_num_threads_1_and_2_in_subprocesses(tmp_path):
    outs = []
    for count in ("1", "2"):
        out = _run(tmp_path, CHILD, AUTOGRAPH_NUM_THREADS=count)
        assert out.returncode == 0, out.stderr
        outs.append(out.stdout.split())
    assert [o[0] for o in outs] == ["1", "2"]
    assert outs[0][1] == outs[1][1]


@pytest.mark.parametrize("value", ["0", "many", "-2", "100000"])
def test_invalid_num_threads_is_an_error_naming_the_variable(tmp_path, value):
    out = _run(tmp_path, CHILD, AUTOGRAPH_NUM_THREADS=value)
    assert out.returncode != 0
    assert f"AUTOGRAPH_NUM_THREADS={value!r} is not a valid setting: expected an integer from 1 " \
        f"to {threads.MAX_THREADS}" in out.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_pool_works_in_a_forked_child(tmp_path):
    code = CHILD + """
    import os
    pid = os.fork()
    if pid == 0:
        ok = np.array_equal(np.asarray(f(x)), np.sqrt(x) * 2.0 + x)
        os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, status
    print("forked ok")
    """
    out = _run(tmp_path, code, AUTOGRAPH_NUM_THREADS="2")
    assert out.returncode == 0, out.stderr
    assert "forked ok" in out.stdout


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
def test_full_reductions_are_identical_for_any_thread_count(count_calls, dtype, monkeypatch):
    # split from MIN_PARALLEL elements whatever the expression's cost (read when compiling
    # the functions below), to keep the arrays small
    monkeypatch.setattr(threads, "MIN_WORK", 1)
    n = 3 * threads.MIN_PARALLEL + 17
    rng = np.random.default_rng(5)
    x = (rng.random(n) * 10 - 5).astype(dtype) if np.dtype(dtype).kind == "f" else \
        rng.integers(-50, 50, n).astype(dtype)
    fns = {"sum": lambda v: ag.reduce_sum(v * 2 + 1), "max": lambda v: ag.reduce_max(v),
           "min": lambda v: ag.reduce_min(v - 1), "mean": lambda v: ag.reduce_mean(v)}
    for name, body in fns.items():
        f = ag.function(body, autograph=False)
        results = [_with_threads(t, f, x) for t in (1, 2, 3)]
        for r in results[1:]:
            assert r.tobytes() == results[0].tobytes(), name
        want = {"sum": (x * 2 + 1).sum(dtype=np.float64 if x.dtype.kind == "f" else x.dtype),
                "max": x.max(), "min": (x - 1).min(), "mean": x.mean()}[name]
        if x.dtype.kind == "f":
            scale = np.abs(x).sum() * 2 + n
            tol = {"sum": 8 * np.finfo(dtype).eps * scale, "mean": 8 * np.finfo(dtype).eps * scale / n}
            assert abs(float(results[0]) - float(want)) <= tol.get(name, 0.0), name
        elif name != "mean":
            assert results[0] == want.astype(dtype), name
    assert count_calls.calls() == len(fns) * 2     # the runs with 2 and 3 threads


def test_reduction_of_an_expression_that_may_fault_keeps_its_error(count_calls):
    f = ag.function(lambda x, y: ag.reduce_sum(x % y), autograph=False)
    x = np.arange(N, dtype=np.int64)
    y = np.ones(N, dtype=np.int64)
    y[7] = 0
    with pytest.raises(ag.errors.InvalidArgumentError, match="modulo by zero"):
        _with_threads(2, f, x, y)
    assert not count_calls


def test_ctrl_c_during_threaded_loops_raises_after_the_call(tmp_path):
    code = f"""
    import os, signal, threading, time
    import numpy as np, autograph as ag

    @ag.function
    def f(x):
        return ag.math.exp(x) * 2.0 + ag.math.log(x + 1.0)

    x = np.random.default_rng(0).random({8 * N})
    want = np.exp(x) * 2.0 + np.log(x + 1.0)
    f(x)
    threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    t0 = time.time()
    try:
        while time.time() - t0 < 30:
            r = f(x)
        print("not interrupted")
    except KeyboardInterrupt:
        print("interrupted")
    assert np.allclose(np.asarray(f(x)), want)    # the function and the pool still work
    print("ok")
    """
    out = _run(tmp_path, code, AUTOGRAPH_NUM_THREADS="2")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["interrupted", "ok"]


def test_threaded_loops_free_every_buffer_exactly_once():
    from alloc_counting import run_child
    body = f"""
from codegen_support import T, compile_fn
from autograph.tracer import api
from autograph.codegen.abi import threads

def f(x, y):
    m = api.add(api.multiply(api.exp(x), 2.0), api.log(api.add(y, 1.0)))   # a threaded map
    s = api.reduce_sum(api.exp(m))                                         # a threaded reduction
    return [m, s, api.reduce_max(api.tanh(x))]

g, k = compile_fn(f, T("float64", (None,)), T("float64", (None,)))
for n in (10, {N}, {3 * N}):
    x = np.linspace(0.0, 1.0, n)
    for _ in range(3):
        outs = k(x, x)
    del outs
assert threads.jobs()[0] > 0
gc.collect()
assert not problems, problems
assert not live, f"{{len(live)}} buffers leaked: {{sorted(live.values())}}"
print("balanced")
"""
    proc = run_child(body, timeout=120, AUTOGRAPH_NUM_THREADS="2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "balanced" in proc.stdout


def test_idle_workers_stop_polling_and_sleep(tmp_path):
    """The workers poll for the next job a short while (jit/threadpool.py:
    _SPIN_NS) and then sleep: an idle process burns no CPU. Jobs called back to
    back, and jobs after the workers fell asleep, still give the same result."""
    code = CHILD + """
    import time
    want = f(x)
    for _ in range(50):                     # back to back: the workers are awake
        assert np.array_equal(np.asarray(f(x)), np.asarray(want))
    time.sleep(0.05)                        # well past the polling window
    cpu0, wall0 = time.process_time(), time.perf_counter()
    time.sleep(0.3)
    cpu = time.process_time() - cpu0
    assert np.array_equal(np.asarray(f(x)), np.asarray(want))   # woken from sleep
    calls, pooled = threads.jobs()
    print("idle cpu", cpu, "pooled", pooled)
    """
    out = _run(tmp_path, code, AUTOGRAPH_NUM_THREADS="2")
    assert out.returncode == 0, out.stderr
    words = out.stdout.split()
    cpu, pooled = float(words[words.index("cpu") + 1]), int(words[-1])
    assert pooled >= 52                     # every call went to the pool
    assert cpu < 0.1                        # a worker polling forever would show 0.3 s
