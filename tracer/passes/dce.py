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

The graph is changed in place and returned.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterator, List, Set

from .. import ops as _ops  # noqa: F401  (importing it registers every op)
from ..core import registry
from ..core.ir import Block, Graph, Op, Value

__all__ = ["run"]


def run(graph: Graph) -> Graph:
    """Remove dead ops and dead cond/while results from `graph` (see module doc)."""
    uses: Counter = Counter()
    for v in _uses_in_block(graph.body):
        uses[v] += 1
    _sweep(graph.body, uses)
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


def has_effects(op: Op) -> bool:
    """True when `op` must run even if its results are unused."""
    try:
        if registry.get(op.name).stateful:
            return True
    except KeyError:
        return True
    return any(has_effects(inner) for region in op.regions for inner in region.ops)


def _sweep(block: Block, uses: Counter) -> None:
    # Backwards, so an op's users are settled before the op is looked at, and
    # removing an op frees its operands' defining ops further up in one pass.
    kept: List[Op] = []
    for op in reversed(block.ops):
        if op.name == "while":
            _prune_while(op, uses)
        elif op.name == "cond":
            _prune_cond(op, uses)
        if not has_effects(op) and all(uses[r] == 0 for r in op.results):
            for v in _uses(op):
                uses[v] -= 1
            continue
        for region in op.regions:
            _sweep(region, uses)
        kept.append(op)
    kept.reverse()
    block.ops = kept


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


def _prune_cond(op: Op, uses: Counter) -> None:
    dead = {i for i, r in enumerate(op.results) if uses[r] == 0}
    # All dead and no effects: the caller removes the whole op instead.
    if dead and (len(dead) < len(op.results) or has_effects(op)):
        for region in op.regions:
            _drop_yields(region, dead, uses)
        _drop_results(op, dead)


def _needed(block: Block, roots: List[Value]) -> Set[Value]:
    """Values `block` needs to compute `roots` and to run its effectful ops."""
    needed = set(roots)
    for op in reversed(block.ops):
        if has_effects(op) or any(r in needed for r in op.results):
            needed.update(_uses(op))
    return needed


def _prune_while(op: Op, uses: Counter) -> None:
    cond_region, body = op.regions
    n = len(op.results)
    # The cond region first: what it still reads after its own clean-up is live.
    _sweep(cond_region, uses)
    live = {i for i in range(n) if uses[op.results[i]] or uses[cond_region.args[i]]}
    while True:  # grow to a fixed point: a live yield may need other loop variables
        needed = _needed(body, [body.results[i] for i in live])
        grown = live | {i for i in range(n) if body.args[i] in needed}
        if grown == live:
            break
        live = grown
    dead = set(range(n)) - live
    if not dead or (len(dead) == n and not has_effects(op)):
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
