"""Reductions: reduce_sum/mean/prod/max/min/any/all.

The accumulator is the output buffer (or a stack slot for a scalar result),
initialised with the op's identity; one loop nest over the input's dims adds
each element into the accumulator element its kept indices select. The input
may be a fused elementwise expression, evaluated per element inside the nest
(`reduce_mean(x**2*3+y)` is one loop, no temporaries).

When the input's leaves all have the input's exact shape, adjacent axes that
are all reduced or all kept are merged (a full reduction is one flat loop);
otherwise the nest uses per-leaf broadcasting strides. A float sum over one
flat run is summed in blocks of `_BLOCK` elements, which keeps the rounding
error small at no cost in speed.

Floating-point reductions may be reassociated, as XLA does: the adds and
multiplies of sum/mean/prod carry LLVM's `reassoc` flag so that the loop
vectoriser can keep several partial sums. That is the only fast-math flag
the code generator uses.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

from llvmlite import ir

from autograph.tracer.core.ir import Op

from . import memory
from .extreme import float_extreme
from .elementwise import (Fused, contiguous_strides, evaluate, leaf_strides, leaves_of, load_leaves,
    same_shape, strided_nest)
from ..llvm.irutil import for_range, intrinsic, mul, product, smin
from .registry import register
from ..llvm.ltypes import I64, Tensor, const, i64, load_elem, mem_type, reg_type, store_elem
from ..llvm.cmath import reduce_combine as complex_combine, reduce_mean as complex_mean

_BLOCK = 2048
_REASSOC = ("reassoc",)
REDUCTIONS = ("reduce_sum", "reduce_mean", "reduce_prod", "reduce_max", "reduce_min",
              "reduce_any", "reduce_all")


def _identity(name: str, dtype):
    if name in ("reduce_sum", "reduce_mean"):
        return const(dtype, 0)
    if name == "reduce_prod":
        return const(dtype, 1)
    if name == "reduce_any":
        return const(dtype, False)
    if name == "reduce_all":
        return const(dtype, True)
    if name == "reduce_max":
        return const(dtype, dtype.min)
    return const(dtype, dtype.max)


def _combine(lw, name: str, dtype, acc, v):
    b = lw.b
    if dtype.is_complex:
        return complex_combine(b, name, acc, v)
    f = dtype.is_floating
    if name in ("reduce_sum", "reduce_mean"):
        return b.fadd(acc, v, flags=_REASSOC) if f else b.add(acc, v)
    if name == "reduce_prod":
        return b.fmul(acc, v, flags=_REASSOC) if f else b.mul(acc, v)
    if name == "reduce_any":
        return b.or_(acc, v)
    if name == "reduce_all":
        return b.and_(acc, v)
    is_max = name == "reduce_max"
    if f:
        return intrinsic(b, "maximum" if is_max else "minimum", [acc, v])  # NaN propagates
    if dtype.is_unsigned:
        return intrinsic(b, "umax" if is_max else "umin", [acc, v])
    return intrinsic(b, "smax" if is_max else "smin", [acc, v])


def _merge_axes(dims: Sequence[ir.Value], reduced: Sequence[bool], b) -> Tuple[list, list]:
    """Merge runs of adjacent axes with the same reduced/kept status."""
    mdims: List[ir.Value] = []
    mred: List[bool] = []
    run: List[ir.Value] = []
    for d, r in zip(dims, reduced):
        if run and r != mred[-1]:
            mdims.append(product(b, run))
            run = []
        if not run:
            mred.append(r)
        run.append(d)
    if run:
        mdims.append(product(b, run))
    return mdims, mred


def _out_stream(b, dims, reduced) -> List[ir.Value]:
    kept = [d for d, r in zip(dims, reduced) if not r]
    kst = iter(contiguous_strides(b, kept))
    return [i64(0) if r else next(kst) for r in reduced]


@register(*REDUCTIONS, fuses_into=True)
def lower_reduce(lw, op: Op, args: list, defer: bool = True) -> list:
    """The reduction `op` of `args[0]` (a tensor, a fused expression or a
    scalar). A row reduction the block plan deferred (`plan.row_reduction`)
    becomes a `Fused` node its elementwise root evaluates per row
    (`rowfuse.py`); `defer=False` computes it here whatever the plan says."""
    (x,) = args
    b = lw.b
    name = op.name
    dtype = op.operands[0].type.dtype
    out_type = op.results[0].type
    if not isinstance(x, Tensor) and not hasattr(x, "dims"):
        return [x]  # reducing a scalar over no axes is the scalar itself
    rank = len(x.dims)
    axis = op.attrs.get("axis")
    keepdims = bool(op.attrs.get("keepdims", False))
    axes = set(range(rank)) if axis is None else {a % rank if rank else a for a in axis}
    reduced = [k in axes for k in range(rank)]
    kept_dims = [d for d, r in zip(x.dims, reduced) if not r]
    out_dims = [i64(1) if r else d for d, r in zip(x.dims, reduced)] if keepdims else kept_dims
    ident = _identity(name, dtype)
    if defer and lw.is_deferred(op):
        return [Fused(op, [x], out_type.dtype, list(out_dims))]

    if out_type.shape == ():
        acc_ptr = lw.alloca(mem_type(dtype), name="acc")
        store_elem(b, ident, acc_ptr, i64(0), dtype)
        out = None
    else:
        acc_ptr = memory.alloc(lw, op, dtype, out_dims)
        out = Tensor(dtype, acc_ptr, list(out_dims))
        with for_range(b, memory.numel(lw, out_dims), name="init") as i:
            store_elem(b, ident, acc_ptr, i, dtype)

    leaves = leaves_of(x)

    def accumulate(offsets):
        v = evaluate(lw, x, load_leaves(lw, leaves, offsets[1:]))
        old = load_elem(b, acc_ptr, offsets[0], dtype)
        store_elem(b, _combine(lw, name, dtype, old, v), acc_ptr, offsets[0], dtype)

    def merged():
        mdims, mred = _merge_axes(x.dims, reduced, b)

        def one_loop():
            if len(mdims) == 1 and mred[0] and dtype.is_floating and name in ("reduce_sum", "reduce_mean"):
                _blocked_sum(lw, mdims[0], leaves, x, acc_ptr, dtype)
                return
            lst = contiguous_strides(b, mdims)
            streams = [_out_stream(b, mdims, mred)] + [lst] * len(leaves)
            if mred[-1] and dtype.is_floating and name in ("reduce_max", "reduce_min"):
                _extreme_rows(lw, name, dtype, x, leaves, mdims, streams, acc_ptr)
                return
            strided_nest(lw, mdims, streams, accumulate)

        if len(mdims) == 1 and mred[0] and not dtype.is_complex:
            # one output element (a scalar, or keepdims): blocks on the thread pool
            from .parallel_reduce import reduce_parallel
            if reduce_parallel(lw, op, x, leaves, mdims[0], acc_ptr, dtype, ident,
                               lambda c, acc, v: _combine(c, name, dtype, acc, v), one_loop):
                return
        elif out is not None and rows(mdims, mred, True):
            return
        one_loop()

    def rows(dims, red, flat):
        # an output tensor: split across threads by output rows when large
        from .parallel_rows import reduce_rows
        return reduce_rows(lw, op, x, leaves, dims, red, flat, acc_ptr, dtype,
                           lambda c, acc, v: _combine(c, name, dtype, acc, v))

    def general(cold=False):
        if not cold and out is not None and rows(x.dims, reduced, False):
            return
        streams = [_out_stream(b, x.dims, reduced)] + [leaf_strides(b, t, x.dims) for t in leaves]
        strided_nest(lw, x.dims, streams, accumulate, cold=cold)

    flat = same_shape(b, leaves, x.dims)
    if flat is True:
        merged()
    elif flat is False:
        general()
    else:
        with b.if_else(flat, likely=True) as (then, otherwise):
            with then:
                merged()
            with otherwise:
                general(cold=True)

    if name == "reduce_mean":
        count = product(b, [d for d, r in zip(x.dims, reduced) if r])
        if out is None:
            v = load_elem(b, acc_ptr, i64(0), dtype)
            return [_mean(lw, op, dtype, v, count)]
        with for_range(b, memory.numel(lw, out_dims), name="mean") as i:
            v = load_elem(b, acc_ptr, i, dtype)
            store_elem(b, _mean(lw, op, dtype, v, count), acc_ptr, i, dtype)
    if out is None:
        return [load_elem(b, acc_ptr, i64(0), dtype)]
    return [out]


def _extreme_rows(lw, name, dtype, x, leaves, dims, streams, acc_ptr) -> None:
    """A float max/min whose innermost (merged) axis is reduced and contiguous:
    each run along it by `extreme.float_extreme` (exact, and several times
    faster than a chain of `llvm.maximum` steps)."""
    b = lw.b

    def run(offsets):
        def at(j):
            return evaluate(lw, x, load_leaves(lw, leaves, [b.add(off, j) for off in offsets[1:]]))

        v = float_extreme(lw, name, dtype, dims[-1], at)
        old = load_elem(b, acc_ptr, offsets[0], dtype)
        store_elem(b, _combine(lw, name, dtype, old, v), acc_ptr, offsets[0], dtype)

    strided_nest(lw, dims[:-1], [st[:-1] for st in streams], run)


def _mean(lw, op, dtype, total, count):
    b = lw.b
    if dtype.is_floating:
        return b.fdiv(total, b.sitofp(count, reg_type(dtype)))   # 0/0 is NaN, as NumPy
    if dtype.is_complex:
        return complex_mean(b, total, count)
    # Only a mean actually computed fails (an empty result computes none).
    lw.fail_if(b.icmp_signed("==", count, i64(0)), op,
               "{op}: the mean of an empty integer tensor is undefined")
    if dtype.is_unsigned:
        return b.trunc(b.udiv(b.zext(total, I64), count), total.type) if total.type.width < 64 \
            else b.udiv(total, count)
    if total.type.width == 64:
        return b.sdiv(total, count)
    return b.trunc(b.sdiv(b.sext(total, I64), count), total.type)


def _blocked_sum(lw, n, leaves, x, acc_ptr, dtype) -> None:
    """acc += sum of x over a flat run of n elements, in blocks of _BLOCK."""
    b = lw.b
    t = reg_type(dtype)
    part = lw.alloca(t, name="partial")
    nblocks = b.udiv(b.add(n, i64(_BLOCK - 1)), i64(_BLOCK))
    with for_range(b, nblocks, name="blk") as blk:
        start = mul(b, blk, i64(_BLOCK))
        stop = smin(b, b.add(start, i64(_BLOCK)), n)
        b.store(ir.Constant(t, 0.0), part)
        with for_range(b, stop, start=start, name="el") as i:
            v = evaluate(lw, x, load_leaves(lw, leaves, [i] * len(leaves)))
            b.store(b.fadd(b.load(part, typ=t), v, flags=_REASSOC), part)
        old = load_elem(b, acc_ptr, i64(0), dtype)
        store_elem(b, b.fadd(old, b.load(part, typ=t), flags=_REASSOC), acc_ptr, i64(0), dtype)
