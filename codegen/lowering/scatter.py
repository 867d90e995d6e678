"""`scatter`: slices of `updates` written or combined into x at indices.

x is viewed as [outer, size, inner] (the dims before, at and after the
axis) and `updates` as [outer, m, inner] (m = the number of indices). The
loop runs over the indices in order, so a repeated index sees every update
in turn: "set" keeps the last, the combining modes apply all (NumPy's
`a[idx] = v` and `np.add.at`). Each index is bounds-checked before anything
is written (when bounds checks are off an out-of-range index is skipped, so
memory outside x is never touched). x's buffer is updated in place when the
block plan lets this op take it over (as `set_item`), else it is copied.
"""
from __future__ import annotations

from autograph.tracer.core.ir import Op
from autograph.tracer.ops.scatter import SCATTER_MSG

from . import memory
from .registry import register
from .scalar import float_maxmin
from ..llvm.irutil import add, for_range, intrinsic, mul, product, to_i64
from ..llvm.ltypes import Tensor, i64, load_elem, store_elem


def _combine(b, mode: str, dtype, old, new):
    """NumPy's add/multiply/maximum/minimum of two elements of `dtype`."""
    if dtype.is_bool:
        return b.or_(old, new) if mode in ("add", "max") else b.and_(old, new)
    if dtype.is_floating:
        if mode == "add":
            return b.fadd(old, new)
        if mode == "mul":
            return b.fmul(old, new)
        return float_maxmin(b, old, new, mode == "max")
    if mode == "add":
        return b.add(old, new)
    if mode == "mul":
        return b.mul(old, new)
    name = ("u" if dtype.is_unsigned else "s") + mode
    return intrinsic(b, name, [old, new])


@register("scatter")
def lower_scatter(lw, op: Op, args: list) -> list:
    x, indices, updates = args
    b = lw.b
    mode, axis = op.attrs["mode"], op.attrs["axis"]
    dtype = op.results[0].type.dtype
    idtype = op.operands[1].type.dtype
    out = Tensor(dtype, x.ptr, list(x.dims)) if lw.take_over(op, 0) else memory.copy_tensor(lw, op, x)
    dims = out.dims
    size = dims[axis]
    outer = product(b, dims[:axis])
    inner = product(b, dims[axis + 1:])
    m = product(b, indices.dims) if isinstance(indices, Tensor) else i64(1)

    def scatter_one(j, raw):
        raw = to_i64(b, raw, unsigned=idtype.is_unsigned)
        bad = b.or_(b.icmp_signed("<", raw, b.sub(i64(0), size)), b.icmp_signed(">=", raw, size))
        if lw.boundscheck:
            lw.fail_if(bad, op, SCATTER_MSG, [raw, i64(axis), size])
        idx = b.select(b.icmp_signed("<", raw, i64(0)), b.add(raw, size), raw)
        with b.if_then(b.not_(bad), likely=True):   # never write outside x
            with for_range(b, outer, name="so") as o:
                dst = mul(b, add(b, mul(b, o, size), idx), inner)
                src = mul(b, add(b, mul(b, o, m), j), inner)
                with for_range(b, inner, name="si") as k:
                    if isinstance(updates, Tensor):
                        new = load_elem(b, updates.ptr, add(b, src, k), dtype)
                    else:
                        new = updates
                    at = add(b, dst, k)
                    if mode != "set":
                        new = _combine(b, mode, dtype, load_elem(b, out.ptr, at, dtype), new)
                    store_elem(b, new, out.ptr, at, dtype)

    if not isinstance(indices, Tensor):
        scatter_one(i64(0), indices)
    else:
        with for_range(b, m, name="sj") as j:
            scatter_one(j, load_elem(b, indices.ptr, j, idtype))
    return [out]
