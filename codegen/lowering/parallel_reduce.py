"""Large full reductions split across threads, with results independent of the count.

`reduce_parallel` handles a reduction of a flat run of n elements (the
input's leaves all have its shape, every axis reduced, a scalar result) of
at least `parallel.min_elements` elements (2**18, more for a cheap one). The run is cut into blocks of
`BLOCK` elements; an internal chunk function `void(ptr ctx, i64 lo, i64 hi)`
reduces blocks [lo, hi), each into its own slot of a `partials` buffer, and
the kernel then combines the partials in block order. The kernel calls the
chunk through `autograph_parallel_for` (chunk bounds whole blocks) when the
process allows more than one thread, else directly, so the additions are
grouped the same way whatever the thread count: float results are identical
with threads on and off (within a block the vectoriser keeps partial sums,
as for any float reduction: reassociation, see `reduce.py`). Against a
smaller input reduced by the one-loop code the grouping differs, so a float
sum may differ in the last bits (the documented tolerance: a few ulp of the
sum of absolute values).

As for maps (`parallel.py`), an input expression that may fault is not
outlined.
"""
from __future__ import annotations

import itertools
from typing import Callable

from llvmlite import ir

from ..abi import threads
from ..llvm.irutil import declare, for_range, smin
from ..llvm.ltypes import I64, PTR, VOID, const_int, i64, load_elem, mem_type, store_elem
from . import elementwise as ew
from . import memory
from .parallel import _MayFail, _fits_slot, _free_values, chunk_prologue, min_elements

__all__ = ["BLOCK", "reduce_parallel"]

BLOCK = 1 << 15          # elements per partial result
_names = itertools.count()
_CHUNK_TYPE = ir.FunctionType(VOID, [PTR, I64, I64])


def _emit_chunk(lw, fn, x, leaves, free, dtype, ident, combine) -> None:
    b, clw, lo, hi, slot, copy, chunk_leaves = chunk_prologue(lw, fn, x, leaves, free, 2)
    partials = b.load(slot(0), typ=PTR)
    n = b.load(slot(1), typ=I64)
    part = clw.alloca(mem_type(dtype), name="part")
    with for_range(b, hi, start=lo, name="pblk", unroll=False) as blk:
        start = b.mul(blk, i64(BLOCK))
        stop = smin(b, b.add(start, i64(BLOCK)), n)
        store_elem(b, ident, part, i64(0), dtype)
        with for_range(b, stop, start=start, name="pel") as i:
            v = ew.evaluate(clw, copy, ew.load_leaves(clw, chunk_leaves, [i] * len(chunk_leaves)))
            store_elem(b, combine(clw, load_elem(b, part, i64(0), dtype), v), part, i64(0), dtype)
        store_elem(b, load_elem(b, part, i64(0), dtype), partials, blk, dtype)
    b.ret_void()


def reduce_parallel(lw, op, x, leaves, n, acc_ptr, dtype, ident,
                    combine: Callable, fallback: Callable[[], None]) -> bool:
    """acc = combine(acc, x[i]) for i in [0, n), blocked and maybe threaded
    (see the module docstring). `combine(lowerer, acc, v)` emits one step;
    `fallback()` emits the ordinary loop, used when n (known only at run
    time) is below the threshold. False (nothing emitted) when not eligible."""
    b = lw.b
    cn = const_int(n)
    least = min_elements(x)
    if cn is not None and cn < least:
        return False
    if isinstance(x, ew.Fused) and ew.fused_size(x) > ew.SCALAR_LOOP_NODES:
        return False
    free = _free_values(x) if isinstance(x, ew.Fused) else []
    if not all(_fits_slot(v.type) for v in free):
        return False
    probe = ir.Function(ir.Module(name="ag.parallel.probe"), _CHUNK_TYPE, "probe")
    try:
        _emit_chunk(lw, probe, x, leaves, free, dtype, ident, combine)
    except _MayFail:
        return False
    if cn is not None:
        _emit(lw, op, x, leaves, free, n, acc_ptr, dtype, ident, combine)
        return True
    with b.if_else(b.icmp_signed(">=", n, i64(least))) as (then, otherwise):
        with then:
            _emit(lw, op, x, leaves, free, n, acc_ptr, dtype, ident, combine)
        with otherwise:
            fallback()
    return True


def _emit(lw, op, x, leaves, free, n, acc_ptr, dtype, ident, combine) -> None:
    b = lw.b
    module = lw.module
    chunk = ir.Function(module, _CHUNK_TYPE, f"ag.parallel.reduce{next(_names)}")
    chunk.linkage = "internal"
    chunk.attributes.add("nounwind")
    _emit_chunk(lw, chunk, x, leaves, free, dtype, ident, combine)
    nblocks = b.udiv(b.add(n, i64(BLOCK - 1)), i64(BLOCK))
    partials = memory.alloc(lw, op, dtype, [nblocks])
    slots = lw.alloca(ir.ArrayType(I64, 2 + len(leaves) + len(free)), name="pred.ctx")

    def slot(k):
        # llvmlite types the alloca's pointer; LLVM's are opaque (see parallel.py)
        p = b.gep(slots, [i64(0), i64(k)], source_etype=slots.allocated_type)
        p.type = PTR
        return p

    b.store(partials, slot(0))
    b.store(n, slot(1))
    for k, t in enumerate(leaves):
        b.store(t.ptr, slot(2 + k))
    for k, v in enumerate(free):
        b.store(v, slot(2 + len(leaves) + k))
    table = module.globals.get(threads.THREADS_SYMBOL)
    if table is None:
        table = ir.GlobalVariable(module, ir.ArrayType(I64, 1), threads.THREADS_SYMBOL)
        table.align = 8
    count = b.load(b.gep(table, [i64(0), i64(0)], source_etype=table.value_type), typ=I64)
    pfor = declare(module, threads.PARALLEL_FOR_SYMBOL, VOID, [PTR, PTR, I64, I64])
    with b.if_else(b.icmp_signed(">", count, i64(1))) as (then, otherwise):
        with then:
            b.call(pfor, [chunk, slots, nblocks, i64(1)])
        with otherwise:
            b.call(chunk, [slots, i64(0), nblocks])
    with for_range(b, nblocks, name="pcomb", cold=True) as blk:
        acc = load_elem(b, acc_ptr, i64(0), dtype)
        store_elem(b, combine(lw, acc, load_elem(b, partials, blk, dtype)), acc_ptr, i64(0), dtype)
    memory.free(lw, partials)
