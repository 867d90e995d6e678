"""autograph: compile numeric Python functions to native code.

    import autograph as ag

    @ag.function
    def f(x, y):
        return ag.reduce_mean(x ** 2 * 3 + y)

This module only re-exports the public names (see API.md); the work is done
in `runtime`, `tracer`, `codegen` and `autograph.converter`.
"""
from tracer.types import DType, as_dtype, bool_ as bool, int32, int64, float32, float64, string  # noqa: A001
from tracer.control_flow import cond, while_loop
from tracer.tensor_array import TensorArray
from tracer.api import (  # noqa: F401
    add, subtract, multiply, divide, floordiv, mod, pow, negative, abs, sign, square, sqrt, exp, log,
    sin, cos, tan, tanh, sigmoid, maximum, minimum, equal, not_equal, less, less_equal, greater,
    greater_equal, logical_and, logical_or, logical_not, logical_xor, where, cast,
    reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod, reduce_any, reduce_all,
    range, zeros, ones, zeros_like, ones_like, fill, shape, matmul,
    reshape, transpose, expand_dims, squeeze, stack, concat, gather, eye, size, rank,
    argmax, argmin, cumsum,
)
from tracer.api_print import print  # noqa: A001  (ag.print: prints on every call)
from tracer import api_random as random  # noqa: F401
from tracer import api_math as math  # noqa: F401
from tracer import api_nn as nn  # noqa: F401
from runtime.tensor import Tensor, constant, convert_to_tensor
from runtime.spec import TensorSpec
from runtime.polymorphic import PolymorphicFunction, function
from runtime.concrete import ConcreteFunction
from runtime.variable import Variable
from autograph.impl import to_code, do_not_convert
from autograph import errors

__version__ = "0.1.0"
