"""Per-block plan: which elementwise ops fuse into their consumer, and when
each buffer the block allocates is freed.

Ownership rules (the memory scheme of the code generator):

* Every tensor (rank >= 1, or a string of any rank) result of an op is a
  fresh heap buffer owned by
  the block that contains the op, except `constant` results (global data,
  never freed) and fused results (never materialised).
* A block frees each buffer it owns right after the buffer's last use in the
  block. A use inside a nested region counts as a use at the op that owns
  the region; a use by a fused op counts at the op it is fused into.
* Values a block yields are never freed by it: they are handed to the op
  that owns the block (the lowering copies yielded values the block does not
  own, so region results are always owned).
* A `while` op may take over a buffer passed as its initial value when the
  enclosing block would free it right after the loop anyway.
* Donation: a `while` body owns its tensor arguments (the loop owns its
  carried buffers), and a `cond` region owns the outer buffers the `cond`
  is the last use of. A donated buffer may be updated in place (`set_item`
  takes it over), yielded without a copy, or else is freed after its last
  use in the region (`BlockPlan.donate`).

Fusion: an elementwise op with a tensor result whose uses are all direct
operands of ops later in the same block that fuse into one and the same
materialising consumer (an elementwise op or a reduction that is not itself
fused), and which is not yielded, is not materialised; that consumer
evaluates it per element inside its own loop nest, once per element however
many of the fused ops use it (`elementwise.evaluate`). So a chain such as
`y = y * 1.0001 + sin(y) - 0.5 * y`, unrolled a thousand times, is one loop
with no temporaries. A value feeding two different consumers is
materialised (fusing it would compute it twice).

Row fusion: a reduction along the last axis with `keepdims` (rank >= 2,
not complex) whose uses all end in one elementwise root of the same rank,
whose other dims do not differ statically from the reduction's input, is
deferred too (`row_reduction`). The root then evaluates it once per row,
while the row is in cache, before its own loop over the row
(`rowfuse.py`): `e = exp(x - reduce_max(x, -1, keepdims=True)); e /
reduce_sum(e, -1, keepdims=True)` is one pass over the rows.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Set

from autograph.tracer.core.ir import Block, Op, Value

__all__ = ["BlockPlan", "plan_block", "region_uses", "row_reduction", "ROW_REDUCTIONS"]

ROW_REDUCTIONS = frozenset({"reduce_sum", "reduce_mean", "reduce_prod", "reduce_max",
                            "reduce_min", "reduce_any", "reduce_all"})


def row_reduction(op: Op) -> bool:
    """Is `op` a reduction of the last axis only, with keepdims, of a tensor of
    known rank >= 2 and a real or bool dtype (one that row fusion can defer)?"""
    if op.name not in ROW_REDUCTIONS or len(op.results) != 1 or not op.attrs.get("keepdims"):
        return False
    shape = op.operands[0].type.shape
    if shape is None or len(shape) < 2 or op.attrs.get("axis") != (len(shape) - 1,):
        return False
    dtype = op.results[0].type.dtype
    return not dtype.is_complex and dtype.name != "string"


def _same_rows(red: Op, root: Op) -> bool:
    """May `root`'s loop evaluate `red` per row: the same rank, and no dim but
    the last statically different from `red`'s input."""
    a, r = red.operands[0].type.shape, root.results[0].type.shape
    if r is None or len(r) != len(a):
        return False
    return all(x is None or y is None or x == y for x, y in zip(a[:-1], r[:-1]))


def region_uses(op: Op) -> List[Value]:
    """Every value used inside `op`'s regions (operands and yields), recursively."""
    out: List[Value] = []
    for region in op.regions:
        for inner in region.ops:
            out.extend(inner.operands)
            out.extend(region_uses(inner))
        out.extend(region.results)
    return out


class BlockPlan:
    """The result of `plan_block` for one block."""

    __slots__ = ("block", "deferred", "free_after", "last_use", "yielded", "_uses_at")

    def __init__(self, block: Block):
        self.block = block
        self.deferred: Set[int] = set()        # id(op) of fused ops
        self.free_after: Dict[int, List[Value]] = {}  # position -> values to free
        self.last_use: Dict[Value, int] = {}
        self.yielded: Set[Value] = set(block.results)
        self._uses_at: Dict[int, List[Value]] = {}

    def is_deferred(self, op: Op) -> bool:
        return id(op) in self.deferred

    def transferable(self, pos: int, op: Op, index: int) -> bool:
        """May op (at `pos`) take over the buffer of its operand `index`?

        True when the block would free it right after this op: it is used
        nowhere later, is not yielded, and this op uses it exactly once.
        """
        v = op.operands[index]
        if v in self.yielded or self.last_use.get(v) != pos:
            return False
        if sum(1 for o in op.operands if o is v) != 1:
            return False
        return all(u is not v for u in region_uses(op))

    def donatable(self, pos: int, op: Op, v: Value) -> bool:
        """May op (at `pos`) hand `v`, which its regions use, over to them?

        True when the block would free it right after this op: it is used
        nowhere later, is not yielded and is not a direct operand of op.
        (A `cond` runs one region once, so that region may consume `v`.)
        """
        if v in self.yielded or self.last_use.get(v) != pos:
            return False
        return all(o is not v for o in op.operands)

    def donate(self, values) -> List[Value]:
        """Schedule frees for `values` handed to this block by its parent op
        (the block owns them from now on): each is freed after its last use
        here unless yielded. Returns those never used and not yielded (to be
        freed at once)."""
        unused = []
        for v in values:
            if v in self.yielded:
                continue
            at = self.last_use.get(v)
            if at is None:
                unused.append(v)
            else:
                self.free_after.setdefault(at, []).append(v)
        return unused


def plan_block(block: Block, fusable: Callable[[Op], bool],
               fuses_into: Callable[[Op], bool]) -> BlockPlan:
    """Plan `block`. `fusable(op)`: op may be evaluated lazily inside a
    consumer; `fuses_into(op)`: op can evaluate fused operands."""
    plan = BlockPlan(block)
    ops = block.ops
    pos_of = {id(op): i for i, op in enumerate(ops)}
    # Uses of each value by ops of this block: (position, direct operand?)
    uses: Dict[Value, List[tuple]] = {}
    for i, op in enumerate(ops):
        for v in op.operands:
            uses.setdefault(v, []).append((i, True))
        for v in region_uses(op):
            uses.setdefault(v, []).append((i, False))
    # Fusion decisions, last op first, so that each use's materialising consumer
    # (its root) is known: consumer_of[i] is the root op i is evaluated in.
    consumer_of: Dict[int, int] = {}
    for i in range(len(ops) - 1, -1, -1):
        op = ops[i]
        row = row_reduction(op) and fuses_into(op)
        if len(op.results) != 1 or not (row or fusable(op)):
            continue
        r = op.results[0]
        if r.type.shape == () or r in plan.yielded:
            continue
        u = uses.get(r, [])
        if not u or not all(direct and j > i and fuses_into(ops[j]) for j, direct in u):
            continue
        roots = {consumer_of.get(j, j) for j, _ in u}
        if len(roots) != 1:
            continue
        root = roots.pop()
        if row and not (fusable(ops[root]) and _same_rows(op, ops[root])):
            continue          # a row reduction fuses only into an elementwise loop over its rows
        plan.deferred.add(id(op))
        consumer_of[i] = root
    # Effective position: a fused op runs where its root runs.
    eff = list(range(len(ops)))
    for i, root in consumer_of.items():
        eff[i] = root
    for v, us in uses.items():
        plan.last_use[v] = max(eff[i] for i, _ in us)
    # Frees.
    for i, op in enumerate(ops):
        if id(op) in plan.deferred or op.name == "constant":
            continue
        for r in op.results:
            # Scalars live in registers, except strings: a string scalar is a buffer.
            if (r.type.shape == () and r.type.dtype.name != "string") or r in plan.yielded:
                continue
            at = plan.last_use.get(r, i)
            plan.free_after.setdefault(at, []).append(r)
    del pos_of
    return plan
