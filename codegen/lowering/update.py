"""Buffer updates: `set_item` (in place when possible), `grow`, `check_values`.

`set_item` and `grow` are functional ops, but copying x for every update
would make a loop of `out[i] = v` quadratic. So they write into x's buffer
in place when the block plan says x's buffer may be taken over
(`Lowerer.take_over`): the buffer is owned by the code being lowered (never
an input, a constant or a variable), this op is its last use, and no other
live value shares it. That covers a tensor carried by a compiled loop and
updated each iteration: the loop owns its carried buffers and donates them
to the body (see `autograph.codegen.lowering.control`). Otherwise x is copied first.

`grow` reallocates in place (`realloc`) when it may take x over, and only
when x has fewer than n rows; new rows are zero (unless the loop around it
writes every row before any read: `autograph.codegen.lowering.overwrite`).
"""
from __future__ import annotations

from typing import List

from llvmlite import ir

from autograph.tracer.core.ir import Op
from autograph.tracer.ops.slicing import _strided_slice_rule
from autograph.tracer.ops.update import BROADCAST_MSG, LEADING_MSG
from autograph.tracer.tracing.symbolic import constant_value

from . import memory
from .overwrite import grow_overwritten
from .elementwise import leaf_strides, strided_nest
from ..llvm.irutil import mul, product, smax, to_i64
from .registry import register
from ..llvm.ltypes import I8, I64, Tensor, const_int, i64, load_elem, mem_type, store_elem
from .slicing import index_region

_BCAST_MSG, _LEAD_MSG = BROADCAST_MSG, LEADING_MSG


def _region_shape(op: Op):
    """The static shape of the region set_item writes (None where unknown)."""
    x, idx = op.operands[0], op.operands[2:]
    types = [x.type] + [v.type for v in idx]
    consts = [None] + [constant_value(v) for v in idx]
    return _strided_slice_rule(types, {"spec": tuple(op.attrs["spec"])}, consts)[0].shape


def _value_strides(lw, op: Op, value: Tensor, rdims: List[ir.Value]) -> List[ir.Value]:
    """Strides reading `value` broadcast over the region `rdims`, after
    checking that it broadcasts there (extra leading dims must be 1)."""
    b = lw.b
    extra = value.rank - len(rdims)
    for d in value.dims[:max(extra, 0)]:
        c = const_int(d)
        bad = (c != 1) if c is not None else b.icmp_signed("!=", d, i64(1))
        lw.fail_if(bad, op, _LEAD_MSG, [d, i64(len(rdims))])
    tail = Tensor(value.dtype, value.ptr, value.dims[max(extra, 0):])
    offset = len(rdims) - tail.rank
    for a, d in enumerate(tail.dims):
        r = rdims[a + offset]
        cd, cr = const_int(d), const_int(r)
        if cd is not None and (cd == 1 or cd == cr):
            continue
        ok = b.or_(b.icmp_signed("==", d, r), b.icmp_signed("==", d, i64(1)))
        lw.fail_if(b.not_(ok), op, _BCAST_MSG, [i64(a + offset), d, r])
    return leaf_strides(b, tail, rdims)


@register("set_item")
def lower_set_item(lw, op: Op, args: list) -> list:
    x, value, *idx = args
    b = lw.b
    dtype = op.results[0].type.dtype
    spec = tuple(op.attrs["spec"])
    base, rdims, rstrides = index_region(lw, op, x, idx, spec)
    rdims = [i64(s) if s is not None else d for s, d in zip(_region_shape(op), rdims)]
    vstrides = _value_strides(lw, op, value, rdims) if isinstance(value, Tensor) else None
    if not isinstance(x, Tensor):
        # A scalar x (only `...`/newaxis parts): the region is x itself.
        return [load_elem(b, value.ptr, i64(0), dtype) if vstrides is not None else value]
    if lw.take_over(op, 0):
        out = Tensor(dtype, x.ptr, list(x.dims))        # nothing else sees x: update in place
    else:
        out = memory.copy_tensor(lw, op, x)
    # Not `inbounds`: for an empty region `base` may point outside x (never dereferenced).
    dst = b.gep(out.ptr, [base], inbounds=False, source_etype=mem_type(dtype))
    if vstrides is None:
        if not rdims:
            store_elem(b, value, dst, i64(0), dtype)
        else:
            strided_nest(lw, rdims, [rstrides], lambda offs: store_elem(b, value, dst, offs[0], dtype))
        return [out]

    def body(offs):
        store_elem(b, load_elem(b, value.ptr, offs[1], dtype), dst, offs[0], dtype)

    if not rdims:
        body([i64(0), i64(0)])
    else:
        strided_nest(lw, rdims, [rstrides, vstrides], body)
    return [out]


@register("grow")
def lower_grow(lw, op: Op, args: list) -> list:
    x, n = args
    b = lw.b
    dtype = x.dtype
    n = to_i64(b, n)
    cap, rest = x.dims[0], list(x.dims[1:])
    row_bytes = mul(b, product(b, rest), i64(dtype.itemsize))
    need = b.icmp_signed(">", n, cap)
    if lw.take_over(op, 0):
        # Resize the owned buffer only when it is too small (the common case
        # in a loop is a compare and a not-taken branch; the new row count is
        # computed on the rare path only, so the hot path carries no select).
        pre = b.block
        with b.if_then(need, likely=False):
            rows = smax(b, n, b.shl(cap, i64(1)))
            with b.if_else(b.icmp_signed("==", cap, i64(0))) as (empty, nonempty):
                with empty:
                    # Nothing to keep: fresh zero pages (calloc) beat realloc + memset;
                    # no zeros at all when the loop writes every row first (overwrite.py).
                    alloc = memory.alloc if grow_overwritten(op) else memory.alloc_zeroed
                    fresh = alloc(lw, op, dtype, [rows] + rest)
                    memory.free(lw, x.ptr)
                    fresh_bb = b.block
                with nonempty:
                    moved = memory.realloc(lw, op, x.ptr, dtype, [rows] + rest)
                    _zero_tail(lw, moved, cap, rows, row_bytes)
                    moved_bb = b.block
            grown = b.phi(x.ptr.type, name="grow.new")
            grown.add_incoming(fresh, fresh_bb)
            grown.add_incoming(moved, moved_bb)
            grown_bb = b.block
        ptr = b.phi(x.ptr.type, name="grow.ptr")
        ptr.add_incoming(x.ptr, pre)
        ptr.add_incoming(grown, grown_bb)
        new_cap = b.phi(I64, name="grow.rows")
        new_cap.add_incoming(cap, pre)
        new_cap.add_incoming(rows, grown_bb)
        return [Tensor(dtype, ptr, [new_cap] + rest)]
    rows = b.select(need, smax(b, n, b.shl(cap, i64(1))), cap)
    out = memory.alloc_zeroed(lw, op, dtype, [rows] + rest)
    memory.memcpy(lw, out, x.ptr, mul(b, cap, row_bytes))
    return [Tensor(dtype, out, [rows] + rest)]


def _zero_tail(lw, ptr, cap, rows, row_bytes) -> None:
    """Zero rows cap..rows of the buffer at `ptr`."""
    b = lw.b
    start = b.gep(ptr, [mul(b, cap, row_bytes)], inbounds=True, source_etype=I8)
    memory.memset_zero(lw, start, mul(b, b.sub(rows, cap), row_bytes))


@register("check_values")
def lower_check_values(lw, op: Op, args: list) -> list:
    pred, *values = args
    lw.fail_if(lw.b.not_(pred), op, str(op.attrs["message"]), values)
    return []
