"""Constant folding.

Guarantees, after `run(graph)`:

* every op whose operands are all `constant` results, that is registered
  with a NumPy reference, is not stateful, is not `constant`, `cond`, `while`
  or `check`, and whose results have at most `MAX_ELEMENTS` elements each, is
  replaced by one `constant` op per result, holding the reference's value
  cast to the declared dtype, at the same place and with the same location.
  This applies inside regions too, and cascades (a folded result can make
  the next op foldable);
* `rank(x)` when x's rank is known, `shape(x)` and `size(x)` when x's shape
  is fully known, are folded the same way without a constant operand: their
  value depends on x's type only (after rank specialisation, say; tracing
  already gives constants where the traced types allow);
* an op whose reference raises (e.g. an integer division by a constant zero)
  is left alone, so the error happens at run time with the user's line;
* a folded constant's type is the value's exact type, which may be more
  specific than the op's declared type (when that had `None` dimensions);
* the old ops' now unused operands are left for `dce` to remove.

The graph is changed in place and returned.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np

from .. import ops as _ops  # noqa: F401  (importing it registers every op)
from ..core import registry
from ..core.ir import Block, Graph, Op, Value
from ..core.types import TensorType, shape_compatible

__all__ = ["run", "MAX_ELEMENTS"]

# Folding a big result would put a big array into the program text (and the
# disk cache); computing it at run time is as fast.
MAX_ELEMENTS = 10_000

_NEVER_FOLDED = frozenset({"constant", "cond", "while", "check"})

# Ops whose value depends on their operand's type only, and when that type
# tells enough to compute it.
_TYPE_ONLY = {
    "rank": lambda t: t.shape is not None,
    "shape": lambda t: t.is_fully_static,
    "size": lambda t: t.is_fully_static,
}


def run(graph: Graph) -> Graph:
    """Fold constant subexpressions of `graph` (see module doc)."""
    _fold_block(graph.body, {})
    return graph


def _fold_block(block: Block, replaced: Dict[Value, Value]) -> None:
    # One forward walk: ops see the replacements of every value defined before
    # them, including in enclosing blocks, so folding cascades.
    ops: List[Op] = []
    for op in block.ops:
        op.operands = [replaced.get(v, v) for v in op.operands]
        for region in op.regions:
            _fold_block(region, replaced)
        folded = _try_fold(op)
        if folded is None:
            ops.append(op)
            continue
        for r, c in zip(op.results, folded):
            c.block = block
            replaced[r] = c.results[0]
        ops.extend(folded)
    block.ops = ops
    block.results = [replaced.get(v, v) for v in block.results]


def _constant_of(v: Value) -> Optional[np.ndarray]:
    owner = v.owner
    if isinstance(owner, Op) and owner.name == "constant":
        return owner.attrs["value"]
    return None


def _stand_ins(op: Op) -> Optional[List[np.ndarray]]:
    """For an op of `_TYPE_ONLY` whose operand type is known enough, an array of that type
    (zero-strided: nothing is allocated, whatever the shape), else None."""
    known = _TYPE_ONLY.get(op.name)
    if known is None or len(op.operands) != 1:
        return None
    t = op.operands[0].type
    if not isinstance(t, TensorType) or not known(t):
        return None
    shape = tuple(0 if d is None else d for d in t.shape)
    return [np.broadcast_to(np.zeros((), t.dtype.np_dtype), shape)]


def _too_big(t: TensorType) -> bool:
    return t.is_fully_static and int(np.prod(t.shape)) > MAX_ELEMENTS


def _try_fold(op: Op) -> Optional[List[Op]]:
    """The constant ops replacing `op`, or None when it cannot be folded."""
    if op.name in _NEVER_FOLDED or op.regions:
        return None
    arrays = [_constant_of(v) for v in op.operands]
    if any(a is None for a in arrays):
        arrays = _stand_ins(op)
        if arrays is None:
            return None
    # Refuse before computing when the declared type already says it is too big.
    if any(_too_big(t) for t in op.result_types):
        return None
    outs = registry.run_reference(op, arrays)
    if outs is None:
        return None
    folded = []
    for value, t in zip(outs, op.result_types):
        arr = np.array(value, dtype=t.dtype.np_dtype, copy=True)
        if arr.size > MAX_ELEMENTS or not shape_compatible(arr.shape, t.shape):
            return None
        arr.setflags(write=False)
        folded.append(Op("constant", [], [TensorType(t.dtype, arr.shape)], {"value": arr},
                         loc=op.loc))
    return folded
