"""Vectorisable sinh and cosh (float32 and float64) as branch-free LLVM IR.

One exponential core serves both signs of the exponent, without a division
and without a second exp: |x| = n ln2 + r (|r| <= ln2/2, ln2 in two parts,
n*ln2_hi exact, the rounding of r carried as `corr`) and
e**r = (1 + e2) + (r + o) with e2 = cosh(r) - 1 = u E(u) and o = sinh(r) - r
= r u O(u), u = r*r (E, O near-minimax fits from bench/polyfit.py), so that
e**-r = (1 + e2) - (r + o) costs nothing more. With s = 2**-2n:

    sinh|x| = 2**(n-1) (e**r - s e**-r) = 2**(n-1) (A (1 + e2) + B (r + o)),
    A = 1 - s, B = 1 + s;   cosh: A = 1 + s, B = 1 - s

(n = 0 gives sinh(r) and cosh(r) themselves, so no separate series for
small |x|; A's rounding error, once s is below the last bit of 1, is added
back exactly). The sum is ordered so that no intermediate is larger
than the result: h = A + B r by one FMA with its rounding error recovered by
a second (A - h is exact), then the small terms A e2 + B (o + corr) + that
error, then one final addition. The sum is formed doubled (2A, 2B: constants
2 -+ 2s) and scaled by 2**(n-2): one rounding, exact for subnormal sinh,
overflowing exactly where sinh/cosh do (|x| clamped just above the
threshold, 89.5 / 710.6, so that n stays in the exponent range; beyond
n = 20 / 40, s is held at 2**-40 / 2**-80, as negligible as its true
value). sinh takes x's sign (signed zeros kept); NaN propagates (the
ordered clamp lets it through), +-inf gives inf. docs/ARCHITECTURE.md
("Vector maths") gives the measured errors.
"""
from __future__ import annotations

from llvmlite import ir

from .irutil import horner, intrinsic, routine
from .ltypes import F32, I32, I64

__all__ = ["sinh", "cosh"]

# per dtype: (ln2 hi (n*hi exact), ln2 lo, clamp, mantissa bits, bias, cap on n for s)
_SPEC = {"f64": (6.93147180369123816490e-01, 1.90821492927058770002e-10, 710.6, 52, 1023, 40),
         "f32": (0.693359375, -2.12194440e-4, 89.5, 23, 127, 20)}
# cosh(r) - 1 = u E(u), sinh(r) - r = r u O(u) on u <= (ln2/2)**2 (bench/polyfit.py:
# relative errors 2**-52 and 2**-53 (float64), 2**-28.5 and 2**-30 (float32))
_E = {"f64": (0.5000000000000001, 0.041666666666624254, 0.001388888891716065,
              2.480152136664777e-05, 2.762005901981432e-07),
      "f32": (0.500000001340754, 0.04166646531394825, 0.0013933617626963031)}
_O = {"f64": (0.16666666666666669, 0.008333333333330067, 0.00019841269863028911,
              2.755726849333368e-06, 2.510037154328721e-08),
      "f32": (0.16666666681586512, 0.008333310949958673, 0.00019890970442475124)}
_INV_LN2 = 1.4426950408889634


def sinh(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Hyperbolic sine of a float32/float64 register value (vectorisable)."""
    return _routine(b, "sinh", x)


def cosh(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Hyperbolic cosine of a float32/float64 register value (vectorisable)."""
    return _routine(b, "cosh", x)


def _routine(b, kind, x):
    key = "f32" if x.type == F32 else "f64"
    return routine(b, f"ag.{kind}.{key}", x, lambda fb, a: _hyper(fb, a, key, kind))


def _hyper(b, x, key, kind):
    t = x.type
    it = I32 if key == "f32" else I64
    ln2_hi, ln2_lo, top, mant, bias, cap = _SPEC[key]

    def c(v):
        return ir.Constant(t, v)

    def ic(v):
        return ir.Constant(it, v)

    def fma(p, q, r):
        return intrinsic(b, "fma", [p, q, r])

    ax = intrinsic(b, "fabs", [x])
    # clamp (a NaN passes: ordered compare false; it then propagates through the arithmetic)
    xc = b.select(b.fcmp_ordered(">", ax, c(top)), c(top), ax)
    n = intrinsic(b, "roundeven", [b.fmul(xc, c(_INV_LN2))])
    hi = fma(b.fneg(n), c(ln2_hi), xc)                             # exact
    r = fma(b.fneg(n), c(ln2_lo), hi)
    corr = fma(b.fneg(n), c(ln2_lo), b.fsub(hi, r))                # what rounding r dropped
    u = b.fmul(r, r)
    e2 = b.fmul(u, horner(b, u, _E[key]))                         # cosh(r) - 1
    o = b.fmul(b.fmul(r, u), horner(b, u, _O[key]))               # sinh(r) - r
    ni = b.fptosi(n, it)
    # twice the bracket: 2A = 2 -+ s2, 2B = 2 +- s2, s2 = 2 s = 2**(1 - 2n). Beyond n = cap
    # s2 is kept at 2**(1 - 2 cap), as negligible as the true value (both far below the
    # last bit), so its exponent needs no clamp at the bottom of the range.
    nc = b.select(b.icmp_signed("<", ni, ic(cap)), ni, ic(cap))
    s2 = b.bitcast(b.sub(ic((bias + 1) << mant), b.shl(nc, ic(mant + 1))), t)
    two = c(2.0)
    if kind == "sinh":
        a, bb = b.fsub(two, s2), b.fadd(two, s2)
    else:
        a, bb = b.fadd(two, s2), b.fsub(two, s2)
    # 2 -+ s2 is inexact once s2 < 2**-precision (n >= 12 float32, 27 float64): a's
    # rounding error (exact) joins the small terms; bb's (times |r| <= ln2/2) is left
    h = fma(bb, r, a)
    h_err = fma(bb, r, b.fsub(a, h))                               # a - h exact
    if kind == "sinh":
        h_err = b.fsub(h_err, b.fadd(s2, b.fsub(a, two)))          # a = 2 - s2 - that
    else:
        h_err = b.fadd(h_err, b.fsub(s2, b.fsub(a, two)))          # a = 2 + s2 - that
    small = fma(a, e2, fma(bb, b.fadd(o, corr), h_err))
    total = b.fadd(h, small)                                       # 2 * bracket
    scale = b.bitcast(b.shl(b.add(ni, ic(bias - 2)), ic(mant)), t)
    res = b.fmul(total, scale)
    if kind == "sinh":
        res = intrinsic(b, "copysign", [res, x])
    return res
