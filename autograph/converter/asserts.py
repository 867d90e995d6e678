"""`assert` statements become `ag__.assert_stmt` calls (research notes 1.3, #4).

`assert test, msg` -> `ag__.assert_stmt(lambda: test, lambda: msg)`: with a
Python condition it is Python's assert (AssertionError(msg) when false; the
thunks make `python -O` skip both, as it skips the statement); with a traced
condition it becomes a run-time check that raises
`ag.errors.InvalidArgumentError` naming the user's line, as
`tf.debugging.Assert` would, instead of asking the tensor for a Python bool.
"""
from __future__ import annotations

import gast

from . import templates

__all__ = ["transform"]


def _thunk(expr):
    lam = templates.replace_expr("lambda: x", x=expr)
    setattr(lam, templates.GENERATED_MARK, True)   # not a closure that escapes (liveness)
    return lam


class _AssertTransformer(gast.NodeTransformer):
    def visit_Assert(self, node):
        msg = _thunk(node.msg) if node.msg is not None else templates.const(None)
        new = templates.replace("ag__.assert_stmt(test, msg)", test=_thunk(node.test), msg=msg)
        return templates.copy_missing_locations(new, node)

    def visit_ClassDef(self, node):
        return node   # class bodies stay plain Python


def transform(node: gast.AST) -> gast.AST:
    """Convert the `assert` statements under `node`."""
    return _AssertTransformer().visit(node)
