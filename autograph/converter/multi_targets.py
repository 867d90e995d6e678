"""Assignments with several targets that write items, split into simple ones.

NumPy kernels write `corr[i + 1:, i] = corr[i, i + 1:] = v` (a chained
assignment) and `KE[0], PE[0] = energies(...)` (tuple unpacking into
items). The item-assignment pass (slices.py) rewrites only a statement with
one `name[key]` target, so this pass, which runs before it (and before the
write notes), splits such statements the way Python executes them: the value
is evaluated once into a fresh name, then the targets are assigned from left
to right, and a tuple target unpacks the value first:

    a[i] = b[j] = v          ->  t = v; a[i] = t; b[j] = t
    a[i], b[j] = v           ->  t_0, t_1 = v; a[i] = t_0; b[j] = t_1

Statements whose targets write no item (`x = y = 0`, `a, b = f()`) and
tuple targets with a starred element are left as they are.
"""
from __future__ import annotations

import gast

from . import templates
from .naming import Namer

__all__ = ["transform"]


def _writes_item(target) -> bool:
    if isinstance(target, gast.Subscript):
        return True
    if isinstance(target, (gast.Tuple, gast.List)):
        return any(_writes_item(e) for e in target.elts)
    return False


def _store(identifier: str) -> gast.Name:
    return templates.name(identifier, ctx=gast.Store)


def _load(identifier: str) -> gast.Name:
    return templates.name(identifier)


class _Splitter(gast.NodeTransformer):
    def __init__(self, namer: Namer):
        self.namer = namer

    def _assign(self, targets, value, origin):
        node = gast.Assign(targets=targets, value=value, type_comment=None)
        return gast.copy_location(node, origin)

    def _split(self, node):
        """The statements replacing `node` (a list), recursively split."""
        targets = node.targets
        if len(targets) > 1:
            tmp = self.namer.new("chained_value")
            out = [self._assign([_store(tmp)], node.value, node)]
            for t in targets:
                out.extend(self._split(self._assign([t], _load(tmp), node)))
            return out
        target = targets[0]
        if (isinstance(target, (gast.Tuple, gast.List)) and _writes_item(target)
                and not any(isinstance(e, gast.Starred) for e in target.elts)):
            names = [self.namer.new("unpacked") for _ in target.elts]
            unpack = gast.Tuple(elts=[_store(n) for n in names], ctx=gast.Store())
            out = [self._assign([unpack], node.value, node)]
            for n, t in zip(names, target.elts):
                out.extend(self._split(self._assign([t], _load(n), node)))
            return out
        return [node]

    def visit_Assign(self, node):
        if not any(_writes_item(t) for t in node.targets):
            return node
        if len(node.targets) == 1 and isinstance(node.targets[0], gast.Subscript):
            return node
        return self._split(node)

    def visit_ClassDef(self, node):
        return node


def transform(node: gast.AST, namer: Namer) -> gast.AST:
    """Split the multi-target item assignments under `node`."""
    node = _Splitter(namer).visit(node)
    return gast.fix_missing_locations(node)
