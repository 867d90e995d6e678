"""`and_`, `or_`, `not_`, `compare_chain`: Python's logical operators, lazily.

Operands arrive as thunks. With a Python first operand they short-circuit as
Python does. With a traced first operand the second is staged inside a
`cond` (`a and b` = `cond(a, b, lambda: a)`), not a plain `logical_and`:
the second operand may be costly or may fault when the first is false
(`i < n and x[i] > 0`), and a `cond` runs it only when needed.
"""
from __future__ import annotations

import operator

from . import _tracer

__all__ = ["and_", "or_", "not_", "compare_chain"]

_COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}


def and_(a_thunk, b_thunk):
    """`a and b`."""
    a = _tracer.condition_value(a_thunk())
    if _tracer.is_traced(a):
        return _tracer.control_flow().cond(a, lambda: (b_thunk(),), lambda: (a,),
                                           names=("and",))[0]
    return a and b_thunk()


def or_(a_thunk, b_thunk):
    """`a or b`."""
    a = _tracer.condition_value(a_thunk())
    if _tracer.is_traced(a):
        return _tracer.control_flow().cond(a, lambda: (a,), lambda: (b_thunk(),),
                                           names=("or",))[0]
    return a or b_thunk()


def not_(a):
    """`not a`."""
    a = _tracer.condition_value(a)
    if _tracer.is_traced(a):
        return _tracer.api().logical_not(a)
    return not a


def compare_chain(left_thunk, pairs):
    """`a < b <= c ...`: each operand evaluated once, left to right, lazily.

    Python results short-circuit on the first false comparison; traced results
    are combined with a logical and (comparisons have no side effects to skip).
    """
    left = left_thunk()
    result = True
    for op, right_thunk in pairs:
        right = right_thunk()
        r = _COMPARE[op](left, right)
        if _tracer.is_traced(r):
            result = r if not _tracer.is_traced(result) else _tracer.api().logical_and(result, r)
        elif not r:
            return r
        elif not _tracer.is_traced(result):
            result = r
        left = right
    return result
