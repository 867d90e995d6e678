"""Item assignment as a functional update (API.md section 2).

`x[i] = v` becomes `x = ag__.set_item(x, i, v)` and `x[i] += v` becomes
`x = ag__.aug_set_item(x, i, 'iadd', v)`, so the *name* `x` is rebound;
a chain `x[i][j] = v` (NumPy users' spelling) becomes
`x = ag__.set_item_chain(x, (i, j), v)`.
That makes the update visible to the static analysis as an assignment of
`x`, which is how an array updated inside a compiled loop or branch becomes
a loop variable or branch output. Only targets of the form `name[key]` are
rewritten; for Python lists, dicts and arrays the operator still mutates in
place (Python semantics), for traced tensors it builds the updated tensor.
Slices in the key become `ag__.slice_(lo, hi, step)` values.
"""
from __future__ import annotations

import copy
import operator

import gast

from . import templates
from .composites import ORIGINAL_TARGET

__all__ = ["transform", "AUG_OPS"]

# AugAssign operator class -> name of the in-place function in `operator`.
AUG_OPS = {
    gast.Add: "iadd", gast.Sub: "isub", gast.Mult: "imul", gast.Div: "itruediv",
    gast.FloorDiv: "ifloordiv", gast.Mod: "imod", gast.Pow: "ipow",
    gast.MatMult: "imatmul", gast.BitAnd: "iand", gast.BitOr: "ior",
    gast.BitXor: "ixor", gast.LShift: "ilshift", gast.RShift: "irshift",
}
assert all(hasattr(operator, n) for n in AUG_OPS.values())


def _key_expr(key):
    """The subscript key as an ordinary expression (slices become values)."""
    if isinstance(key, gast.Slice):
        parts = [p if p is not None else templates.const(None)
                 for p in (key.lower, key.upper, key.step)]
        return templates.copy_missing_locations(templates.ag_call("slice_", parts), key)
    if isinstance(key, gast.Tuple):
        key.elts = [_key_expr(e) for e in key.elts]
    return key


def _rewritable(target) -> bool:
    return (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name))


def _chain(target):
    """(name, [key1, ..., keyN]) for a target `name[key1]...[keyN]` with N >= 2
    (NumPy users' `a[i][j] = v`), else None."""
    keys = []
    node = target
    while isinstance(node, gast.Subscript):
        keys.append(node.slice)
        node = node.value
    if len(keys) < 2 or not isinstance(node, gast.Name):
        return None
    return node, keys[::-1]


def _keys_expr(keys):
    """The keys of a chain as one tuple expression (slices become values)."""
    return gast.Tuple(elts=[_key_expr(k) for k in keys], ctx=gast.Load())


def _local_names(fn) -> set:
    """Names local to function `fn`: its parameters and the names it assigns
    (not those it declares global/nonlocal). Nested functions are not entered."""
    names = set()
    declared = set()
    args = fn.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            names.add(a.id)
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (gast.Global, gast.Nonlocal)):
            declared.update(n.names)
        elif isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            names.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            names.add(n.name)
            continue
        elif isinstance(n, gast.Lambda):
            continue
        todo.extend(gast.iter_child_nodes(n))
    return names - declared


class _SliceTransformer(gast.NodeTransformer):
    def __init__(self):
        self.scopes = []

    def visit_FunctionDef(self, node):
        self.scopes.append(_local_names(node))
        self.generic_visit(node)
        self.scopes.pop()
        return node

    def _is_local(self, name: str) -> bool:
        return not self.scopes or name in self.scopes[-1]

    def _chained(self, node, target, call: str, **extra):
        """`name[k1]...[kN] (op)= value` on a local name: `name` rebound to
        `ag__.<call>(name, (k1, ..., kN), ...)` (keys evaluated once)."""
        chain = _chain(target)
        if chain is None or not self._is_local(chain[0].id):
            return None
        base, keys = chain
        original = copy.deepcopy(target)
        new = templates.replace(
            call, x=base.id, x_load=templates.name(base.id, generated=False),
            keys=_keys_expr(keys), **extra)
        return _marked(templates.copy_missing_locations(new, node), original)

    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) == 1:
            chained = self._chained(node, node.targets[0],
                                    "x = ag__.set_item_chain(x_load, keys, value)",
                                    value=node.value)
            if chained is not None:
                return chained
        if len(node.targets) != 1 or not _rewritable(node.targets[0]):
            return node
        target = node.targets[0]
        original = copy.deepcopy(target)
        if not self._is_local(target.value.id):
            # A captured name (a global or a closure variable) cannot be
            # rebound here: mutate it (a variable is assigned) instead.
            new = templates.replace(
                "ag__.set_item_captured(x_load, key, value, name)",
                x_load=templates.name(target.value.id, generated=False),
                key=_key_expr(target.slice), value=node.value,
                name=templates.const(target.value.id))
            return _marked(templates.copy_missing_locations(new, node), original)
        new = templates.replace(
            "x = ag__.set_item(x_load, key, value)", x=target.value.id,
            x_load=templates.name(target.value.id, generated=False),
            key=_key_expr(target.slice), value=node.value)
        return _marked(templates.copy_missing_locations(new, node), original)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if type(node.op) in AUG_OPS:
            chained = self._chained(
                node, node.target, "x = ag__.aug_set_item_chain(x_load, keys, op, value)",
                op=templates.const(AUG_OPS[type(node.op)]), value=node.value)
            if chained is not None:
                return chained
        if not _rewritable(node.target) or type(node.op) not in AUG_OPS:
            return node
        target = node.target
        original = copy.deepcopy(target)
        if not self._is_local(target.value.id):
            new = templates.replace(
                "ag__.set_item_captured(x_load, key, ag__.aug_value(x_load, key, op, value), name)",
                x_load=templates.name(target.value.id, generated=False),
                key=_key_expr(target.slice), op=templates.const(AUG_OPS[type(node.op)]),
                value=node.value, name=templates.const(target.value.id))
            return _marked(templates.copy_missing_locations(new, node), original)
        new = templates.replace(
            "x = ag__.aug_set_item(x_load, key, op, value)", x=target.value.id,
            x_load=templates.name(target.value.id, generated=False),
            key=_key_expr(target.slice), op=templates.const(AUG_OPS[type(node.op)]),
            value=node.value)
        return _marked(templates.copy_missing_locations(new, node), original)

    def visit_ClassDef(self, node):
        return node


def _marked(stmts, original):
    """Remember the item the statement writes (a composite name, composites.py)."""
    setattr(stmts[0], ORIGINAL_TARGET, original)
    return stmts


def transform(node: gast.AST) -> gast.AST:
    """Rewrite item assignments under `node`."""
    return _SliceTransformer().visit(node)
