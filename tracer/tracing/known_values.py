"""Values a trace already knows: results computed from constants only.

`x.shape[0] != y.shape[0]` in converted code compares two int32 constants
(static dimensions are traced as constants so that loops over them
compile); the comparison is an op of the trace, but its value is known
while tracing. `known_value` computes such a value by running the NumPy
references of the ops that lead to it from `constant` ops, as the constant
folding pass would later (tracer/passes/constant_folding.py), without
changing the graph. The converter's `if` uses it so that a condition known
at trace time runs as a Python `if` (only the branch taken is traced: a
`raise` in the other one does not fire).

Only small values are computed (at most `MAX_ELEMENTS` elements per
operand and result) through at most `MAX_OPS` ops; stateful ops, ops with
regions and ops without a reference are never run. A constant the user
made explicitly (`ag.constant`, `ag.convert_to_tensor` inside a trace,
which `mark_explicit` records) is not known: as `tf.constant` in a
`tf.function`, `if ag.constant(True):` stays compiled control flow. The
constants known are those standing for Python values: static dimensions,
Python numbers, NumPy arrays the function captured or made.
"""
from __future__ import annotations

from typing import Dict, Optional

import numpy as np

from ..core import registry
from ..core.ir import Op, Value

__all__ = ["known_value", "mark_explicit", "MAX_ELEMENTS", "MAX_OPS"]

MAX_ELEMENTS = 64
MAX_OPS = 64
_NEVER_RUN = frozenset({"cond", "while", "check"})
_EXPLICIT = "_ag_explicit_constants"   # a set of Values on the GraphBuilder


def mark_explicit(builder, value: Value) -> None:
    """Record that `value` (a `constant` result) is an explicit user constant."""
    explicit = getattr(builder, _EXPLICIT, None)
    if explicit is None:
        explicit = set()
        setattr(builder, _EXPLICIT, explicit)
    explicit.add(value)


def known_value(v: Value, explicit_constants: bool = False) -> Optional[np.ndarray]:
    """The value of `v` when every op it depends on is computable from
    constants (within the limits above), else None. An explicit user constant
    counts as unknown unless `explicit_constants` (sizes and axes NumPy code
    computes may come from one: `np.split(a, ag.constant(2))`)."""
    from .symbolic import current_builder
    explicit = () if explicit_constants else (getattr(current_builder(), _EXPLICIT, None) or ())
    return _value(v, {}, [MAX_OPS], explicit)


def _value(v: Value, memo: Dict[int, Optional[np.ndarray]], budget,
           explicit) -> Optional[np.ndarray]:
    key = id(v)
    if key in memo:
        return memo[key]
    memo[key] = None   # also guards against cycles
    op = v.owner
    if not isinstance(op, Op):   # a block argument: an input or a loop variable
        return None
    if op.name == "constant":
        if v in explicit:
            return None
        memo[key] = op.attrs["value"]
        return memo[key]
    budget[0] -= 1
    if budget[0] < 0 or op.name in _NEVER_RUN or op.regions:
        return None
    if any(t.shape is None or None in t.shape or int(np.prod(t.shape)) > MAX_ELEMENTS
           for t in op.result_types):
        return None
    arrays = []
    for operand in op.operands:
        a = _value(operand, memo, budget, explicit)
        if a is None or np.size(a) > MAX_ELEMENTS:
            return None
        arrays.append(a)
    outs = registry.run_reference(op, arrays)
    if outs is None:
        return None
    for r, o, t in zip(op.results, outs, op.result_types):
        memo[id(r)] = np.asarray(o, dtype=t.dtype.np_dtype)
    return memo[key]
