"""Vectorisable math routines: log, log1p, expm1, tanh as branch-free LLVM IR.

(sin, cos, tan: vecmath_trig.py; pow: vecmath_pow.py; exp: mathfns.py.)

`llvm.log`, `llvm.tanh` and friends become calls of the C library's scalar
functions, which keep every loop that uses them scalar. The routines here
are internal, always-inlined functions with no branches (special cases are
`select`s), so the loop vectoriser widens them to the host's widest
vectors like any arithmetic.

Algorithms (the classic fdlibm reductions, coefficients from the published
minimax fits):

* log: x = 2**k * m with m in [sqrt(2)/2, sqrt(2)) (from the bits; a
  subnormal is first scaled by 2**54 / 2**25), f = m - 1, s = f / (2 + f),
  log(1 + f) = f - f*f/2 + s*(f*f/2 + R(s*s)) with R a minimax polynomial
  (7 terms float64, 4 terms float32), plus k*ln2 in two parts.
* log1p: the same core on u = 1 + x, with the rounding error of u carried
  as a first-order correction c = (x - (u - 1)) / u; for 1 + x in
  [sqrt(2)/2, sqrt(2)) the core runs on f = x itself.
* expm1: x = k ln2 + r (|r| <= ln2/2, r in two parts), expm1(r) = r + r*r*E(r)
  with E the Taylor series (to r**14; no division), then 2**k * (expm1(r) + 1) - 1
  rebuilt as (r + (1 - 2**-k) + ...) * 2**k for k >= 1 (the first sum exact) or
  expm1(r)*2**k + (2**k - 1) for k <= -1, so that no cancellation loses bits.
  float32 runs the same in float32 (E to r**8, 16 lanes), with k*ln2 in two
  parts and the rounding of r carried; beyond k = 24, s*2**k + ((e + rest)*2**k - 1).
* tanh: sign(x) * t: t = 1 - 2/(exp(2|x|) + 1) above log(3)/2 (exp inlined:
  n ln2 + r, expm1's Taylor polynomial (float32: Cephes' expf one), so no
  division but the one above; it
  cannot cancel there), x + x**3 P(x*x) below (P a least-squares fit in
  np.longdouble: 11 terms float64, 5 float32), 1 beyond 22 (float32: 9).
  float32 computes in float32 throughout. (e/(e + 2) with e = expm1(2|x|),
  measured, was slower.)

NaN, +-inf, +-0, overflow and underflow give NumPy's results; the measured
max ulp errors are in docs/ARCHITECTURE.md ("Vector maths").
"""
from __future__ import annotations

import math

from llvmlite import ir

from .irutil import intrinsic
from .ltypes import F32, F64, I32, I64

__all__ = ["log", "log1p", "expm1", "tanh"]

_LN2_HI = {"f64": 6.93147180369123816490e-01, "f32": 6.9313812256e-01}
_LN2_LO = {"f64": 1.90821492927058770002e-10, "f32": 9.0580006145e-06}
# R(z) = z*(L1 + w*(L3 + w*(L5 + w*L7))) + w*(L2 + w*(L4 + w*L6)), z = s*s, w = z*z
_LG = {"f64": (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
               2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
               1.479819860511658591e-01),
       "f32": (0.66666662693, 0.40000972152, 0.28498786688, 0.24279078841)}


def _key(x: ir.Value) -> str:
    return "f32" if x.type == F32 else "f64"


def _routine(b: ir.IRBuilder, base: str, x: ir.Value, define) -> ir.Value:
    key = _key(x)
    name = f"ag.{base}.{key}"
    fn = b.module.globals.get(name)
    if fn is None:
        ft = F32 if key == "f32" else F64
        fn = ir.Function(b.module, ir.FunctionType(ft, [ft]), name)
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        fn.attributes.add("nounwind")
        fb = ir.IRBuilder(fn.append_basic_block("entry"))
        fb.ret(define(fb, fn.args[0], key))
    return b.call(fn, [x])


def log(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Natural log of a float32/float64 register value (vectorisable, <= 1 ulp)."""
    return _routine(b, "log", x, _define_log)


def log1p(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log(1 + x), accurate for tiny x (vectorisable)."""
    return _routine(b, "log1p", x, _define_log1p)


def expm1(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """e**x - 1, accurate for tiny x (vectorisable)."""
    return _routine(b, "expm1", x, _define_expm1)


def tanh(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Hyperbolic tangent (vectorisable)."""
    return _routine(b, "tanh", x, _define_tanh)


# ------------------------------------------------------------------ helpers

def _c(key: str, v: float) -> ir.Constant:
    return ir.Constant(F32 if key == "f32" else F64, v)


def _fma(b, x, y, z):
    """x*y + z, fused where the target has FMA (polynomial steps: one rounding fewer)."""
    return intrinsic(b, "fmuladd", [x, y, z])


def _i32(v: int) -> ir.Constant:
    return ir.Constant(I32, v)


def _hi_word(b, x, key):
    """The i32 holding the sign, exponent and top mantissa bits of x."""
    if key == "f32":
        return b.bitcast(x, I32)
    return b.trunc(b.lshr(b.bitcast(x, I64), ir.Constant(I64, 32)), I32)


def _with_hi_word(b, x, hi, key):
    """x with its high word replaced by `hi` (the low word of a float64 kept)."""
    if key == "f32":
        return b.bitcast(hi, F32)
    lo = b.and_(b.bitcast(x, I64), ir.Constant(I64, 0xFFFFFFFF))
    return b.bitcast(b.or_(b.shl(b.zext(hi, I64), ir.Constant(I64, 32)), lo), F64)


# hi-word constants: (exponent shift, bias word of 1.0, hi word of sqrt(2)/2, mantissa mask)
_WORDS = {"f64": (20, 0x3FF00000, 0x3FE6A09E, 0x000FFFFF),
          "f32": (23, 0x3F800000, 0x3F3504F3, 0x007FFFFF)}


def _reduce(b, x, key):
    """(k as float, m) with x = 2**k * m, m in [sqrt(2)/2, sqrt(2)); x > 0 normal."""
    shift, one, rt, mask = _WORDS[key]
    hx = b.add(_hi_word(b, x, key), _i32(one - rt))
    k = b.sub(b.ashr(hx, _i32(shift)), _i32(one >> shift))
    m = _with_hi_word(b, x, b.add(b.and_(hx, _i32(mask)), _i32(rt)), key)
    return k, m


def _log_core(b, f, dk, c, key):
    """log(1 + f) + dk*ln2 + c for f in [sqrt(2)/2 - 1, sqrt(2) - 1]."""
    s = b.fdiv(f, b.fadd(_c(key, 2.0), f))
    z = b.fmul(s, s)
    w = b.fmul(z, z)
    lg = _LG[key]
    odd = lg[0::2]   # L1, L3, L5, L7
    even = lg[1::2]  # L2, L4, L6

    def poly(coeffs):
        acc = _c(key, coeffs[-1])
        for cf in reversed(coeffs[:-1]):
            acc = _fma(b, w, acc, _c(key, cf))
        return acc

    r = _fma(b, z, poly(odd), b.fmul(w, poly(even)))
    hfsq = b.fmul(b.fmul(_c(key, 0.5), f), f)
    low = _fma(b, dk, _c(key, _LN2_LO[key]), c)
    out = _fma(b, s, b.fadd(hfsq, r), low)
    out = b.fadd(b.fsub(out, hfsq), f)
    return _fma(b, dk, _c(key, _LN2_HI[key]), out)


def _float_type(key):
    return F32 if key == "f32" else F64


# ------------------------------------------------------------------ log

def _define_log(b, x, key):
    ft = _float_type(key)
    tiny = 2.0 ** (-126 if key == "f32" else -1022)
    scale_bits = 25 if key == "f32" else 54
    sub = b.fcmp_ordered("<", x, _c(key, tiny))
    xs = b.select(sub, b.fmul(x, _c(key, 2.0 ** scale_bits)), x)
    k, m = _reduce(b, xs, key)
    k = b.select(sub, b.sub(k, _i32(scale_bits)), k)
    f = b.fsub(m, _c(key, 1.0))
    res = _log_core(b, f, b.sitofp(k, ft), _c(key, 0.0), key)
    inf = _c(key, float("inf"))
    res = b.select(b.fcmp_ordered("==", x, inf), inf, res)
    res = b.select(b.fcmp_ordered("==", x, _c(key, 0.0)), _c(key, float("-inf")), res)
    # x < 0 or NaN: NaN (x + NaN keeps a NaN's payload, as NumPy's log does)
    return b.select(b.fcmp_unordered("<", x, _c(key, 0.0)), b.fadd(x, _c(key, float("nan"))), res)


# ------------------------------------------------------------------ log1p

def _define_log1p(b, x, key):
    ft = _float_type(key)
    one = _c(key, 1.0)
    u = b.fadd(one, x)
    k, m = _reduce(b, u, key)
    # u = 1 + x rounded: c = (exact - u) / u, the first-order correction (k >= 2:
    # x is the larger term, so 1 - (u - x) is exact; beyond 2**precision, none).
    c_small = b.fsub(x, b.fsub(u, one))
    c_big = b.fsub(one, b.fsub(u, x))
    c = b.select(b.icmp_signed(">=", k, _i32(2)), c_big, c_small)
    c = b.select(b.icmp_signed(">=", k, _i32(25 if key == "f32" else 54)), _c(key, 0.0), c)
    c = b.fdiv(c, u)
    f = b.fsub(m, one)
    # 1 + x in [sqrt(2)/2, sqrt(2)): the core runs on x itself, exactly.
    near = b.and_(b.fcmp_ordered(">=", x, _c(key, -0.2928932188134524)),
                  b.fcmp_ordered("<", x, _c(key, 0.41421356237309503)))
    f = b.select(near, x, f)
    c = b.select(near, _c(key, 0.0), c)
    dk = b.select(near, _c(key, 0.0), b.sitofp(k, ft))
    res = _log_core(b, f, dk, c, key)
    inf = _c(key, float("inf"))
    res = b.select(b.fcmp_ordered("==", x, inf), inf, res)
    res = b.select(b.fcmp_ordered("==", x, _c(key, -1.0)), _c(key, float("-inf")), res)
    # tiny |x| (subnormals included): log1p(x) = x, sign of zero kept
    tiny = intrinsic(b, "fabs", [x])
    res = b.select(b.fcmp_ordered("<", tiny, _c(key, 2.0 ** (-25 if key == "f32" else -54))), x, res)
    # x < -1 or NaN: NaN (x + NaN keeps a NaN's payload)
    return b.select(b.fcmp_unordered("<", x, _c(key, -1.0)), b.fadd(x, _c(key, float("nan"))), res)


# ------------------------------------------------------------------ expm1

# expm1(r) = r + r*r*E(r) on |r| <= ln2/2 (Taylor; no division): float64 to r**14
# (truncation 2**-56 relative); float32: _EXPM1_F32_E, to r**8 in float32.
_EXPM1_TAYLOR = {"f64": tuple(1.0 / math.factorial(n) for n in range(2, 15))}
_INVLN2 = 1.44269504088896338700


def _expm1_poly(b, r, key):
    """expm1(r) - r, i.e. r*r*E(r), in float64."""
    coeffs = _EXPM1_TAYLOR[key]
    acc = _c("f64", coeffs[-1])
    for cf in reversed(coeffs[:-1]):
        acc = _fma(b, r, acc, _c("f64", cf))
    return b.fmul(b.fmul(r, r), acc)


def _pow2_f64(b, n):
    """2**n for an i64 n in the normal exponent range."""
    return b.bitcast(b.shl(b.add(n, ir.Constant(I64, 1023)), ir.Constant(I64, 52)), F64)


def _define_expm1(b, x, key):
    if key == "f32":
        return _expm1_f32(b, x)
    c = lambda v: _c("f64", v)  # noqa: E731
    big = 709.782712893384
    # clamp so that the exponent arithmetic stays in range; the ends are fixed below
    xc = b.select(b.fcmp_ordered("<", x, c(-60.0)), c(-60.0), x)
    xc = b.select(b.fcmp_ordered(">", xc, c(big)), c(big), xc)
    kf = intrinsic(b, "roundeven", [b.fmul(xc, c(_INVLN2))])
    hi = b.fsub(xc, b.fmul(kf, c(_LN2_HI["f64"])))           # exact (k*ln2_hi has 32 bits)
    lo = b.fmul(kf, c(_LN2_LO["f64"]))
    r = b.fsub(hi, lo)
    corr = b.fsub(b.fsub(hi, r), lo)                          # what rounding r dropped
    q = _expm1_poly(b, r, "f64")
    # expm1(r + corr) = p + corr*(1 + p), p = r + q
    tail = b.fadd(q, _fma(b, corr, b.fadd(r, q), corr))
    p = b.fadd(r, tail)
    ki = b.fptosi(kf, I64)
    # k >= 1: (p + (1 - 2**-k)) * 2**k, rounded once (1 - 2**-k exact; 2**-k taken as 0
    # beyond 2**-53, below the sum's last bit); scaled by 2**(k-1) and 2 so that k = 1024 stays finite until the end
    twomk = b.select(b.fcmp_ordered(">", kf, c(53.0)), c(0.0),
                     _pow2_f64(b, b.sub(ir.Constant(I64, 0), ki)))
    # (1 - 2**-k) + r exactly as s + e (k = 1, 2: the sum cancels up to 2.4x)
    s = b.fadd(b.fsub(c(1.0), twomk), r)
    bb = b.fsub(s, r)
    e = b.fadd(b.fsub(r, b.fsub(s, bb)), b.fsub(b.fsub(c(1.0), twomk), bb))
    up = b.fadd(s, b.fadd(e, tail))
    up = b.fmul(b.fmul(up, _pow2_f64(b, b.sub(ki, ir.Constant(I64, 1)))), c(2.0))
    # k <= -1: p*2**k + (2**k - 1), one rounding (p*2**k is exact)
    twok = _pow2_f64(b, ki)
    down = _fma(b, p, twok, b.fsub(twok, c(1.0)))
    y = b.select(b.fcmp_ordered(">", kf, c(0.0)), up, down)
    y = b.select(b.fcmp_ordered("==", kf, c(0.0)), p, y)
    y = b.select(b.fcmp_ordered(">", x, c(big)), c(float("inf")), y)
    y = b.select(b.fcmp_ordered("<", x, c(-60.0)), c(-1.0), y)
    tiny = 2.0 ** -54
    y = b.select(b.fcmp_ordered("<", intrinsic(b, "fabs", [x]), c(tiny)), x, y)
    return b.select(b.fcmp_unordered("uno", x, x), x, y)


def _pow2_f32(b, n):
    """2**n for an i32 n in the normal float32 exponent range."""
    return b.bitcast(b.shl(b.add(n, _i32(127)), _i32(23)), F32)


_EXPM1_F32_E = tuple(1.0 / math.factorial(n) for n in range(2, 9))   # Taylor to r**8


def _expm1_f32(b, x):
    """float32 expm1 in float32 (16 lanes with AVX-512): x = k ln2 + r + corr (ln2 in
    two parts, k*C1 exact), expm1(r) = r + r*r*E(r), rebuilt as the float64 routine
    does: ((1 - 2**-k) + r, exactly as s + e, + the rest) * 2**k for 1 <= k <= 24,
    s*2**k + ((e + rest)*2**k - 1) beyond, p*2**k + (2**k - 1) for k <= -1."""
    c = lambda v: _c("f32", v)  # noqa: E731
    xc = b.select(b.fcmp_ordered("<", x, c(-30.0)), c(-30.0), x)
    xc = b.select(b.fcmp_ordered(">", xc, c(89.0)), c(89.0), xc)   # beyond: inf
    kf = intrinsic(b, "roundeven", [b.fmul(xc, c(_INVLN2))])
    hi = _fma(b, kf, c(-0.693359375), xc)                  # exact (C1 has 9 bits)
    r = _fma(b, kf, c(2.12194440e-4), hi)
    corr = _fma(b, kf, c(2.12194440e-4), b.fsub(hi, r))   # what rounding r dropped
    acc = c(_EXPM1_F32_E[-1])
    for cf in reversed(_EXPM1_F32_E[:-1]):
        acc = _fma(b, r, acc, c(cf))
    q = b.fmul(b.fmul(r, r), acc)
    tail = b.fadd(q, _fma(b, corr, b.fadd(r, q), corr))
    p = b.fadd(r, tail)
    ki = b.fptosi(kf, I32)
    big = b.fcmp_ordered(">", kf, c(24.0))
    twomk = b.select(big, c(0.0), _pow2_f32(b, b.sub(_i32(0), ki)))
    one_m = b.fsub(c(1.0), twomk)
    s = b.fadd(one_m, r)
    bb = b.fsub(s, r)
    e = b.fadd(b.fsub(r, b.fsub(s, bb)), b.fsub(one_m, bb))
    half = _pow2_f32(b, b.sub(ki, _i32(1)))
    up = b.fmul(b.fmul(b.fadd(s, b.fadd(e, tail)), half), c(2.0))
    # k > 24: (s + (e + tail)) * 2**k - 1 as s*2**k + ((e + tail)*2**k - 1), two FMAs
    # (s*2**k exact; halved and doubled so that k = 128 overflows only where the result does)
    upbig = b.fmul(_fma(b, s, half, _fma(b, b.fadd(e, tail), half, c(-0.5))), c(2.0))
    up = b.select(big, upbig, up)
    twok = _pow2_f32(b, ki)
    # k <= -1: p*2**k + (2**k - 1), one rounding (2**k - 1 exact for k >= -24; below,
    # (1 + p)*2**k - 1, the rounding of 1 + p far below the result's last bit)
    deep = b.fcmp_ordered("<", kf, c(-24.0))
    down = _fma(b, b.select(deep, b.fadd(c(1.0), p), p), twok,
                b.select(deep, c(-1.0), b.fsub(twok, c(1.0))))
    y = b.select(b.fcmp_ordered(">", kf, c(0.0)), up, down)
    y = b.select(b.fcmp_ordered("==", kf, c(0.0)), p, y)
    y = b.select(b.fcmp_ordered(">", x, c(89.0)), c(float("inf")), y)
    small = b.fcmp_ordered("<", intrinsic(b, "fabs", [x]), _c("f32", 2.0 ** -25))
    return b.select(b.or_(small, b.fcmp_unordered("uno", x, x)), x, y)


# ------------------------------------------------------------------ tanh

def _define_tanh(b, x, key):
    if key == "f32":
        return _tanh_f32(b, x)
    c = lambda v: _c("f64", v)  # noqa: E731
    ax = intrinsic(b, "fabs", [x])
    # e**(2|x|) >= 3 where this branch is taken: 1 - 2/(e + 1) loses nothing to
    # cancellation. e inlined, no division: 2|x| (clamped below 44) = n ln2 + r
    # (n*ln2_hi exact), e = (1 + expm1(r)) 2**n with expm1's Taylor polynomial.
    y = b.fmul(c(2.0), b.select(b.fcmp_ordered("<", ax, c(22.0)), ax, c(22.0)))
    n = intrinsic(b, "roundeven", [b.fmul(y, c(_INVLN2))])
    r = _fma(b, n, c(-_LN2_HI["f64"]), y)
    r = _fma(b, n, c(-_LN2_LO["f64"]), r)
    p = b.fadd(r, _expm1_poly(b, r, "f64"))
    scale = _pow2_f64(b, b.fptosi(n, I64))
    e = _fma(b, p, scale, scale)
    q = b.fdiv(c(2.0), b.fadd(e, c(1.0)))
    # |x| > log(3)/2: 1 - 2/(e + 2) keeps the result's last bits; below, the fit
    t = b.select(b.fcmp_ordered(">", ax, c(0.5493061443340549)), b.fsub(c(1.0), q),
                 _tanh_series(b, ax, key))
    t = b.select(b.fcmp_ordered(">", ax, c(22.0)), c(1.0), t)
    res = intrinsic(b, "copysign", [t, x])
    return b.select(b.fcmp_unordered("uno", x, x), x, res)


# tanh(x) = x + x**3 P(x*x) on |x| < log(3)/2 (float64): a least-squares fit in a
# Chebyshev basis of x*x, weighted to relative error, solved in np.longdouble
# (relative error 3e-18 with the float64 coefficients; the correction is < 0.1 x,
# so the result is rounded about once).
_TANH_P = (-0.333333333333333, 0.13333333333326505, -0.05396825396371674,
           0.021869488385071127, -0.008863232594559444, 0.0035920920104267496,
           -0.0014555429889863084, 0.0005884460589337047, -0.00023338781325674945,
           8.332834149016334e-05, -1.9503708023671477e-05)


def _tanh_series(b, ax, key):
    """tanh(ax) = ax + ax*z*P(z), z = ax*ax, for 0 <= ax < log(3)/2 (float64)."""
    coeffs = _TANH_P
    z = b.fmul(ax, ax)
    acc = _c(key, coeffs[-1])
    for cf in reversed(coeffs[:-1]):
        acc = _fma(b, z, acc, _c(key, cf))
    return b.fadd(ax, b.fmul(ax, b.fmul(z, acc)))


# float32 tanh: tanh(x) = x + x**3 P(x*x) on |x| < log(3)/2, P a least-squares fit
# (relative error 1.4e-9 with the float32 coefficients), fitted here in np.longdouble.
_TANH_F32_P = (-0.33333319425582886, 0.13332653045654297, -0.053859464824199677,
               0.02110154554247856, -0.006316916551440954)
# e**r - 1 - r = r*r*E(r), |r| <= ln2/2: Cephes' expf coefficients
_EXP_F32_E = (5.0000001201e-1, 1.6666665459e-1, 4.1665795894e-2, 8.3334519073e-3,
              1.3981999507e-3, 1.9875691500e-4)


def _tanh_f32(b, x):
    """float32 tanh in float32 (16 lanes with AVX-512): 1 - 2/(e**(2|x|) + 1) above
    log(3)/2 with an inlined exp (2|x| <= 18: one scaling), the fit P below."""
    c = lambda v: _c("f32", v)  # noqa: E731
    ax = intrinsic(b, "fabs", [x])
    y = b.fmul(c(2.0), b.select(b.fcmp_ordered("<", ax, c(9.0)), ax, c(9.0)))
    n = intrinsic(b, "roundeven", [b.fmul(y, c(1.4426950408889634))])
    r = _fma(b, n, c(-0.693359375), y)
    r = _fma(b, n, c(2.12194440e-4), r)
    acc = c(_EXP_F32_E[-1])
    for cf in reversed(_EXP_F32_E[:-1]):
        acc = _fma(b, r, acc, c(cf))
    p = _fma(b, b.fmul(r, r), acc, r)
    scale = b.bitcast(b.shl(b.add(b.fptosi(n, I32), _i32(127)), _i32(23)), F32)
    e = _fma(b, p, scale, scale)
    t_big = b.fsub(c(1.0), b.fdiv(c(2.0), b.fadd(e, c(1.0))))
    z = b.fmul(ax, ax)
    acc = c(_TANH_F32_P[-1])
    for cf in reversed(_TANH_F32_P[:-1]):
        acc = _fma(b, z, acc, c(cf))
    t_small = _fma(b, b.fmul(ax, z), acc, ax)
    t = b.select(b.fcmp_ordered(">", ax, c(0.5493061443340549)), t_big, t_small)
    t = b.select(b.fcmp_ordered(">", ax, c(9.0)), c(1.0), t)
    res = intrinsic(b, "copysign", [t, x])
    return b.select(b.fcmp_unordered("uno", x, x), x, res)
