"""Retracing: why a call traces again, the excessive-retracing warning, and
the shapes `reduce_retracing=True` generalises (for PolymorphicFunction).
"""
from __future__ import annotations

import inspect
import logging
import warnings
from typing import List

from autograph.tracer.core.logs import RetracingWarning
from autograph.tracer.core.types import format_shape, most_specific_common_shape

from .signature import OBJECT, PYTHON, TENSOR, VARIABLE
from .spec import TensorSpec

__all__ = ["retrace_reason", "note_trace", "relaxed_match", "relaxed_types", "describe_leaf",
           "describe_arg", "covers", "spec_fits", "leaf_names"]

log = logging.getLogger("autograph")

# The excessive-retracing warning: when _RETRACE_LIMIT of the last
# _RETRACE_WINDOW calls of one function traced, warn (at most _RETRACE_WARNINGS times).
_RETRACE_WINDOW, _RETRACE_LIMIT, _RETRACE_WARNINGS = 10, 5, 2


def retrace_reason(pf, key, leaves, stale: bool) -> str:
    """Why `key` needs a new trace: what differs from the closest earlier key."""
    if stale:
        return "an argument object of an earlier trace was garbage collected"
    treedef, new = key
    names = leaf_names(pf._signature, treedef, leaves)
    best = None
    for old_key in pf._cache:
        if not isinstance(old_key, tuple) or old_key[0] != treedef or len(old_key[1]) != len(new):
            continue
        diffs = [i for i, (a, b) in enumerate(zip(old_key[1], new)) if a != b]
        if best is None or len(diffs) <= len(best[1]):   # ties: the latest trace
            best = (old_key, diffs)
    if best is None:
        return "the structure of the arguments (nesting, lengths or keys) differs from every earlier trace"
    old_key, diffs = best
    parts = [f"argument {names[i]!r} changed from {describe_leaf(old_key[1][i])} to "
             f"{describe_leaf(new[i])}" for i in diffs]
    if not parts:
        return "the arguments match an earlier trace that can no longer be used"
    return "; ".join(parts)

def note_trace(pf) -> None:
    """Warn (like TensorFlow) when many of the recent calls traced."""
    from . import fastpath
    calls = pf._calls + fastpath.native_calls(pf._fast)
    pf._traced_at = [c for c in pf._traced_at if c > calls - _RETRACE_WINDOW] + [calls]
    if len(pf._traced_at) >= _RETRACE_LIMIT and pf._retrace_warnings < _RETRACE_WARNINGS:
        pf._retrace_warnings += 1
        n = len(pf._traced_at)
        pf._traced_at = []   # count afresh before warning again
        warnings.warn(
            f"{n} of the last {min(calls, _RETRACE_WINDOW)} calls to {pf._name} "
            f"({getattr(pf._python_function, '__qualname__', pf._name)}) triggered a retrace. "
            "Tracing is expensive; frequent retracing is usually caused by (1) creating the "
            "ag.function in a loop, (2) passing tensors of different shapes, or (3) passing "
            "Python numbers or objects that change instead of tensors. For (1), define the "
            "function once, outside the loop; for (2), use reduce_retracing=True or an "
            "input_signature with None dimensions; for (3), pass tensors (ag.constant). "
            "AUTOGRAPH_VERBOSITY=1 logs the reason of every retrace.",
            RetracingWarning, stacklevel=5)   # user -> __call__ -> _lookup -> _lookup_miss -> here

# ------------------------------------------------------------------ reduce_retracing

def relaxed_match(pf, leaves, treedef, key):
    for tdef, tkey, cf in reversed(pf._relaxed):
        if tdef == treedef and covers(tkey[1], key[1], cf):
            return cf
    return None

def relaxed_types(pf, leaves, treedef, key):
    """Shapes generalised against earlier traces with the same structure."""
    types = {}
    for tdef, tkey, cf in pf._relaxed:
        if tdef != treedef:
            continue
        same_python = all(a == b for a, b in zip(tkey[1], key[1]) if a[0] != TENSOR or b[0] != TENSOR)
        if not same_python:
            continue
        for i, (old, new) in enumerate(zip(tkey[1], key[1])):
            if old[0] == TENSOR and new[0] == TENSOR and old[1] is new[1]:
                prev = types.get(i, cf.call_plan.arg_leaves[i].shape)
                types[i] = most_specific_common_shape(prev, new[2])
    return types or None


def describe_leaf(k) -> str:
    """A cache-key component in words: `float32[3]`, `Python int 3`, `the object with id 0x...`."""
    if k[0] == TENSOR:
        return f"{k[1].name}{format_shape(k[2])}"
    if k[0] == PYTHON:
        return f"Python {k[1].__name__} {k[2]!r}"
    if k[0] == VARIABLE:
        return f"a {k[1].name}{format_shape(k[2])} variable"
    return f"the object with id {k[1]:#x}" if k[0] == OBJECT else repr(k)


def describe_arg(a) -> str:
    return f"{a.dtype.name}{format_shape(a.shape)}" if isinstance(a, TensorSpec) else repr(a)


def covers(traced_keys, new_keys, cf) -> bool:
    for old, new in zip(traced_keys, new_keys):
        if old[0] != new[0]:
            return False
        if old[0] == TENSOR:
            continue
        if old != new:
            return False
    specs = cf.call_plan.arg_leaves
    for spec, new in zip(specs, new_keys):
        if new[0] == TENSOR and not (spec.dtype is new[1] and spec_fits(new[2], spec.shape)):
            return False
    return True


def spec_fits(shape, spec_shape) -> bool:
    from autograph.tracer.core.types import shape_compatible
    return shape_compatible(shape, spec_shape) if shape is not None else spec_shape is None


def leaf_names(sig: inspect.Signature, treedef, leaves) -> List[str]:
    """A valid identifier per leaf: the parameter name, with `_i` for nested leaves."""
    names: List[str] = []
    params = list(sig.parameters)
    per_param = treedef[1] if treedef and treedef[0] is tuple else ()
    for pname, sub in zip(params, per_param):
        if sub is None:
            names.append(pname)
        else:
            names.extend(f"{pname}_{j}" for j in range(_count(sub)))
    if len(names) != len(leaves):
        names = [f"arg{i}" for i in range(len(leaves))]
    return names


def _count(treedef) -> int:
    if treedef is None:
        return 1
    if treedef[0] == "namedtuple":
        return sum(_count(s) for s in treedef[2])
    if treedef[0] == "dict":
        return sum(_count(s) for s in treedef[3])
    return sum(_count(s) for s in treedef[1])
