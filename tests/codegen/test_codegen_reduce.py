"""Differential tests of compiled reductions (reduce_*) and matmul."""
from __future__ import annotations

import functools
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from codegen_support import VECTOR_FLOAT, T, compile_fn, run_both
from autograph.tracer import api

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# (axis, keepdims) combinations per rank
AXES = {1: [(None, False), ((0,), True), ((), False)],
        2: [(None, True), ((0,), False), ((1,), True)],
        3: [(None, False), ((1,), False), ((2,), True), ((0, 2), False)]}
NUMERIC = (api.reduce_sum, api.reduce_mean, api.reduce_max, api.reduce_min, api.reduce_prod)


def _numeric_reductions(x, rank):
    return [fn(x, axis=axis, keepdims=keep) for axis, keep in AXES[rank] for fn in NUMERIC]


def _bool_reductions(x, rank):
    return [fn(x, axis=axis, keepdims=keep) for axis, keep in AXES[rank]
            for fn in (api.reduce_any, api.reduce_all)]


@functools.lru_cache(maxsize=None)
def _kernel(dtype, rank):
    fn = _bool_reductions if dtype == "bool" else _numeric_reductions
    return compile_fn(lambda x: fn(x, rank), T(dtype, (None,) * rank))


def _elements(dtype):
    if dtype == "bool":
        return st.booleans()
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        return st.one_of(st.integers(-5, 5), st.integers(int(info.min), int(info.max)))
    return st.floats(-2, 2, width=32 if dtype == "float32" else 64)


@pytest.mark.parametrize("dtype,rank", [("float32", 1), ("float64", 3), ("int32", 2), ("int64", 3),
                                        ("bool", 2), ("bool", 3)])
@SETTINGS
@given(data=st.data())
def test_reductions(dtype, rank, data):
    shape = data.draw(hnp.array_shapes(min_dims=rank, max_dims=rank, min_side=1, max_side=5))
    x = data.draw(hnp.arrays(np.dtype(dtype), shape, elements=_elements(dtype)))
    g, k = _kernel(dtype, rank)
    rtol = {"float32": 2e-5, "float64": 1e-12}.get(dtype, 0)
    run_both(g, k, [x], rtol=rtol, atol=1e-6 if rtol else 0)


def test_empty_reductions_give_identities():
    g, k = _kernel("float64", 3)
    run_both(g, k, [np.zeros((0, 2, 3))])
    run_both(g, k, [np.zeros((2, 0, 3))])
    g, k = compile_fn(lambda x: [api.reduce_max(x), api.reduce_min(x), api.reduce_sum(x),
                                 api.reduce_prod(x)], T("int32", (None,)))
    out = run_both(g, k, [np.zeros(0, np.int32)])
    assert [int(o) for o in out] == [np.iinfo(np.int32).min, np.iinfo(np.int32).max, 0, 1]


def test_nan_propagates_through_max_and_min():
    g, k = compile_fn(lambda x: [api.reduce_max(x), api.reduce_min(x, axis=0)], T("float32", (None, 2)))
    x = np.array([[1, 2], [np.nan, 3], [4, 5]], np.float32)
    out = run_both(g, k, [x])
    assert np.isnan(out[0]) and np.isnan(out[1][0]) and out[1][1] == 2


def test_int_mean_truncates_toward_zero_and_sums_wrap():
    g, k = compile_fn(lambda x: [api.reduce_mean(x), api.reduce_mean(x, axis=1), api.reduce_sum(x)],
                      T("int32", (2, None)))
    x = np.array([[-7, 0, 0], [2**31 - 1, 2**31 - 1, 5]], np.int32)
    run_both(g, k, [x])


def test_large_float32_sum_is_accurate():
    g, k = compile_fn(lambda x: [api.reduce_sum(x), api.reduce_mean(x)], T("float32", (None,)))
    x = np.random.default_rng(0).random(1_000_003, dtype=np.float32)
    s, m = k(x)
    exact = np.sum(x, dtype=np.float64)
    assert abs(float(s) - exact) / exact < 1e-6
    assert abs(float(m) - exact / x.size) / (exact / x.size) < 1e-6


def test_reduction_of_fused_broadcast_expression():
    g, k = compile_fn(lambda x, y: [api.reduce_sum(api.multiply(x, y), axis=1),
                                    api.reduce_max(api.subtract(x, y), axis=0, keepdims=True)],
                      T("float64", (None, None)), T("float64", (None,)))
    rng = np.random.default_rng(2)
    for sx, sy in [((3, 4), (4,)), ((3, 4), (1,)), ((3, 1), (5,)), ((0, 4), (4,))]:
        run_both(g, k, [rng.random(sx), rng.random(sy)], rtol=1e-12)


def test_float_sum_vectorises_with_reassoc():
    g, k = compile_fn(lambda x: api.reduce_sum(x), T("float32", (None,)))
    opt = k.llvm_ir(optimized=True)
    assert re.search(r"fadd reassoc " + VECTOR_FLOAT.pattern, opt)


# ---------------------------------------------------------------- matmul

@functools.lru_cache(maxsize=None)
def _matmul(dtype):
    return compile_fn(lambda a, b: api.matmul(a, b), T(dtype, (None, None)), T(dtype, (None, None)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@settings(max_examples=15, deadline=None)
@given(m=st.integers(0, 6), kk=st.integers(0, 6), n=st.integers(0, 9), seed=st.integers(0, 2**16))
def test_matmul(dtype, m, kk, n, seed):
    rng = np.random.default_rng(seed)
    if dtype.startswith("int"):
        a = rng.integers(-1000, 1000, (m, kk)).astype(dtype)
        b = rng.integers(-1000, 1000, (kk, n)).astype(dtype)
    else:
        a = rng.standard_normal((m, kk)).astype(dtype)
        b = rng.standard_normal((kk, n)).astype(dtype)
    g, k = _matmul(dtype)
    run_both(g, k, [a, b], rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)


def test_matmul_static_and_large():
    g, k = compile_fn(lambda a, b: api.matmul(a, b), T("float32", (64, 33)), T("float32", (33, 70)))
    rng = np.random.default_rng(3)
    a, b = rng.random((64, 33), dtype=np.float32), rng.random((33, 70), dtype=np.float32)
    (out,) = k(a, b)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5)
