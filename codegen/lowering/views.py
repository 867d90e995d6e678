"""Basic slices read in place by the loops that consume them (no copy).

`a[1:] + a[:-1]` used to copy each slice into a fresh buffer before the
fused loop read it. A `strided_slice` whose every use is an operand of an
elementwise op or a reduction of the same block (each such op reads its
operands per element inside a loop nest: `elementwise.py`, `reduce.py` and
their threaded forms) is lowered instead to a `View`: the source buffer's
address of the slice's first element, the slice's dims and its stride along
each of them in elements (0 for a new axis, negative for a negative step).
The loops then address the source directly, as they already address a
broadcast operand with stride 0 (`elementwise.leaf_strides`).

A view is a `Tensor` (the leaf machinery keys on that) that owns nothing:
the slice's result is *borrowed* (`Lowerer.borrowed`: never freed, never
taken over), and the free of the source buffer moves to the last position
where the view is read (the slice result's last use in the block plan,
which counts a fused use at its consumer's position), as
`linalg.slice_view` does for a matmul. Moving that last use is also what
makes the read safe: an op may update a buffer in place only when it is
the buffer's last use (`take_over`, donation to a region), so nothing can
write the source while a view of it is still to be read. The one writer
that does not take over, `assign_variable`, writes a variable's buffer,
and a variable read is a borrowed view of that buffer only in a graph that
assigns no variable (`variables.py`). In particular `u[1:-1] = u[1:-1] +
(u[2:] - u[:-2])` reads the old `u`: the right-hand side is a fused loop
materialised into a fresh buffer before `set_item` (which never fuses its
value) writes `u`.

Not views (copied as before): a slice yielded or used inside a nested
region, used by any other op (another slice, `set_item`, a matmul's own
view, a reshape, ...), of a string tensor, or whose result is a scalar.

Loops: a view whose elements are laid out like a C-contiguous tensor of its
dims (`contiguous`: `a[1:]`, `a[2:5, :]`, `a[3]`, proved from the index
spec, or seen from static strides) joins the flat 1-D loop and its threaded
chunks (`parallel.py`), with unit stride visible to LLVM. Any other view
makes the loop a nest with the view's strides (`map_rows` when threaded);
a constant innermost stride of 1 (a slice with unit step on the last axis)
stays a unit-stride access LLVM vectorises.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from llvmlite import ir

from autograph.tracer.core.ir import Op

from ..llvm.irutil import eq
from ..llvm.ltypes import Tensor, const_int, mem_type
from .plan import ROW_REDUCTIONS, region_uses
from .registry import FUSABLE

__all__ = ["View", "elementwise_view", "flat_condition"]


@dataclass(slots=True, eq=False)
class View(Tensor):
    """A basic slice of a C-contiguous buffer, not materialised: `ptr` is the
    address of its first element, `strides[k]` its step along axis k in
    elements. `contiguous`: its elements are known to be laid out as a
    C-contiguous tensor of `dims` (the flat loop may index it by position)."""

    strides: List[ir.Value] = None  # type: ignore[assignment]
    contiguous: bool = False

    def mapped(self, f) -> "View":
        """The same view over values `f` maps (a chunk function's own copies)."""
        return View(self.dtype, f(self.ptr), [f(d) for d in self.dims],
                    [f(s) for s in self.strides], self.contiguous)


def _spec_contiguous(spec) -> bool:
    """Does the index `spec` select a C-contiguous block of a C-contiguous
    tensor: leading integers, then at most one slice with a unit step, then
    only whole axes (`:` or `...`)? New axes (size 1) do not matter."""
    parts = [p for p in spec if p != "n"]
    k = 0
    while k < len(parts) and parts[k] == "i":
        k += 1
    if k < len(parts) and parts[k].startswith("s") and parts[k][3] == "0":
        k += 1
    return all(p in ("e", "s000") for p in parts[k:])


def _users_index(lw, plan) -> Dict[object, List[Op]]:
    """value -> the ops of `plan`'s block that read it (None for a use inside
    a region or a yield), built once per block (a block may slice thousands
    of times: an unrolled stencil)."""
    cache = getattr(lw, "_ag_view_users", None)
    if cache is None:
        cache = lw._ag_view_users = {}
    entry = cache.get(id(plan))
    if entry is None or entry[0] is not plan:
        users: Dict[object, List[Op]] = {}
        for o in plan.block.ops:
            for v in o.operands:
                users.setdefault(v, []).append(o)
            for v in region_uses(o):
                users.setdefault(v, []).append(None)
        for v in plan.block.results:
            users.setdefault(v, []).append(None)
        entry = cache[id(plan)] = (plan, users)   # the plan is kept: its id stays its own
    return entry[1]


def _reads_per_element(o: Optional[Op]) -> bool:
    """Is `o` an op whose lowering reads each operand per element inside its
    loop nest (and can therefore read a view): elementwise ops and reductions
    on numbers."""
    if o is None or not (o.name in FUSABLE or o.name in ROW_REDUCTIONS):
        return False
    return all(v.type.dtype.name != "string" for v in list(o.operands) + list(o.results))


def elementwise_view(lw, op: Op, x, offset: ir.Value, dims: List[ir.Value],
                     strides: List[ir.Value]) -> Optional[View]:
    """For a `strided_slice` whose every use is an elementwise op or a
    reduction of the same block: a `View` of `x` (no copy), else None.
    `offset`, `dims`, `strides`: what `slicing.index_region` computed (and
    checked). Moves the free of `x`'s buffer to the view's last read."""
    if not isinstance(x, Tensor) or isinstance(x, View) or not dims:
        return None
    if x.dtype.name == "string":
        return None
    frame = lw.frame
    plan = frame.plan
    r = op.results[0]
    uses = _users_index(lw, plan).get(r)
    if not uses or not all(_reads_per_element(o) for o in uses):
        return None
    at = plan.last_use.get(r)
    if at is None:
        return None
    _extend_life(plan, op.operands[0], frame.pos, at)
    lw.borrowed.add(r)
    contiguous = _spec_contiguous(tuple(op.attrs["spec"])) or _static_contiguous(dims, strides)
    ptr = lw.b.gep(x.ptr, [offset], inbounds=False, source_etype=mem_type(x.dtype))
    return View(x.dtype, ptr, list(dims), list(strides), contiguous)


def _extend_life(plan, src, pos: int, at: int) -> None:
    """Make `at` the last use of `src` in `plan` (moving its scheduled free),
    so that its buffer is neither freed nor updated in place before then."""
    old = plan.last_use.get(src, pos)
    if old >= at:
        return
    plan.last_use[src] = at
    pending = plan.free_after.get(old, [])
    if src in pending:
        pending.remove(src)
        plan.free_after.setdefault(at, []).append(src)


def _static_contiguous(dims, strides) -> bool:
    """Are the strides, all constants, those of a C-contiguous tensor of `dims`
    (ignoring axes of size 1)?"""
    acc = 1
    for d, s in zip(reversed(dims), reversed(strides)):
        cd, cs = const_int(d), const_int(s)
        if cd == 1:
            continue
        if cd is None or cs != acc:
            return False
        acc *= cd
    return True


def flat_condition(b: ir.IRBuilder, t: View, dims) -> Tuple[bool, list]:
    """(possible, run-time conditions) for reading view `t` by flat position
    over the domain `dims`: its dims must equal the domain's (as for any
    leaf: the conditions) and its layout be contiguous (known when built;
    otherwise the loop is a strided nest)."""
    if not t.contiguous or t.rank != len(dims):
        return False, []
    conds = []
    for x, y in zip(t.dims, dims):
        if const_int(x) == 1 and const_int(y) != 1:
            return False, []
        conds.append(eq(b, x, y))
    return True, conds
