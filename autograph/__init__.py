"""autograph: compile numeric Python functions to native code.

    import autograph as ag

    @ag.function
    def f(x, y):
        return ag.reduce_mean(x ** 2 * 3 + y)

This module only re-exports the public names (see API.md); the work is done
in `runtime`, `tracer`, `codegen` and `autograph.converter`. The op functions
(`ag.add`, `ag.reduce_sum`, `ag.print`, ...) come from the table of public
functions that the op declarations fill (`autograph.tracer.api.toplevel`).
"""
from autograph.tracer.core.types import (DType, as_dtype, bool_ as bool, int32, int64, float32,
    float64, string)  # noqa: A001
from autograph.tracer.core.types import (int8, int16, uint8, uint16, uint32, uint64, complex64,
    complex128)
from autograph.tracer.tracing.control_flow import cond, while_loop
from autograph.tracer.api.tensor_array import TensorArray
from autograph.tracer.api.toplevel import *  # noqa: F401,F403  (the op functions)
from autograph.tracer.api.toplevel import __all__ as _op_functions
from autograph.tracer.api import math, nn, random, bitwise, linalg  # noqa: F401
from autograph.runtime.tensor import Tensor, constant, convert_to_tensor
from autograph.runtime.spec import TensorSpec
from autograph.runtime.polymorphic import PolymorphicFunction, function
from autograph.runtime.concrete import ConcreteFunction
from autograph.runtime.variable import Variable
from .impl import to_code, do_not_convert
from . import config, errors, experimental as _experimental
from autograph.tracer.api import debugging  # noqa: F401
from autograph.tracer.api.tensor_shape import TensorShape, name_scope
from .module import Module
from autograph.tracer.autodiff import GradientTape
from . import keras  # noqa: F401
# What every first call needs (the call index of the warm start, the disk
# cache, the object loader and glue, the native entry) is imported with the
# package: a program that calls a function imports it anyway, and its first
# call then costs only its own work. None of it imports llvmlite.binding.
from autograph.runtime import warm_start as _warm_start  # noqa: F401
from autograph.codegen.jit import compile as _jit_compile, glue as _jit_glue  # noqa: F401
from autograph.codegen.entry import dispatch as _entry_dispatch  # noqa: F401
import types as _types

# `x[:, ag.newaxis]`, as TensorFlow's `tf.newaxis` (and NumPy's): None.
newaxis = None

# `ag.autograph.*`: TensorFlow's `tf.autograph` names.
autograph = _types.SimpleNamespace(experimental=_experimental, to_code=to_code,
                                   do_not_convert=do_not_convert)

__version__ = "0.1.0"

# The op functions, then what is not one (dtypes, control flow, tensors, the decorator, ...).
__all__ = [*_op_functions,
           "DType", "as_dtype", "bool", "int32", "int64", "float32", "float64", "string", "cond",
           "int8", "int16", "uint8", "uint16", "uint32", "uint64", "complex64", "complex128",
           "while_loop", "TensorArray", "math", "nn", "random", "bitwise", "linalg", "Tensor", "constant",
           "convert_to_tensor", "TensorSpec", "PolymorphicFunction", "function", "ConcreteFunction",
           "Variable", "Module", "keras", "to_code", "do_not_convert", "config", "errors", "debugging",
           "TensorShape", "name_scope", "newaxis", "GradientTape",
           "autograph"]
