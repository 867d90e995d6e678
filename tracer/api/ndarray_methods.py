"""The NumPy array methods of tensors (`x.sum()`, `x.T`, `x.reshape(2, -1)`,
`x.astype(np.float64)`, `x.item()`, ...), with NumPy's signatures.

`autograph.tracer.tracing.array_methods.ArrayMethods` (a base of every
tensor class: eager, traced, variables) forwards each method here; this
module sits above tracing, so it may use the public functions. Each method
is the NumPy function of the same name on the tensor (`x.var(ddof=1)` is
`np.var(x, ddof=1)`), with the same dtype rules (`x.mean()` of integers stays
an integer as `np.mean` on a tensor does; `var`/`std` compute in float64).
"""
from __future__ import annotations

import numbers

import numpy as np

from .common import is_tensor_like, locate_errors
from .elementwise import cast
from .numpy_functions import (NO, Unsupported, bool_as_number, np_dot, np_std, np_var,
    numpy_reduction, reject)
from .reduce import reduce_all, reduce_any, reduce_max, reduce_mean, reduce_min, reduce_prod, \
    reduce_sum
from .scans import argmax as _argmax, argmin as _argmin, cumsum as _cumsum
from .shaping import expand_dims, reshape as _reshape, size as _size, transpose as _transpose
from .numpy_creation import np_dtype
from ..core.errors import with_location
from ..core.types import float64
from ..core.location import user_location
from ..tracing.symbolic import SymbolicTensor, wrap_eager

__all__ = ["call", "METHODS"]


def _fail(name: str, e: Unsupported) -> TypeError:
    what = str(e)
    if what == "the out= argument":
        text = (f"{name}(): the out= argument is not supported: tensors are immutable, so a "
                f"result cannot be written into an existing array; assign the result instead")
    else:
        text = f"{name}(): {what} is not supported on a tensor"
    return with_location(TypeError(text), user_location())


def _reduction(fn):
    def method(x, axis=None, dtype=None, out=None, keepdims=False, initial=NO, where=NO):
        reject(fn.__name__, dtype=dtype, out=out, initial=initial, where=where)
        return numpy_reduction(fn, x, axis, keepdims)
    return method


def _bool_reduction(fn):
    def method(x, axis=None, out=None, keepdims=False, *, where=NO):
        reject(fn.__name__, out=out, where=where)
        return numpy_reduction(fn, x, axis, keepdims)
    return method


def _arg(fn):
    def method(x, axis=None, out=None, *, keepdims=False):
        reject(fn.__name__, out=out)
        if axis is None:     # NumPy: the index into the flattened array
            r = fn(_reshape(x, [-1]), axis=0)
            return _reshape(r, [1] * x.ndim) if keepdims else r
        r = fn(x, axis=axis)
        return expand_dims(r, axis) if keepdims else r
    return method


def cumsum(x, axis=None, dtype=None, out=None):
    """`x.cumsum(axis=None)`: running sums, of the flattened tensor when axis is None."""
    reject("cumsum", dtype=dtype, out=out)
    x = bool_as_number("cumsum", x)
    return _cumsum(_reshape(x, [-1]), axis=0) if axis is None else _cumsum(x, axis=axis)


def _shape_args(op: str, shape):
    """`reshape(2, 3)`, `reshape((2, 3))`, `reshape([2, 3])`, `reshape(-1)`."""
    if len(shape) == 1 and not isinstance(shape[0], numbers.Integral) and not (
            is_tensor_like(shape[0]) and shape[0].shape == ()):
        shape = shape[0]
    if isinstance(shape, tuple) and type(shape) is not tuple:
        shape = list(shape)    # a tensor's shape: traced where dynamic
    return list(shape) if isinstance(shape, (tuple, list)) else shape


def ordered_reshape(x, shape, order="C"):
    """`x` reshaped in NumPy's `order`: "C" row-major; "F" column-major (the reversed
    axes reshaped to the reversed shape, reversed again); "A" and "K" read a tensor
    as "C" (it is always row-major)."""
    if order in ("C", "A", "K"):
        return _reshape(x, shape)
    if order != "F":
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    dims = list(shape) if isinstance(shape, (list, tuple)) else [shape]
    return _transpose(_reshape(_transpose(x), dims[::-1]))


def reshape(x, *shape, order="C", copy=None):
    """`x.reshape(*shape)`: NumPy's method (one -1 is inferred; `order` "C" or "F")."""
    if not shape:
        raise TypeError("reshape() takes a shape: x.reshape(2, 3) or x.reshape((2, 3))")
    return ordered_reshape(x, _shape_args("reshape", shape), order)


def transpose(x, *axes):
    """`x.transpose(*axes)`: reversed axes with no argument, else the permutation."""
    if not axes or (len(axes) == 1 and axes[0] is None):
        return _transpose(x)
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    return _transpose(x, perm=list(axes))


def flatten(x, order="C"):
    """`x.flatten()`: a 1-D tensor of the elements (row-major; column-major for "F")."""
    return ordered_reshape(x, [-1], order)


def copy(x, order="C"):
    """`x.copy()`: a tensor equal to `x` that is a separate value for item
    assignment (`y = x.copy(); y[0] = 1` leaves `x` alone, as it always does).
    A variable gives a snapshot of its current value."""
    if order not in ("C", "K", "A"):
        raise Unsupported(f"order={order!r}")
    if getattr(x, "_ag_variable", False):
        return x.read_value()
    if isinstance(x, SymbolicTensor):
        # A new handle on the same value: the graph needs no copy op (values
        # are immutable), but it is a distinct Python object, so code that
        # tracks which names alias an argument sees a fresh array.
        return type(x)(x.value, x.builder)
    return wrap_eager(np.array(x._array, copy=True))


def astype(x, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """`x.astype(dtype)`: NumPy's cast (Python `int` means int64, `float` float64)."""
    if casting != "unsafe":
        raise Unsupported(f"casting={casting!r}")
    d = np_dtype(dtype, float64)
    if x.dtype is d and not copy:
        return x
    return cast(x, d)


def item(x, *args):
    """`x.item()`: the single element; eager tensors give a Python scalar,
    traced ones a 0-d tensor. `x.item(i)` picks element i of the flattened
    tensor."""
    shape = x.shape
    if args:
        if len(args) == 1 and isinstance(args[0], numbers.Integral):
            flat = _reshape(x, [-1])
            r = flat[int(args[0])]
        else:
            r = x[tuple(args[0]) if len(args) == 1 and isinstance(args[0], tuple) else args]
    else:
        if shape is not None and None not in shape:
            n = int(np.prod(shape, dtype=np.int64))
            if n != 1:
                raise with_location(ValueError(
                    f"item(): can only convert a tensor of exactly one element to a scalar, "
                    f"got a tensor of shape {tuple(shape)} ({n} elements)"), user_location())
        # (a run-time shape is checked by reshape when the code runs)
        r = _reshape(x, [])
    if isinstance(r, SymbolicTensor):
        return r
    return np.asarray(r).item()


def dot(x, b, out=None):
    """`x.dot(b)`: NumPy's `dot`."""
    return np_dot(x, b, out=out)


def var(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=NO, mean=NO,
        correction=NO):
    """`x.var(axis=None, ddof=0, keepdims=False)`: NumPy's `var`."""
    return np_var(x, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                  correction=correction)


def std(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=NO, mean=NO,
        correction=NO):
    """`x.std(axis=None, ddof=0, keepdims=False)`: NumPy's `std`."""
    return np_std(x, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                  correction=correction)


def size(x):
    """`x.size`: a Python int when the shape is static, else a traced int32 scalar."""
    shape = x.shape
    if shape is not None and None not in shape:
        return int(np.prod(shape, dtype=np.int64))
    return _size(x)


def T(x):   # noqa: N802  (NumPy's name)
    """`x.T`: the axes reversed (a no-op for rank 0 and 1)."""
    if x.shape is not None and len(x.shape) < 2:
        return x
    return _transpose(x)


def _named(name, fn):
    fn.__name__ = fn.__qualname__ = name
    return fn


METHODS = {
    "sum": _named("sum", _reduction(reduce_sum)), "mean": _named("mean", _reduction(reduce_mean)),
    "max": _named("max", _reduction(reduce_max)), "min": _named("min", _reduction(reduce_min)),
    "prod": _named("prod", _reduction(reduce_prod)),
    "any": _named("any", _bool_reduction(reduce_any)),
    "all": _named("all", _bool_reduction(reduce_all)),
    "argmax": _named("argmax", _arg(_argmax)), "argmin": _named("argmin", _arg(_argmin)),
    "cumsum": cumsum, "reshape": reshape, "transpose": transpose, "flatten": flatten,
    "ravel": _named("ravel", lambda x, order="C": flatten(x, order)), "copy": copy,
    "astype": astype, "item": item, "dot": dot, "var": var, "std": std, "size": size, "T": T,
}


def _via_numpy(name: str):
    """A method that is NumPy's function of that name on the tensor (through
    the NumPy protocol, so it follows the dispatch table: `x.clip(0, 1)` is
    `np.clip(x, 0, 1)`)."""
    def method(x, *args, **kwargs):
        return getattr(np, name)(x, *args, **kwargs)
    return _named(name, method)


# Methods that are NumPy functions with the array first (see `_via_numpy`).
VIA_NUMPY = ("clip", "round", "cumprod", "argsort", "squeeze", "swapaxes", "nonzero", "conj",
             "conjugate", "diagonal", "trace", "repeat", "take", "searchsorted", "real", "imag")
METHODS.update({name: _via_numpy(name) for name in VIA_NUMPY})


def sort(x, axis=-1, kind=None, order=None):
    """`x.sort()` sorts in place in NumPy; a tensor cannot change: refused."""
    raise with_location(TypeError(
        "sort(): x.sort() sorts an array in place, and tensors are immutable; write "
        "x = np.sort(x) instead"), user_location())


def fill(x, value):
    """`x.fill(v)` writes in place in NumPy; a tensor cannot change: refused."""
    raise with_location(TypeError(
        "fill(): x.fill(v) writes into an array in place, and tensors are immutable; write "
        "x = np.full_like(x, v) instead"), user_location())


def tolist(x):
    """`x.tolist()`: nested Python lists of an eager tensor's values (a traced
    tensor's values only exist when the compiled code runs)."""
    if isinstance(x, SymbolicTensor):
        raise with_location(TypeError(
            "tolist(): a traced tensor has no Python values while the function is traced; "
            "use it as a tensor, or call .tolist() on the result outside the function"),
            user_location())
    return np.asarray(x).tolist()


METHODS.update({"sort": sort, "fill": fill, "tolist": tolist})


def call(name: str, x, args, kwargs):
    """Run array method `name` on tensor `x` (Unsupported arguments become a
    TypeError naming the method, at the user's line)."""
    fn = METHODS[name]
    try:
        return locate_errors(fn)(x, *args, **kwargs)
    except Unsupported as e:
        raise _fail(name, e) from None

