"""`out.append(v)` statements become `out = ag__.list_append(out, v)`
(and `out += [v]` becomes `out = ag__.list_append(out, v, True)`); an
`out.pop()` (or `out.pop(i)`) inside a simple statement (`s += out.pop()`)
is taken out of it as `out, popped = ag__.list_pop(out)` just before the
statement.

Rebinding makes the list a variable of the loops and branches around the
statement, so a compiled loop can carry it as a TensorArray
(autograph/operators/lists.py); on a Python list `list_append` appends and
returns the same object, so Python semantics are kept. Only the statement
form on a plain local name is rewritten (`self.out.append(v)`,
`f(out.append(v))` and appends to a global or closure list stay Python
calls). A pop is taken out only where moving it first cannot change what
the statement computes: the statement names the list nowhere else, pops it
once, and the pop is not inside a lambda, comprehension, conditional
expression or `and`/`or` (which might not evaluate it); other pops stay
Python calls.
"""
from __future__ import annotations

from collections import Counter
from typing import FrozenSet, List

import gast

from . import templates

__all__ = ["transform", "appended_names"]


def _append_target(stmt) -> str:
    """The name `x` of a statement `x.append(v)`, or ''."""
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)):
        return ""
    call = stmt.value
    func = call.func
    if (isinstance(func, gast.Attribute) and func.attr == "append"
            and isinstance(func.value, gast.Name) and len(call.args) == 1
            and not call.keywords and not isinstance(call.args[0], gast.Starred)):
        return func.value.id
    return ""


# Where a sub-expression may be evaluated later, or not at all.
_DEFERRED = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
             gast.IfExp, gast.BoolOp)
# Simple statements a pop may be taken out of (compound statements' headers keep theirs).
_SIMPLE = (gast.Expr, gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return)


def _is_pop(node, scope) -> bool:
    """`name.pop()` or `name.pop(i)` on a local name."""
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and node.func.attr == "pop" and isinstance(node.func.value, gast.Name)
            and node.func.value.id in scope and len(node.args) <= 1 and not node.keywords
            # an index that calls nothing: evaluating it first changes nothing else
            and not any(isinstance(n, (gast.Call, gast.Starred, gast.NamedExpr, gast.Yield,
                                       gast.YieldFrom, gast.Await))
                        for a in node.args for n in gast.walk(a)))


def _hoistable_pops(stmt, scope) -> list:
    """The `name.pop()` calls of `stmt` that may run just before it (see the
    module docstring), or [] when any pop there must stay where it is."""
    pops, uses, deferred_pop = [], Counter(), [False]

    def walk(node, deferred):
        if _is_pop(node, scope):
            if deferred:
                deferred_pop[0] = True
            pops.append(node)
            return                     # the receiver is not another use of the name
        if isinstance(node, gast.Name):
            uses[node.id] += 1
        deferred = deferred or isinstance(node, _DEFERRED)
        for child in gast.iter_child_nodes(node):
            walk(child, deferred)

    walk(stmt, False)
    names = [p.func.value.id for p in pops]
    if deferred_pop[0] or any(uses[n] or names.count(n) > 1 for n in names):
        return []
    return pops


class _ReplaceNodes(gast.NodeTransformer):
    def __init__(self, replacements):
        self.replacements = replacements   # id(node) -> new node

    def visit(self, node):
        new = self.replacements.get(id(node))
        return new if new is not None else super().visit(node)


class _AppendTransformer(gast.NodeTransformer):
    def __init__(self, namer=None):
        self.scopes = []
        self.namer = namer

    def visit(self, node):
        if isinstance(node, _SIMPLE) and self.namer is not None and self.scopes:
            pops = _hoistable_pops(node, self.scopes[-1])
            if pops:
                return self._hoist(node, pops)
        return super().visit(node)

    def _hoist(self, stmt, pops):
        """`lst, popped = ag__.list_pop(lst)` for each pop, then `stmt` reading `popped`."""
        before, replacements = [], {}
        for call in pops:
            popped = self.namer.new("popped")
            lst = call.func.value.id
            if call.args:      # the index is evaluated where the pop was, before the pop
                before += templates.replace("lst, popped = ag__.list_pop(lst, index)", lst=lst,
                                            popped=popped, index=call.args[0])
            else:
                before += templates.replace("lst, popped = ag__.list_pop(lst)", lst=lst,
                                            popped=popped)
            replacements[id(call)] = templates.name(popped)
        stmt = _ReplaceNodes(replacements).visit(stmt)
        templates.copy_missing_locations(before, stmt)
        rest = super().visit(stmt)
        return before + (rest if isinstance(rest, list) else [rest])

    def visit_FunctionDef(self, node):
        from .slices import _local_names
        self.scopes.append(_local_names(node))
        self.generic_visit(node)
        self.scopes.pop()
        return node

    def visit_ClassDef(self, node):
        return node   # class bodies stay Python

    def visit_AugAssign(self, node):
        # `out += [v]`: on a list, an append (in place, as Python extends it).
        target, value = node.target, node.value
        if (isinstance(target, gast.Name) and isinstance(node.op, gast.Add)
                and isinstance(value, gast.List) and len(value.elts) == 1
                and not isinstance(value.elts[0], gast.Starred)
                and (not self.scopes or target.id in self.scopes[-1])):
            item = self.visit(value.elts[0])
            new = templates.replace("target = ag__.list_append(target, item, True)",
                                    target=target.id, item=item)
            return templates.copy_missing_locations(new, node)
        return self.generic_visit(node)

    def visit_Expr(self, node):
        target = _append_target(node)
        # A global or closure list cannot be rebound here: it stays a Python call.
        if not target or (self.scopes and target not in self.scopes[-1]):
            return self.generic_visit(node)
        value = self.visit(node.value.args[0])
        new = templates.replace("target = ag__.list_append(target, value)",
                                target=target, value=value)
        return templates.copy_missing_locations(new, node)


def transform(node: gast.AST, namer=None) -> gast.AST:
    """Rewrite the `name.append(v)` statements under `node` (and, given a
    `Namer` for the temporaries, take `name.pop()` calls out of statements)."""
    return _AppendTransformer(namer).visit(node)


def appended_names(body: List[gast.stmt]) -> FrozenSet[str]:
    """The names that `ag__.list_append` or `ag__.list_pop` rebinds anywhere in `body`."""
    found = set()
    for stmt in body:
        for n in gast.walk(stmt):
            if (isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
                    and n.func.attr in ("list_append", "list_pop")
                    and isinstance(n.func.value, gast.Name)
                    and n.func.value.id == "ag__" and n.args
                    and isinstance(n.args[0], gast.Name)):
                found.add(n.args[0].id)
    return frozenset(found)
