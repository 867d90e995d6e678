"""Reads `x[key]` with a computed key as `ag__.get_item(x, key)` (API.md section 9).

NumPy code indexes captured arrays (a global lookup table, a closure's
array) with values that are traced tensors inside `ag.function`:
`TABLE[i]`, `W[idx]`, `M[:, j]`. NumPy's own `ndarray.__getitem__` cannot
take a traced index (its value only exists when the compiled code runs), so
the read goes through `ag__.get_item`, which indexes a NumPy array holding
traced index parts as a tensor constant (the same result, computed by the
compiled code) and leaves every other read to Python (`x[key]`).

Only loads whose key is computed are rewritten: a constant key (`x[0]`,
`x[1:3]`, `x['k']`) can never hold a traced value, and constant-key chains
are composite names for the static analysis (composites.py). Runs after
the item-assignment pass, so no store target is left here.
"""
from __future__ import annotations

import gast

from . import templates
from .composites import _constant_key
from .slices import _key_expr

__all__ = ["transform"]


class _ReadTransformer(gast.NodeTransformer):
    def visit_Subscript(self, node):
        self.generic_visit(node)
        if not isinstance(node.ctx, gast.Load) or _constant_key(node.slice):
            return node
        call = templates.ag_call("get_item", [node.value, _key_expr(node.slice)])
        return templates.copy_missing_locations(call, node)

    def visit_ClassDef(self, node):
        return node


def transform(node: gast.AST) -> gast.AST:
    """Rewrite computed-key reads under `node`."""
    return _ReadTransformer().visit(node)
