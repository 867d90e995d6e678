"""Routes every call through `ag__.converted_call` (research notes 1.3, #8).

`f(a, *b, k=c, **d)` becomes `ag__.converted_call(f, (a, *b), {'k': c, **d})`
(`None` for no keywords), so helpers are converted recursively at trace time
and builtins such as `range`/`len` reach their overloads. Left alone: calls
of `ag__` operators, calls whose meaning depends on the calling frame
(`super()`, `locals()`, ...), and decorators and argument defaults of nested
functions (they belong to the enclosing scope's evaluation, as in TF).
"""
from __future__ import annotations

import gast

from . import templates

__all__ = ["transform"]

# Calls that inspect or need the caller's frame: an extra call layer breaks them.
_FRAME_DEPENDENT = frozenset({"super", "globals", "locals", "vars", "dir", "eval", "exec",
                              "breakpoint"})


def _is_ag_call(func) -> bool:
    return (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
            and func.value.id == "ag__")


class _CallTransformer(gast.NodeTransformer):
    def visit_FunctionDef(self, node):
        # Decorators and defaults are evaluated by the enclosing scope as written.
        node.body = [self.visit(s) for s in node.body]
        node.body = [s for item in node.body for s in (item if isinstance(item, list) else [item])]
        return node

    def visit_Lambda(self, node):
        node.body = self.visit(node.body)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if _is_ag_call(func) or getattr(node, templates.GENERATED_MARK, False):
            return node
        if isinstance(func, gast.Name) and func.id in _FRAME_DEPENDENT:
            return node
        args = gast.Tuple(elts=list(node.args), ctx=gast.Load())
        if node.keywords:
            kwargs = gast.Dict(
                keys=[None if k.arg is None else templates.const(k.arg) for k in node.keywords],
                values=[k.value for k in node.keywords])
        else:
            kwargs = templates.const(None)
        new = templates.ag_call("converted_call", [func, args, kwargs])
        return templates.copy_missing_locations(new, node)


def transform(node: gast.AST) -> gast.AST:
    """Convert the calls under `node` (the function's own decorators excluded)."""
    return _CallTransformer().visit(node)
