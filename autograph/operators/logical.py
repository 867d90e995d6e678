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
from .truth import truth
from .exceptions import staged

__all__ = ["and_", "or_", "not_", "compare_chain", "in_", "not_in"]


def in_(a, b):
    """`a in b`.

    With a traced tensor on either side it is a traced bool: for a tensor `b`,
    whether any element equals `a` (`reduce_any(equal(b, a))`, NumPy's `in`);
    for a list, tuple or range, whether any item equals `a`, as Python
    compares them. A traced `a` cannot be looked up in a dict or set (its
    value is unknown while tracing): that is a TypeError, never a silent False.
    """
    b = _tracer.condition_value(b)
    if _tracer.is_traced(b) or (_tracer.is_traced(a) and _is_array(b)):
        api = _tracer.api()
        return api.reduce_any(api.equal(b, a))
    if isinstance(b, (list, tuple)) and (_tracer.is_traced(a) or any(map(_tracer.is_traced, b))):
        return _any_equal(a, b)
    if _tracer.is_traced(a):
        if isinstance(b, range):
            return _in_range(a, b)
        if isinstance(b, (dict, set, frozenset)) or hasattr(b, "keys"):
            raise _tracer.located(TypeError(
                f"`in` cannot look up a traced tensor in a {type(b).__name__}: its value is "
                f"only known when the compiled code runs (hashing would compare the tensor "
                f"object, not its value); compare it with each key instead"))
    return a in b


def not_in(a, b):
    """`a not in b` (see `in_`)."""
    return not_(in_(a, b))


def _is_array(x) -> bool:
    import numpy as np
    return hasattr(x, "_array") or isinstance(x, np.ndarray)


def _any_equal(a, items):
    """Python's list membership (`is`, then `==`) with traced comparisons or-ed."""
    api = _tracer.api()
    result = False
    for item in items:
        if item is a:
            return True
        eq = _tracer.condition_value(a == item)
        if _tracer.is_traced(eq):
            if eq.shape != ():
                raise _tracer.located(ValueError(
                    f"`in`: comparing a tensor of shape {tuple(eq.shape)} with a list item gives "
                    f"several truth values; use ag.reduce_any(x == item) for each item"))
            result = eq if result is False else api.logical_or(result, eq)
        elif eq:
            return True
    return result


def _in_range(a, r: range):
    """`a in range(...)` for a traced number `a`: Python compares it with each int."""
    api = _tracer.api()
    if r.step > 0:
        inside = api.logical_and(a >= r.start, a < r.stop)
    else:
        inside = api.logical_and(a <= r.start, a > r.stop)
    on_step = api.equal((a - r.start) % r.step, 0)
    if not a.dtype.is_integer:
        on_step = api.logical_and(on_step, api.equal(api.floordiv(a, 1), a))
    return api.logical_and(inside, on_step)


_COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
    "in": in_, "not in": not_in,
}


def and_(a_thunk, b_thunk):
    """`a and b`."""
    a = _tracer.condition_value(a_thunk())
    if _tracer.is_traced(a):
        with staged("`and`"):
            return _tracer.control_flow().cond(a, lambda: (b_thunk(),), lambda: (a,),
                                               names=("and",))[0]
    return a and b_thunk()


def or_(a_thunk, b_thunk):
    """`a or b`."""
    a = _tracer.condition_value(a_thunk())
    if _tracer.is_traced(a):
        with staged("`or`"):
            return _tracer.control_flow().cond(a, lambda: (a,), lambda: (b_thunk(),),
                                               names=("or",))[0]
    return a or b_thunk()


def not_(a):
    """`not a` (Python's truth of a traced number: `a == 0`)."""
    a = truth(a)
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
