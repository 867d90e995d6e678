"""`numpy_inplace`: NumPy's in-place updates as functional updates of a name.

The converter turns the statement `np.add.at(a, idx, v)` (any ufunc's
`.at`, `np.put_along_axis`, `np.put`, `np.fill_diagonal`, `np.copyto`,
`np.putmask`) on a local name `a` into
`a = ag__.numpy_inplace(np.add.at, a, idx, v)`. A tensor is immutable: the
result is the updated tensor, which rebinds `a` (so an update in a loop or
branch is a loop variable or branch output, as `a[k] = v` is). Anything
else (a NumPy array, a list) is updated in place by the original call and
returned unchanged: exactly Python's behaviour.
"""
from __future__ import annotations

from . import _tracer
from .slices import _is_tensor

__all__ = ["numpy_inplace", "method_inplace"]


def _functional(fn):
    """The functional form of the in-place NumPy function `fn`, or None."""
    import numpy as np
    numpy_indexing = _tracer.api().numpy_indexing
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, np.ufunc) and getattr(fn, "__name__", "") == "at":
        return lambda a, indices, b=None: numpy_indexing.ufunc_at(owner, a, indices, b)
    return numpy_indexing.INPLACE.get(fn)


def numpy_inplace(fn, target, *args, **kwargs):
    """`fn(target, *args, **kwargs)` as an update of `target`; returns the new value."""
    if getattr(target, "_ag_variable", False) or not _is_tensor(target):
        fn(target, *args, **kwargs)
        return target
    functional = _functional(fn)
    if functional is None:
        fn(target, *args, **kwargs)      # not an in-place NumPy function: Python's semantics
        return target
    try:
        return functional(target, *args, **kwargs)
    except _tracer.api().numpy_functions.Unsupported as e:
        owner = getattr(fn, "__self__", None)
        name = f"np.{owner.__name__}.at" if owner is not None else \
            f"np.{getattr(fn, '__name__', 'function')}"
        raise _tracer.located(TypeError(
            f"{name}: {e} has no autograph equivalent, so it cannot be applied to a "
            f"tensor")) from None


def method_inplace(target, method: str, *args, **kwargs):
    """`target.sort(...)` / `target.fill(v)` as an update of `target`; returns the new value.

    On a tensor: `np.sort(target, axis, kind)` and an array of `target`'s shape
    and dtype filled with `v` (cast to that dtype, as NumPy's `fill` casts).
    Anything else calls its own method (in place) and is returned unchanged.
    """
    if getattr(target, "_ag_variable", False) or not _is_tensor(target):
        getattr(target, method)(*args, **kwargs)
        return target
    if method == "sort":
        return _sort(target, *args, **kwargs)
    return _fill(target, *args, **kwargs)


def _sort(target, axis=-1, kind=None, order=None, *, stable=None):
    import numpy as np
    if order is not None:
        raise _tracer.located(TypeError(
            "sort(): the order= argument (fields of a structured array) has no autograph "
            "equivalent"))
    return np.sort(target, axis=axis, kind=kind, stable=stable)


def _fill(target, value):
    import numpy as np
    # full_like keeps the array's shape and dtype and casts the value, as fill does
    return np.full_like(target, value)
