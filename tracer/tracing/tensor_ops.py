"""Python operators shared by eager and traced tensors.

Each operator forwards to the public op function of the same meaning in
`autograph.tracer.api`, so eager and traced tensors follow exactly the same dtype and
broadcasting rules.
"""
from __future__ import annotations


def _api():
    # Imported lazily: autograph.tracer.api imports every op module, which import this one.
    from .. import api
    return api


def _bool_or_int_op(logical: str, bitwise: str):
    def method(self, other):
        api = _api()
        if self.dtype.is_bool:
            return getattr(api, logical)(self, other)
        return getattr(api, bitwise)(self, other)

    def rmethod(self, other):
        api = _api()
        if self.dtype.is_bool:
            return getattr(api, logical)(other, self)
        return getattr(api, bitwise)(other, self)

    return method, rmethod


class TensorOperators:
    """Mixin giving a tensor class `+ - * / // % ** @`, comparisons, `& | ^ ~`,
    unary `-`, `abs()` and indexing."""

    __slots__ = ()
    # Tensors compare elementwise, so hashing falls back to identity.
    __hash__ = object.__hash__
    # Let our reflected operators win over NumPy's when an ndarray is on the left.
    __array_priority__ = 1000

    def __add__(self, o): return _api().add(self, o)
    def __radd__(self, o): return _api().add(o, self)
    def __sub__(self, o): return _api().subtract(self, o)
    def __rsub__(self, o): return _api().subtract(o, self)
    def __mul__(self, o): return _api().multiply(self, o)
    def __rmul__(self, o): return _api().multiply(o, self)
    def __truediv__(self, o): return _api().divide(self, o)
    def __rtruediv__(self, o): return _api().divide(o, self)
    def __floordiv__(self, o): return _api().floordiv(self, o)
    def __rfloordiv__(self, o): return _api().floordiv(o, self)
    def __mod__(self, o): return _api().mod(self, o)
    def __rmod__(self, o): return _api().mod(o, self)
    def __pow__(self, o): return _api().pow(self, o)
    def __rpow__(self, o): return _api().pow(o, self)
    def __matmul__(self, o): return _api().matmul(self, o)
    def __rmatmul__(self, o): return _api().matmul(o, self)
    def __neg__(self): return _api().negative(self)
    def __pos__(self): return self
    def __abs__(self): return _api().abs(self)
    def __lt__(self, o): return _api().less(self, o)
    def __le__(self, o): return _api().less_equal(self, o)
    def __gt__(self, o): return _api().greater(self, o)
    def __ge__(self, o): return _api().greater_equal(self, o)
    def __eq__(self, o): return _api().equal(self, o)
    def __ne__(self, o): return _api().not_equal(self, o)
    __and__, __rand__ = _bool_or_int_op("logical_and", "bitwise_and")
    __or__, __ror__ = _bool_or_int_op("logical_or", "bitwise_or")
    __xor__, __rxor__ = _bool_or_int_op("logical_xor", "bitwise_xor")

    def __invert__(self):
        api = _api()
        return api.logical_not(self) if self.dtype.is_bool else api.bitwise_not(self)

    def __getitem__(self, key):
        return _api().getitem(self, key)

    def __setitem__(self, key, value):
        # Tensors are immutable; the converter rewrites `name[key] = v` into a
        # functional update, so reaching here means some other form was used.
        from ..core.errors import with_location
        from ..core.location import user_location
        raise with_location(TypeError(
            "a tensor does not support item assignment in place: tensors are immutable. "
            f"Inside an ag.function with autograph=True, `x[i, j] = v` rebinds the name x to "
            f"an updated tensor; only that form is rewritten (write `x[i, j] = v`, not "
            f"`x[i][j] = v`, and do not assign into an attribute or an expression)"),
            user_location())

    # NumPy functions and ufuncs on tensors map to autograph ops (autograph.tracer.api.numpy_protocol).
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from ..api.numpy_protocol import array_ufunc
        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from ..api.numpy_protocol import array_function
        return array_function(func, args, kwargs)
