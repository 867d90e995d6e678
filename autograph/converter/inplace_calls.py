"""NumPy's in-place update calls as functional updates (API.md section 9).

The statement `np.add.at(a, idx, v)` (an expression statement calling
`<anything>.at`, `.put_along_axis`, `.put`, `.fill_diagonal`, `.copyto` or
`.putmask` with a local name as first argument) becomes
`a = ag__.numpy_inplace(np.add.at, a, idx, v)`, and the statements
`a.sort(...)` and `a.fill(v)` become `a = ag__.method_inplace(a, "sort", ...)`:
tensors are immutable, so
the name is rebound to the updated tensor, visible to the static analysis
as an assignment of `a` (a loop variable or branch output when it happens
in a loop or branch). For NumPy arrays and other objects the operator makes
the original call, so their in-place behaviour is unchanged.
"""
from __future__ import annotations

from typing import Optional

import gast

from . import templates
from .slices import _local_names

__all__ = ["transform", "INPLACE_NAMES", "inplace_target"]

# Attribute names of the calls rewritten: ufunc.at, np.put_along_axis, np.put,
# np.fill_diagonal, np.copyto, np.putmask.
INPLACE_NAMES = ("at", "put_along_axis", "put", "fill_diagonal", "copyto", "putmask")


# Array methods that update their array in place (Numba supports both): the
# statement `name.sort()` / `name.fill(v)` becomes
# `name = ag__.method_inplace(name, "sort")`.
INPLACE_METHODS = ("sort", "fill")


def _inplace_method(stmt) -> Optional[str]:
    """The receiver's name of a statement `name.sort(...)` / `name.fill(...)`, else None."""
    call = getattr(stmt, "value", None) if isinstance(stmt, gast.Expr) else None
    if (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
            and call.func.attr in INPLACE_METHODS and isinstance(call.func.value, gast.Name)
            and not any(isinstance(a, gast.Starred) for a in call.args)):
        return call.func.value.id
    return None


def inplace_target(stmt) -> Optional[str]:
    """The name a statement `<x>.at(name, ...)` (or another of INPLACE_NAMES),
    `name.sort(...)` or `name.fill(v)` updates in place, else None."""
    call = getattr(stmt, "value", None) if isinstance(stmt, gast.Expr) else None
    if (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
            and call.func.attr in INPLACE_NAMES and call.args
            and isinstance(call.args[0], gast.Name)
            and not any(isinstance(a, gast.Starred) for a in call.args)):
        return call.args[0].id
    return _inplace_method(stmt)


class _InplaceTransformer(gast.NodeTransformer):
    def __init__(self):
        self.scopes = []

    def visit_FunctionDef(self, node):
        self.scopes.append(_local_names(node))
        self.generic_visit(node)
        self.scopes.pop()
        return node

    def visit_Expr(self, node):
        target = inplace_target(node)
        if target is None or (self.scopes and target not in self.scopes[-1]):
            return node
        call = node.value
        if call.func.attr in INPLACE_NAMES:
            value = templates.ag_call("numpy_inplace", [call.func] + list(call.args))
        else:   # name.sort(...) / name.fill(v)
            value = templates.ag_call("method_inplace", [
                call.func.value, gast.Constant(value=call.func.attr, kind=None)] + list(call.args))
        new = gast.Assign(
            targets=[templates.name(target, ctx=gast.Store, generated=False)],
            value=value, type_comment=None)
        new.value.keywords = list(call.keywords)
        return templates.copy_missing_locations([new], node)

    def visit_ClassDef(self, node):
        return node


def transform(node: gast.AST) -> gast.AST:
    """Rewrite in-place NumPy update statements under `node`."""
    return _InplaceTransformer().visit(node)
