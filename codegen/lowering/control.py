"""Structured control flow: `cond`, `while`, `check`.

`cond` becomes a conditional branch; each region is lowered in its own
LLVM block and the results meet in phis (a tensor: one phi for the data
pointer and one per dimension that is not static). Region results are
always owned buffers (see `Lowerer.lower_block`), so the merged tensor is
owned by the block containing the `cond`.

`while` becomes a loop whose header holds phis for the carried values; the
cond region is evaluated in the header and the body region in the loop
body. The loop owns its carried buffers: initial values are copied unless
the enclosing block hands them over (they are dead after the loop), and
the loop donates them to the body, which updates them in place, yields
them on unchanged, or frees them after their last use. Likewise a `cond`
donates the outer buffers it is the last use of to both branches.

Error exits (`Lowerer.fail_if`): while the condition region and the
interrupt poll are lowered, no block owns the carried buffers, so the loop
holds them (`Lowerer.holding`) and a fault there frees them; in the body
the body's frame owns them (donated); a branch's frame owns what it was
donated and what it makes until it yields, and the merged results belong
to the enclosing block from the merge on.
"""
from __future__ import annotations


from llvmlite import ir

from autograph.tracer.core.ir import Op

from . import memory
from .loop_support import body_loops, interrupt_snapshot, merge
from .overwrite import loop_overwrites
from .registry import register
from .plan import region_uses
from ..abi.interrupt import INTERRUPT_SITE, POLL_PERIOD
from ..llvm.ltypes import I64, Tensor, i64


@register("cond")
def lower_cond(lw, op: Op, args: list) -> list:
    (pred,) = args
    b = lw.b
    then_bb = lw.fn.append_basic_block("cond.then")
    else_bb = lw.fn.append_basic_block("cond.else")
    merge_bb = lw.fn.append_basic_block("cond.end")
    b.cbranch(pred, then_bb, else_bb)
    # Outer buffers whose last use is this cond go to the branches (only one
    # of them runs), so `out[i] = v` inside an `if` updates in place.
    f = lw.frame
    donated = [v for v in dict.fromkeys(region_uses(op))
               if v in f.owned and f.plan.donatable(f.pos, op, v)]
    f.owned.difference_update(donated)
    arms = []
    for region, bb in zip(op.regions, (then_bb, else_bb)):
        b.position_at_end(bb)
        vals = lw.lower_block(region, donated=donated)
        arms.append((vals, b.block))
        b.branch(merge_bb)
    b.position_at_end(merge_bb)
    out = []
    for j, r in enumerate(op.results):
        out.append(merge(b, [(vals[j], bb) for vals, bb in arms], r.type.dtype))
    return out


@register("while")
def lower_while(lw, op: Op, args: list) -> list:
    init = []
    for i, x in enumerate(args):
        if isinstance(x, Tensor) and not lw.take_over(op, i):
            if x.dtype.name != "string" and loop_overwrites(op, i):
                # Every row is written before any read (lowering/overwrite.py): no copy.
                x = Tensor(x.dtype, memory.alloc(lw, op, x.dtype, x.dims), list(x.dims))
            else:
                x = memory.copy_tensor(lw, op, x)
        init.append(x)
    # The initial buffers (copies, or taken over: pending until here) now
    # belong to the loop, which frees them on a fault as carried values; as
    # pending too, a poll before the first iteration would free them twice.
    lw._hand_on_pending()
    # `for i in range(n)`: autograph.codegen.lowering.counted
    from .counted import counted_index
    idx = counted_index(op)
    if idx is not None:
        # Independent iterations may run on the thread pool (parallel_for.py).
        from .parallel_for import lower_split
        split = lower_split(lw, op, init, idx, lambda: _serial_while(lw, op, init, idx))
        if split is not None:
            return split
    return _serial_while(lw, op, init, idx)


def _serial_while(lw, op: Op, init: list, idx) -> list:
    """The loop `op` on one thread from its owned carried values `init`
    (`idx`: the counter's position of a counted loop, else None)."""
    from .counted import carry_phis, lower_counted
    cond_region, body_region = op.regions
    b = lw.b
    if idx is not None and not body_loops(body_region):
        # (A body running loops of its own polls every iteration and cannot be
        # vectorised: the one generic loop is cheaper there; K5 measured 30% slower.)
        return lower_counted(lw, op, init, idx, False)
    pre = b.block
    head = lw.fn.append_basic_block("while.head")
    body = lw.fn.append_basic_block("while.body")
    done = lw.fn.append_basic_block("while.end")
    b.branch(head)
    b.position_at_end(head)
    carried = carry_phis(b, op.results, init, pre)
    count = b.phi(I64, name="while.count")
    count.add_incoming(i64(POLL_PERIOD), pre)   # iterations left until the next poll
    # The loop owns the carried buffers; its condition region only reads them
    # (they are not donated to it), so a fault there frees them as held.
    with lw.holding(carried):
        (pred,) = lw.lower_block(cond_region, carried)
    b.cbranch(pred, body, done)
    b.position_at_end(body)
    count_next = _poll_interrupt(lw, op, count, every_iteration=body_loops(body_region), carried=carried)
    # The body owns the carried buffers: it updates them in place, yields
    # them on, or frees them after their last use (so nothing to free here).
    nxt = lw.lower_block(body_region, carried, passthrough=True, donated=body_region.args)
    latch = b.block
    for old, new in zip(carried, nxt):
        if isinstance(old, Tensor):
            old.ptr.add_incoming(new.ptr, latch)
            for d_old, d_new in zip(old.dims, new.dims):
                if isinstance(d_old, ir.PhiInstr):
                    d_old.add_incoming(d_new, latch)
        else:
            old.add_incoming(new, latch)
    count.add_incoming(count_next, latch)
    b.branch(head)
    b.position_at_end(done)
    return carried


def _poll_interrupt(lw, op: Op, count: ir.Value, every_iteration: bool, carried: list) -> ir.Value:
    """At the top of a loop body: every POLL_PERIOD iterations (every one when
    `every_iteration`) compare the SIGINT epoch with its value at kernel entry
    and leave through the fault exit with INTERRUPT_SITE if it moved (Ctrl-C
    stops a long loop). `count` counts down the iterations left until the
    next poll (a decrement fused with its branch: one cheap instruction per
    iteration); returns its next value.

    `carried` are the loop's carried values: the loop owns those buffers
    (distinct ones: the loop copies its initial values unless it takes them
    over), and the body has not been given them yet, so the exit frees them
    as held (`Lowerer.holding`)."""
    b = lw.b
    snap, epoch = interrupt_snapshot(lw)
    left = b.sub(count, i64(1), name="while.count.next")
    if every_iteration:
        due = ir.Constant(ir.IntType(1), 1)
    else:
        due = b.icmp_unsigned("==", left, i64(0))
    poll = lw.fn.append_basic_block("while.poll")
    go_on = lw.fn.append_basic_block("while.run")
    from_body = b.block
    br = b.cbranch(due, poll, go_on)
    if not every_iteration:
        br.set_weights([1, POLL_PERIOD])
    b.position_at_end(poll)
    now = b.load_atomic(epoch, "monotonic", 8, name="sigint.epoch")
    with lw.holding(carried):
        lw.fail_if(b.icmp_unsigned("!=", now, snap), op, "interrupted by SIGINT", literal=True,
                   site=INTERRUPT_SITE)
    from_poll = b.block
    b.branch(go_on)
    b.position_at_end(go_on)
    if every_iteration:
        return left                       # unused: every iteration polls
    count_next = b.phi(I64, name="while.count.left")
    count_next.add_incoming(left, from_body)
    count_next.add_incoming(i64(POLL_PERIOD), from_poll)
    return count_next


@register("check")
def lower_check(lw, op: Op, args: list) -> list:
    (pred,) = args
    message = str(op.attrs.get("message", "check failed"))
    lw.fail_if(lw.b.not_(pred), op, message, literal=True)
    return []
