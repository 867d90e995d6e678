"""Re-typing a traced loop region without running the user's Python again.

A compiled loop whose variables start as Python numbers traces its body once
with *weak* placeholders for them (loop.py): a weak placeholder adopts the
dtype of the tensors it meets, as the number would. The body's results then
give each such variable its dtype, and this module rewrites the traced
regions into what tracing them with tensors of those dtypes would have
recorded:

* block arguments get the loop variables' types;
* an elementwise op that had a weak operand is applied again through its
  public function, to the new operands and the original Python numbers
  (recorded by `GraphBuilder.note_weak`), so the numbers adopt the new dtype
  exactly as they would have in a trace with tensors;
* the cast that adopted a weak value into another dtype disappears when the
  value now has that dtype, and is an error naming the user's line when it
  does not (two tensors of different dtypes never mix silently);
* every other op is copied, its result types recomputed by its type rule;
  `cond` and `while` regions are re-typed recursively (a Python number one
  branch gives a weak variable takes the dtype of the other branch's value).

The copies keep the user's line of the op they stand for
(`autograph.tracer.core.location.at_location`). Nothing is traced again: the
body's print calls and other Python side effects have run exactly once.
"""
from __future__ import annotations

from typing import Dict, List, Sequence

from ..core import registry
from ..core.convert import is_python_number, python_to_dtype
from ..core.errors import with_location
from ..core.ir import Block, Op, Value
from ..core.location import at_location
from .flow_values import shape_text
from .symbolic import GraphBuilder, SymbolicTensor, constant_value
from ..core.types import TensorType, most_specific_common_shape

__all__ = ["replay_region", "remap", "drop_unused_constants"]

_HINT = ("(in a compiled loop, a variable that starts as a Python number takes the dtype the "
         "loop body gives it; to give it another dtype, start it as a tensor of that dtype, "
         "e.g. `acc = ag.constant(0.0, ag.float32)`)")


class _BadAdopt:
    """A weak value's cast into `target` that the re-typed value no longer fits."""

    __slots__ = ("value", "target", "op")

    def __init__(self, value: Value, target, op: Op):
        self.value, self.target, self.op = value, target, op


def replay_region(builder: GraphBuilder, old: Block, arg_types: Sequence[TensorType],
                  vmap: Dict) -> Block:
    """A new block doing what `old` does, with arguments of `arg_types`.

    `vmap` maps values of the old regions to their re-typed counterparts
    (filled in here; values defined outside `old` map to themselves). The
    block's results are those of `old`, re-typed, if it had any.
    """
    return _replay_block(builder, old, arg_types, vmap)


def remap(builder: GraphBuilder, x, vmap: Dict):
    """`x` (a traced value of the old regions, or anything else) after re-typing."""
    if isinstance(x, SymbolicTensor) and x.value in vmap:
        return builder.wrap(_resolve(vmap, x.value))
    return x


def _replay_block(builder, old: Block, arg_types, vmap, branch: bool = False) -> Block:
    new = Block()
    for a, t in zip(old.args, arg_types):
        vmap[a] = new.add_arg(t, a.name_hint)
    with builder.reenter(new):
        for op in old.ops:
            with at_location(op.loc):
                _replay_op(builder, op, vmap)
        if branch:
            # A branch of a compiled if: a weak value it yields was cast to the
            # other branch's dtype; `_copy_cond` unifies the branches again.
            new.results = [_source(vmap.get(v, v)) for v in old.results]
        else:
            new.results = [_resolve(vmap, v) for v in old.results]
    return new


def _source(v):
    return v.value if isinstance(v, _BadAdopt) else v


def _resolve(vmap, v: Value) -> Value:
    """The re-typed value standing for `v` (itself when defined outside the loop)."""
    new = vmap.get(v, v)
    if isinstance(new, _BadAdopt):
        dtype = new.value.type.dtype
        raise with_location(TypeError(
            f"a value of dtype {dtype.name} is used here where {new.target.name} is needed; "
            f"two dtypes never mix (use ag.cast) {_HINT}"), new.op.loc)
    return new


def _replay_op(builder: GraphBuilder, op: Op, vmap) -> None:
    origin = builder.weak_origins.get(op.results[0]) if op.results else None
    if origin is not None and origin[0] == "op":
        from ..api import elementwise   # the op functions: imported late (api imports tracing)
        operands = [_operand(builder, o, vmap) for o in origin[1]]
        try:
            result = getattr(elementwise, op.name)(*operands)
        except (TypeError, ValueError) as e:
            raise _explained(e, op) from None
        vmap[op.results[0]] = builder.value_of(result)
        return
    if (origin is not None and origin[0] == "adopt" and origin[1].value in vmap
            and not getattr(origin[1], "_ag_weak_int", False)):
        # (the cast of a weak int is copied as it is: a weak int keeps its dtype)
        source = _resolve(vmap, origin[1].value)
        target = op.result_types[0].dtype
        vmap[op.results[0]] = source if source.type.dtype is target else _BadAdopt(source, target, op)
        return
    copy = _copy_op(builder, op, vmap)
    builder.block.append(copy)
    for r, c in zip(op.results, copy.results):
        c.name_hint = r.name_hint
        vmap[r] = c


def _explained(e: Exception, op: Op) -> Exception:
    message = str(e.args[0]) if len(e.args) == 1 else str(e)
    return with_location(type(e)(f"{message.splitlines()[0]} {_HINT}"), op.loc)


def _operand(builder, x, vmap):
    """An original operand of an elementwise op, re-typed: Python numbers stay
    numbers; traced values of the loop become (strong) tensors of their new type."""
    if is_python_number(x) or not isinstance(x, SymbolicTensor):
        return x
    if x.value in vmap:
        value = _resolve(vmap, x.value)
        if getattr(x, "_ag_weak_int", False):   # still stands for a Python int
            return type(x)(value, builder)
        return builder.wrap(value)
    return x   # defined outside the loop (perhaps an enclosing loop's weak placeholder)


def _copy_op(builder, op: Op, vmap) -> Op:
    operands = [_resolve(vmap, v) for v in op.operands]
    attrs = dict(op.attrs)
    if op.name == "cond":
        return _copy_cond(builder, op, operands, attrs, vmap)
    if op.name == "while":
        return _copy_while(builder, op, operands, attrs, vmap)
    if all(n is o for n, o in zip(operands, op.operands)) or op.name == "constant":
        return Op(op.name, operands, list(op.result_types), attrs, loc=op.loc)
    types = [v.type for v in operands]
    consts = [constant_value(v) for v in operands]
    try:
        results = list(registry.get(op.name).type_rule(types, attrs, consts))
    except (TypeError, ValueError) as e:
        raise _explained(e, op) from None
    return Op(op.name, operands, results, attrs, loc=op.loc)


def _copy_cond(builder, op: Op, operands, attrs, vmap) -> Op:
    then, other = (_replay_block(builder, r, [], vmap, branch=True) for r in op.regions)
    for k, (old_a, old_b) in enumerate(zip(op.regions[0].results, op.regions[1].results)):
        # A Python number one branch gives a weak variable takes the dtype the
        # other branch's value has now.
        for blk, old, peer in ((then, old_a, other.results[k]), (other, old_b, then.results[k])):
            origin = builder.weak_origins.get(old)
            if origin is not None and origin[0] == "number" and blk.results[k].type.dtype is not peer.type.dtype:
                with builder.reenter(blk):
                    try:
                        blk.results[k] = builder.constant(python_to_dtype(origin[1], peer.type.dtype))
                    except TypeError as e:
                        raise _explained(e, op) from None
    types = []
    for a, b in zip(then.results, other.results):
        if a.type.dtype is not b.type.dtype:
            raise with_location(TypeError(
                f"a compiled if gives a value of dtype {a.type.dtype.name} in the main branch, but "
                f"dtype {b.type.dtype.name} in the else branch {_HINT}"), op.loc)
        types.append(TensorType(a.type.dtype, most_specific_common_shape(a.type.shape, b.type.shape)))
    return Op("cond", operands, types, attrs, regions=[then, other], loc=op.loc)


def _copy_while(builder, op: Op, operands: List[Value], attrs, vmap) -> Op:
    carried = [TensorType(v.type.dtype, t.shape) for v, t in zip(operands, op.result_types)]
    cond_region, body_region = op.regions
    cond_blk = _replay_block(builder, cond_region, carried, vmap)
    body_blk = _replay_block(builder, body_region, carried, vmap)
    for t, y in zip(carried, body_blk.results):
        if y.type.dtype is not t.dtype:
            raise with_location(TypeError(
                f"a loop variable of this compiled loop has dtype {t.dtype.name} before the loop, "
                f"but dtype {y.type.dtype.name} (shape {shape_text(y.type.shape)}) after one "
                f"iteration {_HINT}"), op.loc)
    return Op("while", operands, carried, attrs, regions=[cond_blk, body_blk], loc=op.loc)


def drop_unused_constants(block: Block) -> None:
    """Remove the constants nothing in `block` uses any more (the Python
    numbers that weak placeholders met, re-created in their new dtype);
    call it once the block's results are final."""
    used = set()

    def mark(b: Block):
        for o in b.ops:
            used.update(o.operands)
            for r in o.regions:
                mark(r)
        used.update(b.results)

    def sweep(b: Block):
        b.ops = [o for o in b.ops if not (o.name == "constant" and o.results[0] not in used)]
        for o in b.ops:
            for r in o.regions:
                sweep(r)

    mark(block)
    sweep(block)
