"""What every loop lowering needs, shared by `control` (while, cond), `counted`
(counted loops) and `parallel_for` (split loops): merging per-predecessor values
into phis, whether a body runs loops of its own (which decides how often Ctrl-C is
polled), and the SIGINT epoch read once per kernel.
"""
from __future__ import annotations

from typing import List

from llvmlite import ir

from ..abi.interrupt import EPOCH_SYMBOL
from ..llvm.ltypes import I64, PTR, Tensor, const_int

__all__ = ["merge", "body_loops", "interrupt_snapshot"]


def merge(b: ir.IRBuilder, incoming: List[tuple], dtype) -> object:
    """Phi (or the common value) of per-predecessor values [(value, block)]."""
    first = incoming[0][0]
    if isinstance(first, Tensor):
        ptr = b.phi(PTR)
        for t, bb in incoming:
            ptr.add_incoming(t.ptr, bb)
        dims = []
        for k in range(first.rank):
            vals = [t.dims[k] for t, _ in incoming]
            cs = {const_int(v) for v in vals}
            if len(cs) == 1 and None not in cs:
                dims.append(vals[0])
                continue
            phi = b.phi(I64)
            for v, (_, bb) in zip(vals, incoming):
                phi.add_incoming(v, bb)
            dims.append(phi)
        return Tensor(first.dtype, ptr, dims)
    phi = b.phi(first.type)
    for v, bb in incoming:
        phi.add_incoming(v, bb)
    return phi


# Ops with a tensor result that run no loop of their own: `set_item` of one element
# into a buffer the loop carries (scalar indices and value: updated in place) and
# `grow` (a TensorArray's buffer: amortised O(1)). A body made of them polls every
# POLL_PERIOD iterations, like a scalar body (K10's prefix sum polled every element).
def _constant_time(o, block) -> bool:
    if o.name == "grow":
        return True
    if o.name != "set_item" or not o.operands:
        return False
    target = o.operands[0]
    if not any(target is a for a in block.args) and getattr(target.owner, "name", None) != "grow":
        return False
    spec = o.attrs.get("spec", ())
    value = o.operands[1] if len(o.operands) > 1 else None
    return (all(s == "i" for s in spec) and value is not None
            and getattr(value.type, "shape", None) == ())


def body_loops(block) -> bool:
    """Does one iteration of this body run loops of its own (a tensor of rank
    > 0 or a nested `while`)? Then polling every iteration costs nothing."""
    for o in block.ops:
        if o.name == "while" or (any(getattr(r.type, "shape", ()) for r in o.results)
                                 and not _constant_time(o, block)):
            return True
        if any(body_loops(region) for region in o.regions):
            return True
    return False


def interrupt_snapshot(lw) -> tuple:
    """(the SIGINT epoch as the kernel started, read once in the entry block;
    the epoch's global)."""
    found = getattr(lw, "_interrupt_snapshot", None)
    if found is None:
        module = lw.module
        epoch = module.globals.get(EPOCH_SYMBOL)
        if epoch is None:
            epoch = ir.GlobalVariable(module, I64, EPOCH_SYMBOL)   # external: resolved on load
            epoch.align = 8
        b = lw.b
        saved = b.block
        b.position_at_start(lw.entry)
        snap = b.load_atomic(epoch, "monotonic", 8, name="sigint.epoch0")
        b.position_at_end(saved)
        found = lw._interrupt_snapshot = (snap, epoch)
    return found
