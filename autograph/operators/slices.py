"""`set_item` / `aug_set_item`: item assignment that rebinds the name.

The converter turns `x[k] = v` into `x = ag__.set_item(x, k, v)`. Tensors
(traced or eager) are immutable: the result is an updated tensor and the
caller's value is untouched. Other containers (lists, dicts, NumPy arrays)
are mutated in place and returned, which is exactly Python's behaviour.
"""
from __future__ import annotations

import operator

from . import _tracer, lists

__all__ = ["set_item", "aug_set_item", "set_item_captured", "aug_value", "set_item_chain",
           "aug_set_item_chain"]


def _is_tensor(x) -> bool:
    """Traced tensors, eager tensors and variables: a tracer DType as `.dtype`."""
    if _tracer.is_traced(x):
        return True
    try:
        from autograph.tracer.core.types import DType
    except ImportError:
        return False
    return isinstance(getattr(x, "dtype", None), DType)


def _tensor_update():
    """The tracer's functional item update, `(x, key, value) -> updated x`."""
    api = _tracer.api()
    update = getattr(api, "setitem", None) or getattr(api, "set_item", None)
    if update is None:
        raise TypeError("item assignment to a tensor (`x[i] = v`) is not supported yet by "
                        "the tracer (autograph.tracer.api.setitem is missing)")
    return update


def set_item(target, key, value):
    """`target[key] = value`, returning the (possibly new) target.

    A variable is updated in place (`assign` of the updated value), as a
    variable is shared state; tensors are rebound to an updated copy.
    """
    if getattr(target, "_ag_variable", False):
        target.assign(_tensor_update()(target.read_value(), key, value))
        return target
    if lists.is_loop_list(target):   # a Python list a compiled loop carries as a TensorArray
        return lists.loop_list_set(target, key, value)
    if _is_tensor(target):
        return _tensor_update()(target, key, value)
    target[key] = value
    return target


def aug_set_item(target, key, op_name: str, value):
    """`target[key] <op>= value` (op_name names an in-place `operator` function)."""
    new = getattr(operator, op_name)(target[key], value)
    return set_item(target, key, new)


def aug_value(target, key, op_name: str, value):
    """The new value of `target[key] <op>= value`, without storing it."""
    return getattr(operator, op_name)(target[key], value)


def set_item_captured(target, key, value, name: str) -> None:
    """`target[key] = value` where `target` is a name the function does not
    own (a global or a closure variable), so it cannot be rebound: variables
    are assigned, Python containers mutated; tensors are immutable."""
    if getattr(target, "_ag_variable", False) or not _is_tensor(target):
        set_item(target, key, value)
        return
    raise _tracer.located(TypeError(
        f"item assignment to '{name}', a tensor captured from outside the function: tensors "
        f"are immutable and '{name}' cannot be rebound here; copy it to a local name first "
        f"(`{name}_local = {name}`), or make it an ag.Variable"))


def _scalar_index(k) -> bool:
    """An integer index that selects one position (a Python or NumPy int, or a
    0-d integer tensor): `a[k][j]` is then `a[k, j]`."""
    import numbers
    if isinstance(k, bool):
        return False
    if isinstance(k, numbers.Integral):
        return True
    dtype = getattr(k, "dtype", None)
    shape = getattr(k, "shape", None)
    return (_is_tensor(k) and getattr(dtype, "is_integer", False)
            and shape is not None and tuple(shape) == ())


def _joined(keys):
    """`a[k1][k2]...[kN]` as one index `a[k1, ..., kN]` when every key but the
    last is a scalar integer index (a tuple key joins its parts), else None."""
    parts = []
    for i, k in enumerate(keys):
        items = list(k) if isinstance(k, tuple) else [k]
        if i < len(keys) - 1 and not all(_scalar_index(p) for p in items):
            return None
        parts.extend(items)
    return tuple(parts)


def set_item_chain(target, keys: tuple, value):
    """`target[k1]...[kN] = value` (NumPy users' `a[i][j] = v`), returning the
    (possibly new) target.

    On a tensor the chain is one functional update `target[k1, ..., kN] = value`
    when every key but the last is a scalar integer index (that is what the
    chain writes); other chains on tensors raise a TypeError saying to write
    one index. On Python containers and NumPy arrays, Python's semantics: the
    inner item is written (a tensor inside a list is replaced by its update).
    """
    if len(keys) == 1:
        return set_item(target, keys[0], value)
    if _is_tensor(target):
        joined = _joined(keys)
        if joined is None:
            raise _tracer.located(TypeError(
                "a chained item assignment `x[a][b] = v` on a tensor is supported when every "
                "index but the last is a single integer (it is then `x[a, b] = v`); here an "
                "earlier index is a slice, an array or a mask, whose result is a copy: write the "
                "update as one index, e.g. `x[a, b] = v` or `x[start:stop, b] = v`"))
        return set_item(target, joined, value)
    inner = target[keys[0]]
    updated = set_item_chain(inner, keys[1:], value)
    if updated is not inner:
        target[keys[0]] = updated
    return target


def aug_set_item_chain(target, keys: tuple, op_name: str, value):
    """`target[k1]...[kN] <op>= value` (op_name names an in-place `operator`
    function): the item is read once, updated and written back by
    `set_item_chain`."""
    current = target
    for k in keys:
        current = current[k]
    return set_item_chain(target, keys, getattr(operator, op_name)(current, value))
