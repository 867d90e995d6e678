"""Copying a graph: the same program in new objects.

Passes change a graph in place; `clone_graph` gives a copy to change when
the original must stay as it is (a `ConcreteFunction` keeps the graph as
traced beside the optimised one).
"""
from __future__ import annotations

from typing import Dict

from .ir import Block, Graph, Op, Value

__all__ = ["clone_graph"]


def clone_graph(graph: Graph) -> Graph:
    """A deep copy of `graph`: new values, ops and blocks, same types and names.

    Attributes, types and locations are immutable and shared (a constant's
    read-only array too). The copy prints like the original and is equal to
    it structurally (`autograph.tracer.core.compare`).
    """
    vmap: Dict[Value, Value] = {}
    return Graph(graph.name, _clone_block(graph.body, vmap))


def _clone_block(old: Block, vmap: Dict[Value, Value]) -> Block:
    new = Block()
    for a in old.args:
        vmap[a] = new.add_arg(a.type, a.name_hint)
    for op in old.ops:
        # Regions first: they may use values defined before `op`, never its results.
        regions = [_clone_block(r, vmap) for r in op.regions]
        copy = Op(op.name, [vmap[v] for v in op.operands], list(op.result_types), dict(op.attrs),
                  regions=regions, loc=op.loc)
        for r, c in zip(op.results, copy.results):
            c.name_hint = r.name_hint
            vmap[r] = c
        new.append(copy)
    new.results = [vmap[v] for v in old.results]
    return new
