"""The table of public functions: every name `ag`, `ag.math`, `ag.nn`,
`ag.random` (`ag.bitwise`, `ag.linalg`) export, and the NumPy names that dispatch to them.

Entries come from two places and nowhere else:

* op declarations (`declare(..., public=("tanh", "math.tanh"), numpy=("tanh",))`
  in `autograph.tracer.ops`): the op's function is generated (elementwise ops,
  reductions) or hand-written and registered with `@implements("cast")`; its
  names and NumPy counterparts are the declaration's;
* `@public("zeros", "math.foo", numpy=(...))` for a function that composes
  ops (`zeros`, `ones_like`, `nn.softmax`, `random.set_seed`, ...).

A public name is "name" (ag.name) or "space.name" for a space of SPACES
(ag.math.name, ...). `ag.__all__`, the namespaces `ag.math`, `ag.nn`,
`ag.random`, the NumPy protocol's dispatch table and the generated part of
docs/ops.md are built from this table, and tests check it against the
declarations both ways (`problems`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from ..core import registry
from .annotations import annotate

__all__ = ["Entry", "SPACES", "ENTRIES", "public", "implements", "register_op", "namespace",
           "numpy_names", "entry_of_op", "problems"]

# The namespaces under `ag`: "" is ag itself.
SPACES = ("", "math", "nn", "random", "bitwise", "linalg")


@dataclass(frozen=True)
class Entry:
    """One public function and everything it is known by."""

    function: Callable
    names: Tuple[str, ...]    # public names; empty for an op reached only through NumPy or operators
    numpy: Tuple[str, ...]    # NumPy names dispatched to it
    op: Optional[str]         # the op it applies (its declaration gave the names), None for a composition


ENTRIES: List[Entry] = []
_by_name: Dict[str, Entry] = {}
_by_numpy: Dict[str, Entry] = {}
_by_op: Dict[str, Entry] = {}


def _split(name: str) -> Tuple[str, str]:
    space, _, short = name.rpartition(".")
    if space not in SPACES or not short.isidentifier():
        raise ValueError(f"public name {name!r}: expected 'name' or 'space.name' with space one of "
                         f"{SPACES[1:]}")
    return space, short


def _add(entry: Entry) -> Callable:
    if entry.op is not None and entry.op in _by_op:
        raise ValueError(f"op {entry.op!r} already has a public function")
    for n in entry.names:
        _split(n)
        if n in _by_name:
            raise ValueError(f"public name {n!r} is registered twice")
    for n in entry.numpy:
        if n in _by_numpy:
            raise ValueError(f"NumPy name {n!r} is registered twice")
    annotate(entry.function)   # parameter and return annotations by name (annotations.py)
    ENTRIES.append(entry)
    _by_name.update((n, entry) for n in entry.names)
    _by_numpy.update((n, entry) for n in entry.numpy)
    if entry.op is not None:
        _by_op[entry.op] = entry
    return entry.function


def register_op(op: str, function: Callable) -> Callable:
    """Register `function` as the public function of the declared op `op`,
    under the op's public names and NumPy names; returns `function`."""
    opdef = registry.get(op)
    return _add(Entry(function, opdef.public, opdef.numpy, op))


def implements(op: str):
    """Decorator: a hand-written function applying the declared op `op` (its
    names and NumPy counterparts are in the declaration)."""
    opdef = registry.get(op)
    if not opdef.public and not opdef.numpy:
        raise ValueError(f"@implements({op!r}): the op declares no public or NumPy names")
    return lambda fn: register_op(op, fn)


def _claimed_by_an_op(name: str, field: str) -> Optional[str]:
    for opdef in registry.REGISTRY.values():
        if name in getattr(opdef, field):
            return opdef.name
    return None


def public(*names: str, numpy: Tuple[str, ...] = ()):
    """Decorator: a public function composed of ops, under `names` (and the
    NumPy `numpy` names). A name an op declares belongs to that op's
    function (use `@implements`)."""
    for field, given in (("public", names), ("numpy", numpy)):
        for n in given:
            op = _claimed_by_an_op(n, field)
            if op is not None:
                raise ValueError(f"@public: {n!r} is declared by op {op!r}; register its function "
                                 f"with @implements({op!r})")
    if not names:
        raise ValueError("@public needs at least one name")
    return lambda fn: _add(Entry(fn, tuple(names), tuple(numpy), None))


def namespace(space: str) -> Dict[str, Callable]:
    """{short name: function} of the public names in `space` ("" for ag itself)."""
    if space not in SPACES:
        raise ValueError(f"unknown namespace {space!r} (expected one of {SPACES})")
    out = {}
    for name, entry in _by_name.items():
        s, short = _split(name)
        if s == space:
            out[short] = entry.function
    return dict(sorted(out.items()))


def numpy_names() -> Dict[str, Callable]:
    """{NumPy name: public function}: "sum", "tanh", "add.reduce", ..."""
    return {n: e.function for n, e in sorted(_by_numpy.items())}


def entry_of_op(op: str) -> Optional[Entry]:
    """The entry of the public function applying `op`, or None."""
    return _by_op.get(op)


def problems() -> List[str]:
    """What does not hold together: a declared op with public or NumPy names
    but no function registered for it, or a function without a docstring.
    Empty when all is well."""
    out = []
    for opdef in registry.REGISTRY.values():
        if (opdef.public or opdef.numpy) and opdef.name not in _by_op:
            out.append(f"op {opdef.name!r} declares {opdef.public + opdef.numpy} but no public "
                       f"function is registered for it")
    for entry in ENTRIES:
        if not (entry.function.__doc__ or "").strip():
            out.append(f"{entry.names or entry.numpy}: the function has no docstring")
    return out
