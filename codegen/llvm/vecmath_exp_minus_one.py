"""Vectorisable expm1 (float32 and float64) as branch-free LLVM IR.

x = k ln2 + r (|r| <= ln2/2; ln2 in two parts, k*ln2_hi exact, the rounding
of r carried as `corr`), e**r - 1 - r = q = r*r E(r) with E a near-minimax
fit (bench/polyfit.py: degree 10, relative error 2**-57, float64; degree 5,
2**-28.5, float32, computed in float32: 16 lanes with AVX-512); k by the
shifter 1.5 * 2**p (fma(x, 1/ln2, S) - S; T's bits come from the same sum).
With T = 2**(k-1):

    expm1(x) = 2 ((T - 1/2) + T r + T (q + corr)),

where T r is exact (a power of two), T - 1/2 is exact up to k = 53 / 24
(beyond, the dropped 1/2 is below half an ulp of the result), and
|T - 1/2| >= |T r| for every k, so (T - 1/2) + T r is split exactly by
Fast2Sum (h, err); the small terms T (q + corr) + err join with one
rounding, and the last addition rounds once more. No cancellation is left
(k = 0: h = r/2 exactly), no division, no case selects but one: |x| below
2**-54 / 2**-25 returns x itself (the halving would round a subnormal).
The final doubling overflows exactly where expm1 does (x clamped to
[-60, 709.9] / [-30, 88.8], so T stays normal); NaN propagates, -inf gives -1.
"""
from __future__ import annotations

from llvmlite import ir

from .irutil import horner, intrinsic, routine
from .ltypes import F32, I32, I64

__all__ = ["expm1", "EXPM1_E"]

# (ln2 hi (k*hi exact), ln2 lo, clamp lo, clamp hi, mantissa bits, bias, tiny)
_SPEC = {"f64": (6.93147180369123816490e-01, 1.90821492927058770002e-10, -60.0, 709.9, 52, 1023,
                 2.0 ** -54),
         "f32": (0.693359375, -2.12194440e-4, -30.0, 88.8, 23, 127, 2.0 ** -25)}
# E(r) = (e**r - 1 - r) / r**2 on |r| <= ln2/2 (bench/polyfit.py)
EXPM1_E = {"f64": (0.5, 0.1666666666666667, 0.04166666666666664, 0.008333333333326138,
              0.0013888888888904708, 0.00019841269874807383, 2.480158727578211e-05,
              2.7557255416812342e-06, 2.7557321492366877e-07, 2.5105210520343933e-08,
              2.089863345941371e-09),
      "f32": (0.5000000013395576, 0.16666666532186453, 0.04166646536678765, 0.008333360742907726,
              0.0013933615472932624, 0.00019857801783120557)}
_INV_LN2 = 1.4426950408889634


def expm1(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """e**x - 1 of a float32/float64 register value, accurate for tiny x (vectorisable)."""
    key = "f32" if x.type == F32 else "f64"
    return routine(b, f"ag.expm1.{key}", x, lambda fb, a: _expm1(fb, a, key))


def _expm1(b, x, key):
    t = x.type
    lo, hi, tiny = _SPEC[key][2], _SPEC[key][3], _SPEC[key][6]

    def c(v):
        return ir.Constant(t, v)

    # ordered clamps: a NaN passes and propagates through the arithmetic
    xc = b.select(b.fcmp_ordered(">", x, c(hi)), c(hi), x)
    xc = b.select(b.fcmp_ordered("<", xc, c(lo)), c(lo), xc)
    y = b.fmul(half_expm1(b, xc, key, exact_top=True), c(2.0))
    return b.select(b.fcmp_ordered("<", intrinsic(b, "fabs", [x]), c(tiny)), x, y)


def half_expm1(b, x, key, exact_top=False):
    """expm1(x) / 2 for x in the clamp range of `_SPEC` (NaN propagates). With
    `exact_top`, also the 1/2 that 2**(k-1) - 1/2 drops for k > 53 / 24 is added
    back (tanh does not need it: its result is 1 there)."""
    half_t, tr, qc = expm1_parts(b, x, key)
    a = b.fsub(half_t, ir.Constant(x.type, 0.5))
    h, err = fast_two_sum(b, a, tr)
    if exact_top:
        # T - 1/2 rounded (k > 53 / 24): (T - a) - 1/2 is what it dropped, exactly
        err = b.fadd(err, b.fsub(b.fsub(half_t, a), ir.Constant(x.type, 0.5)))
    return b.fadd(h, intrinsic(b, "fma", [half_t, qc, err]))


def fast_two_sum(b, a, c):
    """(s, e) with s = fl(a + c), s + e = a + c exactly, given |a| >= |c| (or a = 0)."""
    s = b.fadd(a, c)
    return s, b.fsub(c, b.fsub(s, a))


def expm1_parts(b, x, key):
    """(T, T r, q + corr) with T = 2**(k-1), so that e**x = 2 (T + T r + T (q + corr))
    (T r exact): x = k ln2 + r + corr, q = e**r - 1 - r."""
    t = x.type
    it = I32 if key == "f32" else I64
    ln2_hi, ln2_lo, mant, bias = _SPEC[key][0], _SPEC[key][1], _SPEC[key][4], _SPEC[key][5]

    def c(v):
        return ir.Constant(t, v)

    def fma(p, q, r):
        return intrinsic(b, "fma", [p, q, r])

    # k = round(x/ln2) by the shifter 1.5 * 2**mant: the sum's low bits are k itself
    shifter = 1.5 * 2.0 ** mant
    ks = fma(x, c(_INV_LN2), c(shifter))
    k = b.fsub(ks, c(shifter))
    rh = fma(b.fneg(k), c(ln2_hi), x)                            # exact
    r = fma(b.fneg(k), c(ln2_lo), rh)
    corr = fma(b.fneg(k), c(ln2_lo), b.fsub(rh, r))              # what rounding r dropped
    q = b.fmul(b.fmul(r, r), horner(b, r, EXPM1_E[key]))
    # T = 2**(k-1): k's bits shifted into the exponent field (the shifter's own bits
    # shift out), plus the bias
    half_t = b.bitcast(b.add(b.shl(b.bitcast(ks, it), ir.Constant(it, mant)),
                             ir.Constant(it, (bias - 1) << mant)), t)
    return half_t, b.fmul(half_t, r), b.fadd(q, corr)
