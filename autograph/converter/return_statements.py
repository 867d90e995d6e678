"""Lowers `return` into a flag and a value variable (research notes 1.6).

Pass 1 (conditional returns): when one branch of an `if` always returns, the
statements after the `if` move into the other branch, so both branches end
with a value and no flag check is needed there.

Pass 2: unless the function's only return is its last top-level statement
(then nothing is needed), the body starts with `do_return = False` and
`retval_ = ag__.UndefinedReturnValue()`; `return v` becomes `retval_ = v;
do_return = True` (in that order, so a `return` whose value raises has not
returned); statements after one that may have returned are guarded by
`if ag__.not_(do_return):`; loops that may return stop on the flag; the body
ends with `return retval_` when every path returns, else with
`return ag__.retval(retval_, do_return)` (None if nothing returned, and an
error if whether something returned depends on a traced condition).
"""
from __future__ import annotations

from typing import List

import gast

from . import templates
from .break_statements import and_test
from .guards import contains, definitely_exits, guard_block
from .liveness import EXTRA_TEST_ATTR

__all__ = ["transform"]

_LOOPS = (gast.While, gast.For)


def _sub_blocks(s):
    if isinstance(s, (gast.If, gast.While, gast.For)):
        return ["body", "orelse"]
    if isinstance(s, gast.With):
        return ["body"]
    if isinstance(s, gast.Try):
        return ["body", "orelse", "finalbody"]
    return []


def _move_after_returns(stmts: List[gast.stmt]) -> List[gast.stmt]:
    """Pass 1: fold code after an `if` with a returning branch into the other branch."""
    out: List[gast.stmt] = []
    for i, s in enumerate(stmts):
        for field in _sub_blocks(s):
            setattr(s, field, _move_after_returns(getattr(s, field)))
        if isinstance(s, gast.Try):
            for h in s.handlers:
                h.body = _move_after_returns(h.body)
        out.append(s)
        if isinstance(s, (gast.Return, gast.Raise)):
            return out  # anything after is unreachable
        if not isinstance(s, gast.If):
            continue
        rest = stmts[i + 1:]
        body_exits, else_exits = definitely_exits(s.body), definitely_exits(s.orelse)
        if body_exits and else_exits:
            return out
        if rest and body_exits and contains(s, gast.Return, through_loops=True):
            s.orelse = _move_after_returns(s.orelse + rest)
            return out
        if rest and else_exits and contains(s, gast.Return, through_loops=True):
            s.body = _move_after_returns(s.body + rest)
            return out
    return out


def _needs_lowering(body: List[gast.stmt]) -> bool:
    for i, s in enumerate(body):
        if isinstance(s, gast.Return) and i == len(body) - 1:
            continue
        if contains(s, gast.Return, through_loops=True):
            return True
    return False


def _stop_loops_on_flag(stmts, flag):
    """Make every loop that may return test `not flag` before its own condition."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            continue  # nested scopes own their returns
        stack.extend(gast.iter_child_nodes(n))
        if not isinstance(n, _LOOPS) or not contains(n, gast.Return, through_loops=True):
            continue
        if getattr(n, "_ag_return_guarded", False):
            continue
        n._ag_return_guarded = True
        not_flag = templates.replace_expr("ag__.not_(flag)", flag=templates.name(flag))
        if isinstance(n, gast.While):
            n.test = and_test(not_flag, n.test)
            templates.copy_missing_locations(n.test, n)
        else:
            extra = getattr(n, EXTRA_TEST_ATTR, None)
            extra = not_flag if extra is None else and_test(not_flag, extra)
            setattr(n, EXTRA_TEST_ATTR, templates.copy_missing_locations(extra, n))


def _lower_function(fn: gast.AST, namer) -> None:
    fn.body = _move_after_returns(fn.body)
    if not _needs_lowering(fn.body):
        return
    do_return, retval = namer.new("do_return"), namer.new("retval_")
    always_returns = definitely_exits(fn.body)

    def replace_return(node):
        # The value first: if evaluating it raises (and a `try` catches it),
        # the function has not returned, exactly as in Python.
        value = node.value if node.value is not None else templates.const(None)
        new = templates.replace("value_var = value\nflag = True", flag=do_return,
                                value_var=retval, value=value)
        return templates.copy_missing_locations(new, node)

    # Loops are marked before returns disappear from them.
    _stop_loops_on_flag(fn.body, do_return)
    body, _ = guard_block(fn.body, gast.Return, replace_return, do_return, through_loops=True)
    init = templates.replace("flag = False\nvalue_var = ag__.UndefinedReturnValue()",
                             flag=do_return, value_var=retval)
    if always_returns:
        final = templates.replace("return value_var", value_var=templates.name(retval))
    else:
        final = templates.replace("return ag__.retval(value_var, flag)",
                                  value_var=templates.name(retval), flag=templates.name(do_return))
    templates.copy_missing_locations(init, fn.body[0] if fn.body else fn)
    last = fn.body[-1] if fn.body else fn
    templates.copy_missing_locations(final, last)
    fn.body = init + body + final


class _ReturnTransformer(gast.NodeTransformer):
    def __init__(self, namer):
        self.namer = namer

    def visit_FunctionDef(self, node):
        self.generic_visit(node)  # nested functions own their returns
        _lower_function(node, self.namer)
        return node


def transform(node: gast.AST, namer) -> gast.AST:
    """Lower `return` statements in `node` and every function nested in it."""
    return _ReturnTransformer(namer).visit(node)
