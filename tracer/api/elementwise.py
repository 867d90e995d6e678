"""Public elementwise functions, `where`, `cast` and `matmul`.

Each normalises its arguments (`autograph.tracer.api.common.prepare`: weak Python
numbers, arrays, lists) and applies one op with `autograph.tracer.tracing.symbolic.bind`, which
records it while tracing or runs its NumPy reference eagerly. The optional
`name` argument of every function exists for TensorFlow compatibility and is
ignored.
"""
from __future__ import annotations

from .common import locate_errors, prepare
from ..core.convert import is_weak
from ..tracing.symbolic import WeakSymbolicTensor, bind, is_traced
from ..core.types import as_dtype

__all__ = [
    "negative", "abs", "sign", "square", "sqrt", "exp", "log", "sin", "cos", "tan", "tanh",
    "sigmoid", "logical_not", "bitwise_not",
    "add", "subtract", "multiply", "divide", "floordiv", "mod", "pow", "maximum", "minimum",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
    "where", "cast", "matmul",
]


def _stays_weak(operands, result):
    """While a loop body is traced to learn its dtypes, arithmetic on weak
    placeholders and Python numbers only is itself weak (it still adopts the
    dtype of the tensors it meets later), as it would be with Python numbers."""
    if not any(getattr(o, "_ag_weak", False) for o in operands) or not all(is_weak(o) for o in operands):
        return result
    if result.dtype.is_bool:
        return result
    return WeakSymbolicTensor(result.value, result.builder)


def _unary(op: str, doc: str):
    def fn(x, name=None):
        original = (x,)
        (x,) = prepare(op, x)
        return _stays_weak(original, bind(op, x))
    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = doc
    fn.__module__ = __name__
    return locate_errors(fn)


def _binary(op: str, doc: str):
    def fn(x, y, name=None):
        original = (x, y)
        x, y = prepare(op, x, y)
        return _stays_weak(original, bind(op, x, y))
    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = doc
    fn.__module__ = __name__
    return locate_errors(fn)


_FLOAT_ONLY = " Float tensors only (TypeError for ints: use ag.cast(x, ag.float32))."
_SAME = (" Both operands have one dtype (a Python number adopts the tensor's dtype);"
         " shapes broadcast as in NumPy.")

negative = _unary("negative", "-x elementwise; integers wrap (negative(MIN) == MIN).")
abs = _unary("abs", "|x| elementwise; integers wrap (abs(MIN) == MIN).")
sign = _unary("sign", "-1, 0 or 1 elementwise, in x's dtype (NaN stays NaN).")
square = _unary("square", "x * x elementwise; integers wrap.")
sqrt = _unary("sqrt", "Square root elementwise (NaN for negative x)." + _FLOAT_ONLY)
exp = _unary("exp", "e ** x elementwise." + _FLOAT_ONLY)
log = _unary("log", "Natural logarithm elementwise (-inf at 0, NaN below)." + _FLOAT_ONLY)
sin = _unary("sin", "Sine elementwise." + _FLOAT_ONLY)
cos = _unary("cos", "Cosine elementwise." + _FLOAT_ONLY)
tan = _unary("tan", "Tangent elementwise." + _FLOAT_ONLY)
tanh = _unary("tanh", "Hyperbolic tangent elementwise." + _FLOAT_ONLY)
sigmoid = _unary("sigmoid", "1 / (1 + exp(-x)) elementwise, without overflow." + _FLOAT_ONLY)
logical_not = _unary("logical_not", "Elementwise `not` of a bool tensor.")
bitwise_not = _unary("bitwise_not", "Elementwise `~x` of an int32/int64 tensor.")

add = _binary("add", "x + y elementwise; integers wrap; string tensors concatenate." + _SAME)
subtract = _binary("subtract", "x - y elementwise; integers wrap." + _SAME)
multiply = _binary("multiply", "x * y elementwise; integers wrap." + _SAME)
divide = _binary("divide", "x / y elementwise: float64 for integer operands, else their float "
                           "dtype (division by zero gives inf/NaN)." + _SAME)
floordiv = _binary("floordiv", "x // y elementwise with Python's floor semantics; integer "
                               "division by zero raises InvalidArgumentError; MIN // -1 == MIN."
                   + _SAME)
mod = _binary("mod", "x % y elementwise with Python's semantics (the result has y's sign); "
                     "integer modulo by zero raises InvalidArgumentError; MIN % -1 == 0." + _SAME)
pow = _binary("pow", "x ** y elementwise; integers wrap, and a negative integer exponent raises "
                     "InvalidArgumentError." + _SAME)
maximum = _binary("maximum", "Elementwise maximum (NaN propagates)." + _SAME)
minimum = _binary("minimum", "Elementwise minimum (NaN propagates)." + _SAME)
equal = _binary("equal", "x == y elementwise, a bool tensor (any dtype, strings too)." + _SAME)
not_equal = _binary("not_equal", "x != y elementwise, a bool tensor (any dtype)." + _SAME)
less = _binary("less", "x < y elementwise, a bool tensor." + _SAME)
less_equal = _binary("less_equal", "x <= y elementwise, a bool tensor." + _SAME)
greater = _binary("greater", "x > y elementwise, a bool tensor." + _SAME)
greater_equal = _binary("greater_equal", "x >= y elementwise, a bool tensor." + _SAME)
logical_and = _binary("logical_and", "Elementwise `and` of bool tensors." + _SAME)
logical_or = _binary("logical_or", "Elementwise `or` of bool tensors." + _SAME)
logical_xor = _binary("logical_xor", "Elementwise exclusive or of bool tensors." + _SAME)
bitwise_and = _binary("bitwise_and", "Elementwise `&` of int32/int64 tensors." + _SAME)
bitwise_or = _binary("bitwise_or", "Elementwise `|` of int32/int64 tensors." + _SAME)
bitwise_xor = _binary("bitwise_xor", "Elementwise `^` of int32/int64 tensors." + _SAME)


@locate_errors
def where(condition, x=None, y=None, name=None):
    """Elementwise `x if condition else y`, broadcasting the three.

    `condition` is a bool tensor; `x` and `y` share one dtype (Python numbers
    adopt the other's). The one-argument form of `tf.where` (coordinates of
    the true elements) is not supported.
    """
    if x is None or y is None:
        raise TypeError("where: the one-argument form (coordinates of the true elements) is not "
                        "supported; pass x and y, e.g. ag.where(c, x, y)")
    (c,) = prepare("where", condition)
    x, y = prepare("where", x, y)
    return bind("where", c, x, y)


@locate_errors
def cast(x, dtype, name=None):
    """`x` converted elementwise to `dtype`.

    float -> int truncates toward zero (NaN gives 0, out-of-range values
    saturate); int -> int wraps; bool -> number is 1/0; number -> bool is
    `x != 0`. A Python number is first given its default dtype (int32 /
    float32), so `cast(3.7, ag.int32)` is 3. A traced tensor that already has
    `dtype` is returned as is.
    """
    dtype = as_dtype(dtype)
    (x,) = prepare("cast", x)
    if is_traced(x) and x.dtype is dtype:
        return x
    return bind("cast", x, dtype=dtype)


@locate_errors
def matmul(a, b, name=None):
    """The matrix product of rank-2 tensors a [m, k] and b [k, n] of one numeric dtype.

    Integer products wrap. Batched (rank > 2) products and transpose flags
    are not supported.
    """
    a, b = prepare("matmul", a, b)
    return bind("matmul", a, b)
