"""NumPy's array creation functions with traced or static sizes: `np.zeros`,
`np.ones`, `np.empty`, `np.full`, their `*_like` forms, `np.arange`,
`np.linspace`, `np.eye`, giving tensors.

NumPy does not dispatch `np.zeros(n)` to a tensor (`__array_function__`
only fires for array arguments), so converted code routes calls of these
NumPy callables here while a trace is active (`ROUTES`, used by
`autograph.operators.calls.converted_call`); the `*_like` forms are also
reached through the NumPy protocol (`LIKE`). Outside a trace they stay
NumPy's.

dtypes follow NumPy, since these are NumPy's functions: float64 for
`zeros`/`ones`/`empty`/`eye`/`linspace` by default, int64 for `arange` of
integers (float64 when an argument is a float), `full`'s from its fill value
(Python int -> int64, float -> float64, a tensor's own), the prototype's for
the `*_like` forms; `dtype=` (NumPy dtypes, Python types as NumPy reads
them: `int` is int64, `float` float64, or `ag` dtypes) is honoured. `np.empty`
gives zeros (a tensor's contents are always defined), as does the
constructor `np.ndarray(shape, dtype)` (no `buffer=`/`strides=` views).
"""
from __future__ import annotations

import numbers

import numpy as np

from .common import is_tensor_like, locate_errors, prepare
from .construct import range as ag_range, shape_operands
from .elementwise import (cast, equal, greater, logical_and, maximum, multiply, subtract, where,
    add, divide, mod)
from .numpy_functions import dims_of, reject, tensor_operand
from .shaping import eye as ag_eye, reshape
from ..core.types import DType, as_dtype, float64, int64
from ..tracing.symbolic import bind

__all__ = ["np_dtype", "np_zeros", "np_ones", "np_empty", "np_ndarray", "np_full", "np_zeros_like",
           "np_ones_like", "np_empty_like", "np_full_like", "np_arange", "np_linspace",
           "np_eye", "ROUTES", "LIKE"]


def np_dtype(dtype, default: DType) -> DType:
    """`dtype` as NumPy reads it (`float` -> float64, `int` -> int64), as an
    autograph dtype; `default` when None."""
    if dtype is None:
        return default
    if isinstance(dtype, DType):
        return dtype
    try:
        return as_dtype(np.dtype(dtype))
    except TypeError as e:
        raise TypeError(f"dtype {dtype!r} is not supported: {e}") from None


def _shape(op: str, shape):
    """NumPy's `shape` argument as `fill` dimension operands: an int, a traced
    int scalar, or a sequence of these."""
    if is_tensor_like(shape) and shape.shape == ():
        shape = [shape]
    elif isinstance(shape, tuple) and type(shape) is not tuple:
        shape = list(shape)   # a traced tensor's shape: its dims, traced where dynamic
    return shape_operands(op, shape)


def _no_layout(op: str, order, device, like):
    if order not in ("C", "K", "A", None):
        raise ValueError(f"np.{op}: order={order!r} is not supported (tensors are row-major)")
    reject(op, device=device, like=like)


def _fill_dims(op: str, dims, value):
    return bind("fill", *dims, value)


@locate_errors
def np_zeros(shape, dtype=float, order="C", *, device=None, like=None):
    """NumPy's `zeros`: a tensor of `shape` (ints or traced int scalars) filled
    with zeros, float64 by default."""
    _no_layout("zeros", order, device, like)
    d = np_dtype(dtype, float64)
    return _fill_dims("zeros", _shape("zeros", shape), np.zeros((), d.np_dtype))


@locate_errors
def np_empty(shape, dtype=float, order="C", *, device=None, like=None):
    """NumPy's `empty`: as `zeros` (a tensor's contents are always defined)."""
    return np_zeros(shape, dtype, order, device=device, like=like)


@locate_errors
def np_ndarray(shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
    """NumPy's `ndarray` constructor (`np.ndarray((I, J), dtype=x.dtype)`, an
    uninitialised array in NumPy): as `empty`. A `buffer` or `strides` (a view
    of existing memory) is refused."""
    if buffer is not None or strides is not None or offset:
        raise TypeError("np.ndarray: buffer=, offset= and strides= (a view of existing memory) "
                        "are not supported on tensors; use np.empty(shape, dtype)")
    return np_zeros(shape, dtype, order or "C")


@locate_errors
def np_ones(shape, dtype=None, order="C", *, device=None, like=None):
    """NumPy's `ones`: a tensor of `shape` filled with ones, float64 by default."""
    _no_layout("ones", order, device, like)
    d = np_dtype(dtype, float64)
    return _fill_dims("ones", _shape("ones", shape), np.ones((), d.np_dtype))


def _fill_value(op: str, value, dtype):
    """The scalar `value` as a fill operand of `dtype` (None: NumPy's dtype of it)."""
    if is_tensor_like(value):
        if value.shape != ():
            raise ValueError(f"np.{op}: fill_value must be a scalar, got a tensor of shape "
                             f"{value.shape}")
        return value if dtype is None or value.dtype is dtype else cast(value, dtype)
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise ValueError(f"np.{op}: fill_value must be a scalar, got shape {arr.shape}")
    if arr.dtype.kind not in "biufc":
        raise TypeError(f"np.{op}: fill_value must be a number or bool, got {value!r}")
    return arr.astype(dtype.np_dtype) if dtype is not None else arr


@locate_errors
def np_full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """NumPy's `full`: a tensor of `shape` filled with the scalar `fill_value`
    (its NumPy dtype: a Python int gives int64, a float float64)."""
    _no_layout("full", order, device, like)
    d = None if dtype is None else np_dtype(dtype, float64)
    return _fill_dims("full", _shape("full", shape), _fill_value("full", fill_value, d))


def _like(op: str, a, dtype, order, subok, shape, device, value):
    _no_layout(op, order, device, None)
    reject(op, shape=shape)
    x = tensor_operand(op, a)
    d = np_dtype(dtype, x.dtype)
    if x.shape is None:
        raise ValueError(f"np.{op}: expected a tensor of known rank")
    return _fill_dims(op, shape_operands(op, dims_of(x)), _fill_value(op, value, d))


@locate_errors
def np_zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """NumPy's `zeros_like`: zeros of `a`'s shape and dtype (or `dtype`)."""
    return _like("zeros_like", a, dtype, order, subok, shape, device, 0)


@locate_errors
def np_ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """NumPy's `ones_like`: ones of `a`'s shape and dtype (or `dtype`)."""
    return _like("ones_like", a, dtype, order, subok, shape, device, 1)


@locate_errors
def np_empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """NumPy's `empty_like`: as `zeros_like`."""
    return _like("empty_like", prototype, dtype, order, subok, shape, device, 0)


@locate_errors
def np_full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """NumPy's `full_like`: `fill_value` (cast to `a`'s dtype, or `dtype`) in `a`'s shape."""
    return _like("full_like", a, dtype, order, subok, shape, device, fill_value)


def _is_float(v) -> bool:
    if is_tensor_like(v):
        d = v.dtype if isinstance(v.dtype, DType) else as_dtype(v.dtype)
        return d.is_floating
    return isinstance(v, (float, np.floating))


@locate_errors
def np_arange(start, stop=None, step=None, dtype=None, *, device=None, like=None):
    """NumPy's `arange`: `start, start + step, ...` below `stop`; bounds may be
    traced scalars (a compiled range). int64 for integers, float64 when an
    argument is a float, or `dtype`."""
    reject("arange", device=device, like=like)
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    args = (start, stop, step)
    for a in args:
        if is_tensor_like(a) and a.shape != ():
            raise ValueError(f"np.arange: the bounds must be scalars, got a tensor of shape {a.shape}")
    default = float64 if any(_is_float(a) for a in args) else int64
    return ag_range(start, stop, step, dtype=np_dtype(dtype, default))


def _count(num):
    if isinstance(num, bool):
        raise TypeError("np.linspace: num must be an int")
    if isinstance(num, numbers.Integral):
        if num < 0:
            raise ValueError(f"np.linspace: num must be non-negative, got {num}")
        return int(num)
    if is_tensor_like(num) and num.shape == () and num.dtype.is_integer:
        # NumPy refuses a negative count; a traced one is checked when the code runs
        # (a range of it would silently be empty).
        bind("check", greater(num, -1), message="np.linspace: num must be non-negative")
        return num
    raise TypeError(f"np.linspace: num must be an int or a traced int scalar, got {num!r}")


@locate_errors
def np_linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
                device=None):
    """NumPy's `linspace`: `num` evenly spaced values from `start` to `stop`
    (scalars, possibly traced; `num` an int or traced int scalar)."""
    reject("linspace", device=device)
    if axis != 0:
        raise ValueError(f"np.linspace: axis={axis!r} is not supported (scalar bounds give 1-D)")
    n = _count(num)
    floats = [v for v in (start, stop) if is_tensor_like(v) and v.dtype.is_floating]
    work = floats[0].dtype if floats else float64
    lo, hi = prepare("linspace", start, stop)
    lo = lo if is_tensor_like(lo) and lo.dtype is work else cast(lo, work)
    hi = hi if is_tensor_like(hi) and hi.dtype is work else cast(hi, work)
    if lo.shape != () or hi.shape != ():
        raise ValueError("np.linspace: start and stop must be scalars")
    steps = (n - 1 if endpoint else n) if isinstance(n, int) else (
        subtract(n, 1) if endpoint else n)
    # NumPy: with no interval (num <= 1) the values are `start` and the step NaN.
    div = cast(maximum(steps, 1), work) if not isinstance(steps, int) else float(max(steps, 1))
    step = divide(subtract(hi, lo), div)
    index = cast(ag_range(0, n, 1), work)
    y = add(multiply(index, step), lo)
    if endpoint:
        # NumPy sets the last value to `stop` exactly (when there are two or more).
        last = equal(ag_range(0, n, 1), subtract(n, 1))
        y = where(logical_and(last, greater(n, 1)) if not isinstance(n, int) else last, hi, y) \
            if not isinstance(n, int) or n > 1 else y
    out_dtype = np_dtype(dtype, work)
    if out_dtype is not work:
        if out_dtype.is_integer:
            y = subtract(y, mod(y, 1.0))   # NumPy floors before an integer cast
        y = cast(y, out_dtype)
    if retstep:
        if isinstance(steps, int):
            step = cast(np.asarray(np.nan), work) if steps <= 0 else step
        else:
            step = where(greater(steps, 0), step, cast(np.asarray(np.nan), work))
        return y, step
    return y


@locate_errors
def np_eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    """NumPy's `eye`: an N x M matrix (square by default) with ones on the k-th
    diagonal, float64 by default; N and M may be traced int scalars."""
    _no_layout("eye", order, device, like)
    d = np_dtype(dtype, float64)
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"np.eye: k must be an int known at trace time, got {k!r}")
    if k == 0:
        return ag_eye(N, M, dtype=d)
    M = N if M is None else M
    rows = reshape(ag_range(0, N, 1, dtype=int64), [-1, 1])
    cols = reshape(ag_range(0, M, 1, dtype=int64), [1, -1])
    return cast(equal(add(rows, int(k)), cols), d)


def _array_of(numpy_fn):
    """`np.asarray(x)` / `np.array(x)` / `np.ascontiguousarray(x)`: a traced
    tensor (or a variable, read) is already an array, so it is returned as a
    tensor (cast when `dtype` is given, with leading axes up to `ndmin`);
    anything else goes to NumPy (an array, a constant of the trace)."""
    def fn(a, dtype=None, *args, **kwargs):
        traced = getattr(a, "_ag_variable", False) or (
            is_tensor_like(a) and not isinstance(a, np.ndarray) and hasattr(a, "builder"))
        if not traced:
            return numpy_fn(a, dtype, *args, **kwargs)
        if getattr(a, "_ag_variable", False):
            a = a.read_value()
        ndmin = kwargs.pop("ndmin", 0)
        for k, v in kwargs.items():
            if k not in ("order", "copy", "like", "subok") or (k == "order" and v not in
                                                                  ("C", "K", "A", None)):
                raise ValueError(f"np.{numpy_fn.__name__}: {k}={v!r} is not supported on a "
                                 f"traced tensor")
        if dtype is not None:
            d = np_dtype(dtype, float64)
            a = a if a.dtype is d else cast(a, d)
        rank = len(a.shape) if a.shape is not None else None
        if ndmin and rank is not None and rank < ndmin:
            a = reshape(a, [1] * (ndmin - rank) + dims_of(a))
        return a
    fn.__name__ = numpy_fn.__name__
    fn.__doc__ = f"NumPy's `{numpy_fn.__name__}` of a traced tensor: the tensor (see `_array_of`)."
    return locate_errors(fn)


# NumPy callable -> its tensor form, for converted code while tracing.
ROUTES = {
    np.zeros: np_zeros, np.ones: np_ones, np.empty: np_empty, np.full: np_full,
    np.ndarray: np_ndarray,
    np.zeros_like: np_zeros_like, np.ones_like: np_ones_like, np.empty_like: np_empty_like,
    np.full_like: np_full_like, np.arange: np_arange, np.linspace: np_linspace, np.eye: np_eye,
    np.asarray: _array_of(np.asarray), np.array: _array_of(np.array),
    np.ascontiguousarray: _array_of(np.ascontiguousarray),
}

# The `*_like` forms NumPy dispatches to tensors itself (`__array_function__`).
LIKE = {"empty_like": np_empty_like, "full_like": np_full_like}
