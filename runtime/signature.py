"""Binding call arguments and computing trace-cache keys.

Arguments are bound to the Python function's parameters with defaults
applied (so `f(t)`, `f(x=t)` and `f(t, 2)` with a default of 2 agree), then
flattened. Each leaf gets a key: tensors, arrays and NumPy scalars by dtype
and shape; variables by dtype and shape too, but apart from tensors (a
variable is passed by reference, as a resource input); Python numbers,
strings and None by type and value; any other object by identity (held
weakly by the cache).
"""
from __future__ import annotations

import inspect
import sys
from typing import Any, List, Tuple

import numpy as np

from autograph.tracer.core import nest
from autograph.tracer.core.types import as_dtype

from .spec import TensorSpec

__all__ = ["TENSOR", "PYTHON", "OBJECT", "VARIABLE", "PY_SCALARS", "is_tensor_leaf", "leaf_key",
           "bind_arguments", "refuse_masked", "flatten_bound", "call_key"]

TENSOR, PYTHON, OBJECT, VARIABLE = "T", "P", "O", "V"
# Python values keyed by exact type and value (the fast path compares them the same way).
PY_SCALARS = (bool, int, float, str, bytes, type(None))


def is_tensor_leaf(x) -> bool:
    """Leaves that become traced inputs: eager tensors, arrays, NumPy scalars, specs."""
    return (hasattr(x, "_array") or isinstance(x, (np.ndarray, np.generic, TensorSpec))
            or getattr(x, "_ag_variable", False))


def leaf_key(x):
    """The cache-key component of one flattened argument."""
    if type(x) in PY_SCALARS:
        return (PYTHON, type(x), x)
    if getattr(x, "_ag_variable", False) or getattr(x, "_ag_variable_spec", False):
        return (VARIABLE, as_dtype(x.dtype), tuple(x.shape))
    if isinstance(x, TensorSpec):
        return (TENSOR, x.dtype, x.shape)
    if is_tensor_leaf(x):
        return (TENSOR, as_dtype(x.dtype), tuple(x.shape))
    return (OBJECT, id(x))


def bind_arguments(sig: inspect.Signature, args, kwargs, name: str = "") -> "inspect.BoundArguments":
    """Bind to `sig` with defaults applied; TypeError names the function
    (`name`, when given), says what was expected and what was given."""
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        kw = f" and keyword argument(s) {', '.join(kwargs)}" if kwargs else ""
        raise TypeError(f"{name or 'the function'}{sig}: {e} (called with {len(args)} positional "
                        f"argument(s){kw})") from None
    bound.apply_defaults()
    for name, value in bound.arguments.items():
        refuse_masked(value, name)
    return bound


def refuse_masked(value, name: str = "") -> None:
    """TypeError if `value` is, or nests (in lists, tuples, dicts), a NumPy masked array.

    Compiled code reads an array's data; a masked array's mask would be
    silently ignored, so masked arrays are refused with a way out.
    """
    masked = sys.modules.get("numpy.ma")   # not imported: no masked array can exist
    path = None if masked is None else _find_masked(value, masked.MaskedArray, name)
    if path is not None:
        where = f"argument '{path}'" if name else f"the value{path}"
        raise TypeError(f"{where} is a NumPy masked array (numpy.ma.MaskedArray); autograph does "
                        "not support masks, and its data would be used with the mask ignored. Pass "
                        "`a.filled(value)` to replace the masked elements, or the data and the mask "
                        "(`a.data`, `np.ma.getmaskarray(a)`) as two arrays")


def _find_masked(value, masked_type, path: str):
    """The path (`name[1]['b']`) of the first masked array in `value`, or None."""
    if isinstance(value, np.ndarray):
        return path if isinstance(value, masked_type) else None
    if isinstance(value, (list, tuple)):
        items = enumerate(value)
    elif isinstance(value, dict):
        items = value.items()
    else:
        return None
    for k, v in items:
        found = _find_masked(v, masked_type, f"{path}[{k!r}]")
        if found is not None:
            return found
    return None


def flatten_bound(bound: "inspect.BoundArguments") -> Tuple[List[Any], Any]:
    """Leaves and treedef of the bound arguments, in parameter order."""
    return nest.flatten(tuple(bound.arguments.values()))


def call_key(leaves, treedef) -> tuple:
    """The key identifying the trace these arguments need."""
    return (treedef, tuple(leaf_key(x) for x in leaves))
