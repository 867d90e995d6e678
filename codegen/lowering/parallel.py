"""Large fused elementwise loops split across threads (`abi/threads.py` runs them).

`materialize_parallel(lw, op, node, out, leaves)` handles a fused
elementwise expression whose leaves all have the result's shape (the flat
loop) and may cover at least `min_elements(node)` elements (2**18, more for
a cheap expression). It outlines
the loop into an internal *chunk function*

    void chunk(ptr ctx, i64 lo, i64 hi)   ; out[i] = expr(leaves[i]) for i in [lo, hi)

where `ctx` is an array of 8-byte slots on the kernel's stack holding the
result pointer, the leaves' pointers and the expression's run-time scalars.
The kernel then calls `autograph_parallel_for(chunk, ctx, n, 64)` when n >=
that count and the process allows more than one thread (the i64 at
`autograph_num_threads`, read on every call), else `chunk(ctx, 0, n)`
directly (inlined). Every element is computed by the same code either way,
so results do not depend on the thread count.

Only expressions that cannot fault are outlined (a chunk has no error
exit): the expression is first emitted into a scratch function, and an op
that would report an error (integer division, ...) keeps the loop in the
kernel, single-threaded.
"""
from __future__ import annotations

import itertools
from typing import Callable, Dict, List

from llvmlite import ir

from ..abi import threads
from ..llvm.irutil import declare, for_range
from ..llvm.ltypes import I64, PTR, VOID, Tensor, const_int, i64, store_elem
from . import elementwise as ew
from . import memory
from .fixup import loop_with_fixup

__all__ = ["materialize_parallel"]

_names = itertools.count()
_CHUNK_TYPE = ir.FunctionType(VOID, [PTR, I64, I64])


class _MayFail(Exception):
    """The expression has an error exit: it stays in the kernel."""


class _ChunkLowerer:
    """What the scalar lowerings use of the `Lowerer`, inside a chunk function:
    its own builder and stack slots, and no error exits."""

    def __init__(self, lw, builder: ir.IRBuilder, entry: ir.Block):
        self._lw = lw
        self.b = builder
        self.fn = builder.function
        self._entry = entry

    def fail_if(self, bad, *args, **kwargs) -> None:
        if bad is False:
            return
        raise _MayFail()

    def alloca(self, typ: ir.Type, name: str = "") -> ir.Value:
        saved = self.b.block
        self.b.position_at_start(self._entry)
        slot = self.b.alloca(typ, name=name)
        self.b.position_at_end(saved)
        return slot

    def __getattr__(self, name):
        return getattr(self._lw, name)


# ops that cost several times an add per element (libm or long IR routines, divisions)
COSTLY = frozenset({"exp", "log", "log1p", "expm1", "tanh", "sin", "cos", "tan", "pow", "sigmoid",
                    "sqrt", "divide", "floordiv", "mod", "fmod", "cbrt", "exp2", "log2", "log10",
                    "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh",
                    "hypot"})


def weight(node, extra_ops: int = 0) -> int:
    """The cost of one element of `node`'s loop, in adds: 1 + its ops + 8 per
    costly op. `extra_ops`: cheap ops the loop does per element besides
    `node` (a reduction's combine step)."""
    ops, costly = extra_ops, 0
    stack, seen = [node], set()
    while stack:
        x = stack.pop()
        if isinstance(x, ew.Fused) and id(x) not in seen:
            seen.add(id(x))
            ops += 1
            costly += x.op.name in COSTLY
            stack.extend(x.args)
    return 1 + ops + 8 * costly


def min_elements(node, extra_ops: int = 0) -> int:
    """The element count from which the loop computing `node` is split:
    MIN_PARALLEL, or more for a cheap expression (MIN_WORK / its `weight`)."""
    return max(threads.MIN_PARALLEL, -(-threads.MIN_WORK // weight(node, extra_ops)))


def _fits_slot(t: ir.Type) -> bool:
    """Can a value of type `t` travel in one 8-byte ctx slot?"""
    if isinstance(t, ir.IntType):
        return t.width <= 64
    return isinstance(t, (ir.FloatType, ir.DoubleType, ir.PointerType))


def _free_values(node) -> List[ir.Value]:
    """The run-time (non-constant) scalars the expression uses, each once."""
    out: List[ir.Value] = []
    seen = set()
    stack = [node]
    visited = set()
    while stack:
        x = stack.pop()
        if id(x) in visited:
            continue
        visited.add(id(x))
        if isinstance(x, ew.Fused):
            for a in x.args:
                if isinstance(a, (ew.Fused, Tensor)):
                    stack.append(a)
                elif isinstance(a, ir.Value) and not isinstance(a, ir.Constant) and id(a) not in seen:
                    seen.add(id(a))
                    out.append(a)
    return out


def _rebuild(node, leaves_map: Dict[int, Tensor], values_map: Dict[int, ir.Value]):
    """A copy of the expression DAG over the chunk's leaves and scalars."""
    memo: Dict[int, object] = {}

    def go(x):
        if isinstance(x, Tensor):
            return leaves_map[id(x)]
        if not isinstance(x, ew.Fused):
            return values_map.get(id(x), x)
        if id(x) in memo:
            return memo[id(x)]
        # iterative post-order: chains may be thousands of nodes deep
        stack = [(x, False)]
        while stack:
            y, ready = stack.pop()
            if id(y) in memo:
                continue
            if ready:
                args = [memo[id(a)] if isinstance(a, ew.Fused) else
                        (leaves_map[id(a)] if isinstance(a, Tensor) else values_map.get(id(a), a))
                        for a in y.args]
                memo[id(y)] = ew.Fused(y.op, args, y.dtype, y.dims)
                continue
            stack.append((y, True))
            for a in y.args:
                if isinstance(a, ew.Fused) and id(a) not in memo:
                    stack.append((a, False))
        return memo[id(x)]

    return go(node)


def chunk_prologue(lw, fn: ir.Function, node, leaves: List[Tensor], free: List[ir.Value],
                   first: int):
    """Open chunk function `fn(ctx, lo, hi)`: (builder, chunk lowerer, lo, hi,
    slot(k) -> pointer to context slot k, `node` rebuilt on the chunk's own
    leaves and free values, those leaves). The leaves' data pointers are in
    the slots from `first` on, the free values in the slots after them; the
    slots before `first` are the caller's (output, sizes)."""
    entry = fn.append_basic_block("entry")
    b = ir.IRBuilder(entry)
    ctx, lo, hi = fn.args
    clw = _ChunkLowerer(lw, b, entry)

    def slot(k):
        return b.gep(ctx, [i64(k)], source_etype=I64)

    leaves_map = {id(t): Tensor(t.dtype, b.load(slot(first + k), typ=PTR), t.dims)
                  for k, t in enumerate(leaves)}
    base = first + len(leaves)
    values_map = {id(v): b.load(slot(base + k), typ=v.type) for k, v in enumerate(free)}
    copy = _rebuild(node, leaves_map, values_map)
    return b, clw, lo, hi, slot, copy, [leaves_map[id(t)] for t in leaves]


def _emit_chunk(lw, fn: ir.Function, node, out: Tensor, leaves: List[Tensor],
                free: List[ir.Value]) -> None:
    """The body of a chunk function: loads its slots, loops over [lo, hi)."""
    b, clw, lo, hi, slot, copy, chunk_leaves = chunk_prologue(lw, fn, node, leaves, free, 1)
    out_ptr = b.load(slot(0), typ=PTR)

    def loop():
        with for_range(b, hi, start=lo, name="par", interleave=1, unroll=False) as i:
            loaded = ew.load_leaves(clw, chunk_leaves, [i] * len(chunk_leaves))
            v = ew.evaluate(clw, copy, loaded)
            store_elem(b, v, out_ptr, i, out.dtype)
    loop_with_fixup(clw, copy, loop)   # sin/cos/tan: exact re-run only for huge arguments
    b.ret_void()


def _can_outline(lw, node, leaves, free) -> bool:
    """Emit the chunk into a scratch module: False when an op has an error exit."""
    scratch = ir.Module(name="ag.parallel.probe")
    fn = ir.Function(scratch, _CHUNK_TYPE, "probe")
    probe_out = Tensor(node.dtype, None, node.dims)
    try:
        _emit_chunk(lw, fn, node, probe_out, leaves, free)
    except _MayFail:
        return False
    return True


def materialize_parallel(lw, op, node, out: Tensor, leaves: List[Tensor],
                         fallback: Callable[[], None]) -> bool:
    """Emit `out[:] = node` as a chunk function called on the thread pool when
    large (see the module docstring); False (nothing emitted) when this loop is
    not eligible: leaves that are broadcast, fewer than `min_elements(node)`
    elements statically, a huge expression, or one that may fault. When the leaves'
    shapes are only known at run time, `fallback()` emits the ordinary loops
    for the case where they differ from the result's."""
    b = lw.b
    dims = node.dims
    flat = ew.same_shape(b, leaves, dims) if dims else False
    if flat is False:
        return False
    n = memory.numel(lw, dims)
    static_n = const_int(n)
    least = min_elements(node)
    if static_n is not None and static_n < least:
        return False
    if ew.fused_size(node) > ew.SCALAR_LOOP_NODES:
        return False
    free = _free_values(node)
    if not all(_fits_slot(v.type) for v in free):   # e.g. a complex scalar: 16 bytes
        return False
    if not _can_outline(lw, node, leaves, free):
        return False
    if flat is not True:
        with b.if_else(flat, likely=True) as (then, otherwise):
            with then:
                _emit_call(lw, node, out, leaves, free, n, least)
            with otherwise:
                fallback()
    else:
        _emit_call(lw, node, out, leaves, free, n, least)
    return True


def _emit_call(lw, node, out: Tensor, leaves: List[Tensor], free: List[ir.Value], n,
               least: int) -> None:
    """The chunk function, and the kernel's code that fills ctx and calls it."""
    b = lw.b
    module = lw.module
    chunk = ir.Function(module, _CHUNK_TYPE, f"ag.parallel.chunk{next(_names)}")
    chunk.linkage = "internal"
    chunk.attributes.add("nounwind")
    chunk.args[0].add_attribute("noalias")
    _emit_chunk(lw, chunk, node, out, leaves, free)
    # The kernel side: fill ctx, then one thread or the pool.
    slots = lw.alloca(ir.ArrayType(I64, 1 + len(leaves) + len(free)), name="par.ctx")
    ctx = slots

    def slot(k):
        # llvmlite types the alloca's pointer ([n x i64]*); LLVM's pointers are
        # opaque, so say so and store each slot's value with its own type.
        p = b.gep(slots, [i64(0), i64(k)], source_etype=slots.allocated_type)
        p.type = PTR
        return p

    b.store(out.ptr, slot(0))
    for k, t in enumerate(leaves):
        b.store(t.ptr, slot(1 + k))
    for k, v in enumerate(free):
        b.store(v, slot(1 + len(leaves) + k))
    table = module.globals.get(threads.THREADS_SYMBOL)
    if table is None:
        table = ir.GlobalVariable(module, ir.ArrayType(I64, 1), threads.THREADS_SYMBOL)
        table.align = 8            # external: resolved when the code is loaded
    count = b.load(b.gep(table, [i64(0), i64(0)], source_etype=table.value_type), typ=I64)
    go = b.and_(b.icmp_signed(">", count, i64(1)), b.icmp_signed(">=", n, i64(least)))
    pfor = declare(module, threads.PARALLEL_FOR_SYMBOL, VOID, [PTR, PTR, I64, I64])
    with b.if_else(go) as (then, otherwise):
        with then:
            b.call(pfor, [chunk, ctx, n, i64(threads.ALIGN)])
        with otherwise:
            b.call(chunk, [ctx, i64(0), n])
