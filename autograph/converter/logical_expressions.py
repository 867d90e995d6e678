"""`and`/`or`/`not` and chained comparisons become lazy operator calls.

`a and b and c` -> `ag__.and_(lambda: a, lambda: ag__.and_(lambda: b, lambda: c))`
(right-nested, each operand a thunk so Python's short-circuit holds for
Python values and a traced operand can stage the rest as a `cond`);
`not a` -> `ag__.not_(a)`; `a < b < c` -> `ag__.compare_chain(lambda: a,
(('<', lambda: b), ('<', lambda: c)))`, which evaluates each operand once and
lazily, and combines traced results with a logical and; `a in b` ->
`ag__.in_(a, b)` (`ag__.not_in` for `not in`), a traced bool when a tensor
is involved.
"""
from __future__ import annotations

import gast

from . import templates

__all__ = ["transform"]

_CMP_OPS = {
    gast.Eq: "==", gast.NotEq: "!=", gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">",
    gast.GtE: ">=", gast.Is: "is", gast.IsNot: "is not", gast.In: "in",
    gast.NotIn: "not in",
}


def _thunk(expr: gast.expr) -> gast.Lambda:
    lam = templates.replace_expr("lambda: x", x=expr)
    return templates.copy_missing_locations(lam, expr)


class _LogicalTransformer(gast.NodeTransformer):
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        func = "and_" if isinstance(node.op, gast.And) else "or_"
        values = node.values
        result = values[-1]
        for v in reversed(values[:-1]):
            result = templates.ag_call(func, [_thunk(v), _thunk(result)])
            templates.copy_missing_locations(result, node)
        return result

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Not):
            return node
        return templates.copy_missing_locations(templates.ag_call("not_", [node.operand]), node)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.In, gast.NotIn)):
            # `in` on a traced tensor is a traced bool (Python's `in` would ask
            # the tensor for a Python bool).
            func = "in_" if isinstance(node.ops[0], gast.In) else "not_in"
            new = templates.ag_call(func, [node.left, node.comparators[0]])
            return templates.copy_missing_locations(new, node)
        if len(node.ops) < 2:
            return node
        pairs = gast.Tuple(elts=[
            gast.Tuple(elts=[templates.const(_CMP_OPS[type(op)]), _thunk(right)], ctx=gast.Load())
            for op, right in zip(node.ops, node.comparators)], ctx=gast.Load())
        new = templates.ag_call("compare_chain", [_thunk(node.left), pairs])
        return templates.copy_missing_locations(new, node)

    def visit_ClassDef(self, node):
        return node


def transform(node: gast.AST) -> gast.AST:
    """Convert logical operators and comparison chains under `node`."""
    return _LogicalTransformer().visit(node)
