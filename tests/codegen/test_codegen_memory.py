"""Every buffer native code allocates is freed exactly once.

Runs in a child process that routes the JIT's `malloc`/`free` symbols (and
the Python side's `free` of outputs) through counting wrappers, then checks
that after many graphs and calls no allocation is outstanding and no pointer
was freed twice or without being allocated.
"""
from __future__ import annotations

from alloc_counting import run_child

CHILD = r"""

from codegen_support import T, compile_fn
from autograph.tracer import api
from autograph.tracer.tracing.control_flow import cond, while_loop

def loops(x, n):
    def body(i, v, w):
        v2 = cond(api.equal(api.mod(i, 2), 0), lambda: v, lambda: api.multiply(v, 2.0))
        return api.add(i, 1), w, api.add(v2, x)          # swap through a fresh value
    _, a, b = while_loop(lambda i, v, w: api.less(i, n), body, (np.int32(0), x, api.add(x, 1.0)))
    return [a, b, api.reduce_sum(api.exp(a), axis=0), a[1:], x]

def fused(x, y):
    s = api.add(api.multiply(x, y), 1.0)
    return [api.reduce_mean(api.sigmoid(s)), api.maximum(s, 0.0), api.matmul(x, api.multiply(y, 1.0))]

def misc(x, i, p):
    start = api.multiply(x, 1.0)                       # handed over to the loop
    def body(j, v, c):
        return api.add(j, 1), api.add(v, x[i]), c      # c passes through
    _, v, c = while_loop(lambda j, v, c: api.less(j, i), body, (np.int64(0), start, x))
    r = api.range(np.int64(0), i, np.int64(1))
    f = api.fill([i, 2], np.float64(1.5))
    picked = cond(p, lambda: (x, r), lambda: (api.negative(x), api.add(r, 1)))
    return [v, c, picked[0], picked[1], f, api.shape(f), api.reduce_max(f, axis=1, keepdims=True),
            x[::-1][i:], x[i]]

cases = [
    (misc, (T("float64", (None,)), T("int64"), T("bool")),
     [(np.arange(5.0), np.int64(n), np.bool_(p)) for n in (0, 2, 4) for p in (True, False)]),
    (loops, (T("float64", (None, 3)), T("int32")),
     [(np.ones((4, 3)), np.int32(n)) for n in (0, 1, 2, 5)]),
    (fused, (T("float32", (None, None)), T("float32", (None, None))),
     [(np.ones((3, 3), np.float32), np.ones((3, 3), np.float32)),
      (np.ones((3, 3), np.float32), np.ones((1, 3), np.float32)[:, :3].repeat(3, 0))]),
]
for fn, types, inputs in cases:
    g, k = compile_fn(fn, *types)
    opt = k.llvm_ir(optimized=True)
    for name in ("realloc", "aligned_alloc", "posix_memalign", "strdup"):
        assert "@" + name not in opt, name
    for args in inputs:
        for _ in range(3):
            outs = k(*args)
        del outs
gc.collect()
assert not problems, problems
assert not live, f"{len(live)} buffers leaked: {sorted(live.values())}"
print("balanced")
"""


def test_every_allocation_is_freed_exactly_once():
    proc = run_child(CHILD, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "balanced" in proc.stdout
