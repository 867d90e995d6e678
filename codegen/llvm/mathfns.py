"""exp written in LLVM IR so that loops using it vectorise.

LLVM lowers `llvm.exp` to a call of the C library's scalar `exp` (there is no
vector math library behind llvmlite), which keeps every loop that uses it
scalar. `exp` here is branch-free straight-line IR (internal, always
inlined), so the loop vectoriser turns it into AVX code.

Algorithm: x is clamped to [-104, 89] (float32) or [-746, 710] (float64), so
that n below stays in range and the result still overflows to inf or
underflows to 0; n = round(x / ln 2) by the shifter trick (the fused
multiply-add x * log2(e) + 1.5 * 2**p leaves n in the sum's low mantissa
bits, read as an integer: no float-to-int conversion, which LLVM makes
poison for NaN; n as a float is that integer converted, since the sum minus
1.5 * 2**p would be folded away under fastmath=True); r = x - n ln 2 with ln 2 in two parts (Cody and Waite: the
first has few bits, so n times it is exact); e**r = 1 + r q(r), a
near-minimax polynomial of relative error 2**-28.9 (degree 6, float32) or
2**-56.3 (degree 11, float64) from bench/polyfit.py, evaluated with fused
multiply-adds. The result is p * 2**n: one `vscalef` with AVX-512
(`llvm.ldexp`, which rounds subnormal results once), else p * 2**(n>>1) *
2**(n - (n>>1)) by exponent bits. NaN propagates, +inf gives inf, -inf 0.
docs/ARCHITECTURE.md ("Vector maths") gives the measured errors.
"""
from __future__ import annotations

from llvmlite import ir

from .host import has_feature
from .irutil import declare, horner, intrinsic, routine
from .ltypes import F32, F64, I32, I64

__all__ = ["exp", "EXP_Q", "rounded_by_shifter", "one_plus_r_q", "times_power_of_two"]

# name: (float type, mantissa bits, clamp lo, clamp hi, ln2 in two parts)
_SPEC = {
    "f32": (F32, 23, -104.0, 89.0, 0.693359375, -2.12194440e-4),
    "f64": (F64, 52, -746.0, 710.0, 6.93145751953125e-1, 1.42860682030941723212e-6),
}
_LOG2E = 1.4426950408889634
# e**r = 1 + r + q[2] r**2 + ... on |r| <= ln(2)/2 (bench/polyfit.py, leading 1 fixed)
EXP_Q = {
    "f32": (1.0000000322037672, 0.49999994201820974, 0.16666431073480018, 0.0416680031494345,
            0.008374171715778232, 0.0013843633620689024),
    "f64": (1.0, 0.5000000000000012, 0.1666666666666622, 0.04166666666651759, 0.00833333333354929,
            0.001388888894641551, 0.0001984126943751304, 2.4801490569513e-05, 2.7557626120381832e-06,
            2.7631059002221517e-07, 2.499160754197385e-08),
}


def exp(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """e**x for a float32/float64 register value (vectorisable)."""
    key = "f32" if x.type == F32 else "f64"
    return routine(b, f"ag.exp.{key}", x, lambda fb, a: _exp(fb, a, key))


def _exp(b: ir.IRBuilder, x, key):
    ft, mant, lo, hi, ln2_hi, ln2_lo = _SPEC[key]

    def c(v):
        return ir.Constant(ft, v)

    def fma(p, q, r):
        return intrinsic(b, "fma", [p, q, r])

    # Ordered compares let NaN through both clamps.
    xc = b.select(b.fcmp_ordered("<", x, c(lo)), c(lo), x)
    xc = b.select(b.fcmp_ordered(">", xc, c(hi)), c(hi), xc)
    shifter = 1.5 * 2.0 ** mant
    ni, n = rounded_by_shifter(b, fma(xc, c(_LOG2E), c(shifter)), shifter)   # round(x / ln 2)
    r = fma(b.fneg(n), c(ln2_hi), xc)                           # exact
    r = fma(b.fneg(n), c(ln2_lo), r)
    return times_power_of_two(b, one_plus_r_q(b, r, EXP_Q[key]), ni)


def rounded_by_shifter(b: ir.IRBuilder, s, shifter: float):
    """The integer n that `s = v + shifter` (shifter 1.5 * 2**p, p the mantissa bits)
    holds in its low mantissa bits: as an int32 and as a float. n is read from the
    bits (no float-to-int conversion, which LLVM makes poison for NaN) and made a
    float by a conversion, since `s - shifter` would be folded to v under
    fastmath=True (fast-math flags reach the routines). int32: AVX2 lacks int64 ->
    double, and every exponent fits."""
    it = I32 if s.type == F32 else I64
    ni = b.sub(b.bitcast(s, it), b.bitcast(ir.Constant(s.type, shifter), it))
    if it is I64:
        ni = b.trunc(ni, I32)
    return ni, b.sitofp(ni, s.type)


def one_plus_r_q(b: ir.IRBuilder, r, q):
    """1 + r q(r) with q's coefficients `q` (lowest first), by Horner with FMAs."""
    return intrinsic(b, "fmuladd", [r, horner(b, r, q), ir.Constant(r.type, 1.0)])


def times_power_of_two(b: ir.IRBuilder, p, ni):
    """p * 2**ni (ni int32, |ni| small enough that p * 2**(ni >> 1) stays normal):
    one `vscalef` (`llvm.ldexp`) where the host has AVX-512, else two multiplies by
    powers of two built in the exponent field, the second rounding once (subnormal
    results included; overflow gives inf). `llvm.ldexp` is a libm call per lane
    without AVX-512."""
    ft = p.type
    if has_feature("avx512f"):
        key = "f32" if ft == F32 else "f64"
        return b.call(declare(b.module, f"llvm.ldexp.{key}.i32", ft, [ft, I32]), [p, ni])
    it, mant, bias = (I32, 23, 127) if ft == F32 else (I64, 52, 1023)
    if it is I64:
        ni = b.sext(ni, it)
    n1 = b.ashr(ni, ir.Constant(it, 1))

    def pow2(k):
        return b.bitcast(b.shl(b.add(k, ir.Constant(it, bias)), ir.Constant(it, mant)), ft)

    return b.fmul(b.fmul(p, pow2(n1)), pow2(b.sub(ni, n1)))
