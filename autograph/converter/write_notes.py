"""Marks the writes that NumPy would have made visible elsewhere (API.md section 9).

Under NumPy, `x[i] = v` on a function argument changes the caller's array,
and `u = U[1:-1]; u[:] = 1` changes `U`. Here tensors are immutable: the
write rebinds the name to an updated copy, and the caller's array (or `U`)
keeps its values. This pass finds, in statement order, the names that NumPy
would have shared with another array:

* a parameter, or a name bound to one by plain assignment (`u = x`);
* a view of another variable: basic indexing (`U[1:-1]`, `U[i]`), `.T`,
  `.reshape(...)`, `.transpose(...)`, `.ravel()`, `.view()`, `.swapaxes`,
  `np.reshape`/`np.transpose`, or a plain alias of another local.

Any other assignment (`x.copy()`, `np.zeros_like(x)`, `x + 1`, fancy
indexing `x[[0, 2]]`) ends the sharing. Before each item assignment (and
in-place operator) through such a name it inserts
`ag__.note_write(name, 'name', kind, other, view_source)`, which warns at
trace time when the value written is a traced tensor
(autograph/operators/write_notes.py). Runs before the item-assignment pass.
"""
from __future__ import annotations

import ast
import copy
from typing import Dict, Optional, Tuple

import gast

from . import templates
from .inplace_calls import inplace_target

__all__ = ["transform"]

_VIEW_METHODS = frozenset({"reshape", "transpose", "ravel", "view", "swapaxes", "squeeze"})
_VIEW_FUNCTIONS = frozenset({"reshape", "transpose", "ravel", "swapaxes", "squeeze"})
# (kind, other name, source of the view expression); kind: "argument" or "view".
Origin = Tuple[str, str, str]


def _source(node) -> str:
    return ast.unparse(gast.gast_to_ast(copy.deepcopy(node)))


def _basic_key(key) -> bool:
    """Whether subscript `key` is basic indexing (a view in NumPy), as far as the
    source shows: slices, numbers, names, `None`, `...`, arithmetic on those."""
    if isinstance(key, gast.Tuple):
        return all(_basic_key(e) for e in key.elts)
    if isinstance(key, gast.Slice):
        return True
    if isinstance(key, gast.Constant):
        return key.value is None or key.value is Ellipsis or isinstance(key.value, int)
    if isinstance(key, (gast.Name, gast.Attribute)):
        return True
    if isinstance(key, gast.UnaryOp):
        return _basic_key(key.operand)
    if isinstance(key, gast.BinOp):
        return _basic_key(key.left) and _basic_key(key.right)
    return False   # lists, arrays, comparisons (masks), calls: NumPy copies


def _viewed_name(value) -> Optional[str]:
    """The name whose data `value` would share under NumPy, or None."""
    if isinstance(value, gast.Name):
        return value.id
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        return value.value.id if _basic_key(value.slice) else None
    if isinstance(value, gast.Attribute) and value.attr == "T" and isinstance(value.value, gast.Name):
        return value.value.id
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute):
        func = value.func
        if func.attr in _VIEW_METHODS and isinstance(func.value, gast.Name) and func.value.id != "np":
            return func.value.id
        if (func.attr in _VIEW_FUNCTIONS and isinstance(func.value, gast.Name)
                and func.value.id in ("np", "numpy") and value.args
                and isinstance(value.args[0], gast.Name)):
            return value.args[0].id
    return None


class _Notes:
    def __init__(self, params, function: str):
        self.function = function
        self.origin: Dict[str, Origin] = {p: ("argument", p, "") for p in params}

    def assign(self, target, value) -> None:
        if not isinstance(target, gast.Name):
            for n in gast.walk(target):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                    self.origin.pop(n.id, None)
            return
        name = target.id
        other = _viewed_name(value) if value is not None else None
        if other is None or other == name:
            if other != name:
                self.origin.pop(name, None)
            return
        base = self.origin.get(other)
        if isinstance(value, gast.Name) and base is not None:
            self.origin[name] = base          # `u = x`: the same array as x's
        else:
            self.origin[name] = ("view", other, _source(value))

    def note(self, name: str, stmt):
        origin = self.origin.get(name)
        if origin is None:
            return []
        kind, other, view = origin
        call = templates.replace(
            "ag__.note_write(x, name, kind, other, view, function)",
            x=templates.name(name, generated=False), name=templates.const(name),
            kind=templates.const(kind), other=templates.const(other),
            view=templates.const(view), function=templates.const(self.function))
        return templates.copy_missing_locations(call, stmt)

    def block(self, body):
        out = []
        for stmt in body:
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt):
        if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            self.origin.pop(stmt.name, None)
            return [stmt]
        pre = []
        if isinstance(stmt, gast.Assign):
            for target in stmt.targets:
                if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                    pre += self.note(target.value.id, stmt)
            for target in stmt.targets:
                self.assign(target, stmt.value if len(stmt.targets) == 1 else None)
        elif isinstance(stmt, gast.AugAssign):
            target = stmt.target
            if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                pre += self.note(target.value.id, stmt)
            elif isinstance(target, gast.Name):
                pre += self.note(target.id, stmt)   # `u += 1` is in place in NumPy
        elif isinstance(stmt, gast.AnnAssign) and stmt.value is not None:
            self.assign(stmt.target, stmt.value)
        elif isinstance(stmt, gast.Expr) and inplace_target(stmt) is not None:
            pre += self.note(inplace_target(stmt), stmt)   # np.add.at(x, i, v) on an argument
        elif isinstance(stmt, (gast.For, gast.AsyncFor)):
            self.assign(stmt.target, None)
            stmt.body = self.block(stmt.body)
            stmt.orelse = self.block(stmt.orelse)
        elif isinstance(stmt, (gast.While, gast.If)):
            stmt.body = self.block(stmt.body)
            stmt.orelse = self.block(stmt.orelse)
        elif isinstance(stmt, (gast.With, gast.AsyncWith)):
            stmt.body = self.block(stmt.body)
        elif isinstance(stmt, gast.Try):
            stmt.body = self.block(stmt.body)
            for handler in stmt.handlers:
                handler.body = self.block(handler.body)
            stmt.orelse = self.block(stmt.orelse)
            stmt.finalbody = self.block(stmt.finalbody)
        return pre + [stmt]


def transform(node: gast.AST, function: str) -> gast.AST:
    """Insert the write notes into FunctionDef `node` (nested functions are left alone)."""
    if not isinstance(node, gast.FunctionDef):
        return node
    args = node.args
    params = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs
              if isinstance(a, gast.Name) and a.id not in ("self", "cls")]
    node.body = _Notes(params, function).block(node.body)
    return node
