"""Counted `while` loops (`for i in range(n)` after conversion) as vectorisable loop nests.

A `while` whose condition region is exactly `less(k, n)` or `greater(n, k)` (k a carried
integer, n a value from outside the loop) and whose body yields `add(k, 1)`
for k runs `trip = max(n - k0, 0)` iterations, known before it starts. It is
lowered as

    outer:  c = 0, 1024, 2048, ... < trip;  poll the SIGINT epoch
    inner:  j = c .. min(c + 1024, trip) - 1;  k = k0 + j;  body

Both loops are counted and have one exit each, so LLVM knows the trip count,
that k is never negative and below n (which removes bounds checks against
`len(x)`), and can vectorise the inner loop (a reduction with
`fastmath=True`), none of which the generic form allows: there the poll
(every 1024 iterations) is a second exit whose condition reads memory. Only
loops whose body runs no loop of its own take this form (`control` decides):
a body with loops polls every iteration and does not vectorise, and there
the extra loop level cost K5 30%. The results are the same as the generic
`while` lowering's (`autograph.codegen.lowering.control`), which every other
loop keeps.
"""
from __future__ import annotations

from typing import Optional

from llvmlite import ir

from autograph.tracer.core.ir import Op

from ..abi.interrupt import INTERRUPT_SITE, POLL_PERIOD
from .loop_support import interrupt_snapshot
from ..llvm.irutil import declare
from ..llvm.ltypes import I1, I64, PTR, VOID, Tensor, i64, reg_type

__all__ = ["counted_index", "counted_bound", "lower_counted", "carry_phis"]


def _const_one(v) -> bool:
    owner = v.owner
    if getattr(owner, "name", None) != "constant":
        return False
    value = owner.attrs.get("value")
    try:
        return getattr(value, "shape", ()) == () and int(value) == 1 and float(value) == 1.0
    except (TypeError, ValueError):
        return False


def counted_index(op: Op) -> Optional[int]:
    """The position of the counter k if `op` (a `while`) is a counted loop, else None."""
    cond, body = op.regions
    if len(cond.ops) != 1 or len(cond.results) != 1:
        return None
    less = cond.ops[0]
    if less.name not in ("less", "greater") or cond.results[0] is not less.results[0] \
            or len(less.operands) != 2:
        return None
    # `k < n`, or `n > k` (how `i < x.shape[0]` traces: the shape's weak
    # integer takes the comparison as its reflected `>`)
    k, n = less.operands if less.name == "less" else less.operands[::-1]
    if not any(k is a for a in cond.args) or any(n is a for a in cond.args):
        return None
    if getattr(n.owner, "parent", None) is cond or n.owner is less:
        return None
    idx = next(i for i, a in enumerate(cond.args) if a is k)
    dt = k.type.dtype.name
    if dt not in ("int32", "int64") or k.type.shape != () or n.type != k.type:
        return None
    nxt = body.results[idx] if idx < len(body.results) else None
    add = getattr(nxt, "owner", None)
    if getattr(add, "name", None) != "add" or len(add.operands) != 2:
        return None
    a, b = add.operands
    karg = body.args[idx]
    if not ((a is karg and _const_one(b)) or (b is karg and _const_one(a))):
        return None
    return idx


def counted_bound(op: Op):
    """The bound n of the counted loop `op` (`counted_index` is not None)."""
    test = op.regions[0].ops[0]
    return test.operands[1] if test.name == "less" else test.operands[0]


def carry_phis(b: ir.IRBuilder, results, init: list, block) -> list:
    """Phis at the head of a loop for its carried values `init` (arriving from
    `block`): a tensor gets a phi for its data pointer and one per unknown dim."""
    out = []
    for r, x in zip(results, init):
        if isinstance(x, Tensor):
            ptr = b.phi(PTR, name="carry.ptr")
            ptr.add_incoming(x.ptr, block)
            dims = []
            for k, d in enumerate(r.type.shape):
                if d is not None:
                    dims.append(i64(d))
                else:
                    phi = b.phi(I64, name="carry.dim")
                    phi.add_incoming(x.dims[k], block)
                    dims.append(phi)
            out.append(Tensor(x.dtype, ptr, dims))
        else:
            phi = b.phi(reg_type(r.type.dtype), name="carry")
            phi.add_incoming(x, block)
            out.append(phi)
    return out


def _incoming(phis: list, values: list, block) -> None:
    for old, new in zip(phis, values):
        if isinstance(old, Tensor):
            old.ptr.add_incoming(new.ptr, block)
            for d_old, d_new in zip(old.dims, new.dims):
                if isinstance(d_old, ir.PhiInstr):
                    d_old.add_incoming(d_new, block)
        else:
            old.add_incoming(new, block)


def _poll(lw, op: Op, carried: list) -> None:
    """Leave through the fault exit (INTERRUPT_SITE) if the SIGINT epoch moved since
    the kernel started. `carried` pairs the body's arguments with the loop's carried
    values, whose buffers the loop owns: the exit frees them (as in `control`)."""

    b = lw.b
    snap, epoch = interrupt_snapshot(lw)
    now = b.load_atomic(epoch, "monotonic", 8, name="sigint.epoch")
    owned = lw.frame.owned
    held = [a for a, x in carried if isinstance(x, Tensor) and a not in owned]
    for a, x in carried:
        lw.env[a] = x
    owned.update(held)
    try:
        lw.fail_if(b.icmp_unsigned("!=", now, snap), op, "interrupted by SIGINT", literal=True,
                   site=INTERRUPT_SITE)
    finally:
        owned.difference_update(held)


def lower_counted(lw, op: Op, init: list, idx: int, every_iteration: bool) -> list:
    """Lower the counted `while` `op` (counter at `idx`) from the carried `init`
    values (already owned by the loop); polls for SIGINT on entry and every
    POLL_PERIOD iterations (every one when `every_iteration`). Returns the
    loop's results."""
    cond_region, body_region = op.regions
    b = lw.b
    n_value = lw.env[counted_bound(op)]
    k_type = reg_type(op.results[idx].type.dtype)
    k0 = b.sext(init[idx], I64) if k_type.width < 64 else init[idx]
    n64 = b.sext(n_value, I64) if k_type.width < 64 else n_value
    trip = b.select(b.icmp_signed(">", n64, k0), b.sub(n64, k0), i64(0), name="while.trip")
    period = 1 if every_iteration else POLL_PERIOD
    pre = b.block
    outer = lw.fn.append_basic_block("loop.outer")
    inner = lw.fn.append_basic_block("loop.body")
    inner_end = lw.fn.append_basic_block("loop.inner.end")
    done = lw.fn.append_basic_block("loop.end")
    b.cbranch(b.icmp_signed(">", trip, i64(0)), outer, done)
    b.position_at_end(outer)
    c = b.phi(I64, name="loop.chunk")
    c.add_incoming(i64(0), pre)
    outer_vals = carry_phis(b, op.results, init, pre)
    _poll(lw, op, list(zip(body_region.args, outer_vals)))
    # nsw: c < trip < 2**63 - period.
    hi = b.add(c, i64(period), flags=("nsw",))
    hi = b.select(b.icmp_signed("<", hi, trip), hi, trip, name="loop.hi")
    outer_end = b.block
    b.branch(inner)
    b.position_at_end(inner)
    j = b.phi(I64, name="loop.j")
    j.add_incoming(c, outer_end)
    carried = carry_phis(b, op.results, outer_vals, outer_end)
    k = b.add(k0, j, flags=("nsw",))
    # What the nesting hides from LLVM's induction analysis, true by construction:
    # k0 <= k < n. It lets LLVM drop the negative-index and bounds checks of x[k].
    assume = declare(lw.module, "llvm.assume", VOID, [I1])
    if k_type.width < 64:
        # Also of the i64 value, so that LLVM sees sext(trunc(k)) == k: indexing with
        # an int32 counter then costs no masking `and` per element (K10, K4).
        b.call(assume, [b.icmp_signed(">=", k, k0)])
        b.call(assume, [b.icmp_signed("<", k, n64)])
        k = b.trunc(k, k_type)
    b.call(assume, [b.icmp_signed(">=", k, init[idx])])
    b.call(assume, [b.icmp_signed("<", k, n_value)])
    args = list(carried)
    args[idx] = k
    # The body owns the carried buffers (as in the generic `while`).
    nxt = lw.lower_block(body_region, args, passthrough=True, donated=body_region.args)
    latch = b.block
    _incoming(carried, nxt, latch)
    j_next = b.add(j, i64(1), flags=("nsw", "nuw"))
    j.add_incoming(j_next, latch)
    b.cbranch(b.icmp_signed("<", j_next, hi), inner, inner_end)
    b.position_at_end(inner_end)
    c.add_incoming(hi, inner_end)
    _incoming(outer_vals, nxt, inner_end)
    b.cbranch(b.icmp_signed("<", hi, trip), outer, done)
    b.position_at_end(done)
    results = carry_phis(b, op.results, init, pre)
    _incoming(results, nxt, inner_end)
    return results

