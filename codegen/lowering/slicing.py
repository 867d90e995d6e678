"""`strided_slice`: NumPy basic indexing with run-time indices.

The `spec` attribute lists the index parts: "i" (an integer index, one
operand), "n" (newaxis), "e" (ellipsis) and "sABC" (a slice whose start,
stop and step operands are present where A, B, C are "1"). Integer indices
wrap when negative and are bounds-checked (when bounds checks are on);
slices follow Python's `slice.indices` at run time (clamping, negative
steps; a zero step is an error). The result is a scalar load when every
axis is indexed by an integer, otherwise a fresh copy of the selected
elements, or, when only elementwise loops and reductions read the slice, a
`views.View` of x that they address in place (no copy).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from llvmlite import ir

from autograph.tracer.core.ir import Op

from . import memory
from .elementwise import contiguous_strides, strided_nest
from ..llvm.irutil import add, mul, to_i64
from .registry import register
from ..llvm.ltypes import Tensor, const_int, i64, load_elem, store_elem

INDEX_MSG = "index {0} is out of bounds for axis {1} with size {2}"


def _norm_index(lw, op, idx, size, axis: int):
    b = lw.b
    ci, cs = const_int(idx), const_int(size)
    if ci is not None and cs is not None:
        if not -cs <= ci < cs:
            if lw.boundscheck:
                lw.fail_if(True, op, INDEX_MSG, [idx, i64(axis), size])
            return i64(0)
        return i64(ci + cs if ci < 0 else ci)
    if lw.boundscheck:
        neg = b.sub(i64(0), size)
        bad = b.or_(b.icmp_signed("<", idx, neg), b.icmp_signed(">=", idx, size))
        lw.fail_if(bad, op, INDEX_MSG, [idx, i64(axis), size])
    if ci is not None and ci >= 0:
        return idx
    return b.select(b.icmp_signed("<", idx, i64(0)), b.add(idx, size), idx)


def _clamp_bound(b, v, size, lower, upper):
    """One slice bound per Python's slice.indices (`v` is i64)."""
    v1 = b.select(b.icmp_signed("<", v, i64(0)), b.add(v, size), v)
    v1 = b.select(b.icmp_signed("<", v1, lower), lower, v1)
    return b.select(b.icmp_signed(">=", v1, size), upper, v1)


def _wrap64(v: int) -> int:
    return (v + 2 ** 63) % 2 ** 64 - 2 ** 63


def _slice(lw, op, size, start: Optional[ir.Value], stop: Optional[ir.Value],
           step: Optional[ir.Value]):
    """(start, length, step) of slice(start, stop, step) on an axis of `size`."""
    b = lw.b
    if step is None:
        step = i64(1)
    else:
        lw.fail_if(b.icmp_signed("==", step, i64(0)), op, "{op}: slice step cannot be zero")
    cstep = const_int(step)
    if cstep is not None:
        neg = cstep < 0
        lower = i64(-1) if neg else i64(0)
        upper = b.sub(size, i64(1)) if neg else size
        first, last = (upper, lower) if neg else (lower, upper)
    else:
        negv = b.icmp_signed("<", step, i64(0))
        lower = b.select(negv, i64(-1), i64(0))
        upper = b.select(negv, b.sub(size, i64(1)), size)
        first, last = b.select(negv, upper, lower), b.select(negv, lower, upper)
    s = first if start is None else _clamp_bound(b, start, size, lower, upper)
    e = last if stop is None else _clamp_bound(b, stop, size, lower, upper)
    if cstep is not None:
        span = b.sub(s, e) if neg else b.sub(e, s)
        mag = i64(_wrap64(-cstep)) if neg else step
    else:
        span = b.select(negv, b.sub(s, e), b.sub(e, s))
        mag = b.select(negv, b.sub(i64(0), step), step)   # |step| as unsigned (|MIN| = 2**63)
    n = span if cstep == 1 else b.add(b.udiv(b.sub(span, i64(1)), mag), i64(1))
    n = b.select(b.icmp_signed(">", span, i64(0)), n, i64(0))
    return s, n, step


def index_region(lw, op: Op, x, operands: list, spec) -> Tuple[ir.Value, List[ir.Value], List[ir.Value]]:
    """The part of `x` (a Tensor or a scalar) that `spec` and the lowered
    index `operands` select: (element offset of its first element, its
    dims, its element strides in x). Bounds and steps are checked here."""
    b = lw.b
    dims = list(getattr(x, "dims", []))
    strides = contiguous_strides(b, dims)
    rank = len(dims)
    consuming = sum(1 for p in spec if p == "i" or p.startswith("s"))
    if consuming > rank:
        raise ValueError(f"strided_slice: {consuming} indices for a tensor of rank {rank}")
    ops_iter = iter(operands)
    base = i64(0)
    out_dims: List[ir.Value] = []
    out_strides: List[ir.Value] = []
    axis = 0
    parts = list(spec)
    if "e" not in parts:
        parts.append("e")
    for p in parts:
        if p == "n":
            out_dims.append(i64(1))
            out_strides.append(i64(0))
        elif p == "e":
            n_cover = rank - consuming
            for _ in range(n_cover):
                out_dims.append(dims[axis])
                out_strides.append(strides[axis])
                axis += 1
            consuming = rank  # a second (implicit) ellipsis covers nothing
        elif p == "i":
            idx = _norm_index(lw, op, to_i64(b, next(ops_iter)), dims[axis], axis)
            base = add(b, base, mul(b, idx, strides[axis]))
            axis += 1
        elif p.startswith("s"):
            flags = p[1:]
            start = to_i64(b, next(ops_iter)) if flags[0] == "1" else None
            stop = to_i64(b, next(ops_iter)) if flags[1] == "1" else None
            step = to_i64(b, next(ops_iter)) if flags[2] == "1" else None
            s, n, st = _slice(lw, op, dims[axis], start, stop, step)
            base = add(b, base, mul(b, s, strides[axis]))  # unused when the slice is empty
            out_dims.append(n)
            out_strides.append(mul(b, st, strides[axis]))
            axis += 1
        else:
            raise ValueError(f"strided_slice: bad spec part {p!r}")
    return base, out_dims, out_strides


@register("strided_slice")
def lower_strided_slice(lw, op: Op, args: list) -> list:
    x, *operands = args
    b = lw.b
    out_type = op.results[0].type
    base, out_dims, out_strides = index_region(lw, op, x, operands, tuple(op.attrs["spec"]))
    shape = out_type.shape
    out_dims = [i64(s) if s is not None else d for s, d in zip(shape, out_dims)]
    dtype = out_type.dtype
    if not isinstance(x, Tensor):
        # A scalar with only newaxis/ellipsis parts.
        if not out_dims:
            return [x]
        out = Tensor(dtype, memory.alloc(lw, op, dtype, out_dims), out_dims)
        store_elem(b, x, out.ptr, i64(0), dtype)
        return [out]
    if not out_dims:
        return [load_elem(b, x.ptr, base, dtype)]
    from .linalg import slice_view   # a matrix slice only a matmul reads: BLAS's leading dim
    view = slice_view(lw, op, x, base, out_dims, out_strides)
    if view is not None:
        return [view]
    from .views import elementwise_view   # a slice only loops read: addressed in place (views.py)
    view = elementwise_view(lw, op, x, base, out_dims, out_strides)
    if view is not None:
        return [view]
    if _is_prefix(op.attrs["spec"]) and lw.take_over(op, 0):
        # x[:n] is x's first rows: when x is dead after this op, hand its
        # buffer over instead of copying (the rows past n are never read).
        return [Tensor(dtype, x.ptr, out_dims)]
    out = Tensor(dtype, memory.alloc(lw, op, dtype, out_dims), out_dims)
    src = b.gep(x.ptr, [base], inbounds=False, source_etype=_etype(dtype))

    def body(offs):
        store_elem(b, load_elem(b, src, offs[1], dtype), out.ptr, offs[0], dtype)

    strided_nest(lw, out_dims, [contiguous_strides(b, out_dims), out_strides], body, interleave=1)
    return [out]


def _is_prefix(spec) -> bool:
    """True for `x[:n]` / `x[:]` (optionally followed by `...`): a leading block."""
    return len(spec) >= 1 and spec[0] in ("s000", "s010") and all(p == "e" for p in spec[1:])


def _etype(dtype):
    from ..llvm.ltypes import mem_type
    return mem_type(dtype)
