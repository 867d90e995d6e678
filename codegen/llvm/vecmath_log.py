"""Vectorisable log, log1p, log2, log10 (float32 and float64) as branch-free LLVM IR.

`llvm.log` & co. are calls of libm's scalar functions, which keep a loop
scalar. These are internal, always-inlined functions with no branches
(special cases are `select`s), widened by the loop vectoriser.

What costs, measured on an AVX-512 host (bench/vecmath.py): the number of
vector operations and the latency of the longest chain, not the division.
Table-driven reductions measured slower (the table loads become gathers,
slow there: 88 us for 100k float64 logs against 61 us); so did Estrin's
form for fdlibm's polynomial (more live constants, spills) and
the compare-and-mask patterns in front of the chain. So:

* x = 2**k * m from the bits in lanes of x's own width (no 32-bit
  high-word shuffles). float64: k made a float by the magic-number trick (no
  int64 -> double conversion, which plain AVX2 lacks); a subnormal x is
  reduced from x*2**54 alongside and selected after. float32: a subnormal x
  is pre-scaled by 2**23 under a select on x, k is the signed exponent
  difference less 23 under the same select, converted by sitofp (one
  reduction instead of two: 31 vector operations per 16 lanes, not 37).
* float64 (fdlibm's core and minimax coefficients): m in [sqrt(2)/2,
  sqrt(2)), f = m - 1, s = f/(2 + f) (2 + f as m + 1: the same rounding,
  one step sooner), log(1 + f) = f - hfsq + s*(hfsq + R(s*s)), hfsq = f*f/2.
  log adds k*ln2 in two parts in fdlibm's order; log2/log10 add k
  (k*log10(2) in two parts) to (f - hfsq)/ln2 (/ln10) in one FMA and recover
  its rounding error with a second (`_finish_base`).
* float32, no division: m in [0.6732, 1.3464) (so that |f/ln2| < 1/2),
  log_b(1 + f) = f*C + f*P(f) with P a degree-9 fit, the same one-FMA sum
  (`_core_f32`).
* log1p: log(u) + c/u for u = 1 + x rounded and c = x - (u - 1) its
  rounding error, through the same cores (no near-1 branch); u is never
  subnormal, and the special values are those of log(u).

Special values are NumPy's: log(0) = -inf, log(x < 0) = NaN, log(inf) = inf,
a NaN comes back with its payload (quieted); log1p(-1) = -inf, log1p(x < -1)
= NaN, log1p(+-0) = +-0, tiny x (subnormals too) gives x. The measured max
ulp errors are in docs/ARCHITECTURE.md ("Vector maths").
"""
from __future__ import annotations

from llvmlite import ir

from .irutil import intrinsic, routine
from .ltypes import F32, F64, I32, I64

__all__ = ["log", "log1p", "log2", "log10", "reduce"]

_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10   # hi: 32 bits
# R(z) = z*(L1 + w*(L3 + w*(L5 + w*L7))) + w*(L2 + w*(L4 + w*L6)), z = s*s, w = z*z
_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
       2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
       1.479819860511658591e-01)
# 1/ln2, 1/ln10 as double-double (hi + lo); float32: the head only
_INV = {("log2", "f64"): (1.4426950408889634, 2.0355273740931033e-17),
        ("log10", "f64"): (0.4342944819032518, 1.098319650216765e-17),
        ("log2", "f32"): (1.4426950216293335, 1.925963033500011e-08),
        ("log10", "f32"): (0.4342944920063019, -1.0103049952192578e-08)}
# log10(2) in two parts, the first with few bits so that k times it is exact
_LOG10_2 = {"f64": (0.30102999566361177, 3.694239077158931e-13),
            "f32": (0.301025390625, 4.605039066518657e-06)}
# float32: (log_b(1 + f) - f*C)/f on [0.6732 - 1, 1.3464 - 1], C = _INV's head (1 for
# log), degree 9, interpolated at Chebyshev nodes in 50-digit decimal arithmetic
_P32 = {
    "log": (3.7094043392471576e-09, -0.4999999701976776, 0.3333316743373871, -0.2500031292438507,
           0.2001192718744278, -0.16660252213478088, 0.13989749550819397, -0.12462650239467621,
           0.14037251472473145, -0.11646924167871475),
    "log2": (2.4611168214505597e-08, -0.721347451210022, 0.4808959364891052, -0.3606782853603363,
            0.2887110710144043, -0.24035663902759552, 0.2018294334411621, -0.17979803681373596,
            0.20251473784446716, -0.16802959144115448),
    "log10": (-8.492076375432589e-09, -0.21714723110198975, 0.14476411044597626,
             -0.10857498645782471, 0.08691069483757019, -0.07235455513000488, 0.06075671315193176,
             -0.05412460118532181, 0.06096301227807999, -0.050581950694322586),
}
_RT32 = 0x3F2C56D6              # float32 0.6732: m in [0.6732, 1.3464), |f/ln2| < 1/2
_LN2_32 = (0.693145751953125, 1.4286067653e-06)   # ln2 in two parts, the first of 16 bits


def log(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Natural log of a float32/float64 register value (vectorisable)."""
    return _routine(b, "log", x)


def log1p(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log(1 + x), accurate for tiny x (vectorisable)."""
    return _routine(b, "log1p", x)


def log2(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Base-2 log of a float32/float64 register value (vectorisable)."""
    return _routine(b, "log2", x)


def log10(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Base-10 log of a float32/float64 register value (vectorisable)."""
    return _routine(b, "log10", x)


def _routine(b, base, x):
    key = "f32" if x.type == F32 else "f64"
    define = _define_log1p if base == "log1p" else _define_log
    return routine(b, f"ag.{base}.{key}", x, lambda fb, a: define(fb, a, key, base))


# ------------------------------------------------------------------ helpers

def _c(key, v):
    return ir.Constant(F32 if key == "f32" else F64, v)


def _mad(b, x, y, z):
    """x*y + z, fused where the target has FMA (polynomial steps)."""
    return intrinsic(b, "fmuladd", [x, y, z])


def _fma(b, x, y, z):
    """x*y + z rounded once (exact products)."""
    return intrinsic(b, "fma", [x, y, z])


# per key: (int type, mantissa bits, bits of sqrt(2)/2 rounded to its high word, mantissa
# mask, bits of 2**52 (2**23), exponent bias)
_BITS = {"f64": (I64, 52, 0x3FE6A09E << 32, (1 << 52) - 1, 0x4330000000000000, 1023),
         "f32": (I32, 23, 0x3F3504F3, (1 << 23) - 1, 0x4B000000, 127)}


def reduce(b, x, key, rt_bits=None):
    """(k as a float, m) with x = 2**k * m, m in [r, 2r) (r: sqrt(2)/2 or the float
    whose bits are `rt_bits`, in [1/2, 1)), for x > 0 normal (garbage, never a trap,
    otherwise). Adding bits(1) - bits(r) carries into the exponent exactly when m's
    bits are at least r's; k is the biased exponent that gives, or-ed into the
    mantissa of 2**52 (2**23) and subtracted as a float."""
    it, mant, rt, mask, magic, bias = _BITS[key]
    if rt_bits is not None:
        rt = rt_bits
    one = (bias << mant)
    hx = b.add(b.bitcast(x, it), ir.Constant(it, one - rt))
    e = b.lshr(hx, ir.Constant(it, mant))
    k = b.fsub(b.bitcast(b.or_(e, ir.Constant(it, magic)), x.type),
               _c(key, float((1 << mant) + bias)))
    m = b.bitcast(b.add(b.and_(hx, ir.Constant(it, mask)), ir.Constant(it, rt)), x.type)
    return k, m


def _reduce_scaled(b, x, key, rt_bits=None):
    """`reduce` for any x > 0 finite, subnormals included (from x*2**54 (2**25)).
    Both reductions, then a select: for float64 measured faster than selecting
    the scaled x first (a compare and a masked multiply in front of the whole
    chain); float32 uses `_reduce_prescaled`."""
    tiny, bits = (2.0 ** -126, 25) if key == "f32" else (2.0 ** -1022, 54)
    sub = b.fcmp_ordered("<", x, _c(key, tiny))
    k0, m0 = reduce(b, x, key, rt_bits)
    k1, m1 = reduce(b, b.fmul(x, _c(key, 2.0 ** bits)), key, rt_bits)
    return b.select(sub, b.fsub(k1, _c(key, float(bits))), k0), b.select(sub, m1, m0)


def _reduce_prescaled(b, x, key, rt_bits):
    """float32 `reduce` for any x > 0 finite, subnormals included, by one
    pre-scale: a subnormal x is multiplied by 2**23 under a select on x (with
    AVX-512 a masked multiply), and k comes from the signed exponent difference
    (bits(x) - bits(r)) >> 23, less 23 under the same select (a masked subtract),
    converted by sitofp (int32 -> float32 exists in every SIMD set). Measured
    faster than `_reduce_scaled` (two reductions and two selects): 31 vector
    operations per 16 lanes against 37, 5-8% less time."""
    sub = b.fcmp_ordered("<", x, _c(key, 2.0 ** -126))
    xs = b.bitcast(b.select(sub, b.fmul(x, _c(key, 2.0 ** 23)), x), I32)
    h = b.sub(xs, ir.Constant(I32, rt_bits))
    he = b.select(sub, b.sub(h, ir.Constant(I32, 23 << 23)), h)
    k = b.sitofp(b.ashr(he, ir.Constant(I32, 23)), F32)
    m = b.bitcast(b.add(b.and_(h, ir.Constant(I32, (1 << 23) - 1)), ir.Constant(I32, rt_bits)), F32)
    return k, m


def _specials(b, x, res, key):
    """NumPy's results: inf at inf, -inf at +-0, NaN below 0 or for NaN (a NaN
    with its payload). inf and NaN by one max with y = x - MAX (below any log
    for finite x, inf at inf, x's NaN at NaN: x86's max returns its second
    operand when either is NaN), the rest by one compare against 0: measured
    faster than three compare-and-selects."""
    big = 3.4028234663852886e38 if key == "f32" else 1.7976931348623157e308
    y = b.fsub(x, _c(key, big))
    res = b.select(b.fcmp_ordered(">", res, y), res, y)
    it = _BITS[key][0]
    neg_nan = b.bitcast(ir.Constant(it, 0xFFC00000 if key == "f32" else 0xFFF8000000000000), x.type)
    low = b.select(b.fcmp_ordered("==", x, _c(key, 0.0)), _c(key, float("-inf")), neg_nan)
    return b.select(b.fcmp_ordered("<=", x, _c(key, 0.0)), low, res)


# ------------------------------------------------------------------ float64 core

def _log1pf_parts(b, f, d):
    """(hfsq, t) with log(1 + f) = f - hfsq + t, hfsq = f*f/2, for f in
    [sqrt(2)/2 - 1, sqrt(2) - 1] and d = 2 + f (the one division)."""
    s = b.fdiv(f, d)
    z = b.fmul(s, s)
    w = b.fmul(z, z)

    def poly(coeffs):
        acc = _c("f64", coeffs[-1])
        for cf in reversed(coeffs[:-1]):
            acc = _mad(b, w, acc, _c("f64", cf))
        return acc

    r = _mad(b, z, poly(_LG[0::2]), b.fmul(w, poly(_LG[1::2])))
    hfsq = b.fmul(b.fmul(_c("f64", 0.5), f), f)
    return hfsq, b.fmul(s, b.fadd(hfsq, r))


def _finish_ln(b, f, d, dk, c):
    """log(1 + f) + dk*ln2 + c (ln2 in two parts, dk*ln2_hi exact), summed in
    fdlibm's order (measured: fewer operations beat a shorter chain here)."""
    key = "f64"
    hfsq, t = _log1pf_parts(b, f, d)
    low = b.fmul(dk, _c(key, _LN2_LO)) if c is None else _mad(b, dk, _c(key, _LN2_LO), c)
    out = b.fadd(b.fsub(b.fadd(t, low), hfsq), f)
    return _mad(b, dk, _c(key, _LN2_HI), out)


def _finish_base(b, f, d, dk, base):
    """log2(2**dk * (1 + f)) or log10 of it, rounded about once: log(1 + f) as
    hi + lo (hi = f - hfsq, lo its exact rounding error plus t), times C = 1/ln2
    (1/ln10) as a double-double; kh = dk (dk*log10(2)'s head, exact) plus hi*C in
    one FMA, w, whose rounding error a second FMA recovers: kh - w is exact, as
    hi*C lies below log_b(m) (t > 0 for f > 0) and above it (f < 0), so |hi*C| <=
    |kh|/2 and w is within a factor 2 of kh (or kh = 0). (Splitting f*C instead,
    with t - hfsq rounded: ~3% faster, but 1.06 ulp measured against 0.79.)"""
    key = "f64"
    hfsq, t = _log1pf_parts(b, f, d)
    hi = b.fsub(f, hfsq)
    lo = b.fsub(b.fsub(f, hi), hfsq)                  # exact (Fast2Sum: |f| >= |hfsq|)
    ch, cl = _INV[(base, key)]
    kh = b.fmul(dk, _c(key, _LOG10_2[key][0])) if base == "log10" else dk
    w = _fma(b, hi, _c(key, ch), kh)
    err = _fma(b, hi, _c(key, ch), b.fsub(kh, w))
    tail = _mad(b, hi, _c(key, cl), err)
    if base == "log10":
        tail = _mad(b, dk, _c(key, _LOG10_2[key][1]), tail)
    return b.fadd(w, _mad(b, b.fadd(lo, t), _c(key, ch), tail))


# ------------------------------------------------------------------ float32 core

def _core_f32(b, f, dk, base, extra=None):
    """log_b(2**dk * (1 + f)) (log: + `extra`, small) in float32 without division,
    for f in [0.6732 - 1, 1.3464 - 1] (|f/ln2| < 1/2): log_b(1 + f) = f*C + f*P(f)
    with C = 1/ln(b) in float32 and P a degree-9 fit (Chebyshev nodes) of the rest
    (relative error 2**-27). kh + f*C (kh = k or k*log_b(2)'s head, exact) in one
    FMA, its rounding error recovered by a second (kh - w is exact: w lies within a
    factor 2 of kh, or kh = 0), the small parts added to it, rounded once at the end."""
    key = "f32"
    coeffs = _P32[base]
    acc = _c(key, coeffs[-1])
    for cf in reversed(coeffs[:-1]):
        acc = _mad(b, f, acc, _c(key, cf))
    if base == "log":
        kh = b.fmul(dk, _c(key, _LN2_32[0]))
        w = b.fadd(kh, f)
        err = _mad(b, dk, _c(key, _LN2_32[1]), b.fadd(b.fsub(kh, w), f))
    else:
        ch = _INV[(base, key)][0]
        kh = b.fmul(dk, _c(key, _LOG10_2[key][0])) if base == "log10" else dk
        w = _fma(b, f, _c(key, ch), kh)
        err = _fma(b, f, _c(key, ch), b.fsub(kh, w))
        if base == "log10":
            err = _mad(b, dk, _c(key, _LOG10_2[key][1]), err)
    if extra is not None:
        err = b.fadd(err, extra)
    return b.fadd(w, _mad(b, f, acc, err))


# ------------------------------------------------------------------ log, log2, log10, log1p

def _define_log(b, x, key, base):
    if key == "f32":
        dk, m = _reduce_prescaled(b, x, key, _RT32)
        res = _core_f32(b, b.fsub(m, _c(key, 1.0)), dk, base)
        return _specials(b, x, res, key)
    dk, m = _reduce_scaled(b, x, key)
    f = b.fsub(m, _c(key, 1.0))
    d = b.fadd(m, _c(key, 1.0))              # = 2 + f, rounded the same, one step sooner
    if base == "log":
        res = _finish_ln(b, f, d, dk, None)
    else:
        res = _finish_base(b, f, d, dk, base)
    return _specials(b, x, res, key)


# ------------------------------------------------------------------ log1p

def _define_log1p(b, x, key, base):
    """log(u) + c/u for u = 1 + x rounded and c = x - (u - 1) its rounding error:
    exact while u < 2**53 (2**24), u - 1 and x - (u - 1) being exact there; beyond,
    off by at most 1, and c/u < 2**-52 is below a 30th of log(u)'s last bit either
    way. u is never subnormal. The special values are log's of u (u = 0 exactly
    at x = -1), and x = +-0 gives x."""
    one = _c(key, 1.0)
    u = b.fadd(one, x)
    cu = b.fdiv(b.fsub(x, b.fsub(u, one)), u)
    if key == "f32":
        dk, m = reduce(b, u, key, _RT32)
        res = _core_f32(b, b.fsub(m, one), dk, "log", cu)
    else:
        dk, m = reduce(b, u, key)
        res = _finish_ln(b, b.fsub(m, one), b.fadd(m, one), dk, cu)
    res = _specials(b, u, res, key)
    return b.select(b.fcmp_ordered("==", x, _c(key, 0.0)), x, res)
