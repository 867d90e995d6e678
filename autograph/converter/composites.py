"""Composite names (`x['b']`, `x[0]`, `self.count`, `x['a']['b']`) as state
of compiled control flow (research notes 1.4).

A write to an item or attribute inside an `if`/`while`/`for` changes state the
branches and iterations must carry, as a write to a plain variable does: with
a traced condition both branches are traced, so without this the last
branch's write would silently win. A composite is carried when it is written
(assigned, augmented or deleted) in the statement's blocks and its root name
is live into them (so the object exists before the statement; one created
inside is not state). Keys must be constants (strings, numbers, tuples of
them); attributes any name.

`get_state` reads a composite with `ag__.ld_composite` (an `Undefined` when
the item or attribute does not exist yet) and `set_state` writes it back
with `ag__.store_composite` (deleting it again for an `Undefined`); for a
tensor container both step aside, as a tensor's items are updated through
its own name (`x = ag__.set_item(x, ...)`, a plain variable).
"""
from __future__ import annotations

import ast
import copy
from typing import Dict, List, NamedTuple, Optional

import gast

from . import templates

__all__ = ["Composite", "composite_of", "block_composites", "read_expr", "write_stmts",
           "ORIGINAL_TARGET"]

# Set by slices.py on the statement it makes of `x[k] = v` (`x =
# ag__.set_item(x, k, v)`): the original target, still a composite write.
ORIGINAL_TARGET = "_ag_composite_target"

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_KEY_TYPES = (str, bytes, int, float, bool, type(None))


class Composite(NamedTuple):
    """A qualified name: its text, root name, container expression, key and kind."""

    text: str
    root: str
    container: gast.expr
    key: gast.expr
    is_attr: bool
    depth: int


def _constant_key(node) -> bool:
    if isinstance(node, gast.Constant):
        return isinstance(node.value, _KEY_TYPES)
    if isinstance(node, gast.Tuple):
        return all(_constant_key(e) for e in node.elts)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return isinstance(node.operand, gast.Constant) and isinstance(node.operand.value, (int, float))
    return False


def _root(node) -> Optional[tuple]:
    """(root name, depth) of a chain of attributes and constant subscripts over a name."""
    if isinstance(node, gast.Name):
        return node.id, 0
    if isinstance(node, gast.Attribute):
        inner = _root(node.value)
    elif isinstance(node, gast.Subscript) and _constant_key(node.slice):
        inner = _root(node.value)
    else:
        return None
    return None if inner is None else (inner[0], inner[1] + 1)


def composite_of(target) -> Optional[Composite]:
    """The Composite a target expression writes, or None (a plain name, a
    slice, a key computed at run time, ...)."""
    if not isinstance(target, (gast.Attribute, gast.Subscript)):
        return None
    found = _root(target)
    if found is None:
        return None
    root, depth = found
    container = _load(target.value)
    if isinstance(target, gast.Attribute):
        key, is_attr = templates.const(target.attr), True
    else:
        key, is_attr = _load(target.slice), False
    return Composite(_text(target), root, container, key, is_attr, depth)


def _load(node):
    node = copy.deepcopy(node)
    templates.strip_locations(node)
    for n in gast.walk(node):
        if hasattr(n, "ctx"):
            n.ctx = gast.Load()
    return node


def _text(node) -> str:
    return ast.unparse(gast.gast_to_ast(_load(node)))


def _targets(stmt) -> List:
    if isinstance(stmt, gast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, (gast.AugAssign, gast.AnnAssign)):
        return [stmt.target] if getattr(stmt, "value", True) is not None else []
    if isinstance(stmt, gast.Delete):
        return list(stmt.targets)
    if isinstance(stmt, gast.For):
        return [stmt.target]
    return []


def _flat(targets):
    for t in targets:
        if isinstance(t, (gast.Tuple, gast.List)):
            yield from _flat(t.elts)
        elif isinstance(t, gast.Starred):
            yield from _flat([t.value])
        else:
            yield t


def block_composites(stmts) -> Dict[str, Composite]:
    """Every composite written in `stmts` (nested blocks too, not nested functions)."""
    found: Dict[str, Composite] = {}
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        targets = _targets(node)
        original = getattr(node, ORIGINAL_TARGET, None)
        if original is not None:
            targets.append(original)
        for t in _flat(targets):
            comp = composite_of(t)
            if comp is not None:
                found.setdefault(comp.text, comp)
        stack.extend(gast.iter_child_nodes(node))
    return found


def read_expr(comp: Composite) -> gast.expr:
    """`ag__.ld_composite(lambda: container, key, is_attr, 'text')`."""
    return templates.replace_expr(
        "ag__.ld_composite(lambda: container, key, is_attr, text)",
        container=copy.deepcopy(comp.container), key=copy.deepcopy(comp.key),
        is_attr=templates.const(comp.is_attr), text=templates.const(comp.text))


def write_stmts(comp: Composite, value: gast.expr) -> List[gast.stmt]:
    """`ag__.store_composite(lambda: container, key, is_attr, value)`."""
    return templates.replace(
        "ag__.store_composite(lambda: container, key, is_attr, value)",
        container=copy.deepcopy(comp.container), key=copy.deepcopy(comp.key),
        is_attr=templates.const(comp.is_attr), value=value)
