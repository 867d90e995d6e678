"""`except` handlers check what they catch: `ag__.caught(e)` comes first.

A `try`/`except` runs at trace time, as Python. That is exact for
exceptions the traced code raises on every run, but not for one raised
while tracing a branch or loop body on a traced condition: whether it
happens depends on values known only when the compiled code runs, and
catching it at trace time would silently take the handler on every run.
The operators mark such exceptions (autograph/operators/exceptions.py) and
`ag__.caught` turns a marked one into an error naming the construct and
the user's line. Handlers without a name get a fresh one to pass it on.
"""
from __future__ import annotations

import gast

from . import templates

__all__ = ["transform"]


class _TryTransformer(gast.NodeTransformer):
    def __init__(self, namer):
        self.namer = namer

    def visit_ExceptHandler(self, node):
        self.generic_visit(node)
        if node.name is None:
            node.name = templates.name(self.namer.new("exc_"), gast.Store)
        check = templates.replace("ag__.caught(exc)",
                                  exc=templates.name(node.name.id))
        node.body = templates.copy_missing_locations(check, node) + node.body
        return node

    def visit_ClassDef(self, node):
        return node   # class bodies stay plain Python


def transform(node: gast.AST, namer) -> gast.AST:
    """Add the check to every `except` handler under `node`."""
    return _TryTransformer(namer).visit(node)
