"""Differential tests: every op compiled (through ag.function) equals eager.

Eager execution runs each op's NumPy reference, which tests/test_ops_eager.py
checks against independent NumPy code; here the native code must agree with
it on hypothesis-generated shapes and values, with static shapes and with
`None` dimensions (one concrete function per rank, reused across examples).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph as ag
from support import (FLOATS, INTS, NUMERIC, assert_same, binary_case, declared_ops, index_case,
                     reduction_case, unary_case, where_case)
from autograph.tracer import api
from autograph.tracer.core import registry
from autograph.tracer.core.types import as_dtype
from autograph.tracer.ops.reduce import REDUCTION_OPS

SETTINGS = settings(max_examples=12, deadline=None)

# Every declared elementwise op and reduction, with every dtype its kind accepts
# (`api` holds every op's function, also those only in ag.math or not public).
UNARY = [(o, d) for d in NUMERIC for o in declared_ops("unary", d)]
BINARY = [(o, d) for d in NUMERIC for o in declared_ops("binary", d)]
REDUCTIONS = [(o, d) for o in REDUCTION_OPS for d in NUMERIC + ("bool",)
              if registry.accepts(registry.get(o), as_dtype(d))]

_dynamic_cache = {}


def _dynamic(key, fn, arrays):
    """A concrete function with every dimension None, cached per op/dtypes/ranks."""
    cf = _dynamic_cache.get(key)
    if cf is None:
        specs = [ag.TensorSpec([None] * a.ndim, a.dtype) for a in arrays]
        cf = ag.function(fn).get_concrete_function(*specs)
        _dynamic_cache[key] = cf
    return cf


def _check(fn, arrays, key, dynamic):
    try:
        expected = fn(*arrays)
    except ag.errors.InvalidArgumentError:
        expected = ag.errors.InvalidArgumentError
    compiled = _dynamic(key, fn, arrays) if dynamic else ag.function(fn)
    if expected is ag.errors.InvalidArgumentError:
        with pytest.raises(ag.errors.InvalidArgumentError):
            compiled(*arrays)
        return
    assert_same(compiled(*arrays), expected)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("op,dtype", UNARY)
@SETTINGS
@given(data=st.data())
def test_unary(op, dtype, dynamic, data):
    x = data.draw(unary_case(op, dtype))
    fn = getattr(api, op)
    _check(lambda a: fn(a), [x], (op, dtype, x.ndim), dynamic)


SPECIAL = [-np.inf, -1e30, -27.0, -8.0, -1.0, -0.5, -1e-30, -0.0, 0.0, 1e-30, 0.5, 1.0, 8.0, 27.0,
           1e30, np.inf, np.nan]


@pytest.mark.parametrize("op,dtype", [(o, d) for d in FLOATS for o in declared_ops("unary", d)])
def test_unary_special_values(op, dtype):
    """inf, nan, signed zeros, tiny and huge values, compiled as eagerly: the
    same value (within the ulps of another libm) and the same sign."""
    x = np.array(SPECIAL, dtype)
    if op in ("sin", "cos", "tan"):
        x = x[np.abs(x) < 1e3]   # argument reduction of huge values differs between libms
    fn = getattr(api, op)
    expected = fn(x).numpy()
    got = ag.function(lambda a: fn(a), autograph=False)(x).numpy()
    assert_same(got, expected)
    numbers = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(expected[numbers]))


@pytest.mark.parametrize("dtype", FLOATS)
def test_cbrt_against_numpy(dtype):
    tiny, huge = np.finfo(dtype).tiny, np.finfo(dtype).max
    x = np.array(SPECIAL + [2.0, -3.0, tiny, -tiny / 4, huge, -huge], dtype)
    for spec in (ag.TensorSpec(x.shape, dtype), ag.TensorSpec([None], dtype)):
        got = ag.function(lambda a: ag.math.cbrt(a)).get_concrete_function(spec)(x).numpy()
        assert_same(got, np.cbrt(x))
        assert np.array_equal(np.signbit(got), np.signbit(np.cbrt(x)))   # -0.0 stays -0.0
        assert np.isnan(got[np.isnan(x)]).all()
    # np.cbrt on a traced tensor is the same op
    assert_same(ag.function(lambda a: np.cbrt(a) * 1)(x), np.cbrt(x))
    with pytest.raises(TypeError, match=r"cbrt: expected a float tensor, got int32; use "
                                        r"ag\.cast\(x, ag\.float32\)"):
        ag.function(lambda a: ag.math.cbrt(a))(np.array([8], np.int32))


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("op,dtype", BINARY)
@SETTINGS
@given(data=st.data())
def test_binary(op, dtype, dynamic, data):
    x, y = data.draw(binary_case(op, dtype))
    fn = getattr(api, op)
    _check(lambda a, b: fn(a, b), [x, y], (op, dtype, x.ndim, y.ndim), dynamic)


@pytest.mark.parametrize("op", declared_ops("binary", "bool"))
@SETTINGS
@given(data=st.data())
def test_logical(op, data):
    x, y = data.draw(binary_case(op, "bool"))
    fn = getattr(api, op)
    _check(lambda a, b: fn(a, b), [x, y], (op, x.ndim, y.ndim), True)
    _check(lambda a: ag.logical_not(a), [x], ("logical_not", x.ndim), False)


@pytest.mark.parametrize("dtype", NUMERIC)
@SETTINGS
@given(data=st.data())
def test_where(dtype, data):
    c, x, y = data.draw(where_case(dtype))
    _check(lambda a, b, d: ag.where(a, b, d), [c, x, y], ("where", dtype, c.ndim, x.ndim, y.ndim),
           data.draw(st.booleans()))


@pytest.mark.parametrize("op,dtype", REDUCTIONS)
@SETTINGS
@given(data=st.data())
def test_reductions(op, dtype, data):
    elems = (st.booleans() if dtype == "bool" else st.integers(-50, 50) if dtype in INTS
             else st.floats(-10, 10, width=32))
    x, axis, keepdims = data.draw(reduction_case(dtype, elems))
    fn = getattr(api, op)
    dynamic = data.draw(st.booleans())
    _check(lambda a: fn(a, axis=axis, keepdims=keepdims), [x], (op, dtype, x.ndim, axis, keepdims), dynamic)


@pytest.mark.parametrize("src,dst", [(a, b) for a in NUMERIC + ("bool",) for b in NUMERIC + ("bool",)])
@SETTINGS
@given(data=st.data())
def test_cast(src, dst, data):
    if src in FLOATS:
        x = data.draw(unary_case("add", src).filter(lambda a: np.all(np.abs(a) < 1e3)))
    else:
        x = data.draw(unary_case("add", src))
    target = getattr(ag, "bool" if dst == "bool" else dst)
    _check(lambda a: ag.cast(a, target), [x], ("cast", src, dst, x.ndim), data.draw(st.booleans()))


@SETTINGS
@given(data=st.data())
def test_indexing_with_python_keys(data):
    x, key = data.draw(index_case("int32"))
    _check(lambda a: a[key], [x], None, False)


@SETTINGS
@given(n=st.integers(0, 40), start=st.integers(-5, 5), delta=st.sampled_from([-3, -1, 1, 2]))
def test_range_and_fill_with_traced_bounds(n, start, delta):
    def f(a, b, d):
        return ag.range(a, b, d), ag.zeros([b - a + 10], ag.float64) + 1.0, ag.fill([2, b - a + 10], a)
    args = [np.int32(start), np.int32(start + n), np.int32(delta)]
    expected = [np.arange(start, start + n, delta, dtype=np.int32),
                np.ones(n + 10), np.full((2, n + 10), start, np.int32)]
    got = ag.function(f).get_concrete_function(*[ag.TensorSpec([], ag.int32)] * 3)(*args)
    for g, e in zip(got, expected):
        assert_same(g, e)


@SETTINGS
@given(m=st.integers(0, 6), k=st.integers(0, 6), n=st.integers(0, 6),
       dtype=st.sampled_from(["float32", "float64", "int32", "int64"]))
def test_matmul(m, k, n, dtype):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    a = rng.integers(-5, 5, (m, k)).astype(dtype)
    b = rng.integers(-5, 5, (k, n)).astype(dtype)
    _check(lambda x, y: ag.matmul(x, y), [a, b], ("matmul", dtype), True)
    assert_same(ag.function(lambda x, y: x @ y)(a, b), (a @ b).astype(dtype))


def test_dynamic_broadcast_mismatch_is_an_error():
    cf = ag.function(lambda a, b: a + b).get_concrete_function(
        ag.TensorSpec([None], ag.float32), ag.TensorSpec([None], ag.float32))
    with pytest.raises(ag.errors.InvalidArgumentError, match="3.*4|4.*3"):
        cf(np.ones(3, np.float32), np.ones(4, np.float32))
    assert_same(cf(np.ones(3, np.float32), np.ones(1, np.float32)), np.full(3, 2.0, np.float32))
