"""`set_item` / `aug_set_item`: item assignment that rebinds the name.

The converter turns `x[k] = v` into `x = ag__.set_item(x, k, v)`. Tensors
(traced or eager) are immutable: the result is an updated tensor and the
caller's value is untouched. Other containers (lists, dicts, NumPy arrays)
are mutated in place and returned, which is exactly Python's behaviour.
"""
from __future__ import annotations

import operator

from . import _tracer

__all__ = ["set_item", "aug_set_item", "set_item_captured", "aug_value"]


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
