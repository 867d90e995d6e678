"""Fault battery, part two: abuse that could take the process down (a wild
write, a trap, a hang), each run in a child process under a timeout, so a
regression fails one test instead of killing the session.
"""
import os
import subprocess
import sys
import textwrap

import paths

ROOT = paths.ROOT


def _child(tmp_path, code: str, timeout: int = 120) -> subprocess.CompletedProcess:
    """Run `code` from a file (autograph converts functions from their source)."""
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONFAULTHANDLER="1")
    return subprocess.run([sys.executable, str(script)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_static_shapes_past_the_address_space_fail_before_anything_is_written(tmp_path):
    """np.zeros((3, 2**61)) allocated a wrapped-around byte count (0) and its
    fill loop then wrote past it (a hang, or a crash); (2**32, 2**32) made
    a 2**64-element result that NumPy could not wrap; (2**60,) float64
    reported "failed to allocate -9223372036854775808 bytes"."""
    proc = _child(tmp_path, """
        import numpy as np, autograph as ag
        from autograph.errors import InvalidArgumentError
        shapes = [(3, 2**61), (2**32, 2**32), (2**60,), (2**40, 2**40), (2, 2**62)]
        for shape in shapes:
            for fn in (lambda: np.zeros(shape), lambda: np.ones(shape) * 2.0,
                       lambda: ag.fill(shape, 1.5)):
                try:
                    ag.function(fn)()
                except InvalidArgumentError as e:   # past 2**63 bytes, or more than malloc gives
                    assert ("the result's size overflows (a tensor of more than 2**63 bytes)" in str(e)
                            or "failed to allocate 4611686018427387904 bytes" in str(e)), e
                else:
                    raise AssertionError(f"no error for {shape}")
        # a static factor times a dimension known only at run time
        g = ag.function(lambda n: np.zeros((2**61, n)))
        for n in (4, 2**40, 0):     # NumPy refuses (2**61, 0) float64 too: 2**64 bytes without the 0
            try:
                g(np.int64(n))
            except InvalidArgumentError as e:
                assert "size overflows" in str(e), e
            else:
                raise AssertionError("no error")
        h = ag.function(lambda m, n: np.zeros((m, n)))     # both known only at run time
        assert np.asarray(h(np.int64(2**59), np.int64(0))).shape == np.zeros((2**59, 0)).shape
        assert np.asarray(h(np.int64(0), np.int64(2**59))).shape == (0, 2**59)
        assert np.asarray(h(np.int64(3), np.int64(5))).shape == (3, 5)
        for m, n in ((2**62, 2), (2**32, 2**32), (2**60, 1), (2**62, 0), (0, 2**61)):
            try:
                h(np.int64(m), np.int64(n))
            except InvalidArgumentError as e:
                assert "size overflows" in str(e), e
            else:
                raise AssertionError("no error")
        print("survived")
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "survived" in proc.stdout


def test_integer_division_traps_of_every_integer_dtype(tmp_path):
    """x86 traps on x // 0 and MIN // -1: every integer dtype, compiled through
    ag.function and eagerly, gives NumPy's wrap-around or the documented error."""
    proc = _child(tmp_path, """
        import numpy as np, autograph as ag
        from autograph.errors import InvalidArgumentError
        fd = ag.function(lambda a, b: (a // b, a % b, np.fmod(a, b)))
        for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
            lo = np.iinfo(dt).min
            minus = -1 if lo < 0 else 1
            a = np.array([lo, 7, -7 if lo < 0 else 9], dt)
            b = np.array([minus, 2, 2], dt)
            q, r, m = (np.asarray(v) for v in fd(a, b))
            with np.errstate(all="ignore"):
                assert q.tolist() == (a // b).tolist() and r.tolist() == (a % b).tolist(), (dt, q, r)
                assert m.tolist() == np.fmod(a, b).tolist(), (dt, m)
            for k in range(3):
                zero = b.copy(); zero[k] = 0
                try:
                    fd(a, zero)
                except InvalidArgumentError as e:
                    assert "by zero" in str(e), e
                else:
                    raise AssertionError(f"no error for {dt}")
            try:
                ag.floordiv(a, np.zeros_like(b))
            except InvalidArgumentError as e:
                assert "by zero" in str(e)
            else:
                raise AssertionError("no eager error")
        print("survived")
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "survived" in proc.stdout


def test_a_forked_child_calls_compiled_and_new_functions(tmp_path):
    proc = _child(tmp_path, """
        import os, numpy as np, autograph as ag

        @ag.function
        def f(x):
            s = x * 0.0
            for i in range(len(x)):
                s[i] = x[i] + 1.0
            return s

        f(np.ones(3))
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                assert np.array_equal(np.asarray(f(np.arange(4.0))), np.arange(4.0) + 1)
                assert np.array_equal(np.asarray(f(np.arange(3, dtype=np.float32))),
                                      np.arange(3.0) + 1)       # a new trace in the child
                try:
                    f(np.arange(3.0))[7]
                except Exception as e:
                    assert "out of bounds" in str(e) or "index" in str(e), e
            except BaseException as e:
                print("child failed:", repr(e), flush=True)
                code = 3
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
        assert np.array_equal(np.asarray(f(np.ones(2))), np.full(2, 2.0))
        print("survived")
    """)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "survived" in proc.stdout


def test_recursion_past_a_raised_recursion_limit_is_an_error_not_a_crash(tmp_path):
    """With sys.setrecursionlimit raised (as the recursion error suggests), a
    converted recursion 10,000 deep overflowed the C stack: a segfault."""
    proc = _child(tmp_path, """
        import sys, threading, numpy as np, autograph as ag
        from autograph.errors import UnboundedRecursionError
        sys.setrecursionlimit(1_000_000)

        @ag.function
        def total(n):
            if n <= 0:
                return 0
            return n + total(n - 1)

        assert int(total(1500)) == 1500 * 1501 // 2     # deep, but within the C stack
        for n in (20_000,):
            try:
                total(n)
            except UnboundedRecursionError as e:
                assert "the most the C stack can hold safely" in str(e), e
                assert "return n + total(n - 1)" in str(e), e
            else:
                raise AssertionError("no error")
        seen = []
        def worker():
            try:
                total(30_000)
            except UnboundedRecursionError:
                seen.append("error")
        t = threading.Thread(target=worker)
        t.start(); t.join()
        assert seen == ["error"], seen
        print("survived")
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "survived" in proc.stdout
