"""Random ops: random_uniform, random_normal, random_uniform_int.

The generator is the counter-based one of `autograph.tracer.ops.random` (splitmix64
used as a hash of seed, execution counter and element index), so the
compiled code and the NumPy reference produce the same bits. Each op gets
one private i64 global, its execution counter, starting at 0 when the code
is loaded; every execution of the op takes the next value with an atomic
increment (so concurrent calls never share a counter value). The elements
are independent, so the fill loop has no loop-carried state and vectorises.
"""
from __future__ import annotations

import math

from llvmlite import ir

from autograph.tracer.core.ir import Op
from autograph.tracer.ops.random import GOLDEN, MIX1, MIX2, int_range_message, mix

from . import memory
from ..llvm.irutil import for_range, intrinsic, to_i64
from .registry import register
from ..llvm.ltypes import F32, F64, I64, Tensor, const_int, i64, store_elem


def _mix(b, z):
    """splitmix64's finaliser on an i64 value."""
    z = b.mul(b.xor(z, b.lshr(z, i64(30))), _u(MIX1))
    z = b.mul(b.xor(z, b.lshr(z, i64(27))), _u(MIX2))
    return b.xor(z, b.lshr(z, i64(31)))


def _u(v: int) -> ir.Constant:
    """A 64-bit pattern as an i64 constant (two's complement)."""
    v %= 2 ** 64
    return i64(v - 2 ** 64 if v >= 2 ** 63 else v)


def _key(lw, op: Op):
    """This execution's stream key: mix(mix(seed) ^ counter * G), counter from the op's global."""
    b = lw.b
    name = f"ag.rng.counter.{len(lw.module.globals)}"
    counter = ir.GlobalVariable(lw.module, I64, name=name)
    counter.linkage = "private"
    counter.initializer = i64(0)
    c = b.atomic_rmw("add", counter, i64(1), "monotonic")
    seed_mix = int(mix(op.attrs["seed"]))     # a constant: computed here, once
    return _mix(b, b.xor(_u(seed_mix), b.mul(c, _u(GOLDEN))))


def _bits(b, key, i):
    """Element i's 64 random bits: mix(key + (i + 1) * G)."""
    return _mix(b, b.add(key, b.mul(b.add(i, i64(1)), _u(GOLDEN))))


def _uniform(b, bits, t):
    """A uniform float in [0, 1) of LLVM type `t` from 64 bits."""
    if t == F32:
        return b.fmul(b.uitofp(b.lshr(bits, i64(40)), F32), ir.Constant(F32, 2.0 ** -24))
    return b.fmul(b.uitofp(b.lshr(bits, i64(11)), F64), ir.Constant(F64, 2.0 ** -53))


def _dims(lw, op, dim_vals):
    """The result dims; negative run-time dims are errors (as in `fill`)."""
    b = lw.b
    shape = op.results[0].type.shape
    dims = []
    for k, d in enumerate(dim_vals):
        d = to_i64(b, d)
        if const_int(d) is None:
            lw.fail_if(b.icmp_signed("<", d, i64(0)), op, "{op}: dimension {0} is negative ({1})",
                       [i64(k), d])
        dims.append(i64(shape[k]) if shape[k] is not None else d)
    return dims


def _fill(lw, op, dims, element):
    """A fresh tensor whose element i is `element(i)` (a scalar when dims is empty)."""
    b = lw.b
    dtype = op.results[0].type.dtype
    if not dims:
        return element(i64(0))
    out = Tensor(dtype, memory.alloc(lw, op, dtype, dims), dims)
    with for_range(b, memory.numel(lw, dims), name="rng") as i:
        store_elem(b, element(i), out.ptr, i, dtype)
    return out


@register("random_uniform")
def lower_uniform(lw, op: Op, args: list) -> list:
    b = lw.b
    dims = _dims(lw, op, args)
    key = _key(lw, op)
    t = F32 if op.results[0].type.dtype.name == "float32" else F64
    return [_fill(lw, op, dims, lambda i: _uniform(b, _bits(b, key, i), t))]


@register("random_normal")
def lower_normal(lw, op: Op, args: list) -> list:
    b = lw.b
    dims = _dims(lw, op, args)
    key = _key(lw, op)
    t = F32 if op.results[0].type.dtype.name == "float32" else F64
    one = ir.Constant(F64, 1.0)

    def element(i):
        # Box-Muller in float64 on u1 = u(2i), u2 = u(2i+1); 1 - u1 is in (0, 1].
        i2 = b.mul(i, i64(2))
        u1 = _uniform(b, _bits(b, key, i2), F64)
        u2 = _uniform(b, _bits(b, key, b.add(i2, i64(1))), F64)
        r = intrinsic(b, "sqrt", [b.fmul(ir.Constant(F64, -2.0), intrinsic(b, "log", [b.fsub(one, u1)]))])
        z = b.fmul(r, intrinsic(b, "cos", [b.fmul(ir.Constant(F64, 2.0 * math.pi), u2)]))
        return b.fptrunc(z, F32) if t == F32 else z

    return [_fill(lw, op, dims, element)]


@register("random_uniform_int")
def lower_uniform_int(lw, op: Op, args: list) -> list:
    b = lw.b
    *dim_vals, lo, hi = args
    dims = _dims(lw, op, dim_vals)
    lo64, hi64 = to_i64(b, lo), to_i64(b, hi)
    msg = int_range_message("{0}", "{1}")
    lw.fail_if(b.icmp_signed(">=", lo64, hi64), op, msg, [lo64, hi64])
    span = b.sub(hi64, lo64)               # hi - lo as an unsigned 64-bit count (exact)
    key = _key(lw, op)
    width = lo.type

    def element(i):
        v = b.add(lo64, b.urem(_bits(b, key, i), span))   # wraps back into [lo, hi)
        return v if width == I64 else b.trunc(v, width)

    return [_fill(lw, op, dims, element)]
