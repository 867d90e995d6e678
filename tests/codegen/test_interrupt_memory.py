"""A loop stopped by Ctrl-C frees what it allocated (issue 9 with issue 11's
leak-free fault exits): the carried buffers and the temporaries of the
enclosing blocks, each exactly once. In a child process with counting
`malloc`/`free` (tests/alloc_counting.py)."""
from __future__ import annotations

import sys

import pytest

from alloc_counting import run_child

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the SIGINT handler is installed on Linux only")

CHILD = r"""
import faulthandler, os, signal, threading, time
faulthandler.dump_traceback_later(60, exit=True)
# A handler that does not raise: the counting allocator runs Python code (a
# ctypes callback), where the default handler's KeyboardInterrupt would land.
hits = []
signal.signal(signal.SIGINT, lambda *a: hits.append(1))
import autograph as ag

@ag.function
def grow(x, n):
    t = x * 2.0                       # a temporary of the enclosing block, live after the loop
    i = ag.constant(0, ag.int64)
    while i < n:
        x = x * 0.5 + t
        i += 1
    return ag.reduce_sum(x) + ag.reduce_sum(t)

@ag.function
def spin(x, n):
    i = ag.constant(0, ag.int64)
    s = ag.constant(0, ag.int64)
    while i < n:                      # scalar body; x is carried through untouched
        s += i % 7
        i += 1
    return s, x + 1.0

x = np.ones(1000)
forever = ag.constant(10**15, ag.int64)
for f in (grow, spin):
    f(x, ag.constant(2, ag.int64))
    for _ in range(3):
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:
            f(x, forever)
            raise SystemExit("not interrupted")
        except KeyboardInterrupt:
            pass
r = grow(x, ag.constant(3, ag.int64))
assert abs(float(r) - (1000 * 3.625 + 2000)) < 1e-9, r
del r
gc.collect()
assert len(hits) == 6, hits
assert not problems, problems
assert not live, f"{len(live)} buffers leaked: {sorted(live.values())}"
print("balanced")
"""


def test_interrupted_loop_frees_its_buffers_exactly_once():
    proc = run_child(CHILD, timeout=180, AUTOGRAPH_DISABLE_CACHE="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "balanced" in proc.stdout
