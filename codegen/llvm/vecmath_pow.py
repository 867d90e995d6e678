"""Vectorisable x**y for float32 and float64 as branch-free LLVM IR.

`llvm.pow` is a call of libm's scalar `pow`, which keeps a loop scalar.

float64: exp(y * log|x|) with log|x| and the product carried in double-double,
so that the error of y*log|x| (up to 745 in size) stays near 2**-60 and the
result within about 1 ulp:

* log: |x| = 2**k * m (m in [sqrt(2)/2, sqrt(2)), subnormals scaled first),
  f = m - 1, s = f/(2 + f) in double-double (one division: s = f*(1/d) and
  its residual times 1/d), log m = 2s + 2/3 s**3 + s**5 Q(s**2)
  (atanh's series; the 2/3 s**3 term in double-double, Q's 13 terms in
  double), plus k ln2 (ln2 in two parts, k*ln2_hi exact).
* z = y*log|x| = zh + zl (the product split exactly with FMA).
* exp: zh = n ln2 + r (Cody-Waite, exact), e**r by its Taylor series to r**14
  (|r| <= ln2/2), e**zl folded in as (1 + zl), scaled by 2**n in two steps
  (so subnormal results are rounded once).

float32: in float64 without the double-double and without divisions:
log2|x| = k + f*P(f)/ln2 (P a degree-13 fit of log1p(f)/f, relative error
2**-38), z = y*log2|x|, 2**z by 2**n and the Taylor series of 2**r to r**11
(|r| <= 1/2); the result (relative error about 2**-35, far below float32's)
is rounded once to float32.

Special cases are C99's (and NumPy's), as selects: x**0 = 1 and 1**y = 1 for
any x, y (NaN too); NaN otherwise propagates; a negative finite x with a
non-integer finite y gives NaN; an odd integer y keeps the sign of x (-0
included); 0**y and inf**y give 0 or inf by the sign of y; y = +-inf gives
0, 1 or inf by whether |x| is below, at or above 1.
"""
from __future__ import annotations

import math

from llvmlite import ir

from . import vecmath
from .irutil import intrinsic
from .ltypes import F32, F64, I32, I64
from .ddmath import c64 as _c, fma as _fma, mad as _mad, two_sum as _two_sum

__all__ = ["pow_", "log_dd", "exp_dd", "log2_f32", "exp2_f64_cheap"]


def pow_(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """x**y for float32/float64 register values of one type (vectorisable)."""
    key = "f32" if x.type == F32 else "f64"
    name = f"ag.pow.{key}"
    fn = b.module.globals.get(name)
    if fn is None:
        ft = x.type
        fn = ir.Function(b.module, ir.FunctionType(ft, [ft, ft]), name)
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        fn.attributes.add("nounwind")
        fb = ir.IRBuilder(fn.append_basic_block("entry"))
        fx, fy = fn.args
        if key == "f64":
            fb.ret(_special_cases(fb, fx, fy, _pow64(fb, intrinsic(fb, "fabs", [fx]), fy)))
        else:
            xd, yd = fb.fpext(fx, F64), fb.fpext(fy, F64)
            general = _pow32(fb, intrinsic(fb, "fabs", [fx]), yd)
            fb.ret(fb.fptrunc(_special_cases(fb, xd, yd, general), F32))
    return b.call(fn, [x, y])


_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10   # hi: 32 bits
_TWO_THIRDS_HI = 0.6666666666666666
_TWO_THIRDS_LO = 3.700743415417188e-17
# Q(w) = 2/5 + 2/7 w + ... (atanh's series after the s**3 term), w = s*s <= 0.0295
_Q = tuple(2.0 / (2 * n + 5) for n in range(13))
_EXP_TAYLOR = tuple(1.0 / math.factorial(n) for n in range(2, 15))


def log_dd(b, ax):
    """log(ax) as (hi, lo) to about 2**-64 relative, for a float64 ax > 0 finite
    (garbage, never a trap, otherwise)."""
    tiny = b.fcmp_ordered("<", ax, _c(2.0 ** -1022))
    xs = b.select(tiny, b.fmul(ax, _c(2.0 ** 54)), ax)
    k, m = vecmath._reduce(b, xs, "f64")
    kf = b.sitofp(k, F64)
    kf = b.select(tiny, b.fsub(kf, _c(54.0)), kf)
    f = b.fsub(m, _c(1.0))                                   # exact (Sterbenz)
    d, dl = _two_sum(b, _c(2.0), f)                          # d + dl = 2 + f
    inv = b.fdiv(_c(1.0), d)                                 # one division for both parts
    s = b.fmul(f, inv)
    t = b.fsub(_fma(b, b.fneg(s), d, f), b.fmul(s, dl))     # f - s*(d + dl), exact first part
    sl = b.fmul(t, inv)
    # s**3 in double-double, times 2/3 in double-double
    s2h = b.fmul(s, s)
    s2l = _fma(b, s, s, b.fneg(s2h))
    s3h = b.fmul(s2h, s)
    # (s + sl)**3 = s**3 + 3 s**2 sl + ...: the sl term counts three times
    s3l = b.fadd(_fma(b, s2h, s, b.fneg(s3h)), _mad(b, s2l, s, b.fmul(b.fmul(_c(3.0), s2h), sl)))
    ch = b.fmul(_c(_TWO_THIRDS_HI), s3h)
    cl = b.fadd(_fma(b, _c(_TWO_THIRDS_HI), s3h, b.fneg(ch)),
                _mad(b, _c(_TWO_THIRDS_LO), s3h, b.fmul(_c(_TWO_THIRDS_HI), s3l)))
    acc = _c(_Q[-1])
    for q in reversed(_Q[:-1]):
        acc = _mad(b, s2h, acc, _c(q))
    rest = b.fmul(b.fmul(s3h, s2h), acc)                     # s**5 Q(s**2)
    two_s = b.fmul(_c(2.0), s)
    a, e = _two_sum(b, two_s, ch)
    lo = b.fadd(b.fadd(e, cl), b.fadd(b.fmul(_c(2.0), sl), rest))
    hi, e2 = _two_sum(b, b.fmul(kf, _c(_LN2_HI)), a)         # k*ln2_hi exact
    lo = b.fadd(lo, _mad(b, kf, _c(_LN2_LO), e2))
    h = b.fadd(hi, lo)
    return h, b.fadd(b.fsub(hi, h), lo)


def _pow64(b, ax, y):
    lh, ll = log_dd(b, ax)
    zh = b.fmul(y, lh)
    zl = _mad(b, y, ll, _fma(b, y, lh, b.fneg(zh)))
    return exp_dd(b, zh, zl)


def exp_dd(b, zh, zl):
    """e**(zh + zl) in float64 (|zl| tiny against zh): about 0.6 ulp; inf above
    the overflow threshold, 0 below the underflow one, subnormals rounded once."""
    # clamp (results there are inf or 0 anyway) so that the exponent stays in range
    out = b.or_(b.fcmp_unordered(">", zh, _c(710.0)), b.fcmp_ordered("<", zh, _c(-746.0)))
    zh = b.select(b.fcmp_unordered(">", zh, _c(710.0)), _c(710.0), zh)
    zh = b.select(b.fcmp_ordered("<", zh, _c(-746.0)), _c(-746.0), zh)
    zl = b.select(out, _c(0.0), zl)
    n = intrinsic(b, "roundeven", [b.fmul(zh, _c(1.4426950408889634))])
    r1 = _fma(b, b.fneg(n), _c(_LN2_HI), zh)                 # exact
    rh, rl = _two_sum(b, r1, b.fmul(b.fneg(n), _c(_LN2_LO)))
    rl = b.fadd(rl, zl)
    acc = _c(_EXP_TAYLOR[-1])
    for c in reversed(_EXP_TAYLOR[:-1]):
        acc = _mad(b, rh, acc, _c(c))
    p = _mad(b, b.fmul(rh, rh), acc, rh)                     # e**rh - 1
    e = b.fadd(_c(1.0), b.fadd(p, _mad(b, rl, p, rl)))       # e**rh * (1 + rl)
    ni = b.fptosi(n, I64)
    n1 = b.ashr(ni, ir.Constant(I64, 1))
    n2 = b.sub(ni, n1)

    def pow2(k):
        return b.bitcast(b.shl(b.add(k, ir.Constant(I64, 1023)), ir.Constant(I64, 52)), F64)

    return b.fmul(b.fmul(e, pow2(n1)), pow2(n2))


# log1p(f)/f on [sqrt(2)/2 - 1, sqrt(2) - 1] (a degree-13 least-squares fit at
# Chebyshev points: relative error 2**-38, ample for float32 and no division)
_LOG1P_OVER_F = (0.9999999999983142, -0.4999999999145948, 0.33333333462594855, -0.2500000238418598,
                 0.1999998519538411, -0.1666646998624702, 0.14286252641403854, -0.12507102160382996,
                 0.11105664470794747, -0.0987526169866763, 0.09025066303771255, -0.09337891156689075,
                 0.09211528175199667, -0.04853445843641245)
# 2**r = sum (r ln2)**i / i!, |r| <= 1/2: to i = 11, error 2**-44
_EXP2 = tuple(math.log(2.0) ** i / math.factorial(i) for i in range(12))
_INV_LN2 = 1.4426950408889634


def _pow32(b, ax, y):
    """|x|**y in float64 for a float32 |x| (finite, nonzero: the rest is
    `_special_cases`): log2 and exp2 to about 2**-38, no division."""
    return exp2_f64_cheap(b, b.fmul(y, log2_f32(b, ax)))


def log2_f32(b, ax):
    """log2 of a float32 ax > 0 finite, in float64 to about 2**-38 relative (no division)."""
    sub = b.fcmp_ordered("<", ax, ir.Constant(F32, 2.0 ** -126))
    axs = b.select(sub, b.fmul(ax, ir.Constant(F32, 2.0 ** 25)), ax)
    k, m = vecmath._reduce(b, axs, "f32")
    kf = b.sitofp(k, F64)
    kf = b.select(sub, b.fsub(kf, _c(25.0)), kf)
    f = b.fsub(b.fpext(m, F64), _c(1.0))                     # exact
    acc = _c(_LOG1P_OVER_F[-1])
    for c in reversed(_LOG1P_OVER_F[:-1]):
        acc = _mad(b, f, acc, _c(c))
    return _mad(b, b.fmul(f, acc), _c(_INV_LN2), kf)


def exp2_f64_cheap(b, z):
    """2**z in float64 to about 2**-44 relative, for results meant for float32:
    z is clamped to [-200, 200] (0 and inf once rounded to float32)."""
    z = b.select(b.fcmp_unordered(">", z, _c(200.0)), _c(200.0), z)
    z = b.select(b.fcmp_ordered("<", z, _c(-200.0)), _c(-200.0), z)
    n = intrinsic(b, "roundeven", [z])
    r = b.fsub(z, n)                                          # exact
    acc = _c(_EXP2[-1])
    for c in reversed(_EXP2[:-1]):
        acc = _mad(b, r, acc, _c(c))
    scale = b.bitcast(b.shl(b.add(b.fptosi(n, I64), ir.Constant(I64, 1023)), ir.Constant(I64, 52)), F64)
    return b.fmul(acc, scale)


def _special_cases(b, x, y, general):
    """C99's pow special cases around `general` (|x|**y for finite nonzero x, finite y)."""
    t = x.type

    def c(v):
        return ir.Constant(t, v)

    inf = c(float("inf"))
    ax, ay = intrinsic(b, "fabs", [x]), intrinsic(b, "fabs", [y])
    y_fin = b.fcmp_ordered("<", ay, inf)
    y_int = b.and_(y_fin, b.fcmp_ordered("==", intrinsic(b, "roundeven", [y]), y))
    half = b.fmul(y, c(0.5))
    y_odd = b.and_(y_int, b.fcmp_ordered("!=", intrinsic(b, "roundeven", [half]), half))
    y_neg = b.fcmp_ordered("<", y, c(0.0))
    r = general
    r = b.select(b.fcmp_ordered("==", ax, c(0.0)), b.select(y_neg, inf, c(0.0)), r)
    r = b.select(b.fcmp_ordered("==", ax, inf), b.select(y_neg, c(0.0), inf), r)
    above, below = b.fcmp_ordered(">", ax, c(1.0)), b.fcmp_ordered("<", ax, c(1.0))
    r = b.select(b.fcmp_ordered("==", y, inf),
                 b.select(above, inf, b.select(below, c(0.0), c(1.0))), r)
    r = b.select(b.fcmp_ordered("==", y, b.fneg(inf)),
                 b.select(above, c(0.0), b.select(below, inf, c(1.0))), r)
    bits = I64 if t == F64 else I32
    x_signed = b.icmp_signed("<", b.bitcast(x, bits), ir.Constant(bits, 0))
    r = b.select(b.and_(x_signed, y_odd), b.fneg(r), r)
    bad = b.and_(b.and_(b.fcmp_ordered("<", x, c(0.0)), b.fcmp_ordered("<", ax, inf)),
                 b.and_(y_fin, b.not_(y_int)))
    r = b.select(bad, c(float("nan")), r)
    nan = b.or_(b.fcmp_unordered("uno", x, x), b.fcmp_unordered("uno", y, y))
    r = b.select(nan, b.fadd(x, y), r)
    one = b.or_(b.fcmp_ordered("==", y, c(0.0)), b.fcmp_ordered("==", x, c(1.0)))
    return b.select(one, c(1.0), r)
