"""Vectorisable tanh (float32 and float64) as branch-free LLVM IR.

tanh|x| = 1 - 2/(e + 1) above log(3)/2 (no cancellation there: the result
is at least 1/2), with e = e**(2|x|) inlined: 2|x| = k ln2 + r with k by the
shifter 1.5 * 2**p (the sum's low bits are k: no round and convert; 2**k from
the same bits), e**r - 1 = r + r*r E(r) with expm1's fits
(`vecmath_exp_minus_one.EXPM1_E`; float32 the 5-term one of `_E32`). Below
log(3)/2, |x| + |x|**3 P(x*x), P a fit (11 terms float64, 5 float32).
Both are computed and one selected; one division. float32 computes in
float32 (16 lanes) and reduces with ln2 in one part (k <= 29). |x| is
clamped at 10 / 22, where tanh rounds to 1; the sign is x's (signed zeros
kept), NaN propagates (the ordered clamp lets it through), +-inf gives +-1.
"""
from __future__ import annotations

from llvmlite import ir

from .irutil import horner, intrinsic, routine
from .ltypes import F32, F64, I32, I64
from .vecmath_exp_minus_one import EXPM1_E

__all__ = ["tanh"]

_TOP = {"f32": 10.0, "f64": 22.0}      # |x| beyond: tanh(x) rounds to +-1


def tanh(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Hyperbolic tangent of a float32/float64 register value (vectorisable)."""
    key = "f32" if x.type == F32 else "f64"
    return routine(b, f"ag.tanh.{key}", x, lambda fb, a: _tanh(fb, a, key))


def _tanh(b, x, key):
    t = x.type
    top = ir.Constant(t, _TOP[key])
    ax = intrinsic(b, "fabs", [x])
    ac = b.select(b.fcmp_ordered(">", ax, top), top, ax)       # a NaN passes
    th = _tanh_f32(b, ac) if key == "f32" else _tanh_f64(b, ac)
    return intrinsic(b, "copysign", [th, x])


def _tanh_f64(b, ac):
    """1 - 2/(e + 1) above log(3)/2 with e = e**(2 ac) = 2**k (1 + r + r*r E(r))
    (E: expm1's float64 fit, k by the shifter), ac + ac**3 P(ac**2) below (P the
    fit of `_TANH_P`); both computed, one selected. (h/(h + 1) with h = expm1(2 ac)/2
    alone is 2.2 ulp with rounded terms, and its exact-terms corrected form slower.)"""
    y = b.fadd(ac, ac)
    shifter = 1.5 * 2.0 ** 52
    ks = intrinsic(b, "fma", [y, _c64(1.4426950408889634), _c64(shifter)])
    k = b.fsub(ks, _c64(shifter))
    r = intrinsic(b, "fma", [b.fneg(k), _c64(6.93147180369123816490e-01), y])   # exact
    r = intrinsic(b, "fma", [b.fneg(k), _c64(1.90821492927058770002e-10), r])
    p = intrinsic(b, "fmuladd", [b.fmul(r, r), horner(b, r, EXPM1_E["f64"]), r])   # e**r - 1
    scale = b.bitcast(b.add(b.shl(b.bitcast(ks, I64), ir.Constant(I64, 52)),
                            ir.Constant(I64, 1023 << 52)), F64)
    e = intrinsic(b, "fmuladd", [p, scale, scale])
    big = b.fsub(_c64(1.0), b.fdiv(_c64(2.0), b.fadd(e, _c64(1.0))))
    z = b.fmul(ac, ac)
    small = b.fadd(ac, b.fmul(ac, b.fmul(z, horner(b, z, _TANH_P))))
    return b.select(b.fcmp_ordered(">", ac, _c64(0.5493061443340549)), big, small)


# tanh(x) = x + x**3 P(x*x) on |x| < log(3)/2 (float64): a least-squares fit in a
# Chebyshev basis of x*x, weighted to relative error, solved in np.longdouble
# (relative error 3e-18 with the float64 coefficients; the correction is < 0.1 x,
# so the result is rounded about once).
_TANH_P = (-0.333333333333333, 0.13333333333326505, -0.05396825396371674,
           0.021869488385071127, -0.008863232594559444, 0.0035920920104267496,
           -0.0014555429889863084, 0.0005884460589337047, -0.00023338781325674945,
           8.332834149016334e-05, -1.9503708023671477e-05)


def _c64(v):
    return ir.Constant(F64, v)


def _tanh_f32(b, ac):
    """float32 in float32 (16 lanes with AVX-512): ac + ac**3 P(ac**2) below log(3)/2
    (P a near-minimax fit, relative error 2**-24.6), 1 - 2/(e + 1) above with
    e = e**(2 ac) = 2**k (1 + r + r*r E(r)) (E: expm1's float32 fit; k by the
    shifter, 2**k from its bits). Both are computed and one selected: the
    fewest operations of the forms measured (E/(E + 2) alone, rounding both
    terms of the quotient, was 2.3 ulp; with exact terms, slower)."""
    def c(v):
        return ir.Constant(F32, v)

    def fma(p, q, r):
        return intrinsic(b, "fmuladd", [p, q, r])

    y = b.fadd(ac, ac)
    shifter = 1.5 * 2.0 ** 23
    ks = intrinsic(b, "fma", [y, c(1.4426950408889634), c(shifter)])
    k = b.fsub(ks, c(shifter))
    # one step: k*ln2's error (k <= 29 times ln2 - float32(ln2), 1.9e-9) is 2**-24 of
    # e at most, and 1 - 2/(e + 1) takes 3/8 of e's relative error
    r = intrinsic(b, "fma", [b.fneg(k), c(0.6931471824645996), y])
    acc = c(_E32[-1])
    for cf in reversed(_E32[:-1]):
        acc = fma(r, acc, c(cf))
    p = fma(b.fmul(r, r), acc, r)                                     # e**r - 1
    scale = b.bitcast(b.add(b.shl(b.bitcast(ks, I32), ir.Constant(I32, 23)),
                            ir.Constant(I32, 127 << 23)), F32)
    e = fma(p, scale, scale)
    big = b.fsub(c(1.0), b.fdiv(c(2.0), b.fadd(e, c(1.0))))
    z = b.fmul(ac, ac)
    acc = c(_P32[-1])
    for cf in reversed(_P32[:-1]):
        acc = fma(z, acc, c(cf))
    small = fma(b.fmul(ac, z), acc, ac)
    return b.select(b.fcmp_ordered(">", ac, c(0.5493061443340549)), big, small)


# tanh(x) = x + x**3 P(x*x) on |x| <= log(3)/2; e**r - 1 - r = r*r E(r) on |r| <= ln2/2
# (bench/polyfit.py; relative errors 2**-24.6 and 2**-22.9)
_P32 = (-0.3333333202404152, 0.1333311580484517, -0.05390983449099687, 0.021311866436270005,
        -0.0066148740228625675)
_E32 = (0.49999999552250834, 0.1666657724851879, 0.041666853544008, 0.008363152304413422,
        0.0013901285932690812)
