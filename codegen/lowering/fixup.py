"""Fused loops with a fast path and a rare exact re-run (sin, cos, tan).

The trigonometric routines (`codegen/llvm/vecmath_trig.py`) have a cheap
argument reduction for ordinary arguments and an expensive one (Payne-Hanek)
for huge ones. Computing both for every element and selecting one (the only
branch-free, vectorisable way inside a loop body) costs several times the
cheap one. So a loop that materialises such an expression runs the cheap
routines and or-s a flag when any argument was beyond their range; only
then (rarely) the loop is emitted a second time, with the exact routines,
and rewrites its whole output. The re-run is safe because these loops only
read their leaves and write a result buffer that none of them aliases (a
fresh tensor, or a chunk of one). Elsewhere (a 0-d value, a reduction's
producer) the exact routine runs inlined; in a fused body too large to
vectorise (`elementwise.SCALAR_LOOP_NODES`) as calls of one out-of-line copy,
so that an unrolled body of 1,250 `sin`s stays small (and, for float64
arguments in the fast range, gives the vectorised loop's results bit for bit:
the exact routine's reduction there is the fast one's).
"""
from __future__ import annotations

from typing import Callable

from llvmlite import ir

__all__ = ["RANGED", "EXACT", "OUTLINED", "loop_with_fixup"]

RANGED = frozenset({"sin", "cos", "tan"})   # ops whose fast routine has a limited range
EXACT = "exact"        # `lw.trig_mode` in the re-run (in the fast pass: the flag's slot)
OUTLINED = "outlined"  # in a loop too large to vectorise: the exact routine, not inlined
I8 = ir.IntType(8)


def _uses_ranged(node) -> bool:
    from .elementwise import Fused     # (elementwise imports this module)
    seen, stack = set(), [node]
    while stack:
        x = stack.pop()
        if not isinstance(x, Fused) or id(x) in seen:
            continue
        seen.add(id(x))
        if x.op.name in RANGED:
            return True
        stack.extend(x.args)
    return False


def loop_with_fixup(lw, node, emit: Callable[[], None], vectorised: bool = True) -> None:
    """Emit the loop `emit()` computing `node`; when `node` has a ranged op and
    the loop is `vectorised`, its fast form, then (only if an argument was out
    of range) the loop again with the exact routines. `emit` must be
    re-runnable (see the module doc)."""
    if not _uses_ranged(node):
        emit()
        return
    if not vectorised:
        try:
            lw.trig_mode = OUTLINED
            emit()
        finally:
            lw.trig_mode = None
        return
    b = lw.b
    slot = lw.alloca(I8, name="trig.huge")
    b.store(ir.Constant(I8, 0), slot)
    try:
        lw.trig_mode = slot        # read by the trig lowering (lowering/scalar.py)
        emit()
        lw.trig_mode = EXACT
        with b.if_then(b.icmp_unsigned("!=", b.load(slot), ir.Constant(I8, 0)), likely=False):
            emit()
    finally:
        lw.trig_mode = None
