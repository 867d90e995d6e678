"""Elementwise ops: unary math, binary arithmetic/comparison/logic, `where`.

Binary ops take two operands of one dtype (no promotion: the public functions
in `autograph.tracer.api` give weak Python numbers the tensor's dtype first) and
broadcast as NumPy does. Integer arithmetic wraps as NumPy's does; integer
`floordiv`/`mod` by zero and integer `pow` with a negative exponent raise
InvalidArgumentError, as the compiled code does.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.registry import declare
from ..core.types import TensorType, bool_, float64
from ._common import (broadcast_pair, broadcast_shapes, check_kind, check_same_dtype, expect_arity,
    quiet, result_size)


# ---------------------------------------------------------------- type rules

def unary_rule(op: str, kind: str, result_dtype=None):
    """Type rule of a unary elementwise op: operand of `kind`, same shape."""
    def rule(types, attrs, consts):
        expect_arity(op, types, 1)
        (x,) = types
        check_kind(op, kind, x.dtype)
        return [TensorType(result_dtype or x.dtype, x.shape)]
    return rule


def binary_rule(op: str, kind: str, result=None):
    """Type rule of a binary elementwise op.

    `result` is None (the operands' dtype), a DType, or a function of the
    operand dtype.
    """
    def rule(types, attrs, consts):
        expect_arity(op, types, 2)
        x, y = types
        check_same_dtype(op, x.dtype, y.dtype)
        check_kind(op, kind, x.dtype)
        shape = broadcast_pair(op, x.shape, y.shape)
        if result is None:
            dtype = x.dtype
        elif callable(result):
            dtype = result(x.dtype)
        else:
            dtype = result
        return [TensorType(dtype, shape)]
    return rule


def _where_rule(types, attrs, consts):
    expect_arity("where", types, 3)
    c, x, y = types
    if not c.dtype.is_bool:
        raise TypeError(f"where: expected a bool condition, got {c.dtype.name}; "
                        f"use a comparison such as x != 0")
    if x.dtype is not y.dtype:
        raise TypeError(f"where: x and y have different dtypes {x.dtype.name} and {y.dtype.name}; "
                        f"use ag.cast to convert one of them")
    check_kind("where", "any", x.dtype, "x and y")   # strings too: where picks elements
    return [TensorType(x.dtype, broadcast_shapes("where", c.shape, x.shape, y.shape))]


# ---------------------------------------------------------------- references

@quiet
def _sigmoid(x):
    # exp of a non-positive number never overflows: 1/(1+e^-x) for x >= 0,
    # e^x/(1+e^x) for x < 0.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


def _int_divisor_check(op: str, what: str):
    def check(x, y):
        if y.dtype.kind == "i" and result_size(x, y) and (y == 0).any():
            raise InvalidArgumentError(f"{op}: integer {what} by zero")
    return check


_check_floordiv = _int_divisor_check("floordiv", "division")
_check_mod = _int_divisor_check("mod", "modulo")


@quiet
def _floordiv(x, y):
    _check_floordiv(x, y)
    # MIN // -1 wraps to MIN in NumPy (with an overflow warning, silenced here).
    return np.floor_divide(x, y)


@quiet
def _mod(x, y):
    _check_mod(x, y)
    return np.remainder(x, y)   # MIN % -1 == 0


@quiet
def _pow(x, y):
    if y.dtype.kind == "i" and result_size(x, y) and (y < 0).any():
        bad = int(y[y < 0].flat[0])
        raise InvalidArgumentError(f"pow: integers to negative integer powers are not allowed "
                                   f"(exponent {bad}); use ag.cast(x, ag.float32) first")
    return np.power(x, y)


@quiet
def _divide(x, y):
    if x.dtype.kind in "iu":
        return np.true_divide(x.astype(np.float64), y.astype(np.float64))
    return np.true_divide(x, y)


def _as_bytes(a):
    """Object array of str/bytes as bytes (strings are stored as bytes, as in TensorFlow)."""
    out = np.empty(a.shape, dtype=object)
    for i, v in np.ndenumerate(a):
        out[i] = v.encode("utf-8") if isinstance(v, str) else v
    return out


@quiet
def _add(x, y):
    if x.dtype == object:
        return np.add(_as_bytes(x), _as_bytes(y))
    return np.add(x, y)


def _comparison(ufunc):
    @quiet
    def ref(x, y):
        if x.dtype == object:
            x, y = _as_bytes(x), _as_bytes(y)
        return np.asarray(ufunc(x, y), dtype=np.bool_)
    return ref


@quiet
def _where(c, x, y):
    if x.dtype == object:   # a str constant picked must come out as bytes, as compiled code gives
        x, y = _as_bytes(x), _as_bytes(y)
    return np.where(c, x, y)


# ---------------------------------------------------------------- declarations

_UNARY = [
    # name, operand kind, reference, doc
    ("negative", "numeric", np.negative, "-x; ints wrap (negative(MIN) == MIN)"),
    ("abs", "numeric", np.abs, "|x|; ints wrap (abs(MIN) == MIN)"),
    ("sign", "numeric", np.sign, "-1, 0 or 1 (nan stays nan)"),
    ("square", "numeric", np.square, "x*x; ints wrap"),
    ("sqrt", "float", np.sqrt, "square root; nan for negative x"),
    ("exp", "float", np.exp, "e**x"),
    ("log", "float", np.log, "natural log; -inf at 0, nan below"),
    ("sin", "float", np.sin, "sine"),
    ("cos", "float", np.cos, "cosine"),
    ("tan", "float", np.tan, "tangent"),
    ("tanh", "float", np.tanh, "hyperbolic tangent"),
    ("sigmoid", "float", _sigmoid, "1 / (1 + exp(-x)), computed without overflow"),
    ("logical_not", "bool", np.logical_not, "not x"),
    ("bitwise_not", "int", np.invert, "~x"),
]

for _name, _kind, _ref, _doc in _UNARY:
    declare(_name, unary_rule(_name, _kind), quiet(_ref), elementwise="unary",
            doc=f"{_name}(x) -> same type: {_doc}")


def _divide_result(d):
    return float64 if d.is_integer else d


_BINARY = [
    # name, operand kind, result (None: operands' dtype), reference, doc
    ("add", "numeric_or_string", None, _add, "x + y; ints wrap; strings concatenate"),
    ("subtract", "numeric", None, np.subtract, "x - y; ints wrap"),
    ("multiply", "numeric", None, np.multiply, "x * y; ints wrap"),
    ("divide", "numeric", _divide_result, _divide, "x / y; float64 for int operands"),
    ("floordiv", "numeric", None, _floordiv, "floor(x / y); int division by zero is an error"),
    ("mod", "numeric", None, _mod, "x - floor(x / y) * y (sign of y); int modulo by zero is an error"),
    ("pow", "numeric", None, _pow, "x ** y; int: negative exponent is an error, wraps"),
    ("maximum", "numeric", None, np.maximum, "elementwise max (nan propagates)"),
    ("minimum", "numeric", None, np.minimum, "elementwise min (nan propagates)"),
    ("equal", "any", bool_, _comparison(np.equal), "x == y"),
    ("not_equal", "any", bool_, _comparison(np.not_equal), "x != y"),
    ("less", "numeric", bool_, _comparison(np.less), "x < y"),
    ("less_equal", "numeric", bool_, _comparison(np.less_equal), "x <= y"),
    ("greater", "numeric", bool_, _comparison(np.greater), "x > y"),
    ("greater_equal", "numeric", bool_, _comparison(np.greater_equal), "x >= y"),
    ("logical_and", "bool", None, np.logical_and, "x and y"),
    ("logical_or", "bool", None, np.logical_or, "x or y"),
    ("logical_xor", "bool", None, np.logical_xor, "x xor y"),
    ("bitwise_and", "int", None, np.bitwise_and, "x & y"),
    ("bitwise_or", "int", None, np.bitwise_or, "x | y"),
    ("bitwise_xor", "int", None, np.bitwise_xor, "x ^ y"),
]

for _name, _kind, _result, _ref, _doc in _BINARY:
    declare(_name, binary_rule(_name, _kind, _result), quiet(_ref), elementwise="binary",
            doc=f"{_name}(x, y) -> broadcast: {_doc}")

declare("where", _where_rule, _where, elementwise="ternary",
        doc="where(c, x, y) -> broadcast of the three, x's dtype: x where c else y")

UNARY_OPS = tuple(n for n, *_ in _UNARY)
BINARY_OPS = tuple(n for n, *_ in _BINARY)
