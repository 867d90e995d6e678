"""Compiled cond / while: scalar loops, tensor-carrying loops, nesting, ownership."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen_support import T, assert_same, compile_fn, run_both
from autograph.tracer import api
from autograph.tracer.tracing.control_flow import cond, while_loop
from autograph.tracer.core.interpreter import run_graph


def collatz_total(n):
    """Total Collatz steps of every start in 1..n (K3's shape)."""
    def outer_body(i, total):
        def body(m, steps):
            m = cond(api.equal(api.mod(m, 2), 0), lambda: api.floordiv(m, 2),
                     lambda: api.add(api.multiply(m, 3), 1))
            return m, api.add(steps, 1)
        _, steps = while_loop(lambda m, s: api.not_equal(m, 1), body, (i, np.int64(0)))
        return api.add(i, 1), api.add(total, steps)
    return while_loop(lambda i, t: api.less_equal(i, n), outer_body, (np.int64(1), np.int64(0)))[1]


def branchy(x):
    """acc = 0; for i in range(len(x)): v = x[i]; acc += v*v if v > 0 else -v/2  (K4's shape)."""
    n = api.shape(x)[0]

    def body(i, acc):
        v = x[i]
        acc = cond(api.greater(v, 0.0), lambda: api.add(acc, api.multiply(v, v)),
                   lambda: api.subtract(acc, api.divide(v, 2.0)))
        return api.add(i, 1), acc
    return while_loop(lambda i, acc: api.less(i, n), body, (np.int32(0), np.float64(0.0)))[1]


def test_collatz():
    g, k = compile_fn(collatz_total, T("int64"))
    for n in (0, 1, 2, 10):
        run_both(g, k, [np.asarray(n, np.int64)])

    def steps(m):
        s = 0
        while m != 1:
            m, s = (m // 2 if m % 2 == 0 else 3 * m + 1), s + 1
        return s
    assert int(k(np.asarray(3000, np.int64))[0]) == sum(steps(m) for m in range(1, 3001))


def test_branchy_loop_over_elements():
    g, k = compile_fn(branchy, T("float64", (None,)))
    x = np.random.default_rng(0).standard_normal(1001)
    (out,) = run_both(g, k, [x], rtol=1e-12)
    want = sum(v * v if v > 0 else -v / 2 for v in x)
    assert abs(float(out) - want) < 1e-9 * abs(want)
    run_both(g, k, [np.zeros(0)])


def test_scalar_loops_stay_in_registers():
    g, k = compile_fn(collatz_total, T("int64"))
    opt = k.llvm_ir(optimized=True)
    assert "alloca" not in opt and "malloc" not in opt


def test_cond_with_tensors_of_different_shapes():
    def f(p, x, y):
        return cond(p, lambda: api.multiply(x[1:], 2.0), lambda: y)
    g, k = compile_fn(f, T("bool"), T("float32", (None,)), T("float32", (None,)))
    x = np.arange(5, dtype=np.float32)
    y = np.ones(2, np.float32)
    (a,) = run_both(g, k, [np.bool_(True), x, y])
    (b,) = run_both(g, k, [np.bool_(False), x, y])
    assert a.shape == (4,) and b.shape == (2,)


def test_cond_yielding_the_same_outer_tensor_twice():
    def f(p, x):
        return cond(p, lambda: (x, x), lambda: (api.add(x, 1), x))
    g, k = compile_fn(f, T("bool"), T("int64", (3,)))
    x = np.arange(3, dtype=np.int64)
    for p in (True, False):
        a, b = run_both(g, k, [np.bool_(p), x])
        a[0] = 99                            # distinct, owned buffers
        assert b[0] == 0 and x[0] == 0


def test_while_with_growing_tensor():
    def f(n, v0):
        def body(i, v):
            return api.add(i, 1), api.range(0.0, api.cast(i, "float64"), 1.0)
        return while_loop(lambda i, v: api.less(i, n), body, (np.int64(0), v0))
    g, k = compile_fn(f, T("int64"), T("float64", (None,)))
    for n in (0, 1, 5):
        run_both(g, k, [np.asarray(n, np.int64), np.ones(3)])


def test_while_swapping_and_passing_through_tensors():
    def f(a, b, c, n):
        def body(i, x, y, z):
            return api.add(i, 1), y, x, z          # swap x and y; z passes through
        return while_loop(lambda i, x, y, z: api.less(i, n), body, (np.int32(0), a, b, c))
    g, k = compile_fn(f, T("float64", (None,)), T("float64", (None,)), T("int32", (2,)), T("int32"))
    a, b, c = np.arange(3.0), np.arange(5.0) + 10, np.array([7, 8], np.int32)
    for n in (0, 1, 2, 7):
        outs = run_both(g, k, [a, b, c, np.int32(n)])
        for o in outs[1:]:
            o[...] = -1                          # outputs are independent of the inputs
        assert a[0] == 0 and b[0] == 10 and c[0] == 7


def test_while_body_uses_outer_tensor_and_takes_over_init():
    def f(x, n):
        start = api.multiply(x, 1.0)               # owned, dead after the loop: handed over
        def body(i, acc):
            return api.add(i, 1), api.add(acc, x)  # captures x
        return while_loop(lambda i, acc: api.less(i, n), body, (np.int32(0), start))[1]
    g, k = compile_fn(f, T("float32", (None, 2)), T("int32"))
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    for n in (0, 3):
        run_both(g, k, [x, np.int32(n)])


def test_nested_loops_with_tensor_work():
    def f(x):
        rows = api.shape(x)[0]
        def outer(i, acc):
            def inner(j, s):
                return api.add(j, 1), api.add(s, api.reduce_sum(api.multiply(x[i], x[j])))
            _, s = while_loop(lambda j, s: api.less(j, rows), inner, (np.int32(0), np.float64(0)))
            return api.add(i, 1), api.add(acc, s)
        return while_loop(lambda i, acc: api.less(i, rows), outer, (np.int32(0), np.float64(0)))[1]
    g, k = compile_fn(f, T("float64", (None, None)))
    x = np.random.default_rng(1).random((7, 5))
    (out,) = run_both(g, k, [x], rtol=1e-12)
    np.testing.assert_allclose(out, (x.sum(0) ** 2).sum(), rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(vals=st.lists(st.integers(-20, 20), min_size=0, max_size=12), limit=st.integers(0, 30))
def test_loop_over_elements_with_early_exit_condition(vals, limit):
    """while i < n and total < limit: total += |x[i]| (a data-dependent trip count)."""
    if not hasattr(test_loop_over_elements_with_early_exit_condition, "kern"):
        def f(x, lim):
            n = api.shape(x)[0]
            def c(i, t):
                return api.logical_and(api.less(i, n), api.less(t, lim))
            def body(i, t):
                return api.add(i, 1), api.add(t, api.abs(x[i]))
            return while_loop(c, body, (np.int32(0), np.int64(0)))
        test_loop_over_elements_with_early_exit_condition.kern = compile_fn(
            f, T("int64", (None,)), T("int64"))
    g, k = test_loop_over_elements_with_early_exit_condition.kern
    run_both(g, k, [np.array(vals, np.int64), np.int64(limit)])


def test_many_calls_free_loop_buffers(tmp_path):
    """Loops that replace tensors each iteration must not leak (RSS stays flat)."""
    def f(x, n):
        def body(i, v):
            return api.add(i, 1), api.add(api.multiply(v, 0.5), x)
        return while_loop(lambda i, v: api.less(i, n), body, (np.int32(0), x))[1]
    g, k = compile_fn(f, T("float64", (None,)), T("int32"))
    x = np.ones(20_000)

    def rss():
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * 4096

    for _ in range(20):
        k(x, np.int32(10))
    before = rss()
    for _ in range(300):       # 300 calls x 10 iterations x 160 kB = 480 MB if leaked
        k(x, np.int32(10))
    assert rss() - before < 50 * 2**20
    (out,) = k(x, np.int32(3))
    want = run_graph(g, [x, np.int32(3)])[0]
    assert_same(out, want)


@pytest.mark.parametrize("boundscheck", [True, False])
def test_branchy_boundscheck_flag(boundscheck):
    g, k = compile_fn(branchy, T("float64", (None,)), boundscheck=boundscheck)
    x = np.linspace(-1, 1, 11)
    run_both(g, k, [x], rtol=1e-12)


def test_cond_inside_while_and_while_inside_cond():
    def f(x, n):
        def body(i, v):
            v2 = cond(api.equal(api.mod(i, 2), 0), lambda: v, lambda: api.multiply(v, 2.0))
            return api.add(i, 1), v2

        def looped():
            return while_loop(lambda i, v: api.less(i, n), body, (np.int32(0), x))[1]
        return cond(api.greater(n, 2), looped, lambda: api.negative(x))
    g, k = compile_fn(f, T("float64", (None,)), T("int32"))
    x = np.arange(4.0)
    for n in (0, 3, 6):
        run_both(g, k, [x, np.int32(n)])
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
