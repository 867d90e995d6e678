"""Flattening nested Python structures (tuples, lists, dicts, namedtuples).

Used for function arguments, results, branch outputs and loop variables:
leaves are everything that is not one of those containers. Composite types
registered with `register_composite` (e.g. `ag.TensorArray`) flatten into
their parts, so compiled loops and branches carry them like tuples.

Dicts flatten in sorted key order (by `repr`), so that two dicts with the
same keys have the same structure whatever order they were built in: a
function called with either shares one trace, and the branches of a `cond`
may build their dicts differently. The treedef also remembers the insertion
order, outside equality and hashing, and `unflatten` rebuilds the dict in
that order: a function's dict result keeps the order the function built it in.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

# type -> (flatten(obj) -> (children, aux), unflatten(aux, children) -> obj, child names)
_COMPOSITES: Dict[type, Tuple[Callable, Callable, Tuple[str, ...]]] = {}


def register_composite(cls: type, flatten_fn: Callable, unflatten_fn: Callable,
                       names: Tuple[str, ...] = ()) -> None:
    """Make instances of `cls` flatten into their parts.

    `flatten_fn(obj) -> (children, aux)`: the parts (nested structures
    themselves) and hashable static data compared as part of the treedef
    (two objects with different `aux` have different structures);
    `unflatten_fn(aux, children) -> obj` rebuilds one. `names` label the
    children in error messages (`ta.data`).
    """
    _COMPOSITES[cls] = (flatten_fn, unflatten_fn, tuple(names))


class _InsertionOrder(tuple):
    """The insertion order of a dict's keys, as indices into its sorted keys.

    Carried in the treedef but never part of its identity: every
    `_InsertionOrder` equals every other and they all hash alike, so treedefs
    (and trace-cache keys) compare dicts by their keys only.
    """

    __slots__ = ()

    def __eq__(self, other):
        return isinstance(other, _InsertionOrder)

    def __ne__(self, other):
        return not isinstance(other, _InsertionOrder)

    def __hash__(self):
        return 0

    def __reduce__(self):
        return (_InsertionOrder, (tuple(self),))


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def flatten(structure) -> Tuple[List[Any], Any]:
    """Return (leaves, treedef); `unflatten(treedef, leaves)` rebuilds it."""
    leaves: List[Any] = []
    treedef = _flatten(structure, leaves)
    return leaves, treedef


def _flatten(x, leaves):
    composite = _COMPOSITES.get(type(x))
    if composite is not None:
        children, aux = composite[0](x)
        return ("composite", type(x), aux, tuple(_flatten(c, leaves) for c in children))
    if _is_namedtuple(x):
        return ("namedtuple", type(x), tuple(_flatten(v, leaves) for v in x))
    if isinstance(x, (tuple, list)):
        return (type(x), tuple(_flatten(v, leaves) for v in x))
    if isinstance(x, dict):
        keys = sorted(x, key=repr)
        position = {id(k): i for i, k in enumerate(keys)}
        order = _InsertionOrder(position[id(k)] for k in x)
        return ("dict", type(x), tuple(keys), tuple(_flatten(x[k], leaves) for k in keys), order)
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
    if t[0] == "composite":
        return _COMPOSITES[t[1]][1](t[2], [_unflatten(s, it) for s in t[3]])
    if t[0] == "namedtuple":
        return t[1](*(_unflatten(s, it) for s in t[2]))
    if t[0] == "dict":
        values = [_unflatten(s, it) for s in t[3]]   # leaves come in sorted key order
        keys = t[2]
        return t[1]((keys[i], values[i]) for i in t[4])   # built in insertion order
    return t[0](_unflatten(s, it) for s in t[1])


def leaf_paths(structure, prefix: str = "") -> List[str]:
    """A readable path per leaf (`x`, `x[0]`, `x['k']`) for error messages."""
    paths: List[str] = []
    _paths(structure, prefix, paths)
    return paths


def _paths(x, prefix, out):
    composite = _COMPOSITES.get(type(x))
    if composite is not None:
        children, _ = composite[0](x)
        names = composite[2]
        for i, c in enumerate(children):
            _paths(c, f"{prefix}.{names[i] if i < len(names) else i}", out)
    elif isinstance(x, (tuple, list)):
        for i, v in enumerate(x):
            _paths(v, f"{prefix}[{i}]", out)
    elif isinstance(x, dict):
        for k in sorted(x, key=repr):
            _paths(x[k], f"{prefix}[{k!r}]", out)
    else:
        out.append(prefix)
