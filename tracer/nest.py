"""Flattening nested Python structures (tuples, lists, dicts, namedtuples).

Used for function arguments, results, branch outputs and loop variables:
leaves are everything that is not one of those containers.
"""
from __future__ import annotations

from typing import Any, List, Tuple


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def flatten(structure) -> Tuple[List[Any], Any]:
    """Return (leaves, treedef); `unflatten(treedef, leaves)` rebuilds it."""
    leaves: List[Any] = []
    treedef = _flatten(structure, leaves)
    return leaves, treedef


def _flatten(x, leaves):
    if _is_namedtuple(x):
        return ("namedtuple", type(x), tuple(_flatten(v, leaves) for v in x))
    if isinstance(x, (tuple, list)):
        return (type(x), tuple(_flatten(v, leaves) for v in x))
    if isinstance(x, dict):
        keys = sorted(x, key=repr)
        return ("dict", type(x), tuple(keys), tuple(_flatten(x[k], leaves) for k in keys))
    leaves.append(x)
    return None


def unflatten(treedef, leaves) -> Any:
    """Rebuild a structure from its treedef and a flat sequence of leaves."""
    it = iter(leaves)
    out = _unflatten(treedef, it)
    return out


def _unflatten(t, it):
    if t is None:
        return next(it)
    if t[0] == "namedtuple":
        return t[1](*(_unflatten(s, it) for s in t[2]))
    if t[0] == "dict":
        return t[1]((k, _unflatten(s, it)) for k, s in zip(t[2], t[3]))
    return t[0](_unflatten(s, it) for s in t[1])


def leaf_paths(structure, prefix: str = "") -> List[str]:
    """A readable path per leaf (`x`, `x[0]`, `x['k']`) for error messages."""
    paths: List[str] = []
    _paths(structure, prefix, paths)
    return paths


def _paths(x, prefix, out):
    if isinstance(x, (tuple, list)):
        for i, v in enumerate(x):
            _paths(v, f"{prefix}[{i}]", out)
    elif isinstance(x, dict):
        for k in sorted(x, key=repr):
            _paths(x[k], f"{prefix}[{k!r}]", out)
    else:
        out.append(prefix)
