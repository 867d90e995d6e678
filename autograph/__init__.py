"""autograph: compile numeric Python functions to native code.

    import autograph as ag

    @ag.function
    def f(x, y):
        return ag.reduce_mean(x ** 2 * 3 + y)

This module only re-exports the public names (see API.md); the work is done
in `runtime`, `tracer`, `codegen` and `autograph.converter`.
"""
from autograph.tracer.core.types import (DType, as_dtype, bool_ as bool, int32, int64, float32,
    float64, string)  # noqa: A001
from autograph.tracer.tracing.control_flow import cond, while_loop
from autograph.tracer.tracing.tensor_array import TensorArray
from autograph.tracer.api import (add, subtract, multiply, divide, floordiv, mod, pow, negative,
    abs, sign, square, sqrt, exp, log, sin, cos, tan, tanh, sigmoid, maximum, minimum, equal,
    not_equal, less, less_equal, greater, greater_equal, logical_and, logical_or, logical_not,
    logical_xor, where, cast, reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod,
    reduce_any, reduce_all, range, zeros, ones, zeros_like, ones_like, fill, shape, matmul, reshape,
    transpose, expand_dims, squeeze, stack, concat, gather, eye, size, rank, argmax, argmin, cumsum)
from autograph.tracer.api.printing import print  # noqa: A001  (ag.print: prints on every call)
from autograph.tracer.api import random  # noqa: F401
from autograph.tracer.api import math  # noqa: F401
from autograph.tracer.api import nn  # noqa: F401
from autograph.runtime.tensor import Tensor, constant, convert_to_tensor
from autograph.runtime.spec import TensorSpec
from autograph.runtime.polymorphic import PolymorphicFunction, function
from autograph.runtime.concrete import ConcreteFunction
from autograph.runtime.variable import Variable
from .impl import to_code, do_not_convert
from . import errors

__version__ = "0.1.0"
