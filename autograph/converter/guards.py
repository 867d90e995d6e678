"""Shared machinery for lowering jumps (`break`, `continue`, `return`) to flags.

A jump statement is replaced by flag assignments; every statement that
follows a statement that may have jumped is wrapped in `if ag__.not_(flag):`.
The wrapping recurses into the blocks of `if`, `with` and `try` (and, for
`return`, of loops), so guards nest exactly where the jump can happen.
"""
from __future__ import annotations

from typing import Callable, List

import gast

from . import templates

__all__ = ["contains", "guard_block", "definitely_exits"]

_FUNCTION_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_LOOPS = (gast.While, gast.For)


def contains(node: gast.AST, kind, through_loops: bool) -> bool:
    """Whether `node` holds a `kind` statement that jumps out of it.

    Nested functions never count; nested loops count only if `through_loops`
    (a `return` leaves every loop, a `break` only its own).
    """
    if isinstance(node, kind):
        return True
    stack = list(gast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        if isinstance(n, kind):
            return True
        if isinstance(n, _FUNCTION_SCOPES) or (isinstance(n, _LOOPS) and not through_loops):
            continue
        stack.extend(gast.iter_child_nodes(n))
    return False


def _sub_blocks(s: gast.stmt, through_loops: bool):
    """(owner, field) pairs of the statement blocks of `s` that a jump may hide in."""
    if isinstance(s, gast.If):
        return [(s, "body"), (s, "orelse")]
    if isinstance(s, gast.With):
        return [(s, "body")]
    if isinstance(s, gast.Try):
        return [(s, "body"), (s, "orelse"), (s, "finalbody")] + [(h, "body") for h in s.handlers]
    if through_loops and isinstance(s, _LOOPS):
        return [(s, "body")]
    return []


class _Guarder:
    def __init__(self, kind, replace: Callable[[gast.stmt], List[gast.stmt]],
                 flag: str, through_loops: bool):
        self.kind = kind
        self.replace = replace
        self.flag = flag
        self.through_loops = through_loops
        self.guards_made = 0

    def block(self, stmts: List[gast.stmt]) -> List[gast.stmt]:
        out: List[gast.stmt] = []
        for i, s in enumerate(stmts):
            if isinstance(s, self.kind):
                out.extend(self.replace(s))
                return out  # the rest of this block was unreachable
            if not contains(s, self.kind, self.through_loops):
                out.append(s)
                continue
            for owner, field in _sub_blocks(s, self.through_loops):
                new = self.block(getattr(owner, field))
                setattr(owner, field, new or ([gast.Pass()] if field == "body" else []))
            templates.copy_missing_locations(s, s)
            out.append(s)
            rest = self.block(stmts[i + 1:])
            if rest:
                self.guards_made += 1
                guard = templates.replace(
                    "if ag__.not_(flag):\n    rest", flag=templates.name(self.flag), rest=rest)
                templates.copy_missing_locations(guard, rest[0])
                out.extend(guard)
            return out
        return out


def guard_block(stmts: List[gast.stmt], kind, replace, flag: str,
                through_loops: bool = False):
    """Lower every `kind` jump in `stmts`; returns (new statements, guards made)."""
    g = _Guarder(kind, replace, flag, through_loops)
    new = g.block(stmts)
    return new, g.guards_made


def definitely_exits(stmts: List[gast.stmt]) -> bool:
    """Whether every path through `stmts` ends in `return` or `raise`.

    A `with` block never counts: its context manager may swallow an exception
    raised by the `return` expression, and execution then goes on after it.
    """
    for s in stmts:
        if isinstance(s, (gast.Return, gast.Raise)):
            return True
        if isinstance(s, gast.If) and definitely_exits(s.body) and definitely_exits(s.orelse):
            return True
        if isinstance(s, gast.Try):
            if definitely_exits(s.finalbody):
                return True
            if (definitely_exits(s.body + s.orelse)
                    and all(definitely_exits(h.body) for h in s.handlers)):
                return True
    return False
