"""Lowers `break` into a flag (research notes 1.6).

`break` becomes `break_ = True` and the statements after it are guarded by
`if ag__.not_(break_):` (TensorFlow emits `continue` and lets the continue
pass guard; guarding directly saves a second flag per loop). The loop gets
`break_ = False` before it and stops on the flag: a `while` test becomes
`ag__.and_(lambda: ag__.not_(break_), lambda: test)` (the flag first, so a
finished loop never re-evaluates its test), a `for` gets the extra loop
condition `ag__.not_(break_)`. A loop `else:` block moves after the loop
under `if ag__.not_(break_):` (TensorFlow rejects loop `else`; the flag makes
it easy).
"""
from __future__ import annotations

import gast

from . import templates
from .guards import contains, guard_block
from .liveness import EXTRA_TEST_ATTR

__all__ = ["transform"]


def and_test(first: gast.expr, second: gast.expr) -> gast.expr:
    """`ag__.and_(lambda: first, lambda: second)` with generated lambdas marked."""
    expr = templates.replace_expr("ag__.and_(lambda: a, lambda: b)", a=first, b=second)
    for lam in expr.args:
        setattr(lam, templates.GENERATED_MARK, True)
    return expr


class _BreakTransformer(gast.NodeTransformer):
    def __init__(self, namer):
        self.namer = namer

    def _loop(self, node):
        self.generic_visit(node)  # inner loops first: their breaks are theirs
        has_break = any(contains(s, gast.Break, through_loops=False) for s in node.body)
        orelse, node.orelse = node.orelse, []
        if not has_break:
            return [node] + orelse
        flag = self.namer.new("break_")

        def set_flag(stmt):
            return templates.copy_missing_locations(templates.replace("flag = True", flag=flag), stmt)

        node.body, _ = guard_block(node.body, gast.Break, set_flag, flag)
        not_flag = templates.replace_expr("ag__.not_(flag)", flag=templates.name(flag))
        if isinstance(node, gast.While):
            node.test = and_test(not_flag, node.test)
        else:
            setattr(node, EXTRA_TEST_ATTR, not_flag)
        before = templates.replace("flag = False", flag=flag)
        after = templates.replace("if ag__.not_(flag):\n    orelse",
                                  flag=templates.name(flag), orelse=orelse) if orelse else []
        templates.copy_missing_locations(before + [node] + after, node)
        return before + [node] + after

    visit_While = visit_For = _loop


def transform(node: gast.AST, namer) -> gast.AST:
    """Lower all `break` statements under `node` (a function or lambda)."""
    return _BreakTransformer(namer).visit(node)
