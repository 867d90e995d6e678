"""Vectorisable exp2 (float32 and float64) as branch-free LLVM IR.

The reduction of 2**x is exact: n = roundeven(x), r = x - n in [-1/2, 1/2]
(no ln2 in two parts, no double-double), so the whole error is that of a
polynomial 2**r = 1 + r q(r), a near-minimax fit of relative error 2**-55
(degree 11, float64) or 2**-28.9 (degree 6, float32; computed in float32,
16 lanes with AVX-512) from bench/polyfit.py, and of its evaluation with
fused multiply-adds. The result is p * 2**n: `llvm.ldexp` (one vscalef)
with AVX-512, else p * 2**n1 * 2**n2 (n1 = n >> 1, n2 = n - n1);
subnormal results are rounded once, overflow gives inf; x is
clamped to [-1080, 1030] / [-160, 130] first so that n stays in the exponent
range. exp2(-inf) = 0, exp2(inf) = inf, NaN propagates (the ordered clamps
let it through). docs/ARCHITECTURE.md ("Vector maths") gives the measured
errors.
"""
from __future__ import annotations

from llvmlite import ir

from .host import has_feature
from .irutil import declare, intrinsic, routine
from .ltypes import F32, I32, I64

__all__ = ["exp2", "EXP2_Q"]

# 2**r = 1 + r q(r) on [-1/2, 1/2]: q's coefficients (bench/polyfit.py, leading 1 fixed)
EXP2_Q = {
    "f64": (0.6931471805599453, 0.2402265069591013, 0.05550410866482009, 0.009618129107594112,
            0.0013333558146773694, 0.00015403530457119757, 1.525273349357681e-05,
            1.321543527967857e-06, 1.0178199540239418e-07, 7.073783552601127e-09,
            4.4347560259655845e-10),
    "f32": (0.6931472028559704, 0.24022647913498998, 0.055503324696938736, 0.009618437366418873,
            0.0013398874866602222, 0.00015353360629289734),
}
# (lowest clamp, highest clamp, mantissa bits, bias)
_SPEC = {"f64": (-1080.0, 1030.0, 52, 1023), "f32": (-160.0, 130.0, 23, 127)}


def exp2(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """2**x of a float32/float64 register value (vectorisable)."""
    key = "f32" if x.type == F32 else "f64"
    return routine(b, f"ag.exp2.{key}", x, lambda fb, a: _exp2(fb, a, key))


def _exp2(b, x, key):
    t = x.type
    it = I32 if key == "f32" else I64
    lo, hi, mant, bias = _SPEC[key]

    def c(v):
        return ir.Constant(t, v)

    xc = b.select(b.fcmp_ordered(">", x, c(hi)), c(hi), x)
    xc = b.select(b.fcmp_ordered("<", xc, c(lo)), c(lo), xc)
    # n = roundeven(x) in the low bits of x + 1.5 * 2**p, read as an integer (no fptosi:
    # poison for NaN) and converted back (`s - shifter` would fold to x under fastmath).
    shifter = 1.5 * 2.0 ** mant
    s = b.fadd(xc, c(shifter))
    ni = b.sub(b.bitcast(s, it), b.bitcast(c(shifter), it))
    if key == "f64":
        ni = b.trunc(ni, I32)
    n = b.sitofp(ni, t)                                        # int32: AVX2 lacks int64 -> double
    r = b.fsub(xc, n)                                          # exact
    q = EXP2_Q[key]
    acc = c(q[-1])
    for cf in reversed(q[:-1]):
        acc = intrinsic(b, "fmuladd", [r, acc, c(cf)])
    p = intrinsic(b, "fmuladd", [r, acc, c(1.0)])
    if has_feature("avx512f"):                                 # one vscalef (mathfns.exp)
        ldexp = declare(b.module, f"llvm.ldexp.{key}.i32", t, [t, I32])
        return b.call(ldexp, [p, ni])
    if key == "f64":
        ni = b.sext(ni, it)
    n1 = b.ashr(ni, ir.Constant(it, 1))
    n2 = b.sub(ni, n1)

    def pow2(k):
        return b.bitcast(b.shl(b.add(k, ir.Constant(it, bias)), ir.Constant(it, mant)), t)

    return b.fmul(b.fmul(p, pow2(n1)), pow2(n2))
