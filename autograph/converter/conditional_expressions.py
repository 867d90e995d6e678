"""`a if c else b` becomes `ag__.if_exp(c, lambda: a, lambda: b, 'a if c else b')`.

The branches become thunks so that only the chosen one runs for a Python
condition (as in Python) and both are traced into a `cond` for a traced one.
The source text is passed for error messages.
"""
from __future__ import annotations

import ast
import copy

import gast

from . import templates

__all__ = ["transform", "record_sources"]


SOURCE_ATTR = "_ag_source_text"


def record_sources(tree: gast.AST) -> None:
    """Remember the user's text of every conditional expression, before other
    passes rewrite its operands (the text appears in error messages)."""
    for node in gast.walk(tree):
        if isinstance(node, gast.IfExp):
            setattr(node, SOURCE_ATTR, ast.unparse(gast.gast_to_ast(copy.deepcopy(node))))


class _IfExpTransformer(gast.NodeTransformer):
    def visit_IfExp(self, node):
        text = getattr(node, SOURCE_ATTR, None)
        if text is None:
            text = ast.unparse(gast.gast_to_ast(copy.deepcopy(node)))
        self.generic_visit(node)
        new = templates.replace_expr(
            "ag__.if_exp(test, lambda: body, lambda: orelse, text)",
            test=node.test, body=node.body, orelse=node.orelse, text=templates.const(text))
        return templates.copy_missing_locations(new, node)

    def visit_ClassDef(self, node):
        return node


def transform(node: gast.AST) -> gast.AST:
    """Convert every conditional expression under `node`."""
    return _IfExpTransformer().visit(node)
