"""The numeric builtins (`abs`, `min`, `max`, `round`, `int`, `float`, `complex`, `bool`,
`sum`, `any`, `all`, `pow`, `divmod`) on traced values in converted code.

`converted_call` sends a call of one of these builtins here when an argument
is a traced tensor (API.md section 9); with Python values the builtin runs
as it is. Each overload stages the ag op that computes what the builtin
would have computed on the value: `max(m, v[i])` is `v[i] if v[i] > m else m`, `int(t)`
a cast to int64, `bool(t)` a traced bool (so `if bool(t):` still compiles as
a converted condition).
"""
from __future__ import annotations

import builtins
import functools
import operator

from . import _tracer

__all__ = ["OVERLOADS", "call_builtin", "resolve_op"]


def _ops():
    from autograph.tracer.api import math as ag_math, toplevel
    return toplevel, ag_math


def resolve_op(*names):
    """The first of the public ag functions `names` that exists (`ag.x` or `ag.math.x`), or None.

    The ops some overloads need (`floor`, `round`, `atan2`, ...) are looked up
    by name when called, so an op added to the library is used at once.
    """
    for module in _ops():
        for name in names:
            fn = getattr(module, name, None)
            if callable(fn):
                return fn
    return None


def need_op(python_name: str, *names):
    """`resolve_op(*names)`, or a located NotImplementedError naming `python_name`."""
    fn = resolve_op(*names)
    if fn is None:
        raise _tracer.located(NotImplementedError(
            f"{python_name} on a traced tensor is not supported yet: the library has no "
            f"{' / '.join('ag.' + n for n in names)} op to compile it to"))
    return fn


def _traced(*values) -> bool:
    return builtins.any(_tracer.is_traced(v) for v in values)


def _as_tensor(x):
    return _tracer.as_traced(x)


def _scalar(python_name: str, x):
    """`x` (traced) as a rank-0 tensor; an error naming `python_name` if it has more elements."""
    shape = x.shape
    if shape is not None and len(shape) == 0:
        return x
    if shape is not None and builtins.all(d == 1 for d in shape):
        return _ops()[0].reshape(x, ())
    raise _tracer.located(TypeError(
        f"{python_name}() of a traced tensor of shape {shape}: only a tensor with one element "
        f"converts to a Python scalar (as in NumPy); use ag.cast(t, dtype) to convert every "
        f"element"))


def _is_float(x) -> bool:
    return x.dtype.is_floating


def _cast(x, dtype_name: str):
    from autograph.tracer.core.types import as_dtype
    dtype = as_dtype(dtype_name)
    return x if x.dtype == dtype else _ops()[0].cast(x, dtype)


def _to_bool(x):
    if x.dtype.name == "bool":
        return x
    return _ops()[0].not_equal(x, 0)


# ------------------------------------------------------------------ casts


def int_(x=0, *rest):
    """`int(t)`: the tensor cast to int64 (a float truncates toward zero, as `int` does)."""
    if rest or not _tracer.is_traced(x):
        return builtins.int(x, *rest)
    return _cast(_scalar("int", x), "int64")


def float_(x=0.0):
    """`float(t)`: the tensor cast to float64."""
    if not _tracer.is_traced(x):
        return builtins.float(x)
    return _cast(_scalar("float", x), "float64")


def complex_(real=0, imag=0):
    """`complex(re, im)`: a complex128 tensor `re + im * 1j` (Python's complex is double);
    `complex(t)` of one tensor is `t` cast to complex128."""
    if not _traced(real, imag):
        return builtins.complex(real, imag)
    api = _ops()[0]
    parts = [_cast(_scalar("complex", _as_tensor(v)), "complex128") for v in (real, imag)]
    if not _tracer.is_traced(imag) and imag == 0:
        return parts[0]
    # re + i*im; the imaginary part times 1j is exact for finite values.
    return api.add(parts[0], api.multiply(parts[1], 1j))


def bool_(x=False):
    """`bool(t)`: a traced bool (`t != 0`), so that `if bool(t):` compiles as a condition."""
    if not _tracer.is_traced(x):
        return builtins.bool(x)
    return _to_bool(_scalar("bool", x))


def round_(x, ndigits=None):
    """`round(t)`: int64, halves to even as Python; `round(t, n)`: the same dtype, as `np.round`."""
    if not _traced(x, ndigits):
        return builtins.round(x) if ndigits is None else builtins.round(x, ndigits)
    if _tracer.is_traced(ndigits):
        raise _tracer.located(TypeError(
            "round(x, ndigits): ndigits must be a Python int, not a traced tensor"))
    x = _as_tensor(x)
    if not _is_float(x):
        if ndigits is None:
            return _cast(x, "int64")
        if ndigits >= 0:
            return x
        scale = 10 ** (-ndigits)
        rounded = need_op("round", "round", "rint")(_cast(x, "float64") / scale) * scale
        return _cast(rounded, x.dtype.name)
    rint = need_op("round", "round", "rint")
    if ndigits is None:
        return _cast(rint(x), "int64")
    if ndigits >= 0:
        scale = 10.0 ** ndigits
        return rint(x * scale) / scale
    scale = 10.0 ** (-ndigits)
    return rint(x / scale) * scale


# ------------------------------------------------------------ min and max


def _refuse_keywords(name: str, kwargs: dict) -> None:
    for key in kwargs:
        if key in ("key", "default"):
            raise _tracer.located(NotImplementedError(
                f"{name}(..., {key}=...) with traced tensors is not supported: {name} compiles to "
                f"ag.{'maximum' if name == 'max' else 'minimum'} (elementwise) or "
                f"ag.reduce_{name} (one tensor), which take no {key}; compute the value you "
                f"compare (or the default with ag.where) explicitly"))
        raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")


def _extremum(name: str, args, kwargs):
    toplevel = _ops()[0]
    pairwise = _python_max if name == "max" else _python_min
    reduce = toplevel.reduce_max if name == "max" else toplevel.reduce_min
    if len(args) == 1:
        (items,) = args
        if _tracer.is_traced(items):
            _refuse_keywords(name, kwargs)
            if items.shape is None or len(items.shape) != 1:
                raise _tracer.located(TypeError(
                    f"{name}() of one traced tensor of shape {items.shape}: Python's {name} "
                    f"iterates over the first axis, which needs a 1-D tensor; use "
                    f"ag.reduce_{name}(t) for the {name}imum of all elements"))
            if items.shape[0] == 0:
                raise _tracer.located(ValueError(f"{name}() arg is an empty sequence"))
            return reduce(items)
        items = list(items)   # (a generator is consumed once)
        if not _traced(*items):
            return getattr(builtins, name)(items, **kwargs)
        args = tuple(items)
    if not _traced(*args):
        return getattr(builtins, name)(*args, **kwargs)
    _refuse_keywords(name, kwargs)
    if not args:
        raise _tracer.located(ValueError(f"{name}() arg is an empty sequence"))
    return functools.reduce(pairwise, args)


def _python_max(best, item):
    """Python's (and Numba's) step of `max`: the item replaces the best so far only when
    `item > best`. So a NaN first argument is kept and a later NaN is passed over, and on
    a tie (0.0 and -0.0) the first stays: what the same code computes on NumPy scalars
    (`ag.maximum` would propagate any NaN, as `np.maximum` does). One compare and
    select, which a loop carries as a single max instruction."""
    toplevel = _ops()[0]
    return toplevel.where(toplevel.greater(item, best), item, best)


def _python_min(best, item):
    """Python's step of `min`: the item replaces the best so far only when `item < best`."""
    toplevel = _ops()[0]
    return toplevel.where(toplevel.less(item, best), item, best)


def max_(*args, **kwargs):
    """`max(a, b, ...)` with a traced argument: Python's comparisons folded over them;
    `max(t)` of a 1-D tensor: `ag.reduce_max(t)`."""
    return _extremum("max", args, kwargs)


def min_(*args, **kwargs):
    """`min(a, b, ...)` with a traced argument: Python's comparisons folded over them;
    `min(t)` of a 1-D tensor: `ag.reduce_min(t)`."""
    return _extremum("min", args, kwargs)


# -------------------------------------------------------------- the rest


def abs_(x):
    """`abs(t)`: `ag.abs`."""
    if not _tracer.is_traced(x):
        return builtins.abs(x)
    return _ops()[0].abs(x)


def _first_axis(name: str, x):
    if x.shape is None or len(x.shape) != 1:
        raise _tracer.located(TypeError(
            f"{name}() of a traced tensor of shape {x.shape}: Python's {name} iterates over the "
            f"first axis, which needs a 1-D tensor here; use ag.reduce_{name}(t, axis=0) "
            f"instead"))
    return x


def sum_(iterable, start=0):
    """`sum(t)` of a traced 1-D tensor: `start + ag.reduce_sum(t)`."""
    if not _tracer.is_traced(iterable):
        return builtins.sum(iterable, start)
    total = _ops()[0].reduce_sum(_first_axis("sum", iterable))
    return total if (not _tracer.is_traced(start) and start == 0) else start + total


def any_(iterable):
    """`any(t)` of a traced 1-D tensor: whether an element is non-zero."""
    if not _tracer.is_traced(iterable):
        return builtins.any(iterable)
    return _ops()[0].reduce_any(_to_bool(_first_axis("any", iterable)))


def all_(iterable):
    """`all(t)` of a traced 1-D tensor: whether every element is non-zero."""
    if not _tracer.is_traced(iterable):
        return builtins.all(iterable)
    return _ops()[0].reduce_all(_to_bool(_first_axis("all", iterable)))


def pow_(base, exp, mod=None):
    """`pow(a, b)`: `a ** b`; the three-argument form is refused on traced values."""
    if not _traced(base, exp, mod):
        return builtins.pow(base, exp) if mod is None else builtins.pow(base, exp, mod)
    if mod is not None:
        raise _tracer.located(NotImplementedError(
            "pow(base, exp, mod) with traced tensors is not supported; write (base ** exp) % mod"))
    return operator.pow(base, exp)


def divmod_(a, b):
    """`divmod(a, b)`: `(a // b, a % b)`."""
    if not _traced(a, b):
        return builtins.divmod(a, b)
    return operator.floordiv(a, b), operator.mod(a, b)


OVERLOADS = {
    builtins.abs: abs_, builtins.max: max_, builtins.min: min_, builtins.round: round_,
    builtins.int: int_, builtins.float: float_, builtins.complex: complex_, builtins.bool: bool_,
    builtins.sum: sum_,
    builtins.any: any_, builtins.all: all_, builtins.pow: pow_, builtins.divmod: divmod_,
}


def call_builtin(f, args, kwargs):
    """Call the overload of builtin `f` (a key of OVERLOADS)."""
    return OVERLOADS[f](*args, **kwargs)
