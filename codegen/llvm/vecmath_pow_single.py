"""Vectorisable float32 x**y as branch-free LLVM IR.

In float64, rounded once to float32: log2|x| = k + f L(f) (|x| = 2**k m,
m in [sqrt(2)/2, sqrt(2)), f = m - 1 exact; L a near-minimax fit of
log2(1 + f)/f, degree 11, relative error 2**-33), z = y log2|x| (|z| <= 200
matters: beyond, the result is 0 or inf in float32), 2**z = 2**n p(z - n)
(p a near-minimax fit of degree 7, relative error 2**-34). The error of
z, about 2**-33 |z| <= 2**-25.4, is below float32's half ulp, so the
result is about 0.5 ulp.

The polynomials are evaluated by Estrin's scheme, not Horner's: a loop
with a long chain of dependent multiply-adds is limited by how many
iterations the out-of-order window holds, not by the arithmetic (with
Horner's 23 dependent steps, and longer Taylor series, this routine took
1.8 times as long). C99's special cases (`vecmath_pow._special_cases_full`) are
applied to the float32 result, in float32 (16 lanes, not 8); log2|x| is
-inf for x = 0 and inf for |x| = inf, so that those bases and y = +-inf
saturate the exponential to 0 or inf by themselves.
"""
from __future__ import annotations

from llvmlite import ir

from .irutil import intrinsic
from .ltypes import F32, F64, I32, I64

__all__ = ["pow32", "estrin", "reduce_log", "saturate_log"]

# log2(1 + f) / f on [sqrt(2)/2 - 1, sqrt(2) - 1], 2**r on [-1/2, 1/2] (bench/polyfit.py)
_LOG2 = (1.4426950409393577, -0.7213475252130804, 0.4808983207234259, -0.360672800565613,
         0.2885406440481255, -0.24050417359805684, 0.2060962418946201, -0.1790469507810644,
         0.15900167468941767, -0.15698242382686256, 0.15485674464261856, -0.08634482465221686)
_EXP2 = (1.0, 0.6931471807045374, 0.24022651066567657, 0.05550410365976788,
         0.009618038131302954, 0.0013333935066190167, 0.00015466756520722742,
         1.5196154287037783e-05)


def estrin(b, x, coeffs):
    """sum coeffs[i] x**i by Estrin's scheme (pairs c0 + c1 x, then x**2, x**4 ...):
    the same number of multiply-adds as Horner's rule, a dependency chain of
    about log2(len) of them."""
    t = x.type
    terms = [ir.Constant(t, cf) for cf in coeffs]
    p = x
    while len(terms) > 1:
        nxt = [intrinsic(b, "fmuladd", [p, terms[i + 1], terms[i]])
               for i in range(0, len(terms) - 1, 2)]
        if len(terms) % 2:
            nxt.append(terms[-1])
        terms = nxt
        if len(terms) > 1:
            p = b.fmul(p, p)
    return terms[0]


def reduce_log(b, x, key):
    """(k, m) with x = 2**k m, m in [sqrt(2)/2, sqrt(2)), k an integer of x's width,
    for a positive normal x: k from the bits of x - bits(sqrt(2)/2), m by taking
    k out of x's exponent (one subtraction, no masking of the mantissa)."""
    it, shift, off = (I32, 23, 0x3F3504F3) if key == "f32" else (I64, 52, 0x3FE6A09E667F3BCD)
    ix = b.bitcast(x, it)
    tmp = b.sub(ix, ir.Constant(it, off))
    k = b.ashr(tmp, ir.Constant(it, shift))
    m = b.sub(ix, b.and_(tmp, ir.Constant(it, -(1 << shift))))
    return k, b.bitcast(m, x.type)


def saturate_log(b, ax, lg):
    """lg, or -inf for ax = 0 and +inf for ax = inf (float64 lg of float32 or
    float64 ax), so that y lg saturates the exponential to 0 or inf."""
    t = ax.type
    lg = b.select(b.fcmp_ordered("==", ax, ir.Constant(t, float("inf"))), ir.Constant(F64, float("inf")), lg)
    return b.select(b.fcmp_ordered("==", ax, ir.Constant(t, 0.0)), ir.Constant(F64, float("-inf")), lg)


def pow32(b, x, y):
    """|x|**y rounded to float32 for float32 x and y (finite nonzero x, finite y;
    0 or inf for x = 0, |x| = inf, y = +-inf with |x| != 1; the caller adds the
    other special cases)."""
    ax = intrinsic(b, "fabs", [x])
    sub = b.fcmp_ordered("<", ax, ir.Constant(F32, 2.0 ** -126))
    axs = b.select(sub, b.fmul(ax, ir.Constant(F32, 2.0 ** 25)), ax)
    k, m = reduce_log(b, axs, "f32")
    kf = b.sitofp(k, F64)
    kf = b.select(sub, b.fsub(kf, ir.Constant(F64, 25.0)), kf)
    f = b.fsub(b.fpext(m, F64), ir.Constant(F64, 1.0))               # exact
    lg = saturate_log(b, ax, intrinsic(b, "fmuladd", [f, estrin(b, f, _LOG2), kf]))
    z = b.fmul(b.fpext(y, F64), lg)
    # clamp (beyond, 0 or inf in float32; a NaN goes on and is replaced by the caller)
    c = lambda v: ir.Constant(F64, v)  # noqa: E731
    z = b.select(b.fcmp_ordered(">", z, c(200.0)), c(200.0), z)
    z = b.select(b.fcmp_ordered("<", z, c(-200.0)), c(-200.0), z)
    # (roundeven, not the 1.5 * 2**52 shifter: with fastmath=True LLVM would fold
    # (z + S) - S into z)
    n = intrinsic(b, "roundeven", [z])
    p = estrin(b, b.fsub(z, n), _EXP2)
    scale = b.bitcast(b.shl(b.add(b.fptosi(n, I64), ir.Constant(I64, 1023)), ir.Constant(I64, 52)), F64)
    return b.fptrunc(b.fmul(p, scale), F32)
