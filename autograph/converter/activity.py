"""Which names a piece of code reads, writes and deletes (activity analysis).

Works on one function scope at a time: nested functions, lambdas and
comprehensions are their own scopes, so only their *free* reads count (a
closure reads the enclosing variable when it runs). Class bodies are skipped.
"""
from __future__ import annotations

from typing import Iterable, List, Set

import gast

from .templates import GENERATED_MARK

__all__ = [
    "Activity", "header_activity", "simple_activity", "expr_reads",
    "block_modified", "free_reads", "target_names", "nested_scopes",
]

_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef) + _COMPREHENSIONS
_COMPOUND = (gast.If, gast.While, gast.For, gast.AsyncFor, gast.With, gast.AsyncWith, gast.Try)


class Activity:
    """Names read, written (bound) and deleted by a node."""

    __slots__ = ("reads", "writes", "dels")

    def __init__(self):
        self.reads: Set[str] = set()
        self.writes: Set[str] = set()
        self.dels: Set[str] = set()


def target_names(target: gast.AST) -> Set[str]:
    """Names bound by an assignment target (`a`, `a, (b, *c)`; not `a.x` or `a[i]`)."""
    out: Set[str] = set()
    if isinstance(target, gast.Name):
        out.add(target.id)
    elif isinstance(target, (gast.Tuple, gast.List)):
        for e in target.elts:
            out |= target_names(e)
    elif isinstance(target, gast.Starred):
        out |= target_names(target.value)
    return out


def _param_names(args: gast.arguments) -> Set[str]:
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    for extra in (args.vararg, args.kwarg):
        if extra is not None:
            names.add(extra.id)
    return names


def free_reads(scope: gast.AST) -> Set[str]:
    """Names a nested function, lambda or comprehension reads from enclosing scopes."""
    act = Activity()
    if isinstance(scope, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
        bound = _param_names(scope.args)
        body = scope.body if isinstance(scope.body, list) else [scope.body]
        declared: Set[str] = set()
        for n in body:
            _visit(n, act, deep=True)
            for sub in gast.walk(n):
                if isinstance(sub, (gast.Nonlocal, gast.Global)):
                    declared.update(sub.names)
        return (act.reads - (bound | act.writes)) | (act.reads & declared)
    if isinstance(scope, _COMPREHENSIONS):
        bound: Set[str] = set()
        for gen in scope.generators:
            _visit(gen.iter, act, deep=True)
            bound |= target_names(gen.target)
            for cond in gen.ifs:
                _visit(cond, act, deep=True)
        elts = [scope.key, scope.value] if isinstance(scope, gast.DictComp) else [scope.elt]
        for e in elts:
            _visit(e, act, deep=True)
        first_iter = expr_reads(scope.generators[0].iter)
        return (act.reads - bound) | first_iter
    return set()


def _visit(node: gast.AST, act: Activity, deep: bool) -> None:
    """Accumulate activity of `node`; `deep` also walks nested statement blocks."""
    if isinstance(node, gast.Name):
        if isinstance(node.ctx, gast.Load):
            act.reads.add(node.id)
        elif isinstance(node.ctx, gast.Store):
            act.writes.add(node.id)
        elif isinstance(node.ctx, gast.Del):
            act.dels.add(node.id)
        return
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        act.writes.add(node.name)
        for d in node.decorator_list + node.args.defaults + [
                d for d in node.args.kw_defaults if d is not None]:
            _visit(d, act, deep)
        act.reads |= free_reads(node)
        return
    if isinstance(node, gast.Lambda):
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            _visit(d, act, deep)
        act.reads |= free_reads(node)
        return
    if isinstance(node, _COMPREHENSIONS):
        act.reads |= free_reads(node)
        return
    if isinstance(node, gast.ClassDef):
        act.writes.add(node.name)
        for d in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            _visit(d, act, deep)
        return
    if isinstance(node, gast.AugAssign):
        if isinstance(node.target, gast.Name):
            act.reads.add(node.target.id)
            act.writes.add(node.target.id)
        else:
            _visit(node.target, act, deep)
        _visit(node.value, act, deep)
        return
    if isinstance(node, gast.alias):
        act.writes.add((node.asname or node.name).split(".")[0])
        return
    if isinstance(node, gast.ExceptHandler):
        if node.type is not None:
            _visit(node.type, act, deep)
        if node.name is not None:
            _visit(node.name, act, deep)
        if deep:
            for s in node.body:
                _visit(s, act, deep)
        return
    if not deep and isinstance(node, _COMPOUND):
        raise AssertionError("compound statements are analysed block by block")
    for child in gast.iter_child_nodes(node):
        _visit(child, act, deep)


def simple_activity(stmt: gast.stmt) -> Activity:
    """Activity of a statement that holds no nested statement block."""
    act = Activity()
    _visit(stmt, act, deep=False)
    return act


def expr_reads(expr) -> Set[str]:
    """Names an expression reads (None reads nothing)."""
    if expr is None:
        return set()
    act = Activity()
    _visit(expr, act, deep=True)
    return act.reads


def header_activity(stmt: gast.stmt) -> Activity:
    """Activity of the parts of a compound statement outside its blocks."""
    act = Activity()
    if isinstance(stmt, (gast.If, gast.While)):
        _visit(stmt.test, act, deep=True)
    elif isinstance(stmt, gast.For):
        _visit(stmt.iter, act, deep=True)
        _visit(stmt.target, act, deep=True)
    elif isinstance(stmt, gast.With):
        for item in stmt.items:
            _visit(item, act, deep=True)
    return act


def block_modified(stmts: Iterable[gast.stmt]) -> Set[str]:
    """Every name bound or deleted anywhere in a block, nested blocks included."""
    act = Activity()
    for s in stmts:
        _visit(s, act, deep=True)
    return act.writes | act.dels


def nested_scopes(stmts: Iterable[gast.stmt]) -> List[gast.AST]:
    """User-written nested functions and lambdas in a block (not inside other scopes)."""
    found: List[gast.AST] = []
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.FunctionDef, gast.Lambda)):
            if not getattr(n, GENERATED_MARK, False):
                found.append(n)
            continue
        if isinstance(n, gast.ClassDef):
            continue
        stack.extend(gast.iter_child_nodes(n))
    return found
