"""Building generated code from small Python templates.

A template is Python source whose placeholder names are replaced by AST
nodes, names or lists of statements (the same idea as TensorFlow's
`templates.replace`, written afresh). Generated nodes carry no location of
their own until `copy_missing_locations` gives them the location of the
user's statement they stand for, so tracebacks point at the user's line.
"""
from __future__ import annotations

import copy
import functools
from typing import Any, Dict, List, Sequence

import gast

__all__ = [
    "replace", "replace_expr", "copy_missing_locations", "name", "ag_call",
    "const", "strip_locations", "GENERATED_MARK",
]

_LOCATION_ATTRS = ("lineno", "col_offset", "end_lineno", "end_col_offset")

# Length of the first source line of a node (set by parsing): the end column
# generated nodes get when their origin spans several lines.
LINE_END_ATTR = "_ag_line_end"

# Attribute set on Name nodes made by the converter (e.g. inside get_state),
# so later passes can tell them from names the user wrote.
GENERATED_MARK = "_ag_generated"


@functools.lru_cache(maxsize=256)
def _parse_cached(src: str) -> gast.Module:
    return gast.parse(src)


def strip_locations(node: gast.AST) -> gast.AST:
    """Remove location attributes from `node` and all its descendants."""
    for n in gast.walk(node):
        for attr in _LOCATION_ATTRS:
            if hasattr(n, attr):
                delattr(n, attr)
    return node


def copy_missing_locations(nodes, origin: gast.AST):
    """Give every node under `nodes` lacking a location the location of `origin`.

    Generated nodes get a one-line span (the first line of `origin`): with a
    multi-line span, CPython 3.11 reports a method call such as
    `ag__.while_stmt(...)` at the span's *last* line instead of the user's
    `while` line. Returns `nodes` (a node or a list, as given).
    """
    roots = [nodes] if isinstance(nodes, gast.AST) else nodes
    lineno = getattr(origin, "lineno", None)
    if lineno is None:
        return nodes
    col = origin.col_offset
    if getattr(origin, "end_lineno", lineno) == lineno and origin.end_col_offset is not None:
        end_col = origin.end_col_offset
    else:
        end_col = getattr(origin, LINE_END_ATTR, col)
    for root in roots:
        for n in gast.walk(root):
            if not hasattr(n, "_attributes") or "lineno" not in n._attributes:
                continue
            if getattr(n, "lineno", None) is None:
                n.lineno, n.col_offset = lineno, col
                n.end_lineno, n.end_col_offset = lineno, end_col
                setattr(n, LINE_END_ATTR, end_col)
    return nodes


def _set_ctx(node, ctx):
    """Set the context (Load/Store/Del) of a target expression, recursively."""
    if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript, gast.Starred)):
        node.ctx = ctx()
    if isinstance(node, (gast.Tuple, gast.List)):
        node.ctx = ctx()
        for e in node.elts:
            _set_ctx(e, ctx)
    if isinstance(node, gast.Starred):
        _set_ctx(node.value, ctx)


class _Replacer(gast.NodeTransformer):
    def __init__(self, replacements: Dict[str, Any]):
        self.repl = replacements
        self.used: Dict[str, int] = {}

    def _node_for(self, key):
        # Reusing one AST node in two places corrupts later rewrites: copy.
        value = self.repl[key]
        count = self.used.get(key, 0)
        self.used[key] = count + 1
        return value if count == 0 else copy.deepcopy(value)

    def visit_Name(self, node):
        if node.id not in self.repl:
            return node
        value = self.repl[node.id]
        if isinstance(value, str):
            node.id = value
            return node
        new = self._node_for(node.id)
        if isinstance(node.ctx, gast.Store):
            _set_ctx(new, gast.Store)
        return new

    def _splice_exprs(self, elts):
        out = []
        for e in elts:
            if isinstance(e, gast.Name) and isinstance(self.repl.get(e.id), (list, tuple)):
                for item in self.repl[e.id]:
                    item = copy.deepcopy(item) if isinstance(item, gast.AST) else name(item)
                    if isinstance(e.ctx, gast.Store):
                        _set_ctx(item, gast.Store)
                    out.append(item)
            else:
                out.append(self.visit(e))
        return out

    def visit_Tuple(self, node):
        node.elts = self._splice_exprs(node.elts)
        return node

    visit_List = visit_Tuple

    def visit_Call(self, node):
        node.func = self.visit(node.func)
        node.args = self._splice_exprs(node.args)
        node.keywords = [self.visit(k) for k in node.keywords]
        return node

    def _rename_list(self, names: List[str]) -> List[str]:
        out = []
        for n in names:
            value = self.repl.get(n, n)
            out.extend(value if isinstance(value, (list, tuple)) else [value])
        return out

    def visit_Nonlocal(self, node):
        node.names = self._rename_list(node.names)
        return node if node.names else None

    visit_Global = visit_Nonlocal

    def visit_FunctionDef(self, node):
        if node.name in self.repl:
            node.name = self.repl[node.name]
        self.generic_visit(node)
        if not node.body:
            node.body = [gast.Pass()]
        return node

    def visit_arguments(self, node):
        # Parameters are Name nodes with Param ctx: only renames apply.
        for a in node.args:
            if a.id in self.repl and isinstance(self.repl[a.id], str):
                a.id = self.repl[a.id]
        return node

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.repl:
            value = self.repl[node.value.id]
            if value is None:
                return None
            if isinstance(value, (list, tuple)):
                return list(value)
            if isinstance(value, gast.stmt):
                return value
        self.generic_visit(node)
        return node

    def visit_If(self, node):
        self.generic_visit(node)
        if not node.body:
            node.body = [gast.Pass()]
        return node


def replace(template: str, **replacements) -> List[gast.stmt]:
    """Statements of `template` with placeholder names replaced.

    A replacement is a str (renames the identifier, also in `def`, `nonlocal`
    and `global`), an expression node (replaces the Name; Store context kept),
    a list of statements (spliced where the placeholder stands alone as a
    statement), a list of expressions or names (spliced into tuples, lists and
    call arguments), or None (removes a placeholder statement).
    """
    module = copy.deepcopy(_parse_cached(template))
    strip_locations(module)
    body = []
    replacer = _Replacer(replacements)
    for stmt in module.body:
        new = replacer.visit(stmt)
        if new is None:
            continue
        body.extend(new if isinstance(new, list) else [new])
    return body


def replace_expr(template: str, **replacements) -> gast.expr:
    """Like `replace`, for a template that is one expression."""
    stmts = replace(template, **replacements)
    assert len(stmts) == 1 and isinstance(stmts[0], gast.Expr), template
    return stmts[0].value


def name(identifier: str, ctx=None, generated: bool = True) -> gast.Name:
    """A Name node (Load context unless `ctx` says otherwise)."""
    node = gast.Name(id=identifier, ctx=(ctx or gast.Load)(), annotation=None,
                     type_comment=None)
    if generated:
        setattr(node, GENERATED_MARK, True)
    return node


def const(value) -> gast.Constant:
    """A constant node."""
    return gast.Constant(value=value, kind=None)


def ag_call(func: str, args: Sequence[gast.expr]) -> gast.Call:
    """The expression `ag__.<func>(*args)`."""
    return gast.Call(
        func=gast.Attribute(value=name("ag__"), attr=func, ctx=gast.Load()),
        args=list(args), keywords=[])
