"""Ctrl-C stops a long compiled loop (issue 9): `KeyboardInterrupt` soon after
SIGINT, and the process stays usable. Each case runs in a child process (a
loop that ignored the signal would run for hours) with a native watchdog."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the SIGINT handler is installed on Linux only")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PRELUDE = textwrap.dedent("""
    import faulthandler, os, signal, threading, time
    faulthandler.dump_traceback_later(60, exit=True)   # a loop that never stops: fail, don't hang
    import autograph as ag

    @ag.function
    def spin(n):                      # scalar body: polled every POLL_PERIOD iterations
        i = ag.constant(0, ag.int64)
        s = ag.constant(0, ag.int64)
        while i < n:
            s += i % 7
            i += 1
        return s

    @ag.function
    def grow(x, n):                   # a body with loops of its own: polled every iteration
        i = ag.constant(0, ag.int64)
        while i < n:
            x = x * 0.5 + 1.0
            i += 1
        return ag.reduce_sum(x)

    FOREVER = ag.constant(10**15, ag.int64)

    def interrupted_after(call, delay=0.5, bound=10.0):
        sent = []
        def kill():
            sent.append(time.perf_counter())
            os.kill(os.getpid(), signal.SIGINT)
        threading.Timer(delay, kill).start()
        try:
            call()
        except KeyboardInterrupt:
            latency = time.perf_counter() - sent[0]
            assert latency < bound, latency
            return latency
        raise AssertionError("the loop ended without KeyboardInterrupt")
""")


def _run(tmp_path, body: str) -> str:
    script = tmp_path / "child.py"          # a file: autograph converts functions from source
    script.write_text(PRELUDE + textwrap.dedent(body))
    env = dict(os.environ, AUTOGRAPH_DISABLE_CACHE="1")
    out = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_sigint_stops_native_entry_loop_and_function_still_works(tmp_path):
    out = _run(tmp_path, """
        assert int(spin(ag.constant(1000, ag.int64))) == 2997          # traced, entry bound
        lat = interrupted_after(lambda: spin(FOREVER))
        print("latency", lat)
        assert int(spin(ag.constant(1000, ag.int64))) == 2997
        lat = interrupted_after(lambda: spin(FOREVER))                # again: nothing left over
        assert int(spin(ag.constant(10, ag.int64))) == sum(i % 7 for i in range(10))
        print("ok")
    """)
    assert "ok" in out


def test_sigint_stops_first_call_and_tensor_body_loop(tmp_path):
    out = _run(tmp_path, """
        import numpy as np
        interrupted_after(lambda: spin(FOREVER))                       # first call: slow path
        x = np.zeros(1000)
        interrupted_after(lambda: grow(x, FOREVER))
        assert abs(float(grow(x, ag.constant(60, ag.int64))) - 2000.0) < 1e-6
        print("ok")
    """)
    assert "ok" in out


def test_sigint_outside_compiled_code_does_not_stop_a_later_loop(tmp_path):
    out = _run(tmp_path, """
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        except KeyboardInterrupt:
            pass
        assert int(spin(ag.constant(3_000_000, ag.int64))) == sum(i % 7 for i in range(3_000_000))
        print("ok")
    """)
    assert "ok" in out


def test_sigint_runs_a_handler_installed_later(tmp_path):
    out = _run(tmp_path, """
        class Stop(Exception):
            pass
        def handler(signum, frame):
            raise Stop()
        spin(ag.constant(5, ag.int64))
        signal.signal(signal.SIGINT, handler)        # replaces the native handler in the OS
        import numpy as np
        grow(np.zeros(3), ag.constant(1, ag.int64))   # compiling puts the native one in front again
        try:
            interrupted_after(lambda: spin(FOREVER))
        except Stop:
            print("ok")
    """)
    assert "ok" in out


def test_sigint_ignored_leaves_loops_alone(tmp_path):
    out = _run(tmp_path, """
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        from autograph.codegen.jit import interrupt
        assert int(spin(ag.constant(1000, ag.int64))) == 2997
        assert not interrupt.installed()
        print("ok")
    """)
    assert "ok" in out
