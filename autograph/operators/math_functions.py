"""The `math` module's functions on traced values in converted code.

`converted_call` sends `math.sqrt(t)`, `math.floor(t)`, ... here when an
argument is a traced tensor (API.md section 9); with Python values the
`math` function runs as it is. Each maps to the ag op computing the same
function elementwise:

* the float functions keep a float tensor's dtype; an integer or bool tensor
  is cast to float64 first, as `math` converts its argument to a Python float;
* `math.floor`, `math.ceil` and `math.trunc` return int64, as they return a
  Python int;
* `math.isnan`, `math.isinf`, `math.isfinite` return bool.

A function whose op the library does not have raises NotImplementedError
naming it.
"""
from __future__ import annotations

import math

from . import _tracer
from .numeric_builtins import need_op, resolve_op

__all__ = ["OVERLOADS"]


def _float(x):
    """`x` as a traced float tensor (integers and bools as float64)."""
    x = _tracer.as_traced(x)
    if x.dtype.is_floating:
        return x
    return resolve_op("cast")(x, "float64")


def _floats(*xs):
    """Several arguments as floats of one dtype: the traced ones decide, Python numbers follow."""
    traced = [_float(x) for x in xs if _tracer.is_traced(x)]
    dtype = traced[0].dtype
    for t in traced[1:]:
        if t.dtype != dtype:
            dtype = max((dtype, t.dtype), key=lambda d: d.size)
    out = []
    for x in xs:
        if _tracer.is_traced(x):
            x = _float(x)
            out.append(x if x.dtype == dtype else resolve_op("cast")(x, dtype))
        else:
            out.append(float(x))
    return out


def _unary(python_name, *op_names):
    def fn(x):
        return need_op(f"math.{python_name}", *op_names)(_float(x))
    fn.__name__ = python_name
    fn.__doc__ = f"`math.{python_name}(t)`: ag.{op_names[0]} of `t` as a float tensor."
    return fn


def _to_int(python_name, *op_names):
    def fn(x):
        x = _tracer.as_traced(x)
        if not x.dtype.is_floating:
            return resolve_op("cast")(x, "int64")
        return resolve_op("cast")(need_op(f"math.{python_name}", *op_names)(x), "int64")
    fn.__name__ = python_name
    fn.__doc__ = f"`math.{python_name}(t)`: ag.{op_names[0]} of `t`, cast to int64 (Python int)."
    return fn


def _binary(python_name, *op_names):
    def fn(x, y):
        a, b = _floats(x, y)
        return need_op(f"math.{python_name}", *op_names)(a, b)
    fn.__name__ = python_name
    fn.__doc__ = f"`math.{python_name}(a, b)`: ag.{op_names[0]} of the arguments as floats."
    return fn


def _predicate(python_name, *op_names):
    def fn(x):
        x = _tracer.as_traced(x)
        if not x.dtype.is_floating:   # an integer is always finite, never nan or inf
            same = resolve_op("equal" if python_name == "isfinite" else "not_equal")
            return same(x, x)
        op = resolve_op(*op_names)
        if op is not None:
            return op(x)
        # Exact compositions while the library has no such op.
        isnan = resolve_op("not_equal")(x, x)
        isinf = resolve_op("equal")(resolve_op("abs")(x), float("inf"))
        if python_name == "isnan":
            return isnan
        if python_name == "isinf":
            return isinf
        return resolve_op("logical_not")(resolve_op("logical_or")(isnan, isinf))
    fn.__name__ = python_name
    fn.__doc__ = f"`math.{python_name}(t)`: a bool tensor."
    return fn


def _fabs(x):
    """`math.fabs(t)`: the absolute value as a float tensor."""
    return resolve_op("abs")(_float(x))


def _pow(x, y):
    """`math.pow(a, b)`: `a ** b` as floats."""
    a, b = _floats(x, y)
    return a ** b


def _hypot(*coordinates):
    """`math.hypot(*xs)`: ag.hypot for two, the square root of the sum of squares otherwise."""
    xs = _floats(*coordinates)
    if len(xs) == 2:
        op = resolve_op("hypot")
        if op is not None:
            return op(xs[0], xs[1])
    total = None
    for x in xs:
        total = x * x if total is None else total + x * x
    return resolve_op("sqrt")(total)


_DEG_TO_RAD = math.pi / 180.0   # as CPython's math.degrees / math.radians compute it


def _degrees(x):
    """`math.degrees(t)`: `t / (pi / 180)`, as CPython computes it."""
    return _float(x) / _DEG_TO_RAD


def _radians(x):
    """`math.radians(t)`: `t * (pi / 180)`, as CPython computes it."""
    return _float(x) * _DEG_TO_RAD


OVERLOADS = {
    math.sqrt: _unary("sqrt", "sqrt"),
    math.exp: _unary("exp", "exp"),
    math.log: None,   # filled below (optional base)
    math.log2: _unary("log2", "log2"),
    math.log10: _unary("log10", "log10"),
    math.log1p: _unary("log1p", "log1p"),
    math.expm1: _unary("expm1", "expm1"),
    math.sin: _unary("sin", "sin"),
    math.cos: _unary("cos", "cos"),
    math.tan: _unary("tan", "tan"),
    math.asin: _unary("asin", "asin", "arcsin"),
    math.acos: _unary("acos", "acos", "arccos"),
    math.atan: _unary("atan", "atan", "arctan"),
    math.sinh: _unary("sinh", "sinh"),
    math.cosh: _unary("cosh", "cosh"),
    math.tanh: _unary("tanh", "tanh"),
    math.asinh: _unary("asinh", "asinh", "arcsinh"),
    math.acosh: _unary("acosh", "acosh", "arccosh"),
    math.atanh: _unary("atanh", "atanh", "arctanh"),
    math.floor: _to_int("floor", "floor"),
    math.ceil: _to_int("ceil", "ceil"),
    math.trunc: _to_int("trunc", "trunc"),
    math.atan2: _binary("atan2", "atan2", "arctan2"),
    math.copysign: _binary("copysign", "copysign"),
    math.fmod: _binary("fmod", "fmod"),
    math.isnan: _predicate("isnan", "is_nan", "isnan"),
    math.isinf: _predicate("isinf", "is_inf", "isinf"),
    math.isfinite: _predicate("isfinite", "is_finite", "isfinite"),
    math.erf: _unary("erf", "erf"),
    math.erfc: _unary("erfc", "erfc"),
    math.gamma: _unary("gamma", "gamma"),
    math.lgamma: _unary("lgamma", "lgamma"),
    math.fabs: _fabs,
    math.pow: _pow,
    math.hypot: _hypot,
    math.degrees: _degrees,
    math.radians: _radians,
}


def _log(x, base=None):
    """`math.log(t)` and `math.log(t, base)`: natural log, divided by log(base) with a base."""
    log = need_op("math.log", "log")
    if base is None:
        return log(_float(x))
    a, b = _floats(x, base)
    return log(a) / (log(b) if _tracer.is_traced(b) else math.log(b))


def _isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0):
    """`math.isclose(a, b)`: `abs(a - b) <= max(rel_tol * max(abs(a), abs(b)), abs_tol)`
    (a bool tensor; infinities are close only to themselves, as in `math`)."""
    x, y = _floats(a, b)
    abs_ = resolve_op("abs")
    maximum = resolve_op("maximum")
    diff = abs_(x - y)
    close = diff <= maximum(rel_tol * maximum(abs_(x), abs_(y)), abs_tol)
    return resolve_op("logical_or")(resolve_op("equal")(x, y), close)


def _gcd(*integers):
    """`math.gcd(a, b, ...)` of int tensors: Euclid's algorithm, elementwise, as a compiled loop."""
    api = _tracer.api()
    traced = [_tracer.as_traced(v) for v in integers]
    if any(not t.dtype.is_integer for t in traced):
        raise _tracer.located(TypeError("math.gcd() takes integers; got a "
                                        + ", ".join(t.dtype.name for t in traced) + " tensor"))
    result = api.abs(traced[0])
    for other in traced[1:]:
        def cond(a, b):
            return api.reduce_any(api.not_equal(b, 0))

        def body(a, b):
            nonzero = api.not_equal(b, 0)
            safe = api.where(nonzero, b, api.ones_like(b))
            return api.where(nonzero, b, a), api.where(nonzero, a % safe, b)

        result, _ = _tracer.control_flow().while_loop(cond, body, (result, api.abs(other)))
    return result


OVERLOADS[math.log] = _log
OVERLOADS[math.isclose] = _isclose
OVERLOADS[math.gcd] = _gcd


def _python_unless_traced(python_fn, staged_fn):
    """`staged_fn` when an argument is a traced tensor, else the `math` function itself."""
    def fn(*args, **kwargs):
        if any(_tracer.is_traced(a) for a in args) or any(
                _tracer.is_traced(v) for v in kwargs.values()):
            return staged_fn(*args, **kwargs)
        return python_fn(*args, **kwargs)
    fn.__name__ = getattr(staged_fn, "__name__", python_fn.__name__)
    fn.__doc__ = staged_fn.__doc__
    return fn


OVERLOADS = {f: _python_unless_traced(f, g) for f, g in OVERLOADS.items()}
if hasattr(math, "cbrt"):   # Python 3.11+
    OVERLOADS[math.cbrt] = _unary("cbrt", "cbrt")
