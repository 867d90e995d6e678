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
  float32 runs the same in float64 (E to r**9) and rounds once.
* tanh: sign(x) * t: t = 1 - 2/(exp(2|x|) + 1) above log(3)/2 (exp is cheaper
  than expm1 and cannot cancel there), its Taylor series (20 terms float64, 9
  float32) below, 1 beyond 22 (float32: 9). (e/(e + 2) with e = expm1(2|x|),
  measured, was slower.)

NaN, +-inf, +-0, overflow and underflow give NumPy's results; the measured
max ulp errors are in docs/ARCHITECTURE.md ("Vector maths").
"""
from __future__ import annotations

import math

from llvmlite import ir

from . import mathfns
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
# (truncation 2**-56 relative), float32 (evaluated in float64) to r**9.
_EXPM1_TAYLOR = {"f64": tuple(1.0 / math.factorial(n) for n in range(2, 15)),
                 "f32": tuple(1.0 / math.factorial(n) for n in range(2, 10))}
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


def _expm1_in_f64(b, xd):
    """expm1 of a float32 value held as float64, to about 2**-31 relative (float64
    result): 2**k * (1 + p) - 1 loses nothing float32 keeps."""
    c = lambda v: _c("f64", v)  # noqa: E731
    xc = b.select(b.fcmp_ordered("<", xd, c(-30.0)), c(-30.0), xd)
    xc = b.select(b.fcmp_ordered(">", xc, c(89.0)), c(89.0), xc)   # beyond: inf after rounding
    kf = intrinsic(b, "roundeven", [b.fmul(xc, c(_INVLN2))])
    r = _fma(b, kf, c(-0.6931471805599453), xc)
    p = b.fadd(r, _expm1_poly(b, r, "f32"))
    y = _fma(b, b.fadd(c(1.0), p), _pow2_f64(b, b.fptosi(kf, I64)), c(-1.0))
    return b.select(b.fcmp_ordered("==", kf, c(0.0)), p, y)


def _expm1_f32(b, x):
    """float32 expm1, computed in float64 and rounded once."""
    y = b.fptrunc(_expm1_in_f64(b, b.fpext(x, F64)), F32)
    small = b.fcmp_ordered("<", intrinsic(b, "fabs", [x]), _c("f32", 2.0 ** -25))
    return b.select(b.or_(small, b.fcmp_unordered("uno", x, x)), x, y)


# ------------------------------------------------------------------ tanh

def _define_tanh(b, x, key):
    c = lambda v: _c(key, v)  # noqa: E731
    ax = intrinsic(b, "fabs", [x])
    # e**(2|x|) >= 3 where this branch is taken: 1 - 2/(e + 1) loses nothing to
    # cancellation, so exp (cheaper than expm1) is enough; clamped below 2*22.
    e = mathfns.exp(b, b.fmul(c(2.0), b.select(b.fcmp_ordered("<", ax, c(22.0)), ax, c(22.0))))
    q = b.fdiv(c(2.0), b.fadd(e, c(1.0)))
    # |x| > log(3)/2: 1 - 2/(e + 2) keeps the result's last bits; below, the series
    t = b.select(b.fcmp_ordered(">", ax, c(0.5493061443340549)), b.fsub(c(1.0), q),
                 _tanh_series(b, ax, key))
    limit = 22.0 if key == "f64" else 9.0
    t = b.select(b.fcmp_ordered(">", ax, c(limit)), c(1.0), t)
    res = intrinsic(b, "copysign", [t, x])
    return b.select(b.fcmp_unordered("uno", x, x), x, res)


# Taylor coefficients of tanh: x^3, x^5, ... (2^2n (2^2n - 1) B_2n / (2n)!, from the
# Bernoulli numbers). On |x| < log(3)/2 each term is < 0.12 of the one before;
# enough terms for float64 (and float32) precision.
_TANH_TAYLOR = (-0.3333333333333333, 0.13333333333333333, -0.05396825396825397,
                0.021869488536155203, -0.008863235529902197, 0.003592128036572481,
                -0.0014558343870513183, 0.000590027440945586, -0.00023912911424355248,
                9.691537956929451e-05, -3.927832388331683e-05, 1.5918905069328964e-05,
                -6.451689215655431e-06, 2.6147711512907546e-06, -1.0597268320104654e-06,
                4.294911078273806e-07, -1.7406618963571648e-07, 7.054636946400968e-08,
                -2.859136662305254e-08, 1.1587644432798853e-08)
_TANH_TERMS = {"f64": 20, "f32": 9}


def _tanh_series(b, ax, key):
    """tanh(ax) = ax + ax*z*P(z), z = ax*ax, for 0 <= ax < log(3)/2 (the
    correction is < 0.1 ax, so the result is rounded about once)."""
    coeffs = _TANH_TAYLOR[:_TANH_TERMS[key]]
    z = b.fmul(ax, ax)
    acc = _c(key, coeffs[-1])
    for cf in reversed(coeffs[:-1]):
        acc = _fma(b, z, acc, _c(key, cf))
    return b.fadd(ax, b.fmul(ax, b.fmul(z, acc)))
