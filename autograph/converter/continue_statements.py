"""Lowers `continue` into a flag plus guards (research notes 1.6).

The loop body starts with `continue_ = False`; `continue` becomes
`continue_ = True`; statements after one that may have continued are wrapped
in `if ag__.not_(continue_):`. When no statement follows any `continue`, no
flag is needed and the `continue` just disappears.
"""
from __future__ import annotations

import gast

from . import templates
from .guards import contains, guard_block

__all__ = ["transform"]


class _ContinueTransformer(gast.NodeTransformer):
    def __init__(self, namer):
        self.namer = namer

    def _loop(self, node):
        self.generic_visit(node)
        if not any(contains(s, gast.Continue, through_loops=False) for s in node.body):
            return node
        flag = self.namer.new("continue_")

        def set_flag(stmt):
            return templates.copy_missing_locations(templates.replace("flag = True", flag=flag), stmt)

        body, guards = guard_block(node.body, gast.Continue, set_flag, flag)
        if guards == 0:
            # Every continue was the last thing on its path: plain deletion is exact.
            body = _drop_flag_sets(body, flag)
        else:
            init = templates.replace("flag = False", flag=flag)
            templates.copy_missing_locations(init, node.body[0])
            body = init + body
        node.body = body or [gast.Pass()]
        return node

    visit_While = visit_For = _loop


def _drop_flag_sets(stmts, flag):
    """Remove `flag = True` statements (and empty blocks they leave behind)."""
    class Dropper(gast.NodeTransformer):
        def visit_Assign(self, node):
            t = node.targets
            if len(t) == 1 and isinstance(t[0], gast.Name) and t[0].id == flag:
                return None
            return node

        def generic_visit(self, node):
            super().generic_visit(node)
            if isinstance(getattr(node, "body", None), list) and not node.body:
                node.body = [gast.Pass()]
            return node

        visit_FunctionDef = visit_Lambda = visit_ClassDef = lambda self, node: node

    d = Dropper()
    out = []
    for s in stmts:
        new = d.visit(s)
        if new is not None:
            out.append(new)
    return out


def transform(node: gast.AST, namer) -> gast.AST:
    """Lower all `continue` statements under `node`."""
    return _ContinueTransformer(namer).visit(node)
