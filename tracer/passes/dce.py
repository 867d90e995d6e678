"""Dead code elimination.

Guarantees, after `run(graph)`:

* every op left either has a result that is used (by a later op, a region's
  `yield`, or the graph's `return`) or has effects: it is stateful
  (`OpDef.stateful`, e.g. `check`), is not registered (kept, to be safe), or
  holds such an op in one of its regions;
* inside regions the same holds, recursively;
* a `cond` keeps only the results that are used (their yields go too), so
  one kept only for its effects may end up with no results;
* a `while` keeps only the loop variables that are *live*: used after the
  loop, used by the cond region, or needed by the body to compute another
  live loop variable or an effectful op. The others lose their initial
  value, region arguments and yields together;
* variables: `assign_variable` is stateful, so it is never removed, nor is a
  `cond`/`while` that holds one; an unused `read_variable` is removed (it has
  no effect). No op is ever moved, so every read stays after the assigns
  that precede it in program order;
* the graph's inputs and outputs are unchanged (resource inputs included,
  even when no op uses them any more), and nothing that could have
  an effect is removed. (Ops that may only *fail* at run time, such as an
  integer division, are removed when unused, as TensorFlow prunes them.)

It is linear in the number of ops for each level of region nesting: a
loop's live variables are found with one worklist walk over its body (not
a fixpoint of whole-body passes), and whether an op has effects is worked
out once per op. The graph is changed in place and returned.
"""
from __future__ import annotations

from collections import Counter
from typing import Dict, Iterator, List, Set

from .. import ops as _ops  # noqa: F401  (importing it registers every op)
from ..core import registry
from ..core.ir import Block, Graph, Op, Value

__all__ = ["run", "has_effects"]


def run(graph: Graph) -> Graph:
    """Remove dead ops and dead cond/while results from `graph` (see module doc)."""
    uses: Counter = Counter()
    for v in _uses_in_block(graph.body):
        uses[v] += 1
    _Sweeper(uses).sweep(graph.body)
    return graph


def _uses(op: Op) -> Iterator[Value]:
    """Every value `op` reads: its operands, and what its regions use and yield."""
    yield from op.operands
    for region in op.regions:
        yield from _uses_in_block(region)


def _uses_in_block(block: Block) -> Iterator[Value]:
    for op in block.ops:
        yield from _uses(op)
    yield from block.results


def has_effects(op: Op, memo: Dict[Op, bool] = None) -> bool:
    """True when `op` must run even if its results are unused: it is stateful, not
    registered, or holds such an op in a region. `memo` caches the answer per op."""
    if memo is not None and op in memo:
        return memo[op]
    opdef = registry.REGISTRY.get(op.name)
    found = opdef is None or opdef.stateful or any(
        has_effects(inner, memo) for region in op.regions for inner in region.ops)
    if memo is not None:
        memo[op] = found
    return found


class _Sweeper:
    def __init__(self, uses: Counter) -> None:
        self.uses = uses
        # Removing dead code never removes an effect, so the answers stay true.
        self.effects: Dict[Op, bool] = {}

    def has_effects(self, op: Op) -> bool:
        return has_effects(op, self.effects)

    def sweep(self, block: Block) -> None:
        # Backwards, so an op's users are settled before the op is looked at, and
        # removing an op frees its operands' defining ops further up in one pass.
        uses = self.uses
        kept: List[Op] = []
        for op in reversed(block.ops):
            if op.name == "while":
                self.prune_while(op)
            elif op.name == "cond":
                self.prune_cond(op)
            if not self.has_effects(op) and all(uses[r] == 0 for r in op.results):
                for v in _uses(op):
                    uses[v] -= 1
                continue
            for region in op.regions:
                self.sweep(region)
            kept.append(op)
        kept.reverse()
        block.ops = kept

    def prune_cond(self, op: Op) -> None:
        dead = {i for i, r in enumerate(op.results) if self.uses[r] == 0}
        # All dead and no effects: the caller removes the whole op instead.
        if dead and (len(dead) < len(op.results) or self.has_effects(op)):
            for region in op.regions:
                _drop_yields(region, dead, self.uses)
            _drop_results(op, dead)

    def live_loop_variables(self, op: Op) -> Set[int]:
        """The loop variables of while `op` that are live: used after the loop or by its
        cond region, or needed in the body for a live one or for an effect."""
        cond_region, body = op.regions
        uses = self.uses
        live: Set[int] = set()
        work: List[Value] = []

        def make_live(i: int) -> None:
            if i not in live:
                live.add(i)
                work.append(body.results[i])

        for i, r in enumerate(op.results):
            if uses[r] or uses[cond_region.args[i]]:
                make_live(i)
        # One walk over the body's def-use chains: a body argument found needed
        # makes its loop variable live, hence its yield needed too.
        defined_by: Dict[Value, Op] = {}
        for inner in body.ops:
            if self.has_effects(inner):
                work.extend(_uses(inner))
            for r in inner.results:
                defined_by[r] = inner
        arg_index = {a: i for i, a in enumerate(body.args)}
        needed: Set[Value] = set()
        visited: Set[Op] = set()
        while work:
            v = work.pop()
            if v in needed:
                continue
            needed.add(v)
            i = arg_index.get(v)
            if i is not None:
                make_live(i)
                continue
            inner = defined_by.get(v)
            if inner is not None and inner not in visited:
                visited.add(inner)
                work.extend(_uses(inner))
        return live

    def prune_while(self, op: Op) -> None:
        cond_region, body = op.regions
        uses = self.uses
        n = len(op.results)
        # The cond region first: what it still reads after its own clean-up is live.
        self.sweep(cond_region)
        live = self.live_loop_variables(op)
        dead = set(range(n)) - live
        if not dead or (len(dead) == n and not self.has_effects(op)):
            return  # nothing to prune, or the caller removes the whole loop
        for i in dead:
            uses[op.operands[i]] -= 1
        op.operands = [v for i, v in enumerate(op.operands) if i not in dead]
        _drop_yields(body, dead, uses)
        _drop_args(cond_region, dead)
        _drop_args(body, dead)
        _drop_results(op, dead)
        # Body ops that only fed dropped loop variables are now unused; the
        # caller's sweep of the body removes them before anything reads the
        # dropped block arguments again.


def _drop_results(op: Op, dead: Set[int]) -> None:
    op.results = [r for i, r in enumerate(op.results) if i not in dead]
    op.result_types = [r.type for r in op.results]
    for i, r in enumerate(op.results):
        r.index = i


def _drop_args(block: Block, dead: Set[int]) -> None:
    block.args = [a for i, a in enumerate(block.args) if i not in dead]
    for i, a in enumerate(block.args):
        a.index = i


def _drop_yields(block: Block, dead: Set[int], uses: Counter) -> None:
    for i in dead:
        uses[block.results[i]] -= 1
    block.results = [v for i, v in enumerate(block.results) if i not in dead]
