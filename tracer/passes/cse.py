"""Common-subexpression elimination.

Guarantees, after `run(graph)`:

* of two *mergeable* ops with the same name, the same operands (after the
  merges before them), equal attributes and the same result types, where
  the first is visible from the second (earlier in the same block, or in a
  block enclosing it: values of enclosing blocks may be reused inside
  `cond`/`while` regions, never the other way round), the second is removed
  and every use of its results reads the first's results instead;
* mergeable means: registered, not stateful (`OpDef.stateful`: random
  numbers, `print`, `check`, `check_values`, `assign_variable` are never
  merged), with results and without regions (`cond` and `while` are never
  merged, nor is an unregistered op);
* attributes are equal when their values and types are: `1`, `1.0` and
  `True` differ; floats compare by their bits, so NaN equals the same NaN
  and `-0.0` differs from `0.0`; constants are equal when their dtype,
  shape and bytes are (string constants: their elements);
* variables: an op that takes a resource (`read_variable`) is merged only
  with one that saw the same variable state: between the two, nothing may
  have written a variable of that type (in program order, counting the
  ops inside regions, and for a `while` also what its later iterations
  write). A stateful or unregistered op that takes a resource counts as a
  write of it; two resource inputs of the same type may be the same
  variable, so a write of one counts as a write of every resource of that
  type. Ops that take no resource cannot touch a variable (the IR names
  every access to mutable state);
* the kept op keeps its location; the graph's inputs and outputs keep their
  number and types (two outputs may become the same value); no op is moved.

It runs in one forward walk with a scoped hash table: linear in the number
of ops. The graph is changed in place and returned.
"""
from __future__ import annotations

import itertools
import struct
from typing import Dict, Hashable, List, Optional

import numpy as np

from .. import ops as _ops  # noqa: F401  (importing it registers every op)
from ..core import registry
from ..core.ir import Block, Graph, Op, Value, is_resource
from ..core.types import DType

__all__ = ["run"]


def run(graph: Graph) -> Graph:
    """Merge repeated pure computations of `graph` (see module doc)."""
    _Eliminator(any(is_resource(v) for v in graph.inputs)).block(graph.body)
    return graph


class _Unhashable(Exception):
    """An attribute value with no canonical key: the op is not merged."""


def _canonical(x) -> Hashable:
    """A hashable key for attribute value `x`, equal only for interchangeable values."""
    # bool before int: True == 1 in Python, but they are different attributes.
    if x is None or isinstance(x, (bool, str, bytes)):
        return (type(x).__name__, x)
    if isinstance(x, int):
        return ("int", x)
    if isinstance(x, float):
        return ("float", struct.pack("<d", x))   # bits: NaN-safe, -0.0 != 0.0
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, tuple(_canonical(e) for e in x))
    if isinstance(x, DType):
        return ("dtype", x.name)
    if isinstance(x, np.ndarray):
        return _array_key(x)
    if isinstance(x, np.generic):
        return _array_key(np.asarray(x))
    try:
        hash(x)
    except TypeError:
        raise _Unhashable from None
    return (type(x).__qualname__, x)


def _array_key(a: np.ndarray) -> Hashable:
    if a.dtype.hasobject:   # string tensors: the elements, not their pointers
        elems = tuple(_canonical(e) for e in a.ravel().tolist())
        return ("array", "object", a.shape, elems)
    return ("array", a.dtype.str, a.shape, np.ascontiguousarray(a).tobytes())


def _mergeable(op: Op) -> bool:
    if op.regions or not op.results:
        return False
    opdef = registry.REGISTRY.get(op.name)
    return opdef is not None and not opdef.stateful


def _may_write(op: Op) -> bool:
    """Whether `op` may write the resources it takes (anything but a known pure op)."""
    opdef = registry.REGISTRY.get(op.name)
    return opdef is None or opdef.stateful


class _Eliminator:
    def __init__(self, has_resources: bool) -> None:
        self.has_resources = has_resources
        # key -> the results of the first op with that key, for the ops visible
        # from the current position (keys of a block are removed when it ends).
        self.table: Dict[Hashable, List[Value]] = {}
        self.replaced: Dict[Value, Value] = {}
        # The variable state: per resource type (an alias class), a generation
        # number that changes at every possible write.
        self.gens: Dict[object, int] = {}
        self._fresh = itertools.count(1)
        self._writes: Dict[Op, List[Value]] = {}

    def block(self, block: Block) -> None:
        added: List[Hashable] = []
        kept: List[Op] = []
        replaced = self.replaced
        for op in block.ops:
            op.operands = [replaced.get(v, v) for v in op.operands]
            if op.regions:
                self.region_op(op)
                kept.append(op)
                continue
            key = self.key(op) if _mergeable(op) else None
            if key is not None:
                first = self.table.get(key)
                if first is not None:
                    for r, f in zip(op.results, first):
                        replaced[r] = f
                    continue   # the op is pure: dropping it loses nothing
                self.table[key] = op.results
                added.append(key)
            elif _may_write(op):
                self.write(op.operands)
            kept.append(op)
        block.ops = kept
        block.results = [replaced.get(v, v) for v in block.results]
        for key in added:
            del self.table[key]

    def region_op(self, op: Op) -> None:
        written = self.writes(op) if self.has_resources else []
        if op.name != "cond":
            # A loop's regions run again after its body: they see its writes.
            self.write(written)
        entry = dict(self.gens)
        for region in op.regions:
            self.gens = dict(entry)   # a branch does not see the other's writes
            self.block(region)
        # Only what the regions may write can differ from `entry` now, and all
        # of it may have been written: the op counts as a write of each.
        self.write(written)

    def writes(self, op: Op) -> List[Value]:
        """The resources `op` may write, in its regions too (memoised: each op is looked at once)."""
        found = self._writes.get(op)
        if found is None:
            found = [v for v in op.operands if is_resource(v)] if _may_write(op) else []
            for region in op.regions:
                for inner in region.ops:
                    found.extend(self.writes(inner))
            self._writes[op] = found
        return found

    def write(self, values) -> None:
        for v in values:
            if is_resource(v):
                self.gens[v.type] = next(self._fresh)

    def key(self, op: Op) -> Optional[Hashable]:
        try:
            attrs = tuple(sorted((k, _canonical(v)) for k, v in op.attrs.items()))
        except _Unhashable:
            return None
        # A resource operand stands for the variable's state at this point.
        state = tuple(self.gens.get(v.type, 0) for v in op.operands if is_resource(v))
        return (op.name, tuple(op.operands), attrs, tuple(op.result_types), state)

