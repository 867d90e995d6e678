"""Python lists filled by `append` in compiled loops (API.md section 9).

The converter rewrites the statement `out.append(v)` to
`out = ag__.list_append(out, v)` (and `out.pop()` in a simple statement to
`out, item = ag__.list_pop(out)` before it), so the list is a variable of
the loops around it. On a Python list `list_append` is `append` (the same
object, so aliases see the item). When a compiled loop starts, each list variable its
body appends to becomes a dynamic-size `ag.TensorArray` holding the list's
items (`as_loop_lists`); its dtype is that of the items, or, for an empty
list, that of the first value the body appends (the loop is traced once to
learn it, then again). `out[i]` reads an item (`TensorArray.__getitem__`),
`out[i] = v` writes one (`set_item` calls `loop_list_set`). `ag.stack(out)`, `np.array(out)`, `np.stack(out)` and
`np.asarray(out)` stack it into a tensor, and `len(out)` is its size.
"""
from __future__ import annotations

import numpy as np

from . import _tracer

__all__ = ["list_append", "as_loop_lists", "retrying_lists", "STACKERS", "stack_call",
           "is_loop_list", "loop_list_set", "list_pop"]


def _tensor_array_type():
    from autograph.tracer.api.tensor_array import TensorArray
    return TensorArray


class _EmptyList:
    """Stands for an empty list a compiled loop appends to, before its dtype is
    known (an opaque Python value to the tracer, which the first append replaces)."""

    __slots__ = ("slot",)

    def __init__(self, slot: int):
        self.slot = slot

    def __repr__(self):
        return "[]"


class _Learned(Exception):
    """Raised by the first append into an `_EmptyList`: the dtype is now known."""

    def __init__(self, slot: int, dtype):
        super().__init__(slot, dtype)
        self.slot, self.dtype = slot, dtype


def _dtype_of(value):
    if hasattr(value, "dtype") and hasattr(value.dtype, "is_floating"):
        return value.dtype
    from autograph.tracer.core.types import as_dtype
    from autograph.tracer.core.convert import default_dtype_of_python
    if isinstance(value, (bool, int, float)):
        return default_dtype_of_python(value)   # as ag.constant(value): int32, float32
    return as_dtype(np.asarray(value).dtype)


def _shape_of(value):
    """The static shape of `value`, or None when a dimension (or the rank) is unknown."""
    shape = getattr(value, "shape", None) if hasattr(value, "dtype") else np.shape(value)
    if shape is None or any(d is None for d in shape):
        return None
    return tuple(shape)


def list_append(lst, value, augmented: bool = False):
    """`lst.append(value)` as converted code writes it: returns the list (or TensorArray).

    Args:
        lst: a Python list, or the TensorArray a compiled loop made of it.
        value: the item.
        augmented: the statement was `lst += [value]`: anything but a list or
            TensorArray (an array, a tensor) gets `lst + [value]` as Python does.

    Returns:
        `lst` itself for a Python list (after appending), the updated
        TensorArray otherwise.

    Example: `out = ag__.list_append(out, v)` for `out.append(v)`.
    """
    if isinstance(lst, _EmptyList):
        raise _Learned(lst.slot, (_dtype_of(value), _shape_of(value)))
    if isinstance(lst, _tensor_array_type()):
        return lst.write(lst.size(), value)
    if augmented and not isinstance(lst, list):
        import operator
        return operator.iadd(lst, [value])
    lst.append(value)
    return lst


def is_loop_list(x) -> bool:
    """True for the TensorArray a compiled loop made of a Python list."""
    return isinstance(x, _tensor_array_type())


def loop_list_set(ta, key, value):
    """`lst[key] = value` of a list a compiled loop carries as a TensorArray:
    the updated array (the converter rebinds `lst` to it). A negative index
    counts from the end, as in Python."""
    if isinstance(key, (bool, np.bool_, slice)) or not (
            isinstance(key, (int, np.integer)) or hasattr(key, "dtype")):
        raise _tracer.located(TypeError(
            f"assigning an item of a list that a compiled loop appends to takes one integer "
            f"index, got {key!r}: build the values in a tensor to assign a slice"))
    if isinstance(key, (int, np.integer)):
        index = key + ta.size() if key < 0 else key
    else:
        index = _tracer.api().where(key < 0, key + ta.size(), key)
    return ta.write(index, value)


_LAST = object()   # `pop()` without an index


def list_pop(lst, index=_LAST):
    """`lst.pop()` / `lst.pop(index)` as converted code writes it:
    `lst, item = ag__.list_pop(lst)`.

    A Python list (or any other object) pops in place, with Python's
    semantics (the same object comes back, so aliases see the change); the
    TensorArray a compiled loop carries comes back one element shorter, with
    the removed element. It pops only its last element (`pop()`, `pop(-1)`).
    """
    if isinstance(lst, _EmptyList):
        raise _tracer.located(IndexError(
            "pop from empty list: the list is empty when the compiled loop starts and the "
            "loop does not append to it before this pop"))
    if is_loop_list(lst):
        if index is not _LAST and _tracer.static_value(index) != -1:
            raise _tracer.located(NotImplementedError(
                f"pop({index!r}) of a list that a compiled loop carries: only the last element "
                f"can be popped (`pop()`); keep the items in a tensor and slice it instead"))
        from autograph.tracer.api.tensor_array import pop_last
        return pop_last(lst)
    return lst, (lst.pop() if index is _LAST else lst.pop(index))


def _as_tensor_array(items, learned=None):
    TensorArray = _tensor_array_type()
    if learned is None:
        dtype, shape = _dtype_of(items[0]), _shape_of(items[0])
    else:
        dtype, shape = learned
    # A known element shape from the start: the array's buffer then has its final
    # shape in every branch and iteration of the loop.
    ta = TensorArray(dtype, size=0, dynamic_size=True, element_shape=shape)
    for k, item in enumerate(items):
        ta = ta.write(k, item)
    return ta


def as_loop_lists(init, names, opts, learned):
    """The initial loop values with each appended-to Python list as a TensorArray.

    `learned` maps the index of an empty list to the dtype a first trace of
    the body found; an empty list not learned yet becomes an `_EmptyList`.
    """
    appended = set((opts or {}).get("appended", ()))
    if not appended:
        return tuple(init)
    from .composites import NOT_STATE, Held
    out = list(init)
    for k, (name, value) in enumerate(zip(names, init)):
        if name not in appended and _root(name) in appended:
            out[k] = NOT_STATE      # `lst[-1]` of such a list: read through the array
            continue
        if isinstance(value, Held) and type(value.obj) is list:
            value = value.obj       # carried as a TensorArray, not item by item
        if name not in appended or type(value) is not list:
            continue
        if value:
            out[k] = _as_tensor_array(value)
        elif k in learned:
            out[k] = _as_tensor_array([], learned[k])
        else:
            out[k] = _EmptyList(k)
    return tuple(out)


def _root(name: str) -> str:
    """The variable a composite name such as `lst[-1]` belongs to."""
    return name.split("[", 1)[0].split(".", 1)[0]


def retrying_lists(run, init, names, opts):
    """`run(init)` with appended lists made TensorArrays, traced again once per
    empty list whose dtype the first trace learned."""
    learned: dict = {}
    while True:
        try:
            final = run(as_loop_lists(init, names, opts, learned))
        except _Learned as e:
            if e.slot in learned:
                raise
            learned[e.slot] = e.dtype
            continue
        # A list the loop never appended to (in the traced code) stays an empty list.
        return tuple([] if isinstance(v, _EmptyList) else v for v in final)


def _has_traced(items) -> bool:
    return any(_tracer.is_traced(v) or (isinstance(v, (list, tuple)) and _has_traced(v))
               for v in items)


def _stack(items):
    """A TensorArray, or a (nested) list of values with a traced one, stacked; else None."""
    if isinstance(items, _tensor_array_type()):
        return items.stack()
    if isinstance(items, (list, tuple)) and items and _has_traced(items):
        rows = [(_stack(v) if isinstance(v, (list, tuple)) and _has_traced(v) else v)
                for v in items]
        return _tracer.api().stack(rows)
    return None


def stack_call(f, args, kwargs):
    """`np.array(lst)` / `np.stack(lst)` / `ag.stack(lst)` of a TensorArray or a list
    of traced tensors: the stacked tensor; None when `f` should run as it is."""
    if not args or (kwargs and set(kwargs) - {"dtype", "axis"}):
        return None
    stacked = _stack(args[0])
    if stacked is None:
        return None
    if len(args) > 2:
        return None
    # the second positional argument is np.array's/np.asarray's dtype, but np.stack's and
    # ag.stack's axis
    takes_dtype = f is np.array or f is np.asarray
    axis = kwargs.get("axis", args[1] if len(args) > 1 and not takes_dtype else 0)
    if axis not in (0, None):
        return None
    dtype = kwargs.get("dtype", args[1] if len(args) > 1 and takes_dtype else None)
    if dtype is not None:
        stacked = _tracer.api().cast(stacked, dtype)
    return stacked


STACKERS = frozenset(id(f) for f in (np.array, np.asarray, np.stack))
