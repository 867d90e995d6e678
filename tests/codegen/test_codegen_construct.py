"""Differential tests of range, fill, shape and constants in compiled code."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen_support import T, assert_same, compile_fn, run_both
from autograph.tracer import api
from autograph.tracer.core.interpreter import run_graph


@pytest.fixture(scope="module")
def int_range():
    return compile_fn(lambda a, b, c: api.range(a, b, c), T("int64"), T("int64"), T("int64"))


@settings(max_examples=60, deadline=None)
@given(a=st.integers(-50, 50), b=st.integers(-50, 50), c=st.integers(-7, 7).filter(bool))
def test_int64_range(int_range, a, b, c):
    g, k = int_range
    run_both(g, k, [np.asarray(v, np.int64) for v in (a, b, c)])


def test_int32_range_and_extremes(compile, run_both):
    g, k = compile(lambda a, b, c: api.range(a, b, c), T("int32"), T("int32"), T("int32"))
    mn, mx = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    for a, b, c in [(0, 10, 3), (10, 0, -3), (mx - 5, mx, 2), (mn + 5, mn, -2), (mn, mn + 10, mx),
                    (5, 5, 1), (0, 100, mn)]:
        run_both(g, k, [np.asarray(v, np.int32) for v in (a, b, c)])


@settings(max_examples=40, deadline=None)
@given(a=st.floats(-20, 20), b=st.floats(-20, 20), c=st.floats(0.25, 5), neg=st.booleans())
def test_float_range(a, b, c, neg):
    if not hasattr(test_float_range, "kern"):
        test_float_range.kern = {d: compile_fn(lambda x, y, z: api.range(x, y, z), T(d), T(d), T(d))
                                 for d in ("float32", "float64")}
    for d, (g, k) in test_float_range.kern.items():
        args = [np.asarray(v, d) for v in (a, b, -c if neg else c)]
        run_both(g, k, args)


def test_static_range_and_fill():
    g, k = compile_fn(lambda: [api.range(2, 11, 3), api.fill([2, 3], np.float32(1.5)),
                               api.range(0.0, 1.0, 0.25)])
    out = run_both(g, k, [])
    assert out[0].tolist() == [2, 5, 8]


@settings(max_examples=30, deadline=None)
@given(d0=st.integers(0, 4), d1=st.integers(0, 4), v=st.integers(-5, 5))
def test_fill_dynamic(d0, d1, v):
    if not hasattr(test_fill_dynamic, "kern"):
        test_fill_dynamic.kern = compile_fn(lambda a, b, x: [api.fill([a, b], x), api.fill([b], x > 0),
                                                             api.fill([a, 3, b], api.cast(x, "float64"))],
                                            T("int32"), T("int64"), T("int32"))
    g, k = test_fill_dynamic.kern
    run_both(g, k, [np.int32(d0), np.int64(d1), np.int32(v)])


def test_shape_of_inputs_and_scalars():
    g, k = compile_fn(lambda x, s: [api.shape(x), api.shape(s), api.shape(api.add(x, 1))],
                      T("float32", (None, 3, None)), T("int64"))
    run_both(g, k, [np.zeros((2, 3, 0), np.float32), np.asarray(1, np.int64)])


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64"])
def test_constants_of_every_dtype(dtype):
    value = (np.random.default_rng(0).standard_normal((3, 4)) * 100).astype(dtype)
    combine = api.logical_or if dtype == "bool" else api.add
    g, k = compile_fn(lambda x: [combine(x, value), x, api.fill([0, 2], value.flat[0])],
                      T(dtype, (3, 4)))
    out = run_both(g, k, [value])
    assert out[1] is not value      # an input returned as an output is a copy


def test_constant_outputs_are_copies():
    value = np.arange(6, dtype=np.int64).reshape(2, 3)
    from autograph.tracer.tracing.symbolic import GraphBuilder
    with GraphBuilder("c") as b:
        c = b.constant(value)
        g = b.finish([c, c])
    from autograph.codegen import compile_graph
    k = compile_graph(g)
    a1, a2 = k()
    b1, _ = k()
    a1[0, 0] = 100          # outputs are fresh, writable and independent
    assert a2[0, 0] == 0 and b1[0, 0] == 0
    assert_same(a2, value)
    want = run_graph(g, [])
    assert_same(b1, want[0])
