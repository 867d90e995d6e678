"""NumPy functions on autograph tensors (`__array_ufunc__`, `__array_function__`).

`np.exp(x)`, `np.sum(x, axis=0)`, `np.where(c, x, y)`, `a + b` with an ndarray
on the left, ... on a tensor (traced or eager) call the autograph operation
of the same meaning, so the code computes the same inside and outside
`ag.function`, with autograph's dtype rules (no silent promotion; a Python
number adopts the tensor's dtype; `np.mean` of integers stays an integer, as
`ag.reduce_mean`; `np.argmax` gives int64).

What has no autograph equivalent (another NumPy function, a ufunc method
such as `np.add.outer`, or arguments such as `out=`, `dtype=`, `where=`):

* on a traced tensor: TypeError naming the function (its value only exists
  when the compiled code runs, so NumPy cannot compute it at trace time);
* on eager tensors: NumPy computes it on their values (a NumPy result).
"""
from __future__ import annotations

import numpy as np

__all__ = ["array_ufunc", "array_function", "UFUNCS", "FUNCTIONS"]


def _api():
    from .. import api   # lazily: api imports the op modules, which import tensor_ops
    return api


class _Unsupported(Exception):
    """An argument or form without an autograph equivalent (message: which)."""


_NO = object()   # "not given"


def _reject(**given) -> None:
    for k, v in given.items():
        if v is not _NO and v is not None:
            raise _Unsupported(f"the {k}= argument")


def _api_fn(name):
    return lambda *a: getattr(_api(), name)(*a)


def _invert(x):
    api = _api()
    return api.logical_not(x) if x.dtype.is_bool else api.bitwise_not(x)


def _isnan(x):
    api = _api()
    # x != x is True exactly for NaN; ints and bools have none.
    return api.not_equal(x, x) if x.dtype.is_floating else api.zeros_like(x, dtype="bool")


# ufunc name -> callable on the ufunc's inputs
UFUNCS = {
    "add": _api_fn("add"), "subtract": _api_fn("subtract"), "multiply": _api_fn("multiply"),
    "divide": _api_fn("divide"), "true_divide": _api_fn("divide"),
    "floor_divide": _api_fn("floordiv"), "remainder": _api_fn("mod"), "power": _api_fn("pow"),
    "negative": _api_fn("negative"), "positive": lambda x: x, "absolute": _api_fn("abs"),
    "sign": _api_fn("sign"), "square": _api_fn("square"), "sqrt": _api_fn("sqrt"),
    "exp": _api_fn("exp"), "log": _api_fn("log"), "sin": _api_fn("sin"), "cos": _api_fn("cos"),
    "tan": _api_fn("tan"), "tanh": _api_fn("tanh"), "maximum": _api_fn("maximum"),
    "minimum": _api_fn("minimum"), "equal": _api_fn("equal"), "not_equal": _api_fn("not_equal"),
    "less": _api_fn("less"), "less_equal": _api_fn("less_equal"), "greater": _api_fn("greater"),
    "greater_equal": _api_fn("greater_equal"), "logical_and": _api_fn("logical_and"),
    "logical_or": _api_fn("logical_or"), "logical_xor": _api_fn("logical_xor"),
    "logical_not": _api_fn("logical_not"), "bitwise_and": _api_fn("bitwise_and"),
    "bitwise_or": _api_fn("bitwise_or"), "bitwise_xor": _api_fn("bitwise_xor"),
    "invert": _invert, "matmul": _api_fn("matmul"), "isnan": _isnan,
}

# ufunc.reduce -> reduction; ufunc.accumulate -> scan (NumPy's default axis is 0)
_REDUCE = {"add": "reduce_sum", "multiply": "reduce_prod", "maximum": "reduce_max",
           "minimum": "reduce_min", "logical_and": "reduce_all", "logical_or": "reduce_any"}
_ACCUMULATE = {"add": "cumsum"}


def _ufunc_call(ufunc, method, inputs, kwargs):
    name = ufunc.__name__
    if method == "__call__":
        fn = UFUNCS.get(name)
        if fn is None:
            raise _Unsupported("it")
        for k in kwargs:   # out=, dtype=, where=, casting=, ...: NumPy's business
            raise _Unsupported(f"the {k}= argument")
        return fn(*inputs)
    if method in ("reduce", "accumulate") and len(inputs) == 1:
        table = _REDUCE if method == "reduce" else _ACCUMULATE
        op = table.get(name)
        if op is None:
            raise _Unsupported("it")
        axis = kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False) if method == "reduce" else False
        _reject(**kwargs)
        x = inputs[0]
        if method == "reduce":
            return getattr(_api(), op)(x, axis=axis, keepdims=keepdims)
        return _api().cumsum(x, axis=axis)
    raise _Unsupported("it")


# ---------------------------------------------------------------- functions

def _flat(x):
    return _api().reshape(x, [-1])


def _ndim(x) -> int:
    """Rank of a tensor, array or (nested) list argument."""
    n = getattr(x, "ndim", None)
    return n if isinstance(n, int) else np.ndim(x)


def _reduction(op):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO, where=_NO):
        _reject(dtype=dtype, out=out, initial=initial, where=where)
        return getattr(_api(), op)(a, axis=axis, keepdims=bool(keepdims))
    return fn


def _bool_reduction(op):
    def fn(a, axis=None, out=None, keepdims=False, *, where=_NO):
        _reject(out=out, where=where)
        return getattr(_api(), op)(a, axis=axis, keepdims=bool(keepdims))
    return fn


def _arg(op):
    def fn(a, axis=None, out=None, *, keepdims=False):
        _reject(out=out)
        api = _api()
        if axis is None:           # NumPy: the index into the flattened array
            r = getattr(api, op)(_flat(a), axis=0)
            return api.reshape(r, [1] * _ndim(a)) if keepdims else r
        r = getattr(api, op)(a, axis=axis)
        return api.expand_dims(r, axis) if keepdims else r
    return fn


def _cumsum(a, axis=None, dtype=None, out=None):
    _reject(dtype=dtype, out=out)
    return _api().cumsum(_flat(a) if axis is None else a, axis=0 if axis is None else axis)


def _reshape(a, shape=None, order="C", *, copy=None, newshape=None):
    if order != "C":
        raise _Unsupported(f"order={order!r}")
    shape = newshape if shape is None else shape
    return _api().reshape(a, [shape] if isinstance(shape, int) else shape)


def _transpose(a, axes=None):
    return _api().transpose(a, perm=axes)


def _expand_dims(a, axis):
    api = _api()
    if isinstance(axis, (tuple, list)):
        rank = _ndim(a) + len(axis)
        for ax in sorted(x % rank for x in axis):
            a = api.expand_dims(a, ax)
        return a
    return api.expand_dims(a, axis)


def _squeeze(a, axis=None):
    return _api().squeeze(a, axis=axis)


def _stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _reject(out=out, dtype=dtype)
    return _api().stack(list(arrays), axis=axis)


def _concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _reject(out=out, dtype=dtype)
    arrays = list(arrays)
    if axis is None:
        return _api().concat([_flat(x) for x in arrays], axis=0)
    return _api().concat(arrays, axis=axis)


def _take(a, indices, axis=None, out=None, mode="raise"):
    _reject(out=out)
    if mode != "raise":
        raise _Unsupported(f"mode={mode!r}")
    return _api().gather(_flat(a) if axis is None else a, indices, axis=0 if axis is None else axis)


def _where(condition, x=_NO, y=_NO):
    if x is _NO or y is _NO:
        raise _Unsupported("the one-argument form (np.nonzero)")
    return _api().where(condition, x, y)


def _clip(a, a_min=_NO, a_max=_NO, out=None, *, min=_NO, max=_NO, **kwargs):
    _reject(out=out, **kwargs)
    api = _api()
    lo = min if a_min is _NO else a_min
    hi = max if a_max is _NO else a_max
    if lo is not _NO and lo is not None:
        a = api.maximum(a, lo)
    if hi is not _NO and hi is not None:
        a = api.minimum(a, hi)
    return a


def _dot(a, b, out=None):
    _reject(out=out)
    api = _api()
    ra, rb = _ndim(a), _ndim(b)
    if ra == 2 and rb == 2:
        return api.matmul(a, b)
    if ra == 1 and rb == 1:
        return api.reduce_sum(api.multiply(a, b))
    if ra == 0 or rb == 0:
        return api.multiply(a, b)
    raise _Unsupported(f"a dot product of ranks {ra} and {rb}")


def _like(op):
    def fn(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        _reject(shape=shape, device=device)
        return getattr(_api(), op)(a, dtype=dtype)
    return fn


def _size(a, axis=None):
    api = _api()
    if axis is None:
        return api.size(a)
    return api.dim(a, axis)


FUNCTIONS = {
    "sum": _reduction("reduce_sum"), "mean": _reduction("reduce_mean"),
    "prod": _reduction("reduce_prod"), "max": _reduction("reduce_max"),
    "amax": _reduction("reduce_max"), "min": _reduction("reduce_min"),
    "amin": _reduction("reduce_min"), "any": _bool_reduction("reduce_any"),
    "all": _bool_reduction("reduce_all"), "argmax": _arg("argmax"), "argmin": _arg("argmin"),
    "cumsum": _cumsum, "reshape": _reshape, "ravel": lambda a, order="C": _reshape(a, [-1], order),
    "transpose": _transpose, "expand_dims": _expand_dims, "squeeze": _squeeze, "stack": _stack,
    "concatenate": _concatenate, "concat": _concatenate, "take": _take, "where": _where,
    "clip": _clip, "dot": _dot, "zeros_like": _like("zeros_like"), "ones_like": _like("ones_like"),
    "shape": lambda a: a.shape, "ndim": lambda a: a.ndim, "size": _size,
}


# ---------------------------------------------------------------- dispatch

def _any_traced(values) -> bool:
    """A traced tensor among `values`, or a variable while tracing (its value
    at trace time is not the value the compiled code will see)."""
    from ..tracing.symbolic import SymbolicTensor, current_builder
    for v in values:
        if isinstance(v, SymbolicTensor):
            return True
        if getattr(v, "_ag_variable", False) and current_builder() is not None:
            return True
        if isinstance(v, (list, tuple)) and _any_traced(v):
            return True
    return False


def _to_numpy(v):
    """Eager tensors (also inside lists/tuples) as NumPy arrays, for a NumPy fallback."""
    from .common import is_tensor_like
    if isinstance(v, (list, tuple)):
        return type(v)(_to_numpy(x) for x in v)
    if is_tensor_like(v):
        return np.asarray(v)
    return v


def _fail(name: str, what: str) -> TypeError:
    from ..core.location import user_location
    loc = user_location()
    where = f"\n{loc.describe()}" if loc else ""
    subject = f"{name} has" if what == "it" else f"{name}: {what} has"
    return TypeError(f"{subject} no autograph equivalent, so it cannot be applied to a traced "
                     f"tensor (inside ag.function a tensor's value only exists when the compiled "
                     f"code runs); use the ag.* operations, or compute it outside the "
                     f"function{where}")


def _numpy_name(func) -> str:
    module = getattr(func, "__module__", "numpy") or "numpy"
    prefix = "np" + module[len("numpy"):] if module.startswith("numpy") else module
    prefix = prefix.replace("._core", "").replace(".core", "")
    return f"{prefix}.{func.__name__}"


def array_ufunc(ufunc, method, inputs, kwargs):
    """`__array_ufunc__` for tensors (see the module docstring)."""
    traced = _any_traced(inputs) or _any_traced(kwargs.get("out") or ())
    try:
        return _ufunc_call(ufunc, method, inputs, dict(kwargs))
    except _Unsupported as e:
        name = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        if traced:
            raise _fail(name, str(e)) from None
    return getattr(ufunc, method)(*_to_numpy(inputs), **_to_numpy_kwargs(kwargs))


def _to_numpy_kwargs(kwargs):
    return {k: _to_numpy(v) for k, v in kwargs.items()}


def array_function(func, args, kwargs):
    """`__array_function__` for tensors (see the module docstring)."""
    traced = _any_traced(args) or _any_traced(tuple(kwargs.values()))
    # Only NumPy's own public functions (np.sum, ...), not same-named ones elsewhere.
    adapter = FUNCTIONS.get(func.__name__)
    if adapter is not None and getattr(np, func.__name__, None) is not func:
        adapter = None
    name = _numpy_name(func)
    if adapter is not None:
        try:
            return adapter(*args, **kwargs)
        except _Unsupported as e:
            if traced:
                raise _fail(name, str(e)) from None
    elif traced:
        raise _fail(name, "it")
    return func(*_to_numpy(args), **_to_numpy_kwargs(kwargs))

