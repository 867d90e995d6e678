"""Differential tests of compiled strided_slice (NumPy basic indexing)."""
from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen_support import T, assert_same, compile_fn
from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.core.interpreter import run_graph

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Each pattern indexes x (rank 2) with traced int scalars i, j, k (k != 0).
PATTERNS = {
    "row": lambda x, i, j, k: x[i],
    "element": lambda x, i, j, k: x[i, j],
    "rows": lambda x, i, j, k: x[i:j],
    "strided": lambda x, i, j, k: x[i:j:k],
    "step_only": lambda x, i, j, k: x[::k, ::-1],
    "column": lambda x, i, j, k: x[:, i],
    "ellipsis": lambda x, i, j, k: x[..., j],
    "newaxis": lambda x, i, j, k: x[None, i, None, j:],
    "start_only": lambda x, i, j, k: x[i:, :j],
    "stop_step": lambda x, i, j, k: x[1:j:k],
}


@functools.lru_cache(maxsize=None)
def _kernel(name, idx_dtype):
    fn = PATTERNS[name]
    return compile_fn(fn, T("float64", (None, None)), T(idx_dtype), T(idx_dtype), T(idx_dtype))


def _compare(g, k, inputs):
    try:
        want = run_graph(g, inputs)
    except InvalidArgumentError as e:
        with pytest.raises(InvalidArgumentError) as info:
            k(*inputs)
        assert str(info.value).splitlines()[0] == str(e).splitlines()[0]
        return
    got = k(*inputs)
    for a, b in zip(got, want):
        assert_same(a, b)


@pytest.mark.parametrize("name", sorted(PATTERNS))
@SETTINGS
@given(rows=st.integers(0, 5), cols=st.integers(0, 5), i=st.integers(-8, 8), j=st.integers(-8, 8),
       k=st.integers(-4, 4).filter(bool), idx64=st.booleans())
def test_patterns(name, rows, cols, i, j, k, idx64):
    dt = "int64" if idx64 else "int32"
    g, kern = _kernel(name, dt)
    x = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols)
    _compare(g, kern, [x, np.asarray(i, dt), np.asarray(j, dt), np.asarray(k, dt)])


def test_scalar_element_load_in_rank1():
    g, k = compile_fn(lambda x, i: x[i], T("int32", (None,)), T("int64"))
    x = np.array([5, 6, 7], np.int32)
    for i in range(-3, 3):
        assert int(k(x, np.asarray(i))[0]) == x[i]
    opt = k.llvm_ir(optimized=True)
    assert "malloc" not in opt      # a scalar load, no copy


def test_huge_steps_and_bounds_do_not_overflow():
    g, k = compile_fn(lambda x, a, b, c: x[a:b:c], T("int64", (None,)), T("int64"), T("int64"),
                      T("int64"))
    x = np.arange(7, dtype=np.int64)
    mn, mx = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    for a, b, c in [(mn, mx, mx), (mx, mn, mn), (mn, mx, 1), (mx, mn, -1), (0, 7, mn), (3, mn, -2)]:
        args = [np.asarray(v, np.int64) for v in (a, b, c)]
        (out,) = k(x, *args)
        np.testing.assert_array_equal(out, x[a:b:c])


def test_static_shape_and_constant_indices():
    g, k = compile_fn(lambda x: [x[1], x[-1, 2], x[:, 1:3], x[::2]], T("float32", (4, 5)))
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    got = k(x)
    want = run_graph(g, [x])
    for a, b in zip(got, want):
        assert_same(a, b)


def test_boundscheck_off_still_wraps_negative_indices():
    g, k = compile_fn(lambda x, i: x[i], T("float64", (None,)), T("int32"), boundscheck=False)
    x = np.array([1.0, 2.0, 3.0])
    assert float(k(x, np.int32(-1))[0]) == 3.0
    assert "out of bounds" not in "\n".join(s.template for s in k._errors.sites)


def test_scalar_with_newaxis():
    g, k = compile_fn(lambda x: [x[None], x[...], x[None, None, ...]], T("int64"))
    got = k(np.asarray(7, np.int64))
    want = run_graph(g, [np.asarray(7, np.int64)])
    for a, b in zip(got, want):
        assert_same(a, b)
