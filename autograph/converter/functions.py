"""Prepares function definitions for conversion.

* The converted function is rebuilt from the original's defaults, so its own
  defaults, annotations and decorators are dropped from the AST (they would
  otherwise be evaluated again, in the wrong scope).
* `global`/`nonlocal` declarations are hoisted to the top of their function:
  control-flow bodies become nested functions, where a declaration left inside
  would wrongly apply to the nested function only. Python applies such a
  declaration to the whole function anyway, so hoisting keeps the meaning.
"""
from __future__ import annotations

from typing import List

import gast

from . import templates

__all__ = ["strip_signature", "hoist_declarations", "explicit_super"]


def strip_signature(node: gast.AST) -> gast.AST:
    """Replace defaults by None and drop annotations and decorators of the top node."""
    args = node.args
    args.defaults = [templates.const(None) for _ in args.defaults]
    args.kw_defaults = [None if d is None else templates.const(None) for d in args.kw_defaults]
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    if isinstance(node, gast.FunctionDef):
        node.decorator_list = []
        node.returns = None
        node.type_params = []
    templates.copy_missing_locations(node, node)
    return node


def _hoist(body: List[gast.stmt], found_global: set, found_nonlocal: set) -> List[gast.stmt]:
    out = []
    for s in body:
        if isinstance(s, gast.Global):
            found_global.update(s.names)
            continue
        if isinstance(s, gast.Nonlocal):
            found_nonlocal.update(s.names)
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and not isinstance(s, (gast.FunctionDef, gast.ClassDef)):
                new = _hoist(block, found_global, found_nonlocal)
                setattr(s, field, new or ([gast.Pass()] if field == "body" else []))
        if isinstance(s, gast.Try):
            for h in s.handlers:
                h.body = _hoist(h.body, found_global, found_nonlocal) or [gast.Pass()]
        out.append(s)
    return out


class _Hoister(gast.NodeVisitor):
    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        globals_, nonlocals = set(), set()
        body = _hoist(node.body, globals_, nonlocals)
        decls = []
        if globals_:
            decls.append(gast.Global(names=sorted(globals_)))
        if nonlocals:
            decls.append(gast.Nonlocal(names=sorted(nonlocals)))
        templates.copy_missing_locations(decls, node.body[0])
        node.body = decls + body
        node._ag_globals = globals_
        node._ag_nonlocals = nonlocals

    def visit_ClassDef(self, node):
        return  # class bodies stay plain Python


def hoist_declarations(node: gast.AST) -> gast.AST:
    """Hoist `global`/`nonlocal` in `node` and every function nested in it."""
    _Hoister().visit(node)
    return node


def explicit_super(node: gast.AST) -> gast.AST:
    """`super()` -> `super(__class__, <first parameter>)` in the top function.

    Zero-argument super() finds its arguments in the calling frame; once a
    branch or loop body becomes a nested function that frame is gone, so the
    arguments are spelled out (`__class__` stays a free variable bound to the
    original method's cell).
    """
    if not isinstance(node, gast.FunctionDef):
        return node
    params = node.args.posonlyargs + node.args.args
    if not params:
        return node
    first = params[0].id
    stack = list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.FunctionDef, gast.ClassDef, gast.Lambda)):
            continue
        if (isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
                and n.func.id == "super" and not n.args and not n.keywords):
            n.args = [templates.name("__class__"), templates.name(first)]
            templates.copy_missing_locations(n.args, n)
        stack.extend(gast.iter_child_nodes(n))
    return node
