"""Eager construction, shape, indexing, matmul and nn ops, and their errors."""
from __future__ import annotations

import builtins

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph.runtime.tensor as rt
from support import FLOATS, INTS, arrays, assert_same, elements, index_case, shapes
from autograph.tracer import api
from autograph.tracer.api import math as api_math, nn as api_nn
from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.tracing.symbolic import bind

SETTINGS = settings(max_examples=40, deadline=None)


# ---------------------------------------------------------------- range

@SETTINGS
@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(-7, 7).filter(bool))
def test_int_range_matches_python(start, limit, delta):
    expected = np.array(list(builtins.range(start, limit, delta)), np.int32)
    assert_same(api.range(start, limit, delta), expected)
    assert_same(api.range(np.int64(start), limit, delta), expected.astype(np.int64))


def test_range_forms():
    assert_same(api.range(4), np.arange(4, dtype=np.int32))
    assert_same(api.range(0.0, 1.0, 0.25), np.array([0, 0.25, 0.5, 0.75], np.float32))
    assert_same(api.range(1.0, 0.0, -0.5), np.array([1.0, 0.5], np.float32))
    assert_same(api.range(3, dtype="float64"), np.arange(3, dtype=np.float64))
    assert_same(api.range(rt.constant(3), dtype=np.int64), np.arange(3, dtype=np.int64))
    assert_same(api.range(5, 1), np.zeros((0,), np.int32))
    big = np.iinfo(np.int64)
    expected = np.array(list(builtins.range(int(big.min), int(big.max), 2 ** 62)), np.int64)
    assert_same(api.range(np.int64(big.min), np.int64(big.max), np.int64(2 ** 62)), expected)


def test_range_errors():
    with pytest.raises(InvalidArgumentError, match="range: delta must not be zero"):
        api.range(0, 5, 0)
    with pytest.raises(TypeError, match=r"range: the operands have different dtypes int32 and int64"):
        api.range(rt.constant(0), np.int64(5))
    with pytest.raises(TypeError, match=r"range: start, limit and delta must have one dtype, got "
                                        r"int32, int64 and int32"):
        bind("range", np.int32(0), np.int64(1), np.int32(1))
    with pytest.raises(ValueError, match=r"range: expected a scalar for limit, got a tensor of shape \(2,\)"):
        api.range(0, [1, 2])
    with pytest.raises(TypeError, match=r"range: expected an int or float tensor, got bool"):
        api.range(np.bool_(True), np.bool_(True), np.bool_(True))
    with pytest.raises(TypeError, match=r"range: cannot use the bool True with a tensor of dtype int32"):
        api.range(True)
    with pytest.raises(InvalidArgumentError, match=r"range: the length .* is not finite"):
        api.range(0.0, float("inf"))
    with pytest.raises(TypeError, match=r"range: cannot use the float 2\.5 with a tensor of dtype int32"):
        api.range(2.5, dtype="int32")


# ---------------------------------------------------------------- fill & friends

@pytest.mark.parametrize("dtype", INTS + FLOATS + ("bool",))
@SETTINGS
@given(data=st.data())
def test_fill(dtype, data):
    shape = data.draw(shapes())
    value = data.draw(arrays(dtype, ()))
    assert_same(api.fill(list(shape), value), np.full(shape, value, dtype=dtype))


def test_fill_shape_forms():
    assert_same(api.fill(3, 1.5), np.full(3, 1.5, np.float32))
    assert_same(api.fill((2, rt.constant(1)), 7), np.full((2, 1), 7, np.int32))
    assert_same(api.fill(np.array([2, 2], np.int64), True), np.full((2, 2), True))
    assert_same(api.fill(rt.constant([1, 3]), np.int64(4)), np.full((1, 3), 4, np.int64))
    assert_same(api.fill([], 2.0), np.float32(2.0))
    assert_same(api.zeros([2, 3]), np.zeros((2, 3), np.float32))
    assert_same(api.ones(2, dtype="int64"), np.ones(2, np.int64))
    assert_same(api.zeros([1], dtype="string"), np.array([b""], dtype=object))
    x = rt.constant([[1, 2, 3]])
    assert_same(api.zeros_like(x), np.zeros((1, 3), np.int32))
    assert_same(api.ones_like(x, dtype="float64"), np.ones((1, 3), np.float64))
    assert_same(api.ones_like(np.zeros((2,), bool)), np.ones((2,), bool))
    assert_same(api.zeros_like(3.5), np.float32(0))


def test_fill_errors():
    with pytest.raises(InvalidArgumentError, match=r"fill: dimension 1 is negative \(-2\)"):
        api.fill([2, -2], 1.0)
    with pytest.raises(TypeError, match=r"fill: dimension 0 of the shape must be an int, got float 2\.0"):
        api.fill([2.0], 1.0)
    with pytest.raises(TypeError, match=r"zeros: dimension 0 of the shape must be an int, got None"):
        api.zeros([None])
    with pytest.raises(TypeError, match=r"fill: dimension 0 of the shape must be an int scalar, "
                                        r"got a float32 tensor"):
        api.fill([rt.constant(1.0)], 1)
    with pytest.raises(ValueError, match=r"fill: expected a scalar for the value, got a tensor of "
                                         r"shape \(2,\)"):
        api.fill([2], [1, 2])
    with pytest.raises(TypeError, match=r"fill: expected a shape \(an int, a list of ints or a 1-D "
                                        r"int tensor\), got str"):
        api.fill("ab", 1)
    with pytest.raises(TypeError, match=r"fill: expected an integer tensor for dimension 0, "
                                        r"got float32"):
        bind("fill", np.float32(2), np.float32(1))
    with pytest.raises(TypeError, match=r"ones: a string tensor of ones is not defined"):
        api.ones([1], dtype="string")


def test_shape_and_dim():
    x = rt.constant(np.zeros((2, 5, 1)))
    assert_same(api.shape(x), np.array([2, 5, 1], np.int32))
    assert_same(api.shape(x, out_type="int64"), np.array([2, 5, 1], np.int64))
    assert_same(api.shape(3), np.zeros((0,), np.int32))
    assert_same(api.dim(x, 1), np.int32(5))
    assert_same(api.dim(x, -1), np.int32(1))
    with pytest.raises(ValueError, match=r"dim: axis 3 is out of range for a tensor of rank 3"):
        api.dim(x, 3)
    with pytest.raises(TypeError, match=r"dim: axis must be a Python int, got float 1\.0"):
        api.dim(x, 1.0)
    with pytest.raises(TypeError, match=r"shape: out_type must be int32 or int64, got float32"):
        api.shape(x, out_type="float32")


# ---------------------------------------------------------------- getitem

@pytest.mark.parametrize("dtype", ["int32", "float64", "bool"])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_basic_indexing_matches_numpy(dtype, data):
    x, key = data.draw(index_case(dtype))
    assert_same(rt.constant(x)[key], x[key])


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_tensor_indices(data):
    x, key = data.draw(index_case("int32", min_dims=1))
    # Replace each int in the key by an eager scalar tensor: same result.
    parts = key if isinstance(key, tuple) else (key,)
    as_tensor = lambda v: rt.constant(np.int64(v)) if isinstance(v, int) else v  # noqa: E731
    new = tuple(slice(as_tensor(p.start), as_tensor(p.stop), as_tensor(p.step))
                if isinstance(p, slice) else as_tensor(p) for p in parts)
    assert_same(api.getitem(x, new), x[key])


def test_indexing_examples():
    x = rt.constant(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert_same(x[-1], np.array([8, 9, 10, 11], np.int32))
    assert_same(x[::-2, 1], np.array([9, 1], np.int32))
    assert_same(x[..., None, 1:100], np.arange(12, dtype=np.int32).reshape(3, 1, 4)[..., 1:])
    assert_same(x[1, 2], np.int32(6))
    assert_same(x[np.int64(0), -1], np.int32(3))


def test_indexing_errors():
    x = rt.constant([1, 2, 3])
    with pytest.raises(InvalidArgumentError, match=r"^index 3 is out of bounds for axis 0 with size 3$"):
        x[3]
    with pytest.raises(InvalidArgumentError, match=r"index -4 is out of bounds for axis 0 with size 3"):
        x[-4]
    with pytest.raises(InvalidArgumentError, match=r"index 5 is out of bounds for axis 1 with size 2"):
        rt.constant(np.zeros((1, 2)))[0, 5]
    with pytest.raises(InvalidArgumentError, match=r"strided_slice: slice step cannot be zero"):
        x[::0]
    with pytest.raises(ValueError, match=r"strided_slice: too many indices for a tensor of shape "
                                         r"\(3,\): 2 were given"):
        x[0, 0]
    # a mask alone selects (tracer/api/masks.py); mixed with other indices it is its
    # nonzero() index arrays, as NumPy (tracer/api/fancy_indexing.py)
    assert_same(x[x > 1], np.array([2, 3], np.int32))
    assert_same(x[x > 1, None], np.array([[2], [3]], np.int32))
    # Integer array indices gather (tests/test_ops_shaping.py); other arrays are errors.
    assert_same(x[rt.constant([0, 1])], np.array([1, 2], np.int32))
    with pytest.raises(TypeError, match=r"getitem: indexing with a float32 tensor of shape \(2,\) is "
                                        r"not supported yet"):
        x[rt.constant([0.0, 1.0])]
    with pytest.raises(TypeError, match=r"getitem: indexing with a list .* not supported yet"):
        x[[0.5, 1.5]]
    with pytest.raises(TypeError, match=r"getitem: indexing with the bool True is not supported"):
        x[True]
    with pytest.raises(TypeError, match=r"getitem: expected an int, slice, None, \.\.\. or int "
                                        r"scalar tensor as an index as the slice stop, got float 1\.5"):
        x[:1.5]
    with pytest.raises(IndexError, match=r"an index can only have a single ellipsis"):
        x[..., ...]
    with pytest.raises(ValueError, match=r"strided_slice: bad index part 'x'"):
        bind("strided_slice", np.zeros(3), spec=("x",))
    with pytest.raises(ValueError, match=r"strided_slice: spec \('i',\) needs 1 index operands, got 0"):
        bind("strided_slice", np.zeros(3), spec=("i",))
    with pytest.raises(TypeError, match=r"strided_slice: expected int32 or int64 scalar indices, "
                                        r"got float32\[\]"):
        bind("strided_slice", np.zeros(3), np.float32(1), spec=("i",))


# ---------------------------------------------------------------- matmul

@pytest.mark.parametrize("dtype", INTS + FLOATS)
@SETTINGS
@given(data=st.data(), m=st.integers(0, 4), k=st.integers(0, 4), n=st.integers(0, 4))
def test_matmul(dtype, data, m, k, n):
    elems = elements(dtype, -3.0, 3.0) if dtype in FLOATS else elements(dtype, special=True)
    a = data.draw(arrays(dtype, (m, k), elems))
    b = data.draw(arrays(dtype, (k, n), elems))
    if dtype in INTS:
        bits = np.dtype(dtype).itemsize * 8
        prod = a.astype(object) @ b.astype(object) if k else np.zeros((m, n), object)
        wrapped = np.vectorize(lambda v: ((int(v) + (1 << (bits - 1))) % (1 << bits))
                               - (1 << (bits - 1)), otypes=[object])(prod) if prod.size else prod
        expected = np.asarray(wrapped).astype(dtype)
        assert_same(rt.constant(a) @ b, expected)
    else:
        expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(dtype)
        assert_same(api.matmul(a, rt.constant(b)), expected, atol=k * 9 * np.finfo(dtype).eps * 4)


def test_matmul_errors():
    # a stack of matrices is NumPy's batched product (batched_matmul.py), not an error
    stack = np.arange(6.0).reshape(2, 3, 1)
    np.testing.assert_array_equal(api.matmul(stack, np.full((1, 2), 2.0)),
                                  stack @ np.full((1, 2), 2.0))
    with pytest.raises(ValueError, match=r"matmul: the inner dimensions do not match: a has "
                                         r"shape \(2, 3, 1\)"):
        api.matmul(stack, np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"matmul: a scalar \(0-d\) operand has no matrix product"):
        api.matmul(np.zeros(3), 2.0)
    with pytest.raises(ValueError, match=r"matmul: the inner dimensions do not match: a has shape "
                                         r"\(2, 3\) and b has shape \(2, 3\) \(3 vs 2\)"):
        api.matmul(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(TypeError, match=r"matmul: the operands have different dtypes float32 and float64"):
        rt.constant([[1.0]]) @ np.ones((1, 1))
    with pytest.raises(TypeError, match=r"matmul: expected an int or float tensor, got bool"):
        api.matmul(np.ones((1, 1), bool), np.ones((1, 1), bool))


# ---------------------------------------------------------------- nn and math namespaces

@pytest.mark.parametrize("dtype", FLOATS)
@SETTINGS
@given(data=st.data())
def test_nn(dtype, data):
    x = data.draw(arrays(dtype, shapes(min_dims=1, min_side=1), elements(dtype, -50.0, 50.0)))
    x64 = x.astype(np.float64)
    assert_same(api_nn.relu(x), np.maximum(x, 0))
    assert_same(api_nn.elu(x), np.where(x64 > 0, x64, np.expm1(np.minimum(x64, 0))).astype(dtype),
                atol=np.finfo(dtype).eps * 4)
    assert_same(api_nn.sigmoid(x), (1 / (1 + np.exp(-x64))).astype(dtype))
    e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
    assert_same(api_nn.softmax(x), (e / e.sum(axis=-1, keepdims=True)).astype(dtype),
                atol=np.finfo(dtype).eps * 4)
    e0 = np.exp(x64 - x64.max(axis=0, keepdims=True))
    assert_same(api_nn.softmax(x, axis=0), (e0 / e0.sum(axis=0, keepdims=True)).astype(dtype),
                atol=np.finfo(dtype).eps * 4)


def test_nn_edges_and_errors():
    assert_same(api_nn.softmax(rt.constant([1000.0, 1000.0])), np.array([0.5, 0.5], np.float32))
    assert_same(api_nn.relu(rt.constant([-2, 3])), np.array([0, 3], np.int32))
    with pytest.raises(TypeError, match=r"softmax: expected a float tensor, got int32; use ag\.cast"):
        api_nn.softmax(rt.constant([1, 2]))
    with pytest.raises(TypeError, match=r"elu: expected a float tensor, got int64"):
        api_nn.elu(np.array([1]))


def test_math_namespace_aliases():
    assert api_math.floormod is api.mod and api_math.truediv is api.divide
    assert_same(api_math.floormod(rt.constant([-7]), 3), np.array([2], np.int32))
    for name in api_math.__all__:
        assert callable(getattr(api_math, name)), name
        assert getattr(api_math, name).__doc__, name
