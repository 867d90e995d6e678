"""Rank specialisation: re-typing a graph for inputs of known rank.

A function traced for a `TensorSpec(shape=None)` input has a graph whose
values have unknown rank, which native code cannot hold. This pass takes
the new input types as a parameter: `run(graph, input_types)`, or bound for
the pass manager, `pass_for(input_types)` (a `manager.Pass` named
"specialize_rank"), followed by the default pipeline, where known ranks let
constant folding do more (`rank`, `shape`, ... of the inputs):

    run_passes(graph, [specialize_rank.pass_for(types), *DEFAULT_PIPELINE])

Guarantees, after `run(graph, input_types)`:

* the result is a *new* graph (`graph` is left as it is) whose inputs have
  `input_types` (resource inputs keep their type), with the same ops,
  attributes, regions, names and locations, and every result type
  recomputed by the ops' type rules (the ones tracing used) from the new
  operand types. Nothing is traced again, so the Python function's side
  effects do not run again and `tracing_count` does not change.
  `autograph.codegen.jit.ranked` compiles one such graph per tuple of input
  ranks seen at call time;
* a `cond`'s results are the most specific types covering both branches'
  yields; a `while`'s carried types start from the declared ones (from the
  initial values where the declared rank is unknown) and are widened until
  the body's yields fit them (a fixpoint: each round can only replace
  dimensions by None or a rank by unknown rank);
* each new type must fit the old one (same dtype, a shape at least as
  specific), else ValueError. An op whose type rule rejects the new operand
  types (say, `x[0]` on an input that turns out to be a scalar) raises
  InvalidArgumentError naming the op's line: the ranks the function was
  called with do not fit the program. A value whose rank would still have
  to change (a branch or loop variable of two ranks) raises
  NotImplementedError.
"""
from __future__ import annotations

from functools import partial
from typing import Dict, List, Optional, Sequence

import numpy as np

from ..core import registry
from ..core.errors import InvalidArgumentError, with_location
from ..core.ir import Block, Graph, Op, Value, is_resource
from ..core.types import TensorType, most_specific_common_shape, shape_compatible
from .manager import Pass

__all__ = ["run", "pass_for", "has_unknown_rank"]

_MAX_ROUNDS = 64   # a while fixpoint converges in at most rank+2 rounds per variable


def has_unknown_rank(graph: Graph) -> bool:
    """True when some (non-resource) input of `graph` has unknown rank."""
    return any(not is_resource(v) and v.type.shape is None for v in graph.inputs)


def pass_for(input_types: Sequence):
    """The pass `run(graph, input_types)` bound to these types, for `run_passes`."""
    return Pass("specialize_rank", partial(run, input_types=tuple(input_types)))


def run(graph: Graph, input_types: Sequence) -> Graph:
    """A re-typed copy of `graph` whose inputs have `input_types` (see module doc)."""
    if len(input_types) != len(graph.inputs):
        raise ValueError(f"specialize_rank: {len(input_types)} input types for {len(graph.inputs)} inputs")
    new = Graph(graph.name)
    vmap: Dict[Value, Value] = {}
    for v, t in zip(graph.inputs, input_types):
        if is_resource(v):
            t = v.type   # variables have fully known shapes already
        elif t.dtype is not v.type.dtype or not shape_compatible(t.shape, v.type.shape):
            raise ValueError(f"specialize_rank: input type {t} does not fit {v.type}")
        vmap[v] = new.body.add_arg(t, v.name_hint)
    _copy_block(graph.body, new.body, vmap)
    new.body.results = [vmap[v] for v in graph.outputs]
    return new


def _join(a: TensorType, b: TensorType) -> TensorType:
    return TensorType(a.dtype, most_specific_common_shape(a.shape, b.shape))


def _fits(actual: TensorType, expected: TensorType) -> bool:
    return actual.dtype is expected.dtype and shape_compatible(actual.shape, expected.shape)


def _constant(v: Value) -> Optional[np.ndarray]:
    owner = v.owner
    if isinstance(owner, Op) and owner.name == "constant":
        return owner.attrs["value"]
    return None


def _copy_block(old: Block, new: Block, vmap: Dict[Value, Value]) -> None:
    for op in old.ops:
        copy = _copy_op(op, vmap)
        new.append(copy)
        for r, c in zip(op.results, copy.results):
            c.name_hint = r.name_hint
            vmap[r] = c


def _region(old: Block, arg_types: Sequence[TensorType], vmap: Dict[Value, Value]) -> Block:
    blk = Block()
    for a, t in zip(old.args, arg_types):
        vmap[a] = blk.add_arg(t, a.name_hint)
    _copy_block(old, blk, vmap)
    blk.results = [vmap[v] for v in old.results]
    return blk


def _copy_op(op: Op, vmap: Dict[Value, Value]) -> Op:
    operands = [vmap[v] for v in op.operands]
    attrs = dict(op.attrs)
    if op.name == "constant":
        return Op("constant", [], list(op.result_types), attrs, loc=op.loc)
    if op.name == "cond":
        then, other = (_region(r, [], vmap) for r in op.regions)
        types = [_join(a.type, b.type) for a, b in zip(then.results, other.results)]
        for t, a, b in zip(types, then.results, other.results):
            if t.shape is None and a.type.shape is not None and b.type.shape is not None:
                raise _rank_change(op, f"the branches give a value of ranks {a.type.rank} and "
                                       f"{b.type.rank}")
        return Op("cond", operands, types, attrs, regions=[then, other], loc=op.loc)
    if op.name == "while":
        return _copy_while(op, operands, attrs, vmap)
    types = [v.type for v in operands]
    consts = [_constant(v) for v in operands]
    try:
        results = list(registry.get(op.name).type_rule(types, attrs, consts))
    except (TypeError, ValueError) as e:
        raise with_location(InvalidArgumentError(
            f"{e} (the function was traced for inputs of unknown rank and called with inputs "
            f"of ranks its code does not accept)"), op.loc) from None
    return Op(op.name, operands, results, attrs, loc=op.loc)


def _rank_change(op: Op, what: str) -> NotImplementedError:
    return with_location(NotImplementedError(
        f"codegen: for inputs of these ranks {what}; compiled code needs every value's rank "
        f"fixed (the function was traced for inputs of unknown rank)"), op.loc)


def _copy_while(op: Op, operands: List[Value], attrs: dict, vmap: Dict[Value, Value]) -> Op:
    cond_region, body_region = op.regions
    carried = [d if d.shape is not None else v.type for d, v in zip(op.result_types, operands)]
    for _ in range(_MAX_ROUNDS):
        cond_blk = _region(cond_region, carried, vmap)
        body_blk = _region(body_region, carried, vmap)
        widened = [t if _fits(y.type, t) else _join(t, y.type) for t, y in zip(carried, body_blk.results)]
        for t, w in zip(carried, widened):
            if w.shape is None and t.shape is not None:
                raise _rank_change(op, f"a loop variable of rank {t.rank} changes rank in the loop body")
        if widened == carried:
            return Op("while", operands, carried, attrs, regions=[cond_blk, body_blk], loc=op.loc)
        carried = widened
    raise AssertionError("specialize: the loop types of a while op did not converge")  # pragma: no cover
