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
from support import (FLOATS, INTS, NUMERIC, assert_same, binary_case, index_case, reduction_case,
                     unary_case, where_case)

SETTINGS = settings(max_examples=12, deadline=None)

UNARY_ANY = ["negative", "abs", "sign", "square"]
UNARY_FLOAT = ["sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "sigmoid"]
BINARY = ["add", "subtract", "multiply", "divide", "floordiv", "mod", "pow", "maximum", "minimum",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
REDUCTIONS = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"]

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
@pytest.mark.parametrize("op,dtype", [(o, d) for o in UNARY_ANY for d in NUMERIC]
                         + [(o, d) for o in UNARY_FLOAT for d in FLOATS])
@SETTINGS
@given(data=st.data())
def test_unary(op, dtype, dynamic, data):
    x = data.draw(unary_case(op, dtype))
    fn = getattr(ag, op)
    _check(lambda a: fn(a), [x], (op, dtype, x.ndim), dynamic)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("op,dtype", [(o, d) for o in BINARY for d in NUMERIC])
@SETTINGS
@given(data=st.data())
def test_binary(op, dtype, dynamic, data):
    x, y = data.draw(binary_case(op, dtype))
    fn = getattr(ag, op)
    _check(lambda a, b: fn(a, b), [x, y], (op, dtype, x.ndim, y.ndim), dynamic)


@pytest.mark.parametrize("op", ["logical_and", "logical_or", "logical_xor"])
@SETTINGS
@given(data=st.data())
def test_logical(op, data):
    x, y = data.draw(binary_case(op, "bool"))
    fn = getattr(ag, op)
    _check(lambda a, b: fn(a, b), [x, y], (op, x.ndim, y.ndim), True)
    _check(lambda a: ag.logical_not(a), [x], ("logical_not", x.ndim), False)


@pytest.mark.parametrize("dtype", NUMERIC)
@SETTINGS
@given(data=st.data())
def test_where(dtype, data):
    c, x, y = data.draw(where_case(dtype))
    _check(lambda a, b, d: ag.where(a, b, d), [c, x, y], ("where", dtype, c.ndim, x.ndim, y.ndim),
           data.draw(st.booleans()))


@pytest.mark.parametrize("op,dtype", [(o, d) for o in REDUCTIONS for d in NUMERIC])
@SETTINGS
@given(data=st.data())
def test_reductions(op, dtype, data):
    elems = st.integers(-50, 50) if dtype in INTS else st.floats(-10, 10, width=32)
    x, axis, keepdims = data.draw(reduction_case(dtype, elems))
    fn = getattr(ag, op)
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
