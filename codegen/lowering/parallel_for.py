"""Counted loops with independent iterations, run on the thread pool.

`lower_split(lw, op, init, idx, serial)` is called by the `while` lowering
(`control.py`) for a counted loop (`for k in range(k0, n)`) once its
carried buffers are owned. When `split_safety.split_plan` proves the
iterations independent (row-written tensors, reductions by one associative
operation, unchanged values, no error site that could be reached) and the
loop is not inside another split loop, the body is emitted into an
internal *chunk function*

    void chunk(ptr ctx, i64 lo, i64 hi)   ; blocks deal(lo) .. deal(hi - 1)

and the kernel runs, at run time,

    if autograph_num_threads > 1 and trip >= min_trip(body) and guards hold:
        autograph_parallel_for(chunk, ctx, nblocks, 1); combine the partials
    else:
        the serial loop (`serial()`: exactly the code of a loop not split)

(the guards: index bounds only known at run time, `n <= len(x)` for
`range(n)` with `x[k]`; `min_trip`: see the constants below). The serial
loop, a second copy of the body for LLVM to optimise and compile (~10 ms of
K5's first call), is kept only when guards may fail (the serial loop then
raises at the first bad index) or for a float reduction (its one-thread
result is the serial loop's rounding). Otherwise the `else` calls the chunk
on the calling thread over one block of the whole trip, partials on the
stack: `init (op) (identity (op) x0 (op) x1 ...)`, for integers and bools
exactly the serial loop's value.

The iteration space [0, trip) is cut into `nblocks` blocks of G
consecutive iterations (G = 1 for a body that runs loops of its own, at
least `LIGHT_BLOCK` for a scalar body, larger when there would be more than
`MAX_BLOCKS` blocks), so the grouping depends on the trip count only, never
on the thread count. Each block starts its accumulators from the
identity of their operation (0, 1, the dtype's extremes, all ones) and
stores them in its slot of a `partials` buffer; the kernel then combines
the partials into the initial values in block order, so a result is the
same for any thread count above one (for integers it is also the serial
result exactly; for fastmath floats it may differ from it by rounding).
Written tensors are written in place: the chunk gets the loop's own buffers.

Iteration costs may be very uneven (Collatz starts, Mandelbrot rows), so
the pool's index u (claimed dynamically, `_CHUNKS_PER_THREAD` ranges per
thread) is dealt to blocks with a stride of `DEAL`: a range of consecutive
u's covers blocks spread over the whole iteration space.

Ctrl-C: the chunk compares the SIGINT epoch with the kernel's snapshot
before every run of `SUB_BLOCK` iterations of a block, and the body's own
loops poll as they do in the kernel;
either way it returns at once (it holds no buffer), the other threads see
the same epoch and stop, and the kernel leaves through its interrupt exit
when the epoch moved. A body op with an error site the analysis did not
prove unreachable, or one that allocates, makes the chunk's emission
refuse before anything of the kernel's own function is emitted: the chunk
is dropped from the module and the loop stays serial.

Visible: the chunk function is named `ag.parallel.for<N>` in the LLVM IR,
and each decision is logged at debug level on `autograph.codegen`
("split loop ..." / "loop ... kept serial: why").
"""
from __future__ import annotations

import itertools
import logging
from typing import Callable, List, Optional

from llvmlite import ir

from autograph.tracer.core.ir import Op
from autograph.tracer.core.types import int64

from . import memory
from .driver import Lowerer
from .parallel import COSTLY, _MayFail
from .parallel_rows import _Local, _Transport
from .counted import counted_bound, counted_index
from .loop_support import body_loops, interrupt_snapshot, merge
from .split_safety import _const
from .plan import region_uses
from .split_safety import SplitPlan, split_plan
from ..abi import threads
from ..abi.interrupt import EPOCH_SYMBOL, INTERRUPT_SITE
from ..llvm.irutil import declare, for_range, smin
from ..llvm.ltypes import (I1, I64, PTR, VOID, Tensor, const_int, i64, load_elem, mem_type,
                           reg_type, store_elem)

__all__ = ["lower_split", "min_trip", "MAX_BLOCKS", "LIGHT_BLOCK", "DEAL", "SUB_BLOCK", "HEAVY_MIN_TRIP",
           "HEAVY_WORK", "DYNAMIC_TRIP", "LOOP_WORK"]

log = logging.getLogger("autograph.codegen")

MAX_BLOCKS = 4096        # partial results per reduction at most (G grows beyond)
LIGHT_BLOCK = 4096       # iterations per block of a scalar body: long vectorised runs
DEAL = 64                # consecutive pool indices go to blocks this far apart
SUB_BLOCK = 1 << 16      # iterations between two SIGINT polls inside a block
# A body that runs loops of its own is split from max(HEAVY_MIN_TRIP, HEAVY_WORK /
# work) iterations, `work` being its ops per iteration with each inner loop
# counted as its constant trip count (DYNAMIC_TRIP when only known at run time)
# times its body. Measured on an idle 2-core machine, an LCG body (about 5 ops a
# step) with a run-time inner trip count: 256 iterations of 100 steps took 27 us
# on one thread and 32 us split, 1024 iterations 106 us and 76 us; 1024 of 10
# steps 5 us and 8 us. So about 100 us of work before splitting pays, at roughly
# 0.2-0.3 ns an op: HEAVY_WORK op-units.
HEAVY_MIN_TRIP = 16
HEAVY_WORK = 1 << 18
DYNAMIC_TRIP = 16
# A loop without inner loops is split from LOOP_WORK / its weight iterations
# (and MIN_PARALLEL), the threshold of a fused map: the pool's workers poll for
# the next job a while before they sleep (`jit/threadpool.py`), so a kernel
# called in a loop does not pay a wake-up per call. K4 under fastmath (weight
# about 12), idle 2-core machine, calls back to back: 500K iterations 37 us on
# one thread, 21 us split; 2M 145 us and 80 us.
LOOP_WORK = 1 << 22
_HEADER = 6              # ctx slots after the transported values: k0, trip, G, nblocks, partials, epoch
_names = itertools.count()
_CHUNK_TYPE = ir.FunctionType(VOID, [PTR, I64, I64])


class _ChunkBody(Lowerer):
    """Lowers the loop's body inside the chunk function: the kernel's graph,
    module-level state and error table, its own function, builder, values and
    frames. `fail_if` leaves the chunk on Ctrl-C, drops the sites the
    analysis proved unreachable, and refuses every other (`_MayFail`); an
    allocation is refused too (a written tensor must never be copied)."""

    def __init__(self, parent, fn: ir.Function, proven):
        # Not Lowerer.__init__: nothing of a kernel's own (arguments, entry) is made.
        self.graph = parent.graph
        self.boundscheck = parent.boundscheck
        self.fastmath = getattr(parent, "fastmath", False)
        self.errors = parent.errors
        self.module = fn.module
        self.fn = fn
        self.entry = fn.append_basic_block("entry")
        self.b = ir.IRBuilder(self.entry)
        self.env = {}
        self.borrowed = set(parent.borrowed)
        self._frames = []
        self._range_md = None
        self._pending = {}
        self._held = []
        self.in_split_loop = True          # loops inside are never split again
        self._proven = proven
        self._leave = None

    def fail_if(self, bad, op, template, values=(), literal=False, site=None) -> None:
        if bad is False:
            return
        if site == INTERRUPT_SITE:
            if self._leave is None:
                saved = self.b.block
                self._leave = self.fn.append_basic_block("chunk.interrupted")
                self.b.position_at_end(self._leave)
                self.b.ret_void()
                self.b.position_at_end(saved)
            ok = self.fn.append_basic_block("chunk.go")
            br = self.b.cbranch(ir.Constant(I1, 1) if bad is True else bad, self._leave, ok)
            br.set_weights([1, 1 << 20])
            self.b.position_at_end(ok)
            return
        if op is not None and id(op) in self._proven and bad is not True:
            return                          # proven unreachable (split_safety)
        raise _MayFail(f"{op.name if op is not None else 'kernel'} may raise: {template}")

    def track_alloc(self, ptr) -> None:
        if isinstance(ptr, ir.CallInstr):
            raise _MayFail("the body allocates a buffer")
        # A carried buffer taken over in place (`take_over`): the chunk never frees it.

    def untrack_alloc(self, ptr) -> None:
        raise _MayFail("the body frees a buffer")


def _identity(kind: str, dtype) -> ir.Constant:
    t = reg_type(dtype)
    if dtype.is_floating:
        value = {"add": -0.0, "mul": 1.0, "max": float("-inf"), "min": float("inf")}[kind]
        return ir.Constant(t, value)
    width = t.width
    if kind in ("add", "or", "xor"):
        return ir.Constant(t, 0)
    if kind == "mul":
        return ir.Constant(t, 1)
    if kind == "and":
        return ir.Constant(t, -1 if width > 1 else 1)
    if dtype.is_signed:
        return ir.Constant(t, -(1 << (width - 1)) if kind == "max" else (1 << (width - 1)) - 1)
    return ir.Constant(t, 0 if kind == "max" else -1)     # unsigned: 0 and all ones


def _combine(b: ir.IRBuilder, kind: str, dtype, x, y):
    """x (kind) y for the reduction kinds of `split_safety`."""
    if dtype.is_floating:
        if kind == "add":
            return b.fadd(x, y)
        if kind == "mul":
            return b.fmul(x, y)
        pick = b.fcmp_ordered(">" if kind == "max" else "<", x, y)
        r = b.select(pick, x, y)
        return b.select(b.fcmp_unordered("uno", x, y), b.fadd(x, y), r)   # NaN propagates
    if kind == "add":
        return b.add(x, y)
    if kind == "mul":
        return b.mul(x, y)
    if kind == "and":
        return b.and_(x, y)
    if kind == "or":
        return b.or_(x, y)
    if kind == "xor":
        return b.xor(x, y)
    cmp = b.icmp_signed if dtype.is_signed else b.icmp_unsigned
    return b.select(cmp(">" if kind == "max" else "<", x, y), x, y)


def _body_weight(block) -> int:
    """1 + the body's ops + 8 per costly op (as `parallel.weight` counts a map)."""
    ops = costly = 0
    for o in block.walk():
        ops += 1
        costly += o.name in COSTLY
    return 1 + ops + 8 * costly


def _work(block) -> int:
    """Ops one run of `block` does: inner loops times their trip count (a
    constant one, else DYNAMIC_TRIP), a `cond` as its costlier branch, 8 per
    costly op (`parallel.COSTLY`)."""
    total = 0
    for o in block.ops:
        if o.name == "while":
            trip = DYNAMIC_TRIP
            q = counted_index(o)
            if q is not None:
                n, k0 = _const(counted_bound(o)), _const(o.operands[q])
                if n is not None and k0 is not None:
                    trip = max(n - k0, 0)
            total += 1 + trip * (_work(o.regions[0]) + _work(o.regions[1]))
        elif o.regions:
            total += 1 + max(_work(r) for r in o.regions)
        else:
            total += 1 + 8 * (o.name in COSTLY)
    return total


def min_trip(body) -> int:
    """The least trip count from which a loop with this body is split."""
    if body_loops(body):
        return max(HEAVY_MIN_TRIP, -(-HEAVY_WORK // max(_work(body), 1)))
    return max(threads.MIN_PARALLEL, -(-LOOP_WORK // _body_weight(body)))


def _deal(b: ir.IRBuilder, u, nblocks):
    """The block pool index u runs: [0, nblocks) read column by column as a
    table of DEAL columns, so consecutive u's are DEAL blocks apart."""
    q0 = b.udiv(nblocks, i64(DEAL))
    m = b.urem(nblocks, i64(DEAL))
    tall = b.add(q0, i64(1))
    split = b.mul(m, tall)
    first = b.icmp_unsigned("<", u, split)
    r1, c1 = b.udiv(u, tall), b.urem(u, tall)
    rest = b.sub(u, split)
    short = b.select(b.icmp_unsigned(">", q0, i64(0)), q0, i64(1))
    r2, c2 = b.add(m, b.udiv(rest, short)), b.urem(rest, short)
    r = b.select(first, r1, r2)
    c = b.select(first, c1, c2)
    return b.add(r, b.mul(c, i64(DEAL)))


def _free_values(op: Op, lw) -> Optional[list]:
    """(graph value, lowered value) of every outer value the loop's regions use,
    or None when one cannot travel to a chunk (a variable, a fused node)."""
    inside = set()
    for region in op.regions:
        inside.update(region.args)
        for o in region.walk():
            inside.update(o.results)
            for r in o.regions:
                inside.update(r.args)
    out, seen = [], set()
    for v in region_uses(op):
        if v in inside or v in seen:
            continue
        seen.add(v)
        x = lw.env.get(v)
        if not isinstance(x, (ir.Value, Tensor)):
            return None
        out.append((v, x))
    return out


def _build_chunk(lw, fn: ir.Function, op: Op, plan: SplitPlan, init: list, free: list,
                 transport: _Transport) -> None:
    """The chunk function's body (see the module docstring)."""
    body = op.regions[1]
    clw = _ChunkBody(lw, fn, plan.proven)
    b = clw.b
    ctx, lo, hi = fn.args
    local = _Local(b, ctx, transport)
    base = len(transport.values)

    def header(k, typ=I64):
        return b.load(b.gep(ctx, [i64(base + k)], source_etype=I64), typ=typ)

    k0, trip, g, nblocks, partials, snap = (header(0), header(1), header(2), header(3),
                                             header(4, PTR), header(5))
    if const_int(init[plan.counter]) is not None:    # a constant start: LLVM sees k >= 0
        k0 = i64(const_int(init[plan.counter]))
    epoch = clw.module.globals.get(EPOCH_SYMBOL)
    if epoch is None:
        epoch = ir.GlobalVariable(clw.module, I64, EPOCH_SYMBOL)   # external: resolved on load
        epoch.align = 8
    clw._interrupt_snapshot = (snap, epoch)     # what loop_support.interrupt_snapshot gives
    for v, x in free:
        clw.env[v] = local.tensor(x) if isinstance(x, Tensor) else local(x)
    fixed = {}
    for p in plan.unchanged + plan.written:
        x = init[p]
        fixed[p] = local.tensor(x) if isinstance(x, Tensor) else local(x)
    k_type = reg_type(op.results[plan.counter].type.dtype)
    n_value = clw.env[counted_bound(op)]
    nred = len(plan.reductions)
    assume = declare(clw.module, "llvm.assume", VOID, [I1])
    with for_range(b, hi, start=lo, name="pfor.u", unroll=False) as u:
        blk = _deal(b, u, nblocks)
        start = b.mul(blk, g)
        stop = smin(b, b.add(start, g), trip)
        # A block runs as runs of at most SUB_BLOCK iterations, the SIGINT epoch
        # compared before each (as `counted.py` nests its loops): a long block
        # of a scalar body still stops soon, and each run is a counted loop
        # LLVM can vectorise.
        pre = b.block
        outer = clw.fn.append_basic_block("pfor.run")
        b.branch(outer)                          # start < stop: blk < nblocks
        b.position_at_end(outer)
        c = b.phi(I64, name="pfor.c")
        c.add_incoming(start, pre)
        outer_accs = []
        for red in plan.reductions:
            phi = b.phi(reg_type(red.dtype), name="pfor.acc.run")
            phi.add_incoming(_identity(red.kind, red.dtype), pre)
            outer_accs.append(phi)
        now = b.load_atomic(epoch, "monotonic", 8, name="sigint.epoch")
        clw.fail_if(b.icmp_unsigned("!=", now, snap), op, "interrupted by SIGINT", literal=True,
                    site=INTERRUPT_SITE)
        run_hi = smin(b, b.add(c, i64(SUB_BLOCK)), stop)
        run_pre = b.block
        head = clw.fn.append_basic_block("pfor.body")
        b.branch(head)
        b.position_at_end(head)
        j = b.phi(I64, name="pfor.j")
        j.add_incoming(c, run_pre)
        accs = []
        for red, o in zip(plan.reductions, outer_accs):
            phi = b.phi(reg_type(red.dtype), name="pfor.acc")
            phi.add_incoming(o, run_pre)
            accs.append(phi)
        # k0 <= k < n, as `counted.lower_counted` tells LLVM (bounds and the
        # negative-index wrap of x[k] fold away; an int32 k needs no masking).
        k = b.add(k0, j, flags=("nsw",))
        b.call(assume, [b.icmp_signed(">=", k, k0)])
        if k_type.width < 64:
            b.call(assume, [b.icmp_signed("<", k, b.sext(n_value, I64))])
            k = b.trunc(k, k_type)
            b.call(assume, [b.icmp_signed(">=", k, b.trunc(k0, k_type))])
        b.call(assume, [b.icmp_signed("<", k, n_value)])
        args: List[object] = [None] * len(body.args)
        args[plan.counter] = k
        for p, x in fixed.items():
            args[p] = x
        for red, acc in zip(plan.reductions, accs):
            args[red.index] = acc
        nxt = clw.lower_block(body, args, passthrough=True,
                              donated=[body.args[p] for p in plan.written])
        latch = b.block
        for red, acc in zip(plan.reductions, accs):
            acc.add_incoming(nxt[red.index], latch)
        j_next = b.add(j, i64(1), flags=("nsw", "nuw"))
        j.add_incoming(j_next, latch)
        run_end = clw.fn.append_basic_block("pfor.run.end")
        b.cbranch(b.icmp_signed("<", j_next, run_hi), head, run_end)
        b.position_at_end(run_end)
        c.add_incoming(run_hi, run_end)
        for red, o in zip(plan.reductions, outer_accs):
            o.add_incoming(nxt[red.index], run_end)
        done = clw.fn.append_basic_block("pfor.block.end")
        b.cbranch(b.icmp_signed("<", run_hi, stop), outer, done)
        b.position_at_end(done)
        for r, red in enumerate(plan.reductions):
            slot = b.gep(partials, [b.add(b.mul(blk, i64(nred)), i64(r))], source_etype=I64)
            store_elem(b, nxt[red.index], slot, i64(0), red.dtype)
    b.ret_void()


def lower_split(lw, op: Op, init: list, idx: int, serial: Callable[[], list]) -> Optional[list]:
    """The results of the counted `while` `op` lowered as described in the
    module docstring, or None (nothing emitted) when it is not split: not
    provably independent, inside a split loop, or statically too short."""
    if getattr(lw, "in_split_loop", False):
        return None
    where = f"at {op.loc}" if op.loc is not None else "(no location)"
    plan, why = split_plan(op, getattr(lw, "fastmath", False))
    if plan is None:
        log.debug("loop %s kept serial: %s", where, why)
        return None
    body = op.regions[1]
    heavy = body_loops(body)
    least = min_trip(body)
    n_value = lw.env[counted_bound(op)]
    cn, ck = const_int(n_value), const_int(init[idx])
    if cn is not None and ck is not None and cn - ck < least:
        log.debug("loop %s kept serial: %d iterations, fewer than %d", where, cn - ck, least)
        return None
    if any(g.size is None and not isinstance(lw.env.get(g.tensor), Tensor) for g in plan.guards):
        log.debug("loop %s kept serial: a bound cannot be checked before it", where)
        return None
    free = _free_values(op, lw)
    if free is None:
        log.debug("loop %s kept serial: it uses a value a chunk cannot receive", where)
        return None
    transport = _Transport()
    for _, x in free:
        transport.add_tensor(x) if isinstance(x, Tensor) else transport.add(x)
    for p in plan.unchanged + plan.written:
        x = init[p]
        transport.add_tensor(x) if isinstance(x, Tensor) else transport.add(x)
    if not transport.fits():
        log.debug("loop %s kept serial: a value does not fit a context slot", where)
        return None
    chunk = ir.Function(lw.module, _CHUNK_TYPE, f"ag.parallel.for{next(_names)}")
    chunk.linkage = "internal"
    chunk.attributes.add("nounwind")
    chunk.args[0].add_attribute("noalias")
    try:
        # Emitted once, into the kernel's module; dropped when the body may fail (what
        # it declared on the way stays unused: LLVM removes it).
        _build_chunk(lw, chunk, op, plan, init, free, transport)
    except _MayFail as exc:
        del lw.module.globals[chunk.name]
        log.debug("loop %s kept serial: %s", where, exc)
        return None
    # The chunk is the loop's only copy (see the module docstring)?
    alone = not plan.guards and not any(r.dtype.is_floating for r in plan.reductions)
    log.debug("split loop %s across threads: %d reductions, %d written tensors", where,
              len(plan.reductions), len(plan.written))

    b = lw.b
    k_type = reg_type(op.results[idx].type.dtype)
    k0 = b.sext(init[idx], I64) if k_type.width < 64 else init[idx]
    n64 = b.sext(n_value, I64) if k_type.width < 64 else n_value
    trip = b.select(b.icmp_signed(">", n64, k0), b.sub(n64, k0), i64(0), name="pfor.trip")
    table = lw.module.globals.get(threads.THREADS_SYMBOL)
    if table is None:
        table = ir.GlobalVariable(lw.module, ir.ArrayType(I64, 1), threads.THREADS_SYMBOL)
        table.align = 8            # external: resolved when the code is loaded
    count = b.load(b.gep(table, [i64(0), i64(0)], source_etype=table.value_type), typ=I64)
    go = b.and_(b.icmp_signed(">", count, i64(1)), b.icmp_signed(">=", trip, i64(least)))
    for guard in plan.guards:           # index bounds the graph leaves to run time
        bound = lw.env[guard.bound]
        bound = b.sext(bound, I64) if bound.type.width < 64 else bound
        dim = i64(guard.size) if guard.size is not None else lw.env[guard.tensor].dims[guard.axis]
        go = b.and_(go, b.icmp_signed("<=", bound, dim))
    if alone:
        # Not inlined at its direct call: that would make the second copy again.
        chunk.attributes.add("noinline")
        return _after_split(lw, op, plan, init,
                            _run_split(lw, op, plan, init, transport, chunk, k0, trip, heavy, k_type, go))
    par_bb = lw.fn.append_basic_block("pfor.split")
    ser_bb = lw.fn.append_basic_block("pfor.serial")
    end_bb = lw.fn.append_basic_block("pfor.end")
    b.cbranch(go, par_bb, ser_bb)

    b.position_at_end(ser_bb)
    # The serial copy splits no inner loop either: each split loop is emitted
    # twice, and splitting inside both copies would grow the code with the depth.
    lw.in_split_loop = True
    try:
        ser_vals = serial()
    finally:
        lw.in_split_loop = False
    ser_end = b.block
    b.branch(end_bb)

    b.position_at_end(par_bb)
    par_vals = _after_split(lw, op, plan, init,
                            _run_split(lw, op, plan, init, transport, chunk, k0, trip, heavy, k_type))
    par_end = b.block
    b.branch(end_bb)

    b.position_at_end(end_bb)
    return [merge(b, [(pv, par_end), (sv, ser_end)], r.type.dtype)
            for pv, sv, r in zip(par_vals, ser_vals, op.results)]


def _after_split(lw, op: Op, plan: SplitPlan, init: list, finish: Callable[[], list]) -> list:
    """Leave through the interrupt exit if the SIGINT epoch moved while the
    chunk ran (it stops early then); else the loop's results (`finish`)."""
    b = lw.b
    snap, epoch = interrupt_snapshot(lw)
    now = b.load_atomic(epoch, "monotonic", 8, name="sigint.epoch")
    held = [init[p] for p in plan.unchanged + plan.written if isinstance(init[p], Tensor)]
    with lw.holding(held):
        lw.fail_if(b.icmp_unsigned("!=", now, snap), op, "interrupted by SIGINT", literal=True,
                   site=INTERRUPT_SITE)
    return finish()


def _run_split(lw, op: Op, plan: SplitPlan, init: list, transport: _Transport, chunk, k0, trip,
               heavy: bool, k_type, go: Optional[ir.Value] = None):
    """The kernel's side of a split loop: block size, partials, ctx, the pool
    call. Returns a function emitting the combine step (after the interrupt
    check) and giving the loop's results. With `go` (no serial copy), the
    pool runs only when it holds, else the chunk runs here over one block."""
    b = lw.b
    least_g = 1 if heavy else LIGHT_BLOCK
    spread = b.udiv(b.add(trip, i64(MAX_BLOCKS - 1)), i64(MAX_BLOCKS))
    g = b.select(b.icmp_signed(">", spread, i64(least_g)), spread, i64(least_g), name="pfor.g")
    if go is not None:
        g = b.select(go, g, b.select(b.icmp_signed(">", trip, i64(1)), trip, i64(1)), name="pfor.g1")
    nblocks = b.udiv(b.add(trip, b.sub(g, i64(1))), g, name="pfor.blocks")
    nred = len(plan.reductions)
    held = [init[p] for p in plan.unchanged + plan.written if isinstance(init[p], Tensor)]
    heap = None
    if nred and go is None:
        with lw.holding(held):              # a failed allocation frees the loop's buffers too
            partials = heap = memory.alloc(lw, op, int64, [b.mul(nblocks, i64(nred))])
    elif nred:                              # one block on this thread: the stack will do
        stack = lw.alloca(ir.ArrayType(I64, nred), name="pfor.partials1")
        stack = b.gep(stack, [i64(0), i64(0)], source_etype=stack.allocated_type)
        stack.type = PTR                    # opaque, as the ctx slots below
        pre = b.block
        with b.if_then(go), lw.holding(held):
            heap = memory.alloc(lw, op, int64, [b.mul(nblocks, i64(nred))])
            heap_end = b.block
        partials = b.phi(PTR, name="pfor.partials")
        partials.add_incoming(heap, heap_end)
        partials.add_incoming(stack, pre)
    else:
        partials = ir.Constant(PTR, None)
    snap, _ = interrupt_snapshot(lw)
    values = list(transport.values) + [k0, trip, g, nblocks, partials, snap]
    slots = lw.alloca(ir.ArrayType(I64, len(values)), name="pfor.ctx")
    for k, v in enumerate(values):
        # llvmlite types the alloca's pointer; LLVM's are opaque (see parallel.py)
        p = b.gep(slots, [i64(0), i64(k)], source_etype=slots.allocated_type)
        p.type = PTR
        b.store(v, p)
    pfor = declare(lw.module, threads.PARALLEL_FOR_SYMBOL, VOID, [PTR, PTR, I64, I64])
    if go is None:
        b.call(pfor, [chunk, slots, nblocks, i64(1)])
    else:
        with b.if_else(go) as (pool, alone):
            with pool:
                b.call(pfor, [chunk, slots, nblocks, i64(1)])
            with alone:
                b.call(chunk, [slots, i64(0), nblocks])

    def finish() -> list:
        out = list(init)
        last = b.add(k0, trip)
        out[plan.counter] = b.trunc(last, k_type) if k_type.width < 64 else last
        for r, red in enumerate(plan.reductions):
            acc = lw.alloca(mem_type(red.dtype), name="pfor.total")
            store_elem(b, init[red.index], acc, i64(0), red.dtype)
            with for_range(b, nblocks, name="pfor.comb", cold=True) as blk:
                slot = b.gep(partials, [b.add(b.mul(blk, i64(nred)), i64(r))], source_etype=I64)
                part = load_elem(b, slot, i64(0), red.dtype)
                total = _combine(b, red.kind, red.dtype, load_elem(b, acc, i64(0), red.dtype), part)
                store_elem(b, total, acc, i64(0), red.dtype)
            out[red.index] = load_elem(b, acc, i64(0), red.dtype)
        if nred and go is None:
            memory.free(lw, partials)
        elif nred:
            with b.if_then(go):
                lw.untrack_alloc(heap)      # freed here: no fault exit may free it again
                memory.free(lw, partials)
        return out

    return finish
