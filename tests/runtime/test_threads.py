"""Threads and fork(): one trace per signature however many threads make the first call
(runtime/polymorphic.py traces under a per-function lock), and a child forked while
another thread compiles does not hang (codegen/jit/engine.py, tracer/core/forksafe.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import paths
import pytest

import autograph as ag
from autograph.tracer.core import forksafe

N = 8


def _race(target, n=N):
    """Run `target(i)` in n threads released at once; (results, errors)."""
    barrier = threading.Barrier(n)
    results, errors = [None] * n, []

    def run(i):
        try:
            barrier.wait(timeout=30)
            results[i] = target(i)
        except BaseException as e:  # reported by the caller
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return results, errors


def test_eight_threads_racing_the_first_call_trace_once():
    side_effects = []

    @ag.function
    def f(x):
        side_effects.append(1)          # Python side effect: runs once per trace
        time.sleep(0.05)                # a slow trace: the other threads arrive meanwhile
        v = ag.Variable(2.0)            # only the first trace may create variables
        return x * v

    results, errors = _race(lambda i: float(f(np.float32(3.0)).numpy()))
    assert not errors, errors
    assert results == [6.0] * N
    assert f.tracing_count == 1 and side_effects == [1]


def test_racing_get_concrete_function_and_input_signature():
    traces = []

    @ag.function(input_signature=[ag.TensorSpec([None], ag.float64)])
    def g(x):
        traces.append(1)
        time.sleep(0.05)
        return ag.reduce_sum(x)

    results, errors = _race(lambda i: g.get_concrete_function() if i % 2 else float(g(np.ones(4)).numpy()))
    assert not errors, errors
    assert g.tracing_count == 1 and traces == [1]
    cfs = {id(r) for r in results if not isinstance(r, float)}
    assert len(cfs) == 1 and all(r == 4.0 for r in results if isinstance(r, float))


def test_two_signatures_in_parallel_trace_once_each():
    @ag.function
    def h(x):
        time.sleep(0.02)
        return x + 1

    args = [np.float32(1.0), np.arange(3, dtype=np.int64)]
    results, errors = _race(lambda i: h(args[i % 2]).numpy().tolist())
    assert not errors, errors
    assert h.tracing_count == 2
    assert results == [2.0, [1, 2, 3]] * (N // 2)


def test_the_lock_is_per_function():
    # f's trace waits for g's trace, which runs in another thread: a lock shared by all
    # functions would make g wait for f, and f's wait would time out.
    g_traced = threading.Event()
    seen = {}

    @ag.function
    def g(x):
        g_traced.set()
        return x * 2

    @ag.function
    def f(x):
        seen["g ran during f's trace"] = g_traced.wait(timeout=20)
        return x + 1

    t = threading.Thread(target=lambda: f(np.float64(1.0)))
    t.start()
    time.sleep(0.1)                      # f is tracing (and waiting) now
    assert float(g(np.float64(4.0)).numpy()) == 8.0
    t.join(timeout=60)
    assert seen == {"g ran during f's trace": True}


def test_forksafe_lock_of_is_one_lock_per_owner():
    class Owner:
        pass

    a, b = Owner(), Owner()
    results, errors = _race(lambda i: forksafe.lock_of(a if i % 2 else b, "_l"))
    assert not errors
    assert len({id(r) for r in results}) == 2
    assert forksafe.lock_of(a, "_l") is a._l and forksafe.lock_of(b, "_l") is b._l


def test_forksafe_lock_behaves_as_a_lock():
    lk, rl = forksafe.lock(), forksafe.rlock()
    with lk:
        assert not lk.acquire(blocking=False)
    assert lk.acquire(timeout=1)
    lk.release()
    with rl, rl:                          # re-entrant
        pass
    with pytest.raises(RuntimeError):
        lk.release()


# --------------------------------------------------------------------------- fork()

FORKS = '''
import json, os, random, sys, threading, time
sys.path.insert(0, {root!r})
import numpy as np
import autograph as ag


def scale(x):
    return x * 3.0 - 1.0


def busy(x):
    acc = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            acc += x[i] * x[i]
        else:
            acc -= x[i]
    return acc


current = [ag.function(busy)]
stop = threading.Event()


def compiler():
    # A new function object each time: convert (once), trace, lower, optimise, JIT; again and again.
    while not stop.is_set():
        current[0] = ag.function(busy)
        current[0](np.linspace(-1.0, 1.0, 11))


# Warm up first, as a program that has run before it forks: the library's lazy imports are
# done. (A fork while another thread is *importing* can hang the child on CPython's per-module
# import lock, which no library can reset.)
ag.function(scale)(np.float64(1.0))
current[0](np.linspace(-1.0, 1.0, 11))
threading.Thread(target=compiler, daemon=True).start()
time.sleep(0.1)
random.seed(0)
outcomes = []
for trial in range({trials}):
    time.sleep(random.uniform(0.0, 0.05))
    pid = os.fork()
    if pid == 0:   # the child: the only thread; it compiles and calls, then reports
        try:
            ok = float(ag.function(scale)(np.float64(2.0)).numpy()) == 5.0
            ok = ok and abs(float(current[0](np.linspace(-1.0, 1.0, 11)).numpy()) - 5.2) < 1e-9
            os._exit(0 if ok else 3)
        except BaseException:
            os._exit(4)
    deadline = time.monotonic() + {child_timeout}
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            outcomes.append(os.waitstatus_to_exitcode(status))
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            outcomes.append("hung")
            break
        time.sleep(0.01)
stop.set()
print(json.dumps(outcomes))
'''


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_fork_while_another_thread_compiles(tmp_path):
    script = tmp_path / "forks.py"
    script.write_text(FORKS.format(root=paths.ROOT, trials=10, child_timeout=60))
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRAPH_VERBOSITY"}
    env["AUTOGRAPH_DISABLE_CACHE"] = "1"    # every compile goes through LLVM, holding its lock long
    proc = subprocess.run([sys.executable, str(script)], env=env, cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    outcomes = json.loads(proc.stdout.strip().splitlines()[-1])
    # 0: the child compiled and ran a new function and the one being compiled at the fork
    # (busy(linspace(-1, 1, 11)) == 5.2); "hung": killed after 60 s.
    assert outcomes == [0] * 10, outcomes

