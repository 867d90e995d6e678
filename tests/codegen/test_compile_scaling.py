"""What keeps compile time linear in the size of a graph, and that it keeps results.

* Values used several times inside one elementwise expression are fused
  (`lowering/plan.py`): an unrolled `y = y * a + sin(y) - b * y` is one loop.
* A fused expression above `SCALAR_LOOP_NODES` ops gets a scalar loop (not
  vectorised): the same results as the vectorised loop, bit for bit.
* Loops are emitted already rotated (`llvm/irutil.for_range`).

Timings live in bench/issue_rows.py (`compile_time` rows of bench/table.py), never here.
"""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph.codegen.lowering import elementwise


def _unrolled(n):
    def f(y):
        for _ in range(n):
            y = y * 1.0001 + ag.sin(y) - 0.5 * y
        return y
    return f


def _numpy_unrolled(y, n):
    for _ in range(n):
        y = y * 1.0001 + np.sin(y) - 0.5 * y
    return y


def _loops(ir_text: str) -> int:
    return len(re.findall(r"^\S*\.body\S*:", ir_text, re.M))


def test_an_unrolled_chain_is_one_loop_and_matches_numpy():
    f = ag.function(_unrolled(60), autograph=False)
    x = np.linspace(-2.0, 2.0, 37)
    cf = f.get_concrete_function(x)
    assert _loops(cf.llvm_ir()) == 1
    np.testing.assert_allclose(np.asarray(f(x)), _numpy_unrolled(x, 60), rtol=1e-12, atol=1e-12)


def test_the_scalar_loop_of_a_big_expression_gives_the_vectorised_results(monkeypatch):
    # 100 steps = 500 fused ops: above the threshold, a scalar loop; with the threshold
    # raised, the same graph gets the normal (vectorised) loop. Bit-identical results.
    x = np.random.default_rng(1).standard_normal(203)
    big = ag.function(_unrolled(100), autograph=False)
    cf_big = big.get_concrete_function(x)
    assert "llvm.loop.vectorize.enable" in cf_big.llvm_ir()
    scalar = np.asarray(big(x))
    monkeypatch.setattr(elementwise, "SCALAR_LOOP_NODES", 10 ** 9)
    # The same graph would be a disk-cache hit: boundscheck=False (no indexing here, so
    # the same code otherwise) gives it another key, so it is compiled again, for real.
    normal = ag.function(_unrolled(100), autograph=False, boundscheck=False)
    cf_normal = normal.get_concrete_function(x)
    assert " x double>" in cf_normal.llvm_ir(optimized=True)   # vectorised
    np.testing.assert_array_equal(np.asarray(normal(x)), scalar)
    np.testing.assert_allclose(scalar, _numpy_unrolled(x, 100), rtol=1e-12, atol=1e-12)


def _shared(x, y):
    a = x * y          # used three times, by ops that all end in `out`
    b = a + x
    c = a * a - b
    out = ag.maximum(c, a) / (1.0 + ag.abs(b))
    return out, ag.reduce_sum(a * b)   # `a * b` fuses into the reduction


def _numpy_shared(x, y):
    a = x * y
    b = a + x
    c = a * a - b
    return np.maximum(c, a) / (1.0 + np.abs(b)), np.sum(a * b)


_SHAPES = st.sampled_from([((7,), (7,)), ((3, 5), (5,)), ((4, 1), (1, 6)), ((), (9,)), ((2, 3, 4), (3, 1))])


@settings(max_examples=20, deadline=None)
@given(_SHAPES, st.integers(0, 2 ** 16))
def test_shared_values_in_one_expression_match_numpy(shapes, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shapes[0])
    y = rng.standard_normal(shapes[1])
    got, total = ag.function(_shared)(x, y)   # a fresh function: one trace each
    want, want_total = _numpy_shared(x, y)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)
    assert float(total) == pytest.approx(float(want_total), rel=1e-9, abs=1e-9)



def test_a_value_feeding_two_consumers_is_computed_once_in_its_own_loop():
    @ag.function
    def two(x):
        a = ag.sin(x) * 2.0
        return a + 1.0, a - 1.0     # two outputs: `a` is materialised once

    x = np.linspace(0, 1, 16)
    p, m = two(x)
    # atol: sin is within 1 ulp of NumPy's (vecmath_trig), which + 1.0 may cancel
    np.testing.assert_allclose(np.asarray(p), np.sin(x) * 2.0 + 1.0, rtol=1e-15, atol=5e-16)
    np.testing.assert_allclose(np.asarray(m), np.sin(x) * 2.0 - 1.0, rtol=1e-15, atol=5e-16)
    # `a` (twice: sin's exact re-run for huge arguments, lowering/fixup.py), one per output
    assert _loops(two.get_concrete_function(x).llvm_ir()) == 4


def test_a_deep_fused_chain_does_not_recurse():
    # A chain deeper than Python's recursion limit is evaluated iteratively.
    @ag.function(autograph=False)
    def deep(y):
        for _ in range(3000):
            y = y * 0.999 + 0.001
        return y

    x = np.linspace(0, 1, 5)
    want = x.copy()
    for _ in range(3000):
        want = want * 0.999 + 0.001
    np.testing.assert_allclose(np.asarray(deep(x)), want, rtol=1e-12)


def test_rotated_loops_handle_empty_and_one_element_ranges():
    @ag.function
    def f(x):
        return ag.reduce_sum(x * 2.0), x + 1.0, ag.cumsum(x)

    for n in (0, 1, 2, 17):
        x = np.arange(n, dtype=np.float64)
        s, p, c = f(x)
        assert float(s) == float(np.sum(x * 2.0))
        np.testing.assert_array_equal(np.asarray(p), x + 1.0)
        np.testing.assert_array_equal(np.asarray(c), np.cumsum(x))
