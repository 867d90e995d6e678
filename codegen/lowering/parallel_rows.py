"""Loops split across threads by rows: reductions along axes, and maps whose
operands are broadcast.

`reduce_rows` handles a reduction with a tensor result (some axis kept, e.g.
`reduce_max(x, axis=-1, keepdims=True)`); `map_rows` a fused elementwise
expression whose leaves are broadcast against the result (`x - m` with `m`
of shape (rows, 1) or (1, cols)), as seen at trace time. Both cover at least
`parallel.min_elements` elements (statically, or decided at run time).

The loop nest is outlined into an internal chunk function

    void chunk(ptr ctx, i64 lo, i64 hi)

that runs the whole nest with one axis, the *split axis*, restricted to
[lo, hi). The split axis is the outermost axis not statically 1 (maps) or
the outermost kept axis not statically 1 (reductions: a reduced axis is
never split, so each output element is accumulated by one chunk, in the
same order as on one thread). `ctx` holds, one 8-byte slot each, every
run-time value the nest needs: buffer pointers, dims, and the
expression's scalars. The kernel calls `autograph_parallel_for(chunk, ctx,
dims[split], align)` when more than one thread is allowed and the domain
is large enough, else `chunk(ctx, 0, dims[split])`.

The chunk is `noinline`: on one thread the kernel runs the very same
machine code as the pool, and an element's value never depends on the
chunk bounds, so results (floats included: a row's sum is vectorised the
same way in every chunk) are identical for any thread count. A smaller
input that stays in the kernel's own loops may round differently (the
documented tolerance of `reduce.py`).

As for the other threaded loops (`parallel.py`), an expression that may
fault (it would need the kernel's error exit) is not outlined: the probe
emits the chunk into a scratch module first.
"""
from __future__ import annotations

import itertools
from typing import Callable, Dict, List, Optional, Sequence

from llvmlite import ir

from ..abi import threads
from ..llvm.irutil import add, declare, for_range, mul, product
from ..llvm.ltypes import I64, PTR, VOID, Tensor, const_int, i64, load_elem, mem_type, store_elem
from . import elementwise as ew
from .extreme import float_extreme
from .fixup import loop_with_fixup
from .views import View
from .parallel import (_ChunkLowerer, _MayFail, _fits_slot, _free_values, _rebuild, min_elements,
    weight)

__all__ = ["map_rows", "reduce_rows"]

_names = itertools.count()
_CHUNK_TYPE = ir.FunctionType(VOID, [PTR, I64, I64])
# The weight a reduction adds to its input expression's (`parallel.min_elements`):
# its combine step is one more op per element.
_REDUCE_OPS = 1
# The least `parallel.weight` of a reduction split along an inner axis: one costly op.
COSTLY_WEIGHT = 9
_COLUMN_ALIGN = 256


def _split_axis(dims: Sequence[ir.Value], allowed: Sequence[bool]) -> Optional[int]:
    """The outermost allowed axis whose size is not statically 1 (None if none)."""
    for k, (d, ok) in enumerate(zip(dims, allowed)):
        if ok and const_int(d) != 1:
            return k
    return None


class _Transport:
    """The kernel's run-time values a chunk uses, each in one ctx slot."""

    def __init__(self):
        self.values: List[ir.Value] = []
        self._seen: set = set()

    def add(self, v) -> None:
        if isinstance(v, ir.Constant) or not isinstance(v, ir.Value) or id(v) in self._seen:
            return
        self._seen.add(id(v))
        self.values.append(v)

    def add_tensor(self, t: Tensor) -> None:
        self.add(t.ptr)
        for d in t.dims:
            self.add(d)
        for s in getattr(t, "strides", None) or ():   # a slice read in place (views.py)
            self.add(s)

    def fits(self) -> bool:
        return all(_fits_slot(v.type) for v in self.values)


class _Local:
    """Inside a chunk: each transported kernel value loaded from its slot."""

    def __init__(self, b: ir.IRBuilder, ctx: ir.Value, transport: _Transport):
        self._map: Dict[int, ir.Value] = {}
        for k, v in enumerate(transport.values):
            self._map[id(v)] = b.load(b.gep(ctx, [i64(k)], source_etype=I64), typ=v.type)

    def __call__(self, v):
        return self._map.get(id(v), v)

    def tensor(self, t: Tensor) -> Tensor:
        if isinstance(t, View):
            return t.mapped(self)
        return Tensor(t.dtype, self(t.ptr), [self(d) for d in t.dims])

    def dims(self, dims: Sequence[ir.Value]) -> List[ir.Value]:
        return [self(d) for d in dims]


def _build_chunk(lw, fn: ir.Function, transport: _Transport, emit: Callable) -> None:
    """The body of chunk `fn`: `emit(clw, local, lo, hi)` at its entry, then return."""
    entry = fn.append_basic_block("entry")
    b = ir.IRBuilder(entry)
    ctx, lo, hi = fn.args
    emit(_ChunkLowerer(lw, b, entry), _Local(b, ctx, transport), lo, hi)
    b.ret_void()


def _probe(lw, transport: _Transport, emit: Callable) -> bool:
    """False when the chunk would need an error exit (the loop stays in the kernel)."""
    fn = ir.Function(ir.Module(name="ag.parallel.probe"), _CHUNK_TYPE, "probe")
    try:
        _build_chunk(lw, fn, transport, emit)
    except _MayFail:
        return False
    return True


def _outline(lw, transport: _Transport, emit: Callable, rows: ir.Value, n: ir.Value,
             least: int, align: int, kind: str) -> None:
    """Emit the chunk function and the kernel's call of it (pool or direct)."""
    b = lw.b
    module = lw.module
    chunk = ir.Function(module, _CHUNK_TYPE, f"ag.parallel.{kind}{next(_names)}")
    chunk.linkage = "internal"
    # noinline: one thread runs the same machine code as the pool (identical results)
    for attr in ("nounwind", "noinline"):
        chunk.attributes.add(attr)
    chunk.args[0].add_attribute("noalias")
    _build_chunk(lw, chunk, transport, emit)
    small = const_int(n) is not None and const_int(n) < least   # never worth the pool
    slots = lw.alloca(ir.ArrayType(I64, max(len(transport.values), 1)), name=f"{kind}.ctx")
    for k, v in enumerate(transport.values):
        # llvmlite types the alloca's pointer; LLVM's are opaque (see parallel.py)
        p = b.gep(slots, [i64(0), i64(k)], source_etype=slots.allocated_type)
        p.type = PTR
        b.store(v, p)
    if small:
        b.call(chunk, [slots, i64(0), rows])
        return
    table = module.globals.get(threads.THREADS_SYMBOL)
    if table is None:
        table = ir.GlobalVariable(module, ir.ArrayType(I64, 1), threads.THREADS_SYMBOL)
        table.align = 8            # external: resolved when the code is loaded
    count = b.load(b.gep(table, [i64(0), i64(0)], source_etype=table.value_type), typ=I64)
    go = b.icmp_signed(">", count, i64(1))
    if const_int(n) is None:
        go = b.and_(go, b.icmp_signed(">=", n, i64(least)))
    pfor = declare(module, threads.PARALLEL_FOR_SYMBOL, VOID, [PTR, PTR, I64, I64])
    with b.if_else(go) as (then, otherwise):
        with then:
            b.call(pfor, [chunk, slots, rows, i64(align)])
        with otherwise:
            b.call(chunk, [slots, i64(0), rows])


def _nest(clw, dims, streams, split: int, lo, hi, body, row: Optional[Callable] = None,
          inner_interleave: Optional[int] = None) -> None:
    """Row-major loops over `dims` (axis `split` over [lo, hi) only); `streams[s][k]`
    is stream s's stride along axis k; `body(offsets)` at each point. With `row`,
    the innermost axis is handed to `row(offsets, count, strides)` instead."""
    b = clw.b
    last = len(dims) - 1

    def level(k: int, offsets: List[ir.Value]) -> None:
        if k == len(dims):
            body(offsets)
            return
        if k == last and row is not None and k != split:
            row(offsets, dims[k], [st[k] for st in streams])
            return
        start, stop = (lo, hi) if k == split else (None, dims[k])
        inner = k == last
        with for_range(b, stop, start=start, name=f"rax{k}",
                       interleave=inner_interleave if inner else None,
                       unroll=not (inner and inner_interleave == 1)) as i:
            level(k + 1, [add(b, off, mul(b, i, st[k])) for off, st in zip(offsets, streams)])

    level(0, [i64(0)] * len(streams))


def _strides(b, dims, leaves: Sequence[Tensor], flat: bool) -> List[List[ir.Value]]:
    if flat:
        return [ew.contiguous_strides(b, dims)] * len(leaves)
    return [ew.leaf_strides(b, t, dims) for t in leaves]


def reduce_rows(lw, op, x, leaves: List[Tensor], dims: Sequence[ir.Value], reduced: Sequence[bool],
                flat: bool, acc_ptr: ir.Value, dtype, combine: Callable) -> bool:
    """acc[kept index] = combine(acc, x[point]) over every point of `dims`, split
    across threads along a kept axis (see the module docstring). `acc_ptr` is the
    C-contiguous output, already holding the identity; `flat`: the leaves have
    exactly `dims` (merged axes), else they are broadcast (per-leaf strides).
    `combine(lowerer, acc, v)` emits one step. False (nothing emitted) when not
    eligible."""
    if dtype.is_complex:
        return False
    split = _split_axis(dims, [not r for r in reduced])
    if split is None:
        return False
    if any(reduced[:split]) and weight(x, _REDUCE_OPS) < COSTLY_WEIGHT:
        # Columns (a reduced axis outside the split one): each chunk reads a
        # strided band of every row, which for a memory-bound reduction is
        # slower on two threads than one contiguous pass (measured: max over
        # axis 0 of 2000x1000 float32, 0.084 ms on one thread, 0.15 on two).
        return False
    b = lw.b
    n = product(b, dims)
    least = min_elements(x, extra_ops=_REDUCE_OPS)
    if const_int(n) is not None and const_int(n) < least:
        return False
    if isinstance(x, ew.Fused) and ew.fused_size(x) > ew.SCALAR_LOOP_NODES:
        return False
    free = _free_values(x) if isinstance(x, ew.Fused) else []
    transport = _Transport()
    transport.add(acc_ptr)
    for d in dims:
        transport.add(d)
    for t in leaves:
        transport.add_tensor(t)
    for v in free:
        transport.add(v)
    if not transport.fits():
        return False

    def emit(clw, local, lo, hi):
        cb = clw.b
        ldims = local.dims(dims)
        acc = local(acc_ptr)
        lleaves = [local.tensor(t) for t in leaves]
        copy = _rebuild(x, {id(t): lt for t, lt in zip(leaves, lleaves)}, {id(v): local(v) for v in free})
        kept = [d for d, r in zip(ldims, reduced) if not r]
        kst = iter(ew.contiguous_strides(cb, kept))
        out_stream = [i64(0) if r else next(kst) for r in reduced]
        streams = [out_stream] + _strides(cb, ldims, lleaves, flat)

        def value(offsets):
            return ew.evaluate(clw, copy, ew.load_leaves(clw, lleaves, offsets))

        def body(offsets):
            old = load_elem(cb, acc, offsets[0], dtype)
            store_elem(cb, combine(clw, old, value(offsets[1:])), acc, offsets[0], dtype)

        def row(offsets, count, strides):
            def at(i):
                return value([add(cb, off, mul(cb, i, st)) for off, st in zip(offsets[1:], strides[1:])])

            if dtype.is_floating and op.name in ("reduce_max", "reduce_min"):
                v = float_extreme(clw, op.name, dtype, count, at)     # fast and exact
                old = load_elem(cb, acc, offsets[0], dtype)
                store_elem(cb, combine(clw, old, v), acc, offsets[0], dtype)
                return
            # A reduced innermost axis: accumulate in a local (a register once
            # promoted), which the chunk's pointers from ctx could not give LLVM.
            part = clw.alloca(mem_type(dtype), name="rowacc")
            store_elem(cb, load_elem(cb, acc, offsets[0], dtype), part, i64(0), dtype)
            with for_range(cb, count, name="rel") as i:
                v = at(i)
                store_elem(cb, combine(clw, load_elem(cb, part, i64(0), dtype), v), part, i64(0), dtype)
            store_elem(cb, load_elem(cb, part, i64(0), dtype), acc, offsets[0], dtype)

        _nest(clw, ldims, streams, split, lo, hi, body, row=row if reduced[-1] else None)

    if not _probe(lw, transport, emit):
        return False
    # Split along the innermost axis (columns): chunks of whole 1 KiB+ bands, so each
    # row's band is a few cache lines read in order (64-column bands measured slower).
    align = _COLUMN_ALIGN if split == len(dims) - 1 else 1
    _outline(lw, transport, emit, dims[split], n, least, align, "rows")
    return True


def map_rows(lw, op, node, out: Tensor, leaves: List[Tensor]) -> bool:
    """Emit `out[:] = node` for a `node` whose leaves are broadcast (statically
    seen not to all have its dims), split across threads along its outermost
    axis not statically 1 (see the module docstring). False (nothing emitted)
    when not eligible: leaves of the result's shape (`parallel.py` handles those),
    too few elements, a huge expression, or one that may fault."""
    dims = list(node.dims)
    if not dims or ew.same_shape(lw.b, leaves, dims) is not False:
        return False
    split = _split_axis(dims, [True] * len(dims))
    if split is None:
        return False
    b = lw.b
    n = product(b, dims)
    least = min_elements(node)
    if const_int(n) is not None and const_int(n) < least:
        return False
    if ew.fused_size(node) > ew.SCALAR_LOOP_NODES:
        return False
    free = _free_values(node)
    transport = _Transport()
    transport.add_tensor(out)
    for t in leaves:
        transport.add_tensor(t)
    for v in free:
        transport.add(v)
    if not transport.fits():
        return False

    def emit(clw, local, lo, hi):
        cb = clw.b
        ldims = local.dims(dims)
        lout = local.tensor(out)
        lleaves = [local.tensor(t) for t in leaves]
        copy = _rebuild(node, {id(t): lt for t, lt in zip(leaves, lleaves)}, {id(v): local(v) for v in free})
        streams = [ew.contiguous_strides(cb, ldims)] + _strides(cb, ldims, lleaves, False)

        def body(offsets):
            v = ew.evaluate(clw, copy, ew.load_leaves(clw, lleaves, offsets[1:]))
            store_elem(cb, v, lout.ptr, offsets[0], lout.dtype)

        # sin/cos/tan: the fast routines, re-run exactly only for huge arguments
        loop_with_fixup(clw, copy, lambda: _nest(clw, ldims, streams, split, lo, hi, body,
                                                  inner_interleave=1))

    if not _probe(lw, transport, emit):
        return False
    align = threads.ALIGN if split == len(dims) - 1 else 1
    _outline(lw, transport, emit, dims[split], n, least, align, "bcast")
    return True
