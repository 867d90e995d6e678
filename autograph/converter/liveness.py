"""Liveness and definite assignment over one function's structured AST.

Runs after break/continue/return have been lowered into flags, so blocks have
no jumps and a backward pass over the nested statement lists is exact (loops
iterate to a fixed point). Each `if`/`while`/`for` of the function (not of
nested functions) is annotated with:

* `_ag_modified`: names bound or deleted in its blocks;
* `_ag_live_out`: names live right after it (plus names that closures
  defined elsewhere in the function may read later);
* `_ag_live_in`: names live on entry to its blocks (both branches of an
  `if`; the loop head of a loop);
* `_ag_defined_in`: names definitely bound before it (None = unreachable).

From these, block variables are `modified ∩ (live_in ∪ live_out)` (see
control_flow.py), as in the research notes, section 1.4.
"""
from __future__ import annotations

from typing import List, Optional, Set

import gast

from .activity import (block_modified, expr_reads, free_reads, header_activity, nested_scopes,
    simple_activity, target_names)

__all__ = ["analyze_function", "EXTRA_TEST_ATTR"]

# A For node may carry an extra loop condition (from break/return lowering) as
# an expression in this attribute; it is read at the loop head.
EXTRA_TEST_ATTR = "_ag_extra_test"

_CONTROL = (gast.If, gast.While, gast.For)


class _Liveness:
    def __init__(self, escaping):
        # [(set of node ids inside a nested scope's container, free reads)].
        self.escaping = escaping

    def _escaping_for(self, stmt) -> Set[str]:
        # Closures defined outside `stmt` may run after it and read what it wrote.
        inside = {id(n) for n in gast.walk(stmt)}
        out: Set[str] = set()
        for scope, reads in self.escaping:
            if id(scope) not in inside:
                out |= reads
        return out

    def block(self, stmts: List[gast.stmt], live_out: Set[str], extra: Set[str]) -> Set[str]:
        live = set(live_out)
        for s in reversed(stmts):
            live = self.stmt(s, live | extra, extra)
        return live

    def stmt(self, s: gast.stmt, out: Set[str], extra: Set[str]) -> Set[str]:
        if isinstance(s, gast.If):
            live_in = self.block(s.body, out, extra) | self.block(s.orelse, out, extra)
            self._annotate(s, out, live_in)
            return live_in | expr_reads(s.test)
        if isinstance(s, gast.While):
            head = out | expr_reads(s.test)
            while True:
                new = out | expr_reads(s.test) | self.block(s.body, head, extra)
                if new == head:
                    break
                head = new
            self._annotate(s, out, head)
            return head
        if isinstance(s, gast.For):
            targets = target_names(s.target)
            test = expr_reads(getattr(s, EXTRA_TEST_ATTR, None))
            head = out | test
            while True:
                body_in = self.block(s.body, head, extra)
                new = out | test | (body_in - targets)
                if new == head:
                    break
                head = new
            self._annotate(s, out, head)
            return head | expr_reads(s.iter)
        if isinstance(s, gast.With):
            act = header_activity(s)
            return (self.block(s.body, out, extra) - act.writes) | act.reads
        if isinstance(s, gast.Try):
            final_in = self.block(s.finalbody, out, extra)
            handlers_in: Set[str] = set()
            for h in s.handlers:
                h_in = self.block(h.body, final_in, extra)
                if h.name is not None:
                    h_in -= target_names(h.name)
                handlers_in |= h_in | expr_reads(h.type)
            else_in = self.block(s.orelse, final_in, extra)
            # An exception may leave the body anywhere: handler inputs stay live.
            return self.block(s.body, else_in, extra | handlers_in) | handlers_in
        if isinstance(s, gast.ClassDef):
            act = simple_activity(s)
            return (out - act.writes) | act.reads
        act = simple_activity(s)
        return (out - act.writes - act.dels) | act.reads

    def _annotate(self, s, out, live_in):
        s._ag_live_out = set(out) | self._escaping_for(s)
        s._ag_live_in = set(live_in)
        s._ag_modified = block_modified(s.body + s.orelse)
        if isinstance(s, gast.For):
            s._ag_modified |= target_names(s.target)


def _meet(a: Optional[Set[str]], b: Optional[Set[str]]) -> Optional[Set[str]]:
    # None stands for "unreachable" (block ended in raise): it defines everything.
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def _defined_block(stmts, defined: Optional[Set[str]]) -> Optional[Set[str]]:
    for s in stmts:
        if defined is None:
            # Dead code after a raise: still annotate nested statements.
            _defined_stmt(s, set())
            continue
        defined = _defined_stmt(s, defined)
    return defined


def _defined_stmt(s, d: Set[str]) -> Optional[Set[str]]:
    if isinstance(s, _CONTROL):
        s._ag_defined_in = set(d)
    if isinstance(s, gast.If):
        return _meet(_defined_block(s.body, set(d)), _defined_block(s.orelse, set(d)))
    if isinstance(s, gast.While):
        _defined_block(s.body, set(d))
        return d
    if isinstance(s, gast.For):
        _defined_block(s.body, d | target_names(s.target))
        return d
    if isinstance(s, gast.With):
        return _defined_block(s.body, d | header_activity(s).writes)
    if isinstance(s, gast.Try):
        paths = [_defined_block(s.body + s.orelse, set(d))]
        for h in s.handlers:
            paths.append(_defined_block(h.body, d | (target_names(h.name) if h.name else set())))
        after = paths[0]
        for p in paths[1:]:
            after = _meet(after, p)
        return _defined_block(s.finalbody, set(d) if after is None else after)
    if isinstance(s, gast.Raise):
        return None
    act = simple_activity(s)
    return (d | act.writes) - act.dels


def analyze_function(fn: gast.AST, params: Set[str]) -> None:
    """Annotate the control-flow statements of function `fn` (see module docstring)."""
    body = fn.body
    escaping = [(scope, free_reads(scope)) for scope in nested_scopes(body)]
    _Liveness(escaping).block(body, set(), set())
    _defined_block(body, set(params))
