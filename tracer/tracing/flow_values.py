"""The values compiled control flow carries, and how its errors name them.

Shared by `cond` (control_flow.py) and `while_loop` (loop.py): the
`Undefined` marker for a variable without a value, what kind of value a
branch output or loop variable is, readable names for the leaves of nested
variables, and shapes written as tuples (`(1,)`, `(None, 3)`), as
TensorFlow users read them.
"""
from __future__ import annotations

from typing import List, Optional

import numpy as np

from ..core import nest
from ..core.convert import dtype_of
from ..core.errors import with_location
from ..core.location import user_location
from .symbolic import is_traced

__all__ = ["Undefined", "located", "is_tensor_like", "may_stay_empty", "empty_of", "leaf_names",
           "shape_text", "describe", "truth"]


class Undefined:
    """Marks a variable that has no value yet (assigned first inside a block)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"Undefined({self.name!r})"

    def __bool__(self):
        raise UnboundLocalError(f"'{self.name}' is used before assignment")


def located(exc: Exception) -> Exception:
    """`exc` with the user's line (the statement being traced) in its message."""
    return with_location(exc, user_location())


def is_tensor_like(x) -> bool:
    """Traced and eager tensors and NumPy values: what compiled code can carry."""
    return is_traced(x) or hasattr(x, "_array") or isinstance(x, (np.ndarray, np.generic))


def may_stay_empty(x) -> bool:
    """An Undefined that stands for an empty buffer (a TensorArray's elements
    before the first write) or a value nobody reads unless it was set (a
    function's return value), not for a variable without a value: compiled
    code may carry zeros in its place without checking that it was set."""
    return isinstance(x, Undefined) and getattr(x, "empty_ok", False)


def empty_of(x):
    """An array of `x`'s dtype and static shape, unknown dimensions 0."""
    shape = tuple(0 if d is None else d for d in (x.shape or ()))
    return np.zeros(shape, dtype_of(x).np_dtype)


def truth(pred) -> bool:
    """A Python or eager condition as a Python bool."""
    return bool(pred)


def leaf_names(names, structure, count: int) -> List[str]:
    """One readable name per flattened leaf (`x`, `x[0]`, `s['k']`)."""
    if names is None:
        return [f"value #{i}" for i in range(count)]
    if isinstance(names, str):
        names = (names,)
    out: List[str] = []
    items = structure if isinstance(structure, (tuple, list)) and len(structure) == len(names) else None
    if items is None:
        return [names[0] if len(names) == 1 else f"value #{i}" for i in range(count)]
    for name, item in zip(names, items):
        out.extend(name + p for p in nest.leaf_paths(item))
    return out if len(out) == count else [f"value #{i}" for i in range(count)]


def shape_text(shape: Optional[tuple]) -> str:
    """A shape as a Python tuple, `(1,)` or `(None, 3)`; `<unknown>` for unknown rank."""
    if shape is None:
        return "<unknown>"
    return str(tuple(shape))


def describe(x) -> str:
    """What a value is, for structure errors: `a tuple of 2 elements`,
    `a dict with keys ['a', 'b']`, `a float32 tensor of shape ()`, `an int`."""
    if isinstance(x, Undefined):
        return "undefined"
    if x is None:
        return "None"
    if isinstance(x, dict):
        return f"a dict with keys {sorted(x, key=repr)!r}"
    if isinstance(x, (tuple, list)):
        kind = type(x).__name__
        return f"a {kind} of {len(x)} element{'s' if len(x) != 1 else ''}"
    if is_tensor_like(x):
        return f"a {dtype_of(x).name} tensor of shape {shape_text(x.shape if is_traced(x) else np.shape(x))}"
    name = getattr(x, "_ag_type_name", None) or type(x).__name__   # a wrapper may name what it holds
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"
