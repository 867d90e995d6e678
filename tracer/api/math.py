"""`ag.math`: the public op functions under TensorFlow's `tf.math` names."""
from __future__ import annotations

from .elementwise import (abs, add, cos, divide, equal, exp, floordiv, greater, greater_equal, less,
    less_equal, log, logical_and, logical_not, logical_or, logical_xor, maximum, minimum, mod,
    multiply, negative, not_equal, pow, sigmoid, sign, sin, sqrt, square, subtract, tan, tanh)
from .reduce import (reduce_all, reduce_any, reduce_max, reduce_mean, reduce_min, reduce_prod,
    reduce_sum)
from .scans import argmax, argmin, cumsum  # noqa: F401

# TensorFlow's other spellings of the same ops.
floormod = mod
truediv = divide

__all__ = [
    "abs", "add", "cos", "divide", "equal", "exp", "floordiv", "floormod", "greater",
    "greater_equal", "less", "less_equal", "log", "logical_and", "logical_not", "logical_or",
    "logical_xor", "maximum", "minimum", "mod", "multiply", "negative", "not_equal", "pow",
    "sigmoid", "sign", "sin", "sqrt", "square", "subtract", "tan", "tanh", "truediv",
    "reduce_all", "reduce_any", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod",
    "reduce_sum", "argmax", "argmin", "cumsum",
]
