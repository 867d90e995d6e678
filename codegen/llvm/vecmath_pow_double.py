"""The general part of float64 x**y (|x|**y), as branch-free LLVM IR:

* log: |x| = 2**k * m (m in [sqrt(2)/2, sqrt(2)), subnormals scaled first),
  f = m - 1, s = f/(2 + f) in double-double (one division: s = f*(1/d) and
  its residual times 1/d), log m = 2s + 2/3 s**3 + s**5 Q(s**2) (atanh's
  series, the s**3 term in double-double), plus k ln2 (ln2 in two parts,
  k*ln2_hi exact): about 2**-64 relative.
* z = y*log|x| = zh + zl (the product split exactly with FMA).
* exp: zh = n ln2 + r (one FMA with ln2's nearest double, exact; the rest of
  ln2 joins zl), e**r - 1 - r by a polynomial,
  e**zl folded in as (1 + zl), scaled by 2**n (`mathfns.times_power_of_two`:
  subnormal results are rounded once).

Compared with the first version (Taylor series, Horner's rule):

* atanh's series after the s**3 term, Q(s*s), is a near-minimax fit of 8
  terms (relative error 2**-53.8; the term is s**5 Q, below 2**-12 of the
  log, so 2**-66) instead of 13 Taylor terms;
* e**r - 1 - r = r*r E(r) uses expm1's fit (`vecmath_exp_minus_one.EXPM1_E`,
  11 terms, relative error 2**-57) instead of the Taylor series to r**14;
* both are evaluated by Estrin's scheme (`vecmath_pow_single.estrin`): a loop
  body with long chains of dependent multiply-adds is limited by how many
  iterations the out-of-order window holds, not by the arithmetic.
"""
from __future__ import annotations


from .ddmath import c64 as _c, fma as _fma, mad as _mad
from .irutil import intrinsic
from .ltypes import F64, I32, I64
from .mathfns import times_power_of_two
from .vecmath_exp_minus_one import EXPM1_E
from .vecmath_pow_single import estrin, reduce_log, saturate_log

__all__ = ["pow64"]

_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10   # hi: 32 bits
# ln2 as the nearest double and the rest (the exp's reduction: see _exp_dd)
_LN2_D, _LN2_DT = 0.6931471805599453, 2.319046813846299558e-17
_TWO_THIRDS_HI, _TWO_THIRDS_LO = 0.6666666666666666, 3.700743415417188e-17
# Q(w) = 2/5 + 2/7 w + ... on w <= (3 - 2 sqrt(2))**2 (bench/polyfit.py)
_Q = (0.4, 0.2857142857142937, 0.22222222221655147, 0.18181818335528047, 0.15384594950604316,
      0.13334805239890352, 0.11706223814393628, 0.11723292135178141)


def pow64(b, x, y):
    """|x|**y in float64 (about 1 ulp) for finite nonzero x and finite y; 0 or inf
    for x = 0, |x| = inf, y = +-inf with |x| != 1 (log|x| saturated to -+inf, the
    exponential to 0 or inf); the caller adds the other special cases."""
    ax = intrinsic(b, "fabs", [x])
    lh, ll = _log_dd(b, ax)
    lh = saturate_log(b, ax, lh)
    zh = b.fmul(y, lh)
    zl = _mad(b, y, ll, _fma(b, y, lh, b.fneg(zh)))
    return _exp_dd(b, zh, zl)


def _log_dd(b, ax):
    """log(ax) as (hi, lo) to about 2**-64 relative (ax > 0 finite)."""
    tiny = b.fcmp_ordered("<", ax, _c(2.0 ** -1022))
    xs = b.select(tiny, b.fmul(ax, _c(2.0 ** 54)), ax)
    k, m = reduce_log(b, xs, "f64")
    kf = b.sitofp(k, F64)
    kf = b.select(tiny, b.fsub(kf, _c(54.0)), kf)
    f = b.fsub(m, _c(1.0))                                   # exact (Sterbenz)
    d = b.fadd(m, _c(1.0))                                   # d + dl = 2 + f = m + 1:
    dl = b.fsub(m, b.fsub(d, _c(1.0)))                       # d - 1 and this exact
    inv = b.fdiv(_c(1.0), d)
    s = b.fmul(f, inv)
    t = b.fsub(_fma(b, b.fneg(s), d, f), b.fmul(s, dl))     # f - s*(d + dl)
    sl = b.fmul(t, inv)
    s2h = b.fmul(s, s)
    s2l = _fma(b, s, s, b.fneg(s2h))
    s3h = b.fmul(s2h, s)
    s3l = b.fadd(_fma(b, s2h, s, b.fneg(s3h)), _mad(b, s2l, s, b.fmul(b.fmul(_c(3.0), s2h), sl)))
    ch = b.fmul(_c(_TWO_THIRDS_HI), s3h)
    cl = b.fadd(_fma(b, _c(_TWO_THIRDS_HI), s3h, b.fneg(ch)),
                _mad(b, _c(_TWO_THIRDS_LO), s3h, b.fmul(_c(_TWO_THIRDS_HI), s3l)))
    rest = b.fmul(b.fmul(s3h, s2h), estrin(b, s2h, _Q))      # s**5 Q(s**2)
    # Fast2Sum where the first term is the larger: |2s| > |2/3 s**3| (|s| < 0.18),
    # |k ln2_hi| >= ln2 > |a| unless k = 0 (then exact anyway)
    a, e = _fast_two_sum(b, b.fmul(_c(2.0), s), ch)
    lo = b.fadd(b.fadd(e, cl), b.fadd(b.fmul(_c(2.0), sl), rest))
    hi, e2 = _fast_two_sum(b, b.fmul(kf, _c(_LN2_HI)), a)    # k*ln2_hi exact
    lo = b.fadd(lo, _mad(b, kf, _c(_LN2_LO), e2))
    h = b.fadd(hi, lo)
    return h, b.fadd(b.fsub(hi, h), lo)


def _fast_two_sum(b, a, c):
    """(s, e) with s = fl(a + c), s + e = a + c exactly, for |a| >= |c| (or a = 0)."""
    s = b.fadd(a, c)
    return s, b.fsub(c, b.fsub(s, a))


def _exp_dd(b, zh, zl):
    """e**(zh + zl) (|zl| tiny against zh): inf above the overflow threshold, 0
    below the underflow one, subnormals rounded once."""
    out = b.or_(b.fcmp_unordered(">", zh, _c(710.0)), b.fcmp_ordered("<", zh, _c(-746.0)))
    zh = b.select(b.fcmp_unordered(">", zh, _c(710.0)), _c(710.0), zh)
    zh = b.select(b.fcmp_ordered("<", zh, _c(-746.0)), _c(-746.0), zh)
    zl = b.select(out, _c(0.0), zl)
    # n = round(zh/ln2) by the shifter 1.5 * 2**52 (the sum's low bits are n)
    shifter = 1.5 * 2.0 ** 52
    # n as a float by `ns - shifter`, not `rounded_by_shifter`'s conversion: one cycle
    # less on the chain, and fastmath does not fold an FMA's sum (the fastmath test
    # runs pow); the integer from the same bits, for the scaling
    ns = _fma(b, zh, _c(1.4426950408889634), _c(shifter))
    n = b.fsub(ns, _c(shifter))
    ni = b.trunc(b.sub(b.bitcast(ns, I64), b.bitcast(_c(shifter), I64)), I32)   # |n| <= 1077
    # rh = zh - n*ln2 (ln2's nearest double) is exact in one FMA: n*ln2's last bit
    # is 2**-53 and zh's at least that for |zh| >= 1/2 (n = 0 below ln2/2; in
    # [ln2/2, 1/2) n = +-1 and both lie on 2**-54), |rh| < 0.35. The rest of ln2
    # and zl go into rl (|rl| < 2**-40, so e**rl = 1 + rl to 2**-80 whatever |rh|:
    # no TwoSum)
    rh = _fma(b, b.fneg(n), _c(_LN2_D), zh)
    rl = _mad(b, b.fneg(n), _c(_LN2_DT), zl)
    p = _mad(b, b.fmul(rh, rh), estrin(b, rh, EXPM1_E["f64"]), rh)   # e**rh - 1
    e = b.fadd(_c(1.0), b.fadd(p, _mad(b, rl, p, rl)))       # e**rh * (1 + rl)
    return times_power_of_two(b, e, ni)
