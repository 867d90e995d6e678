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
from .irutil import declare, intrinsic, routine
from .ltypes import F32, F64, I32, I64

__all__ = ["exp", "EXP_Q"]

# name: (float type, int type, mantissa bits, bias, clamp lo, clamp hi, ln2 in two parts)
_SPEC = {
    "f32": (F32, I32, 23, 127, -104.0, 89.0, 0.693359375, -2.12194440e-4),
    "f64": (F64, I64, 52, 1023, -746.0, 710.0, 6.93145751953125e-1, 1.42860682030941723212e-6),
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
    ft, it, mant, bias, lo, hi, ln2_hi, ln2_lo = _SPEC[key]

    def c(v):
        return ir.Constant(ft, v)

    def fma(p, q, r):
        return intrinsic(b, "fma", [p, q, r])

    # Ordered compares let NaN through both clamps.
    xc = b.select(b.fcmp_ordered("<", x, c(lo)), c(lo), x)
    xc = b.select(b.fcmp_ordered(">", xc, c(hi)), c(hi), xc)
    shifter = 1.5 * 2.0 ** mant
    s = fma(xc, c(_LOG2E), c(shifter))
    # round(x / ln 2) from the sum's bits, made a float by a conversion: `s - shifter`
    # would be folded to x / ln 2 under fastmath=True (fast-math flags reach this code).
    ni = b.trunc(b.sub(b.bitcast(s, it), b.bitcast(c(shifter), it)), I32) if key == "f64" else \
        b.sub(b.bitcast(s, it), b.bitcast(c(shifter), it))
    n = b.sitofp(ni, ft)                                        # int32: AVX2 lacks int64 -> double
    r = fma(b.fneg(n), c(ln2_hi), xc)                           # exact
    r = fma(b.fneg(n), c(ln2_lo), r)
    q = EXP_Q[key]
    acc = c(q[-1])
    for cf in reversed(q[:-1]):
        acc = intrinsic(b, "fmuladd", [r, acc, c(cf)])
    p = intrinsic(b, "fmuladd", [r, acc, c(1.0)])
    if has_feature("avx512f"):
        ldexp = declare(b.module, f"llvm.ldexp.{key}.i32", ft, [ft, I32])
        return b.call(ldexp, [p, ni])
    if key == "f64":
        ni = b.sext(ni, it)
    n1 = b.ashr(ni, ir.Constant(it, 1))
    n2 = b.sub(ni, n1)

    def pow2(k):
        return b.bitcast(b.shl(b.add(k, ir.Constant(it, bias)), ir.Constant(it, mant)), ft)

    return b.fmul(b.fmul(p, pow2(n1)), pow2(n2))
