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
from typing import Any, List, Tuple

import numpy as np

from autograph.tracer.core import nest
from autograph.tracer.core.types import as_dtype

from .spec import TensorSpec

TENSOR, PYTHON, OBJECT, VARIABLE = "T", "P", "O", "V"
_PY_SCALARS = (bool, int, float, str, bytes, type(None))


def is_tensor_leaf(x) -> bool:
    """Leaves that become traced inputs: eager tensors, arrays, NumPy scalars, specs."""
    return (hasattr(x, "_array") or isinstance(x, (np.ndarray, np.generic, TensorSpec))
            or getattr(x, "_ag_variable", False))


def leaf_key(x):
    """The cache-key component of one flattened argument."""
    if type(x) in _PY_SCALARS:
        return (PYTHON, type(x), x)
    if getattr(x, "_ag_variable", False) or getattr(x, "_ag_variable_spec", False):
        return (VARIABLE, as_dtype(x.dtype), tuple(x.shape))
    if isinstance(x, TensorSpec):
        return (TENSOR, x.dtype, x.shape)
    if is_tensor_leaf(x):
        return (TENSOR, as_dtype(x.dtype), tuple(x.shape))
    return (OBJECT, id(x))


def bind_arguments(sig: inspect.Signature, args, kwargs) -> "inspect.BoundArguments":
    """Bind to `sig` with defaults applied; TypeError says what was expected."""
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"binding the arguments failed: {e}; the function's signature is {sig}") from None
    bound.apply_defaults()
    return bound


def flatten_bound(bound: "inspect.BoundArguments") -> Tuple[List[Any], Any]:
    """Leaves and treedef of the bound arguments, in parameter order."""
    return nest.flatten(tuple(bound.arguments.values()))


def call_key(leaves, treedef) -> tuple:
    """The key identifying the trace these arguments need."""
    return (treedef, tuple(leaf_key(x) for x in leaves))
