"""Python operators shared by eager and traced tensors.

Each operator forwards to the public op function of the same meaning, so
eager and traced tensors follow exactly the same dtype and broadcasting
rules. Those functions live above this room (`autograph.tracer.api`, which
builds on tracing), so they are handed in rather than imported: the api
package calls `install` when it is imported, and importing `autograph.tracer`
imports it.
"""
from __future__ import annotations

from ..core.errors import with_location
from ..core.location import user_location
from .array_methods import ArrayMethods, install as _install_methods

__all__ = ["TensorOperators", "install"]


class _NotInstalled:
    """Stands in for the op functions until `install` runs."""

    def __getattr__(self, name):
        raise RuntimeError(f"tensor operator: the op function {name!r} is not installed; "
                           f"import autograph.tracer (its api package installs them)")


# The op functions the operators call: an object with add, subtract, ...,
# getitem, array_ufunc and array_function attributes.
_fns = _NotInstalled()


def install(functions) -> None:
    """Give the tensor operators their op functions: an object (the module
    `autograph.tracer.api`) with the attributes the operators use."""
    global _fns
    _fns = functions
    _install_methods(functions)


def _bool_or_int_op(logical: str, bitwise: str):
    def method(self, other):
        return getattr(_fns, logical if self.dtype.is_bool else bitwise)(self, other)

    def rmethod(self, other):
        return getattr(_fns, logical if self.dtype.is_bool else bitwise)(other, self)

    return method, rmethod


class TensorOperators(ArrayMethods):
    """Mixin giving a tensor class `+ - * / // % ** @`, comparisons, `& | ^ ~ << >>`,
    unary `-`, `abs()` and indexing, and NumPy's array methods (`ArrayMethods`)."""

    __slots__ = ()
    # Tensors compare elementwise, so hashing falls back to identity.
    __hash__ = object.__hash__
    # Let our reflected operators win over NumPy's when an ndarray is on the left.
    __array_priority__ = 1000

    def __add__(self, o): return _fns.add(self, o)
    def __radd__(self, o): return _fns.add(o, self)
    def __sub__(self, o): return _fns.subtract(self, o)
    def __rsub__(self, o): return _fns.subtract(o, self)
    def __mul__(self, o): return _fns.multiply(self, o)
    def __rmul__(self, o): return _fns.multiply(o, self)
    def __truediv__(self, o): return _fns.divide(self, o)
    def __rtruediv__(self, o): return _fns.divide(o, self)
    def __floordiv__(self, o): return _fns.floordiv(self, o)
    def __rfloordiv__(self, o): return _fns.floordiv(o, self)
    def __mod__(self, o): return _fns.mod(self, o)
    def __rmod__(self, o): return _fns.mod(o, self)
    def __pow__(self, o): return _fns.pow(self, o)
    def __rpow__(self, o): return _fns.pow(o, self)
    def __matmul__(self, o): return _fns.matmul(self, o)
    def __rmatmul__(self, o): return _fns.matmul(o, self)
    def __neg__(self): return _fns.negative(self)
    def __pos__(self): return self
    def __abs__(self): return _fns.abs(self)
    def __lt__(self, o): return _fns.less(self, o)
    def __le__(self, o): return _fns.less_equal(self, o)
    def __gt__(self, o): return _fns.greater(self, o)
    def __ge__(self, o): return _fns.greater_equal(self, o)
    def __eq__(self, o): return _fns.equal(self, o)
    def __ne__(self, o): return _fns.not_equal(self, o)
    __and__, __rand__ = _bool_or_int_op("logical_and", "bitwise_and")
    __or__, __ror__ = _bool_or_int_op("logical_or", "bitwise_or")
    __xor__, __rxor__ = _bool_or_int_op("logical_xor", "bitwise_xor")
    def __lshift__(self, o): return _fns.left_shift(self, o)
    def __rlshift__(self, o): return _fns.left_shift(o, self)
    def __rshift__(self, o): return _fns.right_shift(self, o)
    def __rrshift__(self, o): return _fns.right_shift(o, self)

    def __invert__(self):
        return _fns.logical_not(self) if self.dtype.is_bool else _fns.bitwise_not(self)

    def __getitem__(self, key):
        return _fns.getitem(self, key)

    def __contains__(self, item):
        # NumPy's `in`: whether any element equals `item`. Python makes the
        # result a bool, so a traced tensor raises here; converted code calls
        # `ag__.in_` instead, which gives a traced bool.
        return bool(_fns.reduce_any(_fns.equal(self, item)))

    def __setitem__(self, key, value):
        # Tensors are immutable; the converter rewrites `name[key] = v` into a
        # functional update, so reaching here means some other form was used.
        raise with_location(TypeError(
            "a tensor does not support item assignment in place: tensors are immutable. "
            "Inside an ag.function with autograph=True, `x[i, j] = v` (or `x[i][j] = v`) "
            "rebinds the local name x to an updated tensor; only assignments into a local "
            "name are rewritten (not into an attribute, such as `self.x[i] = v`, or an "
            "expression): assign to a local name, update it, and store it back"),
            user_location())

    # NumPy functions and ufuncs on tensors map to autograph ops (autograph.tracer.api.numpy_protocol).
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _fns.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _fns.array_function(func, args, kwargs)
