"""Vectorisable sin, cos, tan (float32 and float64) as branch-free LLVM IR.

libm's `sin` is a scalar call that keeps a loop scalar. These routines are
internal, always-inlined functions without branches, so the loop vectoriser
widens them like any arithmetic. Each comes in two forms:

* fast (`huge` given): Cody-Waite only. float64, |x| < 2**19: x - q*PIO2_HI
  exact in one FMA, q*PIO2_LO split exactly by another and joined by an
  exact Fast2Sum, q*PIO2_T in the tail (r as hi + lo to about 2**-100
  relative; about 35% faster than fdlibm's three 33-bit parts, whose two
  TwoSums lengthened the chain). float32, |x| < 71476: NumPy's SIMD
  reduction in float32 (pi/2 in three parts, FMA). Beyond, the result is
  wrong and the caller's flag is set: lowering/fixup.py then runs the loop
  again with the exact form.
* exact: both reductions computed, one selected. Payne-Hanek for
  |x| >= 2**19 (float64: x = M * 2**s with M the 53-bit mantissa, a table
  indexed by the exponent holding (2**s * 2/pi) mod 4 in four 53-bit slices,
  M*T mod 4 in double-double with FMA-split products: q and r to about
  2**-150 absolute, enough for the worst case of all doubles, |r| about
  2**-61) or |x| >= 2**27 (float32, in float64: three 29-bit slices of 2/pi
  cut from its first 192 bits held as constants, so M*slice is exact and no
  table load, which would be a gather, is needed); below, musl's two-part
  reduction in float64 (float32).

Kernels: fdlibm's `__kernel_sin`/`__kernel_cos` with the lo correction
(float64; tan = sin/cos with the quadrant swap, one division, corrected by
the kernels' rounding errors: `_tan64`); musl's
double-precision `__sindf`/`__cosdf`/`__tandf` then one rounding (float32
exact form); `__sindf`'s and NumPy's cosine polynomial and `__tandf` in
float32 (float32 fast form). NaN and +-inf give NaN, +-0 keeps its sign for
sin and tan. The measured max ulp errors are in docs/ARCHITECTURE.md
("Vector maths").
"""
from __future__ import annotations

import functools

from llvmlite import ir

from .irutil import intrinsic, routine
from .ltypes import F32, F64, I32, I64
from .ddmath import c64 as _c, fma as _fma, mad as _mad, two_sum as _two_sum

__all__ = ["sin", "cos", "tan", "outlined", "two_over_pi_slices"]


def sin(b: ir.IRBuilder, x: ir.Value, huge: ir.Value = None) -> ir.Value:
    """sin of a float32/float64 register value (vectorisable).

    Without `huge`, exact for every argument (both reductions, one selected).
    With `huge` (an i8 stack slot), the fast reduction only: arguments beyond
    its range (`HUGE`) are wrong, and the slot is or-ed with 1 when there
    are any, so that the caller can run its loop again without `huge`."""
    return _call(b, "sin", x, huge)


def cos(b: ir.IRBuilder, x: ir.Value, huge: ir.Value = None) -> ir.Value:
    """cos of a float32/float64 register value (vectorisable; `huge` as for `sin`)."""
    return _call(b, "cos", x, huge)


def tan(b: ir.IRBuilder, x: ir.Value, huge: ir.Value = None) -> ir.Value:
    """tan of a float32/float64 register value (vectorisable; `huge` as for `sin`)."""
    return _call(b, "tan", x, huge)


# the fast reduction's range: |x| below this (float64: Cody-Waite's products
# exact; float32: NumPy's three-part reduction in float32 with FMA)
HUGE = {"f64": 2.0 ** 19, "f32": 71476.0}


def outlined(b: ir.IRBuilder, base: str, x: ir.Value) -> ir.Value:
    """A call of the exact routine `base` ("sin", "cos", "tan") kept out of line
    (one body however many calls: for loops too large to vectorise)."""
    return _routine(b, base, x, False, inline=False)


def _call(b, base, x, huge):
    key = "f32" if x.type == F32 else "f64"
    if huge is None:
        return _routine(b, base, x, False)
    ax = intrinsic(b, "fabs", [x])
    beyond = b.and_(b.fcmp_ordered(">=", ax, ir.Constant(x.type, HUGE[key])),
                    b.fcmp_ordered("<", ax, ir.Constant(x.type, float("inf"))))
    b.store(b.or_(b.load(huge), b.zext(beyond, ir.IntType(8))), huge)
    return _routine(b, base, x, True)


def _routine(b, base, x, fast, inline=True):
    key = "f32" if x.type == F32 else "f64"
    name = f"ag.{base}{'.fast' if fast else ''}{'' if inline else '.outlined'}.{key}"
    return routine(b, name, x, lambda fb, a: _define(fb, base, a, key, fast), inline=inline)


# ------------------------------------------------------------------ 2/pi

def _pi_fixed(bits: int) -> int:
    """floor(pi * 2**bits), by Machin's formula in integers (guard bits included)."""
    guard = 64
    one = 1 << (bits + guard)

    def atan_inv(n):
        total, term, k, sign = 0, one // n, 1, 1
        n2 = n * n
        while term:
            total += sign * (term // k)
            term //= n2
            k += 2
            sign = -sign
        return total

    return (16 * atan_inv(5) - 4 * atan_inv(239)) >> guard


@functools.lru_cache(maxsize=None)
def _two_over_pi(bits: int) -> int:
    """floor(2/pi * 2**bits)."""
    pi = _pi_fixed(bits + 8)                 # pi * 2**(bits + 8)
    return (1 << (2 * bits + 9)) // pi       # 2 * 2**bits / pi


@functools.lru_cache(maxsize=None)
def two_over_pi_slices(s: int, width: int, count: int) -> tuple:
    """(2**s * 2/pi) mod 4 as `count` floats of `width` bits each, the first
    holding the bits of weight 2**1 .. 2**(2 - width), the next the following
    `width` bits, ...; truncated, so their sum is below the true value by
    less than 2**(2 - width*count)."""
    frac = width * count - 2                 # fraction bits kept
    total = frac + max(s, 0) + 8
    v = _two_over_pi(total)                  # 2/pi * 2**total
    shift = total - frac - s                 # value * 2**frac = v >> shift (shift >= 8)
    fixed = (v >> shift) & ((1 << (frac + 2)) - 1)  # mod 4, in units of 2**-frac
    out = []
    for i in range(count):
        lo_bit = frac + 2 - width * (i + 1)
        chunk = (fixed >> lo_bit) & ((1 << width) - 1)
        out.append(float(chunk) * 2.0 ** (lo_bit - frac))
    return tuple(out)


# float64: exponents (biased) from 1023 + 19 up to 2046 (float32 needs no table)
_TABLE = {"f64": (1042, 2046, 53, 4)}


def _table(module: ir.Module, key: str) -> ir.GlobalVariable:
    name = f"ag.two_over_pi.{key}"
    g = module.globals.get(name)
    if g is not None:
        return g
    first, last, width, count = _TABLE[key]
    bias = 1075 if key == "f64" else 150     # x = M * 2**(E - bias), M an integer
    values = []
    for e in range(first, last + 1):
        values.extend(two_over_pi_slices(e - bias, width, count))
    ty = ir.ArrayType(F64, len(values))
    g = ir.GlobalVariable(module, ty, name)
    g.initializer = ir.Constant(ty, values)
    g.global_constant = True
    g.linkage = "internal"
    return g


# ------------------------------------------------------------------ double-double helpers


def _rint(b, v):
    return intrinsic(b, "roundeven", [v])


_PIO2_HI = 1.5707963267948966
_PIO2_LO = 6.123233995736766e-17
_INVPIO2 = 0.6366197723675814


# ------------------------------------------------------------------ float64 reduction

# pi/2 = _PIO2_HI + _PIO2_LO + _PIO2_T (each the nearest double to what is left; the sum
# within 2**-160 of pi/2)
_PIO2_T = -1.4973849048591698e-33


def _reduce_cw64(b, ax):
    """(hi, lo, q as float) for 0 <= ax < 2**19 (Cody-Waite with FMA, double-double):
    r1 = ax - q*PIO2_HI is exact in one FMA (q*PIO2_HI lies on 2**-52, and so does
    ax for ax >= 1; |r1| < 1), q*PIO2_LO (below 2**-35) is split exactly by a
    second FMA, and its head joins r1 by Fast2Sum, exact here even where r1 is
    the smaller (x next to a multiple of pi/2): r1 on 2**-52 is then a multiple
    of the head's ulp, so either the sum is exact (opposite signs) or s - r1 is
    (same signs). q*PIO2_T and the split's tail go into lo. hi + lo = r to about
    2**-100 relative; |lo| <= ulp(hi)/2 unless |hi| < 2**-34 (lo, below 2**-87,
    is then still tiny against hi, which the kernels take as a linear
    correction). 10 operations against 21 for fdlibm's three 33-bit parts and
    two TwoSums."""
    fn = _rint(b, b.fmul(ax, _c(_INVPIO2)))
    r1 = _fma(b, b.fneg(fn), _c(_PIO2_HI), ax)                    # exact
    ph = b.fmul(fn, _c(_PIO2_LO))
    pl = _fma(b, fn, _c(_PIO2_LO), b.fneg(ph))                    # exact: fn*LO = ph + pl
    hi = b.fsub(r1, ph)
    e = b.fsub(b.fsub(r1, hi), ph)                                # exact: see above
    lo = b.fsub(e, _mad(b, fn, _c(_PIO2_T), pl))
    return hi, lo, fn


def _table_slices(b, bits, key, shift, mask, count):
    first, last = _TABLE[key][0], _TABLE[key][1]
    it = bits.type
    e = b.and_(b.lshr(bits, ir.Constant(it, shift)), ir.Constant(it, mask))
    idx = b.sub(e, ir.Constant(it, first))
    idx = b.select(b.icmp_signed("<", idx, ir.Constant(it, 0)), ir.Constant(it, 0), idx)
    idx = b.select(b.icmp_signed(">", idx, ir.Constant(it, last - first)),
                   ir.Constant(it, last - first), idx)
    idx = b.mul(b.zext(idx, I64) if it != I64 else idx, ir.Constant(I64, count))
    g = _table(b.module, key)
    zero = ir.Constant(I32, 0)
    return [b.load(b.gep(g, [zero, b.add(idx, ir.Constant(I64, j))], inbounds=True))
            for j in range(count)]


def _reduce_ph64(b, ax):
    """(hi, lo, q as float) for ax >= 2**19 finite (Payne-Hanek, double-double)."""
    bits = b.bitcast(ax, I64)
    t = _table_slices(b, bits, "f64", 52, 0x7FF, 4)
    # the 53-bit integer mantissa M, as a double (exponent field set to 1075)
    m = b.bitcast(b.or_(b.and_(bits, ir.Constant(I64, (1 << 52) - 1)),
                        ir.Constant(I64, 1075 << 52)), F64)
    h0 = b.fmul(m, t[0])
    l0 = _fma(b, m, t[0], b.fneg(h0))
    g0 = b.fsub(h0, b.fmul(_c(4.0), intrinsic(b, "floor", [b.fmul(h0, _c(0.25))])))  # h0 mod 4
    k0 = b.fadd(_rint(b, g0), _rint(b, l0))
    a = b.fadd(b.fsub(g0, _rint(b, g0)), b.fsub(l0, _rint(b, l0)))   # exact, |a| <= 1
    h1 = b.fmul(m, t[1])
    l1 = _fma(b, m, t[1], b.fneg(h1))
    s, e = _two_sum(b, a, h1)
    k1 = _rint(b, s)
    s = b.fsub(s, k1)                                                 # exact, |s| <= 1/2
    h2 = b.fmul(m, t[2])
    l2 = _fma(b, m, t[2], b.fneg(h2))
    s, e1 = _two_sum(b, s, e)
    s, e2 = _two_sum(b, s, l1)
    s, e3 = _two_sum(b, s, h2)
    lo = b.fadd(b.fadd(b.fadd(e1, e2), b.fadd(e3, l2)), b.fmul(m, t[3]))
    k2 = _rint(b, s)
    s = b.fsub(s, k2)
    hi = b.fadd(s, lo)
    lo = b.fadd(b.fsub(s, hi), lo)
    # (hi + lo) quarter turns to radians, in double-double
    rh = b.fmul(hi, _c(_PIO2_HI))
    rl = b.fadd(_fma(b, hi, _c(_PIO2_HI), b.fneg(rh)),
                _mad(b, hi, _c(_PIO2_LO), b.fmul(lo, _c(_PIO2_HI))))
    rhi = b.fadd(rh, rl)
    rlo = b.fadd(b.fsub(rh, rhi), rl)
    return rhi, rlo, b.fadd(b.fadd(k0, k1), k2)


# fdlibm __kernel_sin / __kernel_cos coefficients
_S = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
      2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
_C = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
      -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)


def _ksin64(b, x, y, tail=False):
    """sin(x + y), |x| <= pi/4, |y| tiny (fdlibm's __kernel_sin with iy = 1);
    `tail`: (s, its rounding error) by Fast2Sum of the last step (|x| > |the rest|)."""
    z = b.fmul(x, x)
    w = b.fmul(z, z)
    r = _mad(b, b.fmul(z, w), _mad(b, z, _c(_S[5]), _c(_S[4])),
             _mad(b, z, _mad(b, z, _c(_S[3]), _c(_S[2])), _c(_S[1])))
    v = b.fmul(z, x)
    # fdlibm's steps with each product-and-sum as one multiply-add (fewer
    # operations on the multiply units, which bound these loops)
    inner = _mad(b, z, _mad(b, b.fneg(v), r, b.fmul(_c(0.5), y)), b.fneg(y))
    rest = _mad(b, b.fneg(v), _c(_S[0]), inner)
    s = b.fsub(x, rest)
    return (s, b.fsub(b.fsub(x, s), rest)) if tail else s


def _kcos64(b, x, y, tail=False):
    """cos(x + y), |x| <= pi/4 (fdlibm's __kernel_cos, musl's form); `tail`: (c, its
    rounding error) by Fast2Sum of the last step."""
    z = b.fmul(x, x)
    w = b.fmul(z, z)
    r = _mad(b, z, _mad(b, z, _mad(b, z, _c(_C[2]), _c(_C[1])), _c(_C[0])),
             b.fmul(b.fmul(w, w), _mad(b, z, _mad(b, z, _c(_C[5]), _c(_C[4])), _c(_C[3]))))
    hz = b.fmul(_c(0.5), z)
    one_m = b.fsub(_c(1.0), hz)
    corr = b.fadd(b.fsub(b.fsub(_c(1.0), one_m), hz), _mad(b, z, r, b.fneg(b.fmul(x, y))))
    c = b.fadd(one_m, corr)
    return (c, b.fadd(b.fsub(one_m, c), corr)) if tail else c


def _tan64(b, hi, lo, qf):
    """tan(hi + lo) (odd quadrant count: -1/tan) from sin and cos with their
    rounding errors: n/d for n + nl = sin (-cos), d + dl = cos (sin), as y = 1/d,
    q = n*y, then one correction q + (n - q*d + nl - q*dl)*y (the residual by
    FMA). The quotient is then rounded about once: 0.92 ulp measured, against
    2.21 for a plain n/d of the two rounded kernels, for 8 more operations and
    the same one division."""
    s, sl = _ksin64(b, hi, lo, tail=True)
    c, cl = _kcos64(b, hi, lo, tail=True)
    odd = b.trunc(b.fptosi(qf, I32), ir.IntType(1))
    n, nl = b.select(odd, b.fneg(c), s), b.select(odd, b.fneg(cl), sl)
    d, dl = b.select(odd, s, c), b.select(odd, sl, cl)
    y = b.fdiv(_c(1.0), d)
    q = b.fmul(n, y)
    e = _fma(b, b.fneg(q), d, n)
    u = _mad(b, b.fneg(q), dl, nl)             # beside e: one step less on the chain
    return _fma(b, b.fadd(e, u), y, q)


# ------------------------------------------------------------------ float32 (in float64)

# musl __rem_pio2f: pi/2 = P1F (25 bits) + P1FT
_P1F, _P1FT = 1.57079631090164184570e+00, 1.58932547735281966916e-08
_SF = (-0x15555554cbac77 * 2.0 ** -55, 0x111110896efbb2 * 2.0 ** -59,
       -0x1a00f9e2cae774 * 2.0 ** -65, 0x16cd878c3b46a7 * 2.0 ** -71)
_CF = (-0x1ffffffd0c5e81 * 2.0 ** -54, 0x155553e1053a42 * 2.0 ** -57,
       -0x16c087e80f1e27 * 2.0 ** -62, 0x199342e0ee5069 * 2.0 ** -68)
_TF = (0x15554d3418c99f * 2.0 ** -54, 0x1112fd38999f72 * 2.0 ** -55, 0x1b54c91d865afe * 2.0 ** -57,
       0x191df3908c33ce * 2.0 ** -58, 0x185dadfcecf44e * 2.0 ** -61, 0x1362b9bf971bcd * 2.0 ** -59)


# 2/pi's first 192 bits (bits 1..64, 65..128, 129..192 after the point): the
# float32 wide reduction needs bits up to 189 (x < 2**128), few enough to
# take from registers (a table indexed by the exponent would be a gather,
# several times slower than this on x86).
def _two_over_pi_words():
    v = _two_over_pi(192)
    return tuple((v >> (64 * (2 - i))) & ((1 << 64) - 1) for i in range(3))


def _bits_at(b, z, words):
    """The 29 bits of 2/pi starting at 0-based position z (0 <= z <= 160), as an i32."""
    w = b.lshr(z, ir.Constant(I64, 6))
    o = b.and_(z, ir.Constant(I64, 63))
    k = [ir.Constant(I64, v) for v in words] + [ir.Constant(I64, 0)]
    first = b.icmp_unsigned("==", w, ir.Constant(I64, 0))
    second = b.icmp_unsigned("==", w, ir.Constant(I64, 1))
    top = b.select(first, k[0], b.select(second, k[1], k[2]))
    nxt = b.select(first, k[1], b.select(second, k[2], k[3]))
    # (nxt >> 1) >> (63 - o): no shift by 64 when o == 0
    val = b.or_(b.shl(top, o), b.lshr(b.lshr(nxt, ir.Constant(I64, 1)), b.sub(ir.Constant(I64, 63), o)))
    return b.trunc(b.lshr(val, ir.Constant(I64, 35)), I32)


def _reduce32(b, x, fast):
    """(r as float64, q as float) for a finite float32 |x| (in float64);
    `fast`: the Cody-Waite reduction only (|x| < HUGE["f32"])."""
    bits = b.bitcast(x, I32)
    ax = b.fpext(intrinsic(b, "fabs", [x]), F64)
    # |x| < 2**27: two-part Cody-Waite (fn*P1F exact)
    fn = _rint(b, b.fmul(ax, _c(_INVPIO2)))
    r_cw = _fma(b, b.fneg(fn), _c(_P1FT), _fma(b, b.fneg(fn), _c(_P1F), ax))
    if fast:
        return r_cw, fn
    # |x| >= 2**27: x = m * 2**s (4 <= s <= 104), (2**s * 2/pi) mod 4 in three
    # 29-bit slices c0 + c1 + c2 (weights 2**1 .. 2**-85), so m*ci is exact
    e = b.zext(b.and_(b.lshr(bits, ir.Constant(I32, 23)), ir.Constant(I32, 0xFF)), I64)
    e = b.select(b.icmp_unsigned("<", e, ir.Constant(I64, 154)), ir.Constant(I64, 154), e)
    e = b.select(b.icmp_unsigned(">", e, ir.Constant(I64, 254)), ir.Constant(I64, 254), e)
    z0 = b.sub(e, ir.Constant(I64, 152))          # s - 2: the bit of weight 2**1
    words = _two_over_pi_words()
    t = [b.fmul(b.sitofp(_bits_at(b, b.add(z0, ir.Constant(I64, 29 * i)), words), F64),
                _c(2.0 ** (-27 - 29 * i))) for i in range(3)]
    m = b.sitofp(b.or_(b.and_(bits, ir.Constant(I32, 0x7FFFFF)), ir.Constant(I32, 0x800000)), F64)
    p0 = b.fmul(m, t[0])                                    # exact (24 + 29 bits)
    g0 = b.fsub(p0, b.fmul(_c(4.0), intrinsic(b, "floor", [b.fmul(p0, _c(0.25))])))
    k0 = _rint(b, g0)
    s, err = _two_sum(b, b.fsub(g0, k0), b.fmul(m, t[1]))
    k1 = _rint(b, s)
    s = b.fsub(s, k1)
    hi = b.fadd(s, b.fadd(err, b.fmul(m, t[2])))
    r_ph = b.fmul(hi, _c(_PIO2_HI))
    big = b.fcmp_ordered(">=", ax, _c(2.0 ** 27))      # the table's first exponent
    return b.select(big, r_ph, r_cw), b.select(big, b.fadd(k0, k1), fn)


def _ksin32(b, x):
    z = b.fmul(x, x)
    w = b.fmul(z, z)
    r = _mad(b, z, _c(_SF[3]), _c(_SF[2]))
    s = b.fmul(z, x)
    return b.fadd(_mad(b, s, _mad(b, z, _c(_SF[1]), _c(_SF[0])), x), b.fmul(b.fmul(s, w), r))


def _kcos32(b, x):
    z = b.fmul(x, x)
    w = b.fmul(z, z)
    r = _mad(b, z, _c(_CF[3]), _c(_CF[2]))
    return b.fadd(_mad(b, w, _c(_CF[1]), _mad(b, z, _c(_CF[0]), _c(1.0))), b.fmul(b.fmul(w, z), r))


def _ktan32(b, x, odd):
    """musl's __tandf: tan(x) (odd: -1/tan(x)), |x| <= pi/4, in x's type."""
    def _c(v):
        return ir.Constant(x.type, v)

    z = b.fmul(x, x)
    r = _mad(b, z, _c(_TF[5]), _c(_TF[4]))
    t = _mad(b, z, _c(_TF[3]), _c(_TF[2]))
    w = b.fmul(z, z)
    s = b.fmul(z, x)
    u = _mad(b, z, _c(_TF[1]), _c(_TF[0]))
    r = b.fadd(_mad(b, s, u, x), b.fmul(b.fmul(s, w), _mad(b, w, r, t)))
    return b.select(odd, b.fdiv(_c(-1.0), r), r)


# ------------------------------------------------------------------ float32 fast sin/cos

# As NumPy's float32 SIMD sin/cos (loops_trigonometric): pi/2 in three parts
# for FMA and NumPy's cosine polynomial, all in float32, so a vector holds twice
# the elements of the float64 route (tan: musl's __tandf, in float32).
_PIO2F = (float.fromhex("0x1.921fb0p+00"), float.fromhex("0x1.5110b4p-22"),
          float.fromhex("0x1.846988p-48"))
_COSF = tuple(float.fromhex(h) for h in ("0x1.98e616p-16", "-0x1.6c06dcp-10", "0x1.55553cp-05",
                                          "-0x1.000000p-01"))
# sin: musl's __sindf coefficients (degree 9), rounded to float32
_SINF = (_SF[3], _SF[2], _SF[1], _SF[0])


def _fast_trig32(b, base, x):
    """sin, cos or tan of a float32 with |x| < HUGE["f32"] (else wrong: the caller
    re-runs the loop with the exact routine)."""
    def c(v):
        return ir.Constant(F32, v)

    ax = intrinsic(b, "fabs", [x])
    qf = _rint(b, b.fmul(ax, c(_INVPIO2)))
    r = ax
    for part in _PIO2F:
        r = _fma(b, b.fneg(qf), c(part), r)
    if base == "tan":
        odd = b.trunc(b.fptosi(qf, I32), ir.IntType(1))
        return _quadrants(b, base, x, qf, _ktan32(b, r, odd), None, F32, I32)
    r2 = b.fmul(r, r)
    cs = c(_COSF[0])
    for k in _COSF[1:] + (1.0,):
        cs = _mad(b, cs, r2, c(k))
    sn = c(_SINF[0])
    for k in _SINF[1:]:
        sn = _mad(b, sn, r2, c(k))
    sn = _mad(b, b.fmul(sn, r2), r, r)
    return _quadrants(b, base, x, qf, sn, cs, F32, I32)


# ------------------------------------------------------------------ assembly

def _define(b, base, x, key, fast):
    if key == "f64":
        ax = intrinsic(b, "fabs", [x])
        hi, lo, qf = _reduce_cw64(b, ax)
        if not fast:
            phi, plo, pq = _reduce_ph64(b, ax)
            big = b.fcmp_ordered(">=", ax, _c(HUGE["f64"]))
            hi, lo, qf = b.select(big, phi, hi), b.select(big, plo, lo), b.select(big, pq, qf)
        if base == "tan":
            return _quadrants(b, base, x, qf, _tan64(b, hi, lo, qf), None, F64, I64)
        s, c = _ksin64(b, hi, lo), _kcos64(b, hi, lo)
        ft = F64
    elif fast:
        return _fast_trig32(b, base, x)
    else:
        hi, qf = _reduce32(b, x, fast)
        s, c = _ksin32(b, hi), _kcos32(b, hi)
        ft = F32
    if base == "tan" and key == "f32":
        return _quadrants(b, base, x, qf, _ktan32(b, hi, b.trunc(b.fptosi(qf, I32), ir.IntType(1))),
                          None, ft, I32)
    return _quadrants(b, base, x, qf, s, c, ft, I64 if key == "f64" else I32)


def _quadrants(b, base, x, qf, s, c, ft, it):
    """The result from sin(r) `s`, cos(r) `c` and the quadrant count `qf` of |x|
    (with `c` None, `s` is already tan: float32 in float64, float64 from `_tan64`);
    NaN for NaN and +-inf."""
    q = b.fptosi(qf, I32)
    odd = b.trunc(q, ir.IntType(1))
    if base == "tan":
        if c is None:
            res = s
        else:
            # one division: -cos/sin in odd quadrants, sin/cos in even ones
            res = b.fdiv(b.select(odd, b.fneg(c), s), b.select(odd, s, c))
    else:
        if base == "cos":
            q = b.add(q, ir.Constant(I32, 1))     # cos(x) = sin(x + pi/2)
            odd = b.trunc(q, ir.IntType(1))
        res = b.select(odd, c, s)
        neg = b.trunc(b.lshr(q, ir.Constant(I32, 1)), ir.IntType(1))
        res = b.select(neg, b.fneg(res), res)
    if res.type != ft:
        res = b.fptrunc(res, ft)
    if base != "cos":   # odd functions: the sign of x (so -0 stays -0)
        sign = b.and_(b.bitcast(x, it), ir.Constant(it, 1 << (it.width - 1)))
        res = b.bitcast(b.xor(b.bitcast(res, it), sign), ft)
    inf = ir.Constant(ft, float("inf"))
    finite = b.fcmp_ordered("<", intrinsic(b, "fabs", [x]), inf)
    return b.select(finite, res, b.fsub(x, x))       # NaN for +-inf and NaN
