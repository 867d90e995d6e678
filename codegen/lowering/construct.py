"""Ops that build tensors: constant, range, fill, shape.

Constants of rank >= 1 are private LLVM global constants (never freed, copied
when they leave a block); scalar constants are LLVM constants.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from autograph.tracer.core.ir import Op

from . import memory
from .overwrite import fill_overwritten
from ..llvm.irutil import declare, for_range, intrinsic, to_i64
from .registry import register
from ..llvm.ltypes import I1, I8, I64, Tensor, const, const_int, i64, reg_type, store_elem

_OVF = ir.LiteralStructType([I64, I1])


@register("constant")
def lower_constant(lw, op: Op, args: list) -> list:
    t = op.results[0].type
    value = np.asarray(op.attrs["value"])
    if t.shape == ():
        return [const(t.dtype, value.reshape(()).item())]
    arr = np.ascontiguousarray(value, dtype=t.dtype.np_dtype)
    data = bytearray(arr.tobytes())
    n = max(len(data), 1)
    data = data or bytearray(1)
    name = f"ag.const.{len(lw.module.globals)}"
    gv = ir.GlobalVariable(lw.module, ir.ArrayType(I8, n), name=name)
    gv.initializer = ir.Constant(ir.ArrayType(I8, n), data)
    gv.global_constant = True
    gv.linkage = "private"
    gv.unnamed_addr = True
    gv.align = 64
    return [Tensor(t.dtype, gv, [i64(d) for d in arr.shape])]


@register("shape")
def lower_shape(lw, op: Op, args: list) -> list:
    (x,) = args
    dims = getattr(x, "dims", [])
    dtype = op.results[0].type.dtype
    ptr = memory.alloc(lw, op, dtype, [i64(len(dims))])
    for k, d in enumerate(dims):
        if reg_type(dtype).width == 64:
            v = d
        else:
            # an int32 shape must not wrap: a dimension past 2**31 - 1 is an error
            memory.fits_int32(lw, op, d, "{op}: dimension {1} has size {0}, which does not fit in int32; "
                       "use ag.shape(x, out_type=ag.int64)", [i64(k)])
            v = lw.b.trunc(d, reg_type(dtype))
        store_elem(lw.b, v, ptr, i64(k), dtype)
    return [Tensor(dtype, ptr, [i64(len(dims))])]



@register("fill")
def lower_fill(lw, op: Op, args: list) -> list:
    *dim_vals, value = args
    b = lw.b
    if not dim_vals:
        return [value]
    shape = op.results[0].type.shape
    raw = [to_i64(b, d) for d in dim_vals]
    msg = "{op}: dimension {0} is negative ({1})"
    if len(raw) <= 5:   # the whole shape fits in the error record
        inner = ", ".join("{%d}" % (k + 2) for k in range(len(raw)))
        msg += " in shape (" + inner + ("," if len(raw) == 1 else "") + ")"
    dims = []
    for k, d in enumerate(raw):
        c = const_int(d)
        bad = (c < 0) if c is not None else b.icmp_signed("<", d, i64(0))
        lw.fail_if(bad, op, msg, [i64(k), d] + (raw if len(raw) <= 5 else []))
        dims.append(i64(shape[k]) if shape[k] is not None else d)
    dtype = op.results[0].type.dtype
    out = Tensor(dtype, memory.alloc(lw, op, dtype, dims), dims)
    if fill_overwritten(op):
        return [out]       # a loop writes every element before any read (lowering/overwrite.py)
    with for_range(b, memory.numel(lw, dims), name="fill") as i:
        store_elem(b, value, out.ptr, i, dtype)
    return [out]


@register("range")
def lower_range(lw, op: Op, args: list) -> list:
    start, limit, delta = args
    b = lw.b
    dtype = op.results[0].type.dtype
    static_n = op.results[0].type.shape[0]
    if dtype.is_floating:
        n, step = _float_count(lw, op, start, limit, delta)
    else:
        u = dtype.is_unsigned
        n = _int_count(lw, op, to_i64(b, start, u), to_i64(b, limit, u), to_i64(b, delta, u))
        step = delta
    if static_n is not None:
        n = i64(static_n)
    out = Tensor(dtype, memory.alloc(lw, op, dtype, [n]), [n])
    with for_range(b, n, name="range") as i:
        if dtype.is_floating:
            v = b.fadd(start, b.fmul(b.sitofp(i, start.type), step))
        else:
            ii = i if start.type.width == 64 else b.trunc(i, start.type)
            v = b.add(start, b.mul(ii, step))
        store_elem(b, v, out.ptr, i, dtype)
    return [out]


def _int_count(lw, op, s, lim, d):
    """max(0, ceil((lim - s) / d)) for i64 values, without overflow or traps."""
    b = lw.b
    lw.fail_if(b.icmp_signed("==", d, i64(0)), op, "{op}: delta must not be zero")
    fn = declare(lw.module, "llvm.ssub.with.overflow.i64", _OVF, [I64, I64])
    r = b.call(fn, [lim, s])
    lw.fail_if(b.extract_value(r, 1), op, "{op}: the range from {0} to {1} is too large", [s, lim])
    diff = b.extract_value(r, 0)
    pos = b.icmp_signed(">", d, i64(0))
    nonempty = b.select(pos, b.icmp_signed(">", diff, i64(0)), b.icmp_signed("<", diff, i64(0)))
    span = b.select(pos, diff, b.sub(i64(0), diff))          # |diff| as unsigned
    step = b.select(pos, d, b.sub(i64(0), d))                # |d| as unsigned (|MIN| = 2**63)
    n = b.add(b.udiv(b.sub(span, i64(1)), step), i64(1))
    return b.select(nonempty, n, i64(0))


def _float_count(lw, op, s, lim, d):
    """(n, step): n = max(0, ceil((lim - s) / d)) computed in the dtype; a
    non-finite length is an error, as in the reference."""
    b = lw.b
    t = s.type
    lw.fail_if(b.fcmp_ordered("==", d, ir.Constant(t, 0.0)), op, "{op}: delta must not be zero")
    q = intrinsic(b, "ceil", [b.fdiv(b.fsub(lim, s), d)])
    finite = b.fcmp_ordered("<", intrinsic(b, "fabs", [q]), ir.Constant(t, float("inf")))
    lw.fail_if(b.not_(finite), op, "{op}: the length ceil((limit - start) / delta) is not finite "
               "(start={0}, limit={1}, delta={2})", [s, lim, d])
    q = b.fpext(q, ir.DoubleType()) if t != ir.DoubleType() else q
    lw.fail_if(b.fcmp_ordered(">=", q, ir.Constant(q.type, float(2 ** 62))), op,
               "{op}: the range has too many elements")
    n = b.select(b.fcmp_ordered(">", q, ir.Constant(q.type, 0.0)), b.fptosi(q, I64), i64(0))
    return n, d
