"""Eager elementwise ops against independent NumPy / Python computations,
TensorFlow's dtype rules, and every elementwise type-rule error message."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph.runtime.tensor as rt
from support import (c_gamma, c_lgamma, FLOATS, INTS, NUMERIC, arrays, assert_same, binary_case, declared_ops, elements,
                     numpy_counterpart, shapes, unary_case, where_case)
from autograph.tracer import api
from autograph.tracer.core import registry
from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.tracing.symbolic import bind

SETTINGS = settings(max_examples=25, deadline=None)


def wrap(v: int, dtype) -> int:
    """Python int reduced to the two's complement range of `dtype`."""
    bits = np.dtype(dtype).itemsize * 8
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def per_element(fn, dtype, *arrays):
    """Apply the Python function `fn` to broadcast elements; result array of `dtype`."""
    bs = np.broadcast_arrays(*arrays)
    shape = bs[0].shape if bs else ()
    out = [fn(*(a.item() for a in items)) for items in zip(*(b.reshape(-1) for b in bs))]
    return np.array(out, dtype=dtype).reshape(shape)


# ---------------------------------------------------------------- unary
#
# The ops come from the registry; the expected values from independent code:
# Python on ints (one entry per op accepting ints: a new one needs its entry),
# and for floats the op's NumPy counterpart computed in float64.

INT_UNARY = {
    "negative": lambda v: -v, "abs": lambda v: abs(v), "square": lambda v: v * v,
    "sign": lambda v: (v > 0) - (v < 0), "bitwise_not": lambda v: ~v,
    # rounding leaves integers as they are (tracer/ops/mathfuncs.py)
    "floor": lambda v: v, "ceil": lambda v: v, "round": lambda v: v, "trunc": lambda v: v,
    # the parts of a real number (tracer/ops/complex.py): x, x and 0
    "conj": lambda v: v, "real": lambda v: v, "imag": lambda v: 0,
}


def _math_elementwise(fn):
    """`fn` (a function of a Python float) applied to every element, as a float64 array."""
    return lambda x: np.array([fn(float(v)) for v in x.reshape(-1)], np.float64).reshape(x.shape)


# float ops without a NumPy counterpart
FLOAT_UNARY = {"sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
               # Python's math module (tracer/ops/special.py)
               "erf": _math_elementwise(math.erf), "erfc": _math_elementwise(math.erfc),
               "gamma": _math_elementwise(c_gamma), "lgamma": _math_elementwise(c_lgamma)}


@pytest.mark.parametrize("op", declared_ops("unary", "int32", result="same"))
@pytest.mark.parametrize("dtype", INTS)
@SETTINGS
@given(data=st.data())
def test_int_unary(op, dtype, data):
    x = data.draw(unary_case(op, dtype))
    expected = per_element(lambda v: wrap(INT_UNARY[op](v), dtype), dtype, x)
    assert_same(getattr(api, op)(x), expected)


@pytest.mark.parametrize("op", declared_ops("unary", "float32", result="same"))
@pytest.mark.parametrize("dtype", FLOATS)
@SETTINGS
@given(data=st.data())
def test_float_unary(op, dtype, data):
    x = data.draw(unary_case(op, dtype))
    # Computed in float64 and rounded: an independent, more accurate answer.
    reference = FLOAT_UNARY.get(op) or numpy_counterpart(op)
    expected = reference(x.astype(np.float64)).astype(dtype)
    assert_same(getattr(api, op)(rt.constant(x)), expected)


def test_unary_special_values_without_warnings():
    with np.errstate(all="raise"):   # the references must not trip NumPy's FP checks
        x = rt.constant([-1.0, 0.0, np.inf, np.nan])
        assert_same(api.sqrt(x), np.array([np.nan, 0.0, np.inf, np.nan], np.float32))
        assert_same(api.log(x), np.array([np.nan, -np.inf, np.inf, np.nan], np.float32))
        assert_same(api.exp(rt.constant([1000.0])), np.array([np.inf], np.float32))
        assert_same(api.sigmoid(rt.constant([-1000.0, 1000.0, np.nan])),
                    np.array([0.0, 1.0, np.nan], np.float32))
        m = np.iinfo(np.int32).min
        assert_same(api.negative(rt.constant(m)), np.int32(m))
        assert_same(api.abs(rt.constant([m])), np.array([m], np.int32))


def test_logical_and_bitwise_not():
    assert_same(api.logical_not(rt.constant([True, False])), np.array([False, True]))
    assert_same(~rt.constant([True, False]), np.array([False, True]))
    assert_same(~rt.constant([0, -1, 5]), np.array([-1, 0, -6], np.int32))
    assert_same(api.bitwise_not(np.array([7], np.int64)), np.array([-8], np.int64))


# ---------------------------------------------------------------- binary

INT_BINARY = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b, "pow": lambda a, b: a ** b,
    "maximum": max, "minimum": min, "bitwise_and": lambda a, b: a & b,
    "bitwise_or": lambda a, b: a | b, "bitwise_xor": lambda a, b: a ^ b,
    # C's fmod: truncated quotient, the result has a's sign (exact, in Python ints)
    "fmod": lambda a, b: (abs(a) % abs(b)) * (1 if a >= 0 else -1),
    # NumPy defines every shift amount: out of [0, width) << gives 0, >> the sign
    "left_shift": lambda a, b: a << b if 0 <= b < 64 else 0,
    "right_shift": lambda a, b: a >> b if b >= 0 else (-1 if a < 0 else 0),
    "fmax": max, "fmin": min,
}
COMPARISONS = {
    "equal": lambda a, b: a == b, "not_equal": lambda a, b: a != b, "less": lambda a, b: a < b,
    "less_equal": lambda a, b: a <= b, "greater": lambda a, b: a > b,
    "greater_equal": lambda a, b: a >= b,
}


@pytest.mark.parametrize("op", declared_ops("binary", "int32", result="same"))
@pytest.mark.parametrize("dtype", INTS)
@SETTINGS
@given(data=st.data())
def test_int_binary(op, dtype, data):
    x, y = data.draw(binary_case(op, dtype))
    fn = INT_BINARY[op]
    expected = per_element(lambda a, b: wrap(fn(a, b), dtype), dtype, x, y)
    assert_same(getattr(api, op)(rt.constant(x), y), expected)


FLOAT_BINARY = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
    "divide": lambda a, b: a / b, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
    "pow": lambda a, b: a ** b, "maximum": max, "minimum": min,
    "atan2": math.atan2, "hypot": math.hypot, "fmod": math.fmod, "copysign": math.copysign,
    # NaN-ignoring max/min: NaN only when both are; ties give a
    "fmax": lambda a, b: a if (a >= b or b != b) else b,
    "fmin": lambda a, b: a if (a <= b or b != b) else b,
}


@pytest.mark.parametrize("op", declared_ops("binary", "float32", result="same"))
@pytest.mark.parametrize("dtype", FLOATS)
@SETTINGS
@given(data=st.data())
def test_float_binary(op, dtype, data):
    x, y = data.draw(binary_case(op, dtype))
    expected = per_element(FLOAT_BINARY[op], dtype, x, y)   # Python float64, then rounded
    assert_same(getattr(api, op)(x, rt.constant(y)), expected)


@pytest.mark.parametrize("op", declared_ops("binary", "int32", result="bool"))
@pytest.mark.parametrize("dtype", NUMERIC)
@SETTINGS
@given(data=st.data())
def test_comparisons(op, dtype, data):
    x, y = data.draw(binary_case(op, dtype))
    assert_same(getattr(api, op)(x, y), per_element(COMPARISONS[op], bool, x, y))


@pytest.mark.parametrize("op", declared_ops("binary", "int32", result="float64"))
@pytest.mark.parametrize("dtype", INTS)
@SETTINGS
@given(data=st.data())
def test_int_divide_gives_float64(op, dtype, data):
    x, y = data.draw(binary_case("floordiv", dtype))
    expected = {"divide": lambda a, b: a / b}[op]
    assert_same(getattr(api, op)(x, y), per_element(expected, np.float64, x, y))


BOOL_BINARY = {"logical_and": lambda a, b: a and b, "logical_or": lambda a, b: a or b,
               "logical_xor": lambda a, b: a != b, **COMPARISONS}


@pytest.mark.parametrize("op", declared_ops("binary", "bool"))
@SETTINGS
@given(data=st.data())
def test_logical_binary(op, data):
    x, y = data.draw(binary_case(op, "bool"))
    fn = BOOL_BINARY[op]
    assert_same(getattr(api, op)(x, y), per_element(fn, bool, x, y))


def test_integer_edge_cases():
    m32 = np.iinfo(np.int32)
    x = rt.constant([m32.min, 7, -7, 7, -7])
    y = rt.constant([-1, 2, 2, -2, -2])
    assert_same(x // y, np.array([m32.min, 3, -4, -4, 3], np.int32))
    assert_same(x % y, np.array([0, 1, 1, -1, -1], np.int32))
    assert_same(rt.constant([m32.max]) + 1, np.array([m32.min], np.int32))
    assert_same(rt.constant(2) ** 31, np.int32(m32.min))
    assert_same(rt.constant([0, 5]) ** 0, np.array([1, 1], np.int32))


@pytest.mark.parametrize("op,message", [("floordiv", "integer division by zero"),
                                        ("mod", "integer modulo by zero")])
def test_integer_division_by_zero(op, message):
    with pytest.raises(InvalidArgumentError, match=f"{op}: {message}"):
        getattr(api, op)(rt.constant([1, 2]), rt.constant([1, 0]))
    # Nothing is computed for an empty result, so nothing is divided by zero.
    assert_same(getattr(api, op)(np.zeros((0,), np.int32), 0), np.zeros((0,), np.int32))


def test_float_division_by_zero_follows_numpy():
    with np.errstate(all="raise"):
        assert_same(api.divide(rt.constant([1.0, 0.0]), 0.0), np.array([np.inf, np.nan], np.float32))
        assert_same(api.floordiv(rt.constant([1.0]), 0.0), np.array([np.inf], np.float32))
        assert_same(api.divide(rt.constant([1, -1, 0]), 0), np.array([np.inf, -np.inf, np.nan]))


def test_int_pow_negative_exponent():
    with pytest.raises(InvalidArgumentError, match=r"pow: integers to negative integer powers "
                                                   r"are not allowed \(exponent -1\)"):
        api.pow(rt.constant([2, 3]), rt.constant([1, -1]))


def test_strings_concatenate_and_compare():
    a = rt.constant("a")
    assert (a + a).numpy() == b"aa"
    assert str(a + a) == "ag.Tensor(b'aa', shape=(), dtype=string)"
    assert_same(api.equal(rt.constant(["a", "b"]), "a"), np.array([True, False]))
    assert_same(rt.constant(["a", "b"]) != rt.constant(["a", "c"]), np.array([False, True]))


# ---------------------------------------------------------------- where

@pytest.mark.parametrize("dtype", NUMERIC + ("bool",))
@SETTINGS
@given(data=st.data())
def test_where(dtype, data):
    c, x, y = data.draw(where_case(dtype))
    expected = per_element(lambda cc, a, b: a if cc else b, dtype, c, x, y)
    assert_same(api.where(c, x, rt.constant(y)), expected)


def test_where_weak_scalars():
    x = rt.constant([1.5, -2.0])
    assert_same(api.where(x > 0, x, 0), np.array([1.5, 0.0], np.float32))
    assert_same(api.where([True, False], 1, 2), np.array([1, 2], np.int32))


# ---------------------------------------------------------------- cast

def _cast_expected(v, src: str, dst: str):
    if dst == "bool":
        return v != 0
    if src == "bool":
        return int(v) if dst in INTS else float(v)
    if dst in INTS:
        info = np.iinfo(dst)
        if src in FLOATS:
            if math.isnan(v):
                return 0
            if math.isinf(v):
                return int(info.max) if v > 0 else int(info.min)
            return min(max(math.trunc(v), int(info.min)), int(info.max))
        return wrap(int(v), dst)
    return v


@pytest.mark.parametrize("src", NUMERIC + ("bool",))
@pytest.mark.parametrize("dst", NUMERIC + ("bool",))
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_cast(src, dst, data):
    elems = elements(src, special=True) if src != "bool" else None
    if src in FLOATS:
        elems = st.one_of(elems, elements(src, -1e20, 1e20))
    x = data.draw(arrays(src, shapes(max_dims=2), elems))
    if src in INTS and dst in FLOATS:
        expected = x.astype(dst)   # rounding of wide ints: NumPy's conversion is the definition
    else:
        expected = per_element(lambda v: _cast_expected(v, src, dst), dst, x)
    with np.errstate(all="raise"):   # the reference must not trip NumPy's FP checks
        got = api.cast(x, dst)
    assert_same(got, expected)


def test_cast_python_number_and_identity():
    assert_same(api.cast(3.7, "int32"), np.int32(3))
    assert_same(api.cast(-3.7, np.int64), np.int64(-3))
    t = rt.constant([1, 2])
    assert_same(api.cast(t, "int32"), np.array([1, 2], np.int32))
    assert_same(api.cast(t, "float64"), np.array([1.0, 2.0]))


# ---------------------------------------------------------------- dtype rules

def test_weak_python_numbers_adopt_the_tensor_dtype():
    assert api.add(rt.constant([1.0]), 1).dtype.name == "float32"
    assert api.multiply(np.array([1.0]), 1.0507).dtype.name == "float64"
    assert (rt.constant(np.array([1], np.int64)) + 1).dtype.name == "int64"
    assert (2 * rt.constant([1.5])).dtype.name == "float32"
    f32 = rt.constant([1.0]) * 1.0507
    assert f32.numpy()[0] == np.float32(1.0507)


def test_python_numbers_alone_get_defaults():
    assert api.add(1, 2).dtype.name == "int32"
    assert api.add(1.0, 2).dtype.name == "float32"
    assert api.add(2 ** 40, 1).dtype.name == "int64"
    assert api.logical_and(True, False).dtype.name == "bool"
    assert api.add([1, 2], [3, 4]).dtype.name == "int32"
    assert api.add(np.float64(1.0), np.float64(2.0)).dtype.name == "float64"


def test_numpy_scalars_are_strong():
    with pytest.raises(TypeError, match="add: the operands have different dtypes float32 and float64"):
        api.add(rt.constant(1.0), np.float64(2.0))


def test_float_with_int_tensor_is_a_type_error():
    with pytest.raises(TypeError, match=r"multiply: cannot use the float 1\.5 with a tensor of dtype int32; "
                                        r"use ag\.cast"):
        rt.constant([1, 2]) * 1.5


def test_int_that_does_not_fit():
    with pytest.raises(TypeError, match=r"add: the value 4294967296 does not fit in int32"):
        rt.constant([1]) + 2 ** 32


def test_different_dtypes_name_both():
    with pytest.raises(TypeError, match=r"subtract: the operands have different dtypes int32 and "
                                        r"float32; NumPy would have promoted to float64, .*"
                                        r"use ag\.cast\(x, ag\.float64\)"):
        rt.constant([1]) - rt.constant([1.0])
    with pytest.raises(TypeError, match=r"less: the operands have different dtypes int64 and int32"):
        api.less(np.array([1]), rt.constant([1]))


def test_ndarray_on_the_left_uses_tensor_operators():
    out = np.array([1, 2], np.int32) + rt.constant([3, 4])
    assert isinstance(out, rt.Tensor)
    assert_same(out, np.array([4, 6], np.int32))


# ---------------------------------------------------------------- type-rule errors

@pytest.mark.parametrize("op", registry.ops_where(elementwise="unary", kind="float"))
def test_float_only_ops_refuse_ints(op):
    with pytest.raises(TypeError, match=fr"{op}: expected a float tensor, got int32; "
                                        r"use ag\.cast\(x, ag\.float32\)"):
        getattr(api, op)(rt.constant([1, 2]))


@pytest.mark.parametrize("op", registry.ops_where(elementwise="unary", kind="numeric"))
def test_numeric_unary_refuses_bool(op):
    with pytest.raises(TypeError, match=fr"{op}: expected an int or float tensor, got bool; "
                                        r"use ag\.cast\(x, ag\.int32\)"):
        getattr(api, op)(rt.constant([True]))


def test_logical_ops_refuse_numbers():
    with pytest.raises(TypeError, match=r"logical_not: expected a bool tensor, got int32; use "
                                        r"ag\.cast\(x, ag\.bool\) or a comparison"):
        api.logical_not(rt.constant([1]))
    with pytest.raises(TypeError, match=r"logical_or: expected a bool tensor, got float32"):
        api.logical_or(rt.constant([1.0]), rt.constant([0.0]))


def test_bitwise_ops_refuse_floats_and_bools():
    with pytest.raises(TypeError, match=r"bitwise_and: expected an integer tensor, got float32"):
        api.bitwise_and(rt.constant([1.0]), 1.0)
    with pytest.raises(TypeError, match=r"bitwise_not: expected an integer tensor, got bool; "
                                        r"for bool tensors use the logical_\* ops"):
        api.bitwise_not(np.array([True]))


def test_arithmetic_refuses_bool_and_strings():
    with pytest.raises(TypeError, match=r"add: expected an int, float, complex or string tensor, got bool"):
        rt.constant([True]) + rt.constant([False])
    with pytest.raises(TypeError, match=r"subtract: expected an int, float or complex tensor, got string"):
        rt.constant("a") - rt.constant("b")
    with pytest.raises(TypeError, match=r"less: expected an int or float tensor, got bool"):
        api.less(True, False)


def test_broadcast_error_names_both_shapes():
    with pytest.raises(ValueError, match=r"add: shapes \(2, 3\) and \(4,\) cannot be broadcast "
                                         r"together \(dimension 3 vs 4\)"):
        api.add(np.zeros((2, 3), np.float32), np.zeros((4,), np.float32))


def test_type_rule_checks_dtypes_when_bound_directly():
    with pytest.raises(TypeError, match="multiply: the operands have different dtypes int32 and int64"):
        bind("multiply", np.array(1, np.int32), np.array(1, np.int64))


def test_where_errors():
    with pytest.raises(TypeError, match=r"where: expected a bool condition, got int32; use a "
                                        r"comparison such as x != 0"):
        api.where(rt.constant([1]), 1, 2)
    with pytest.raises(TypeError, match=r"where: the operands have different dtypes int32 and float32"):
        api.where(True, rt.constant(1), rt.constant(1.0))
    with pytest.raises(TypeError, match=r"where: x and y have different dtypes int32 and float32"):
        bind("where", np.array(True), np.array(1, np.int32), np.array(1, np.float32))
    # Strings are picked like any other elements (compiled too: tests/test_strings.py).
    assert api.where(True, "a", "b").numpy() == b"a"
    with pytest.raises(TypeError, match=r"where: pass both x and y \(or neither"):
        api.where(rt.constant([True]), 1)


def test_cast_errors():
    with pytest.raises(TypeError, match=r"cast: cannot cast int32 to string"):
        api.cast(rt.constant(1), "string")
    with pytest.raises(TypeError, match=r"cast: expected a bool, int, float or complex tensor for a cast to "
                                        r"int32, got string"):
        api.cast(rt.constant("a"), "int32")
    with pytest.raises(TypeError, match=r"cast: expected an ag dtype for the dtype attribute, got 'int32'"):
        bind("cast", np.array(1.0), dtype="int32")
    with pytest.raises(TypeError, match=r"unknown dtype name 'int4'"):
        api.cast(rt.constant(1), "int4")


def test_non_tensor_operands_are_refused():
    with pytest.raises(TypeError, match=r"add: expected a tensor, array or Python number, got "
                                        r"NoneType None"):
        api.add(rt.constant(1), None)
    with pytest.raises(TypeError, match=r"add: cannot convert .* NumPy dtype float16 is not supported"):
        api.add(np.zeros(2, np.float16), 1)
