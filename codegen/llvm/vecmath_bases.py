"""Vectorisable exp2, log2, log10 (float32 and float64) as branch-free LLVM IR.

`llvm.exp2`, `llvm.log2` and `llvm.log10` are calls of libm's scalar
functions, which keep a loop scalar. These are the double-double log and exp
of `vecmath_pow.py` with the base changed exactly:

* exp2(x) = e**(x ln2) with x*ln2 carried as a double-double (ln2 in two
  parts, the product split with FMA), so the argument's rounding does not
  grow with |x|;
* log2(x), log10(x) = log(x) (double-double) times 1/ln2 or 1/ln10 in two
  parts, rounded once at the end.

float32 needs less: log2 by the division-free polynomial of float32 pow
(times log10(2) for log10), exp2 by 2**n times 2**r's Taylor series, in
float64, rounded once. Special values are
NumPy's: exp2(-inf) = 0, exp2(inf) = inf; log of 0 is -inf, of a negative
number or NaN NaN, of inf inf. docs/ARCHITECTURE.md ("Vector maths") gives
the measured errors.
"""
from __future__ import annotations

from llvmlite import ir

from .irutil import intrinsic
from .ltypes import F32, F64
from .vecmath_pow import exp2_f64_cheap, exp_dd, log2_f32, log_dd
from .ddmath import c64 as _c

__all__ = ["exp2", "log2", "log10"]

_LN2, _LN2_LO = 0.6931471805599453, 2.3190468138462996e-17
# 1/ln2 and 1/ln10 as double-double (hi + lo)
_INV = {"log2": (1.4426950408889634, 2.0355273740931033e-17),
        "log10": (0.4342944819032518, 1.098319650216765e-17)}


def exp2(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """2**x of a float32/float64 register value (vectorisable)."""
    return _routine(b, "exp2", x)


def log2(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Base-2 log of a float32/float64 register value (vectorisable)."""
    return _routine(b, "log2", x)


def log10(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Base-10 log of a float32/float64 register value (vectorisable)."""
    return _routine(b, "log10", x)


def _routine(b, base, x):
    key = "f32" if x.type == F32 else "f64"
    name = f"ag.{base}.{key}"
    fn = b.module.globals.get(name)
    if fn is None:
        ft = x.type
        fn = ir.Function(b.module, ir.FunctionType(ft, [ft]), name)
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        fn.attributes.add("nounwind")
        fb = ir.IRBuilder(fn.append_basic_block("entry"))
        arg = fn.args[0]
        if key == "f64":
            fb.ret(_exp2(fb, arg) if base == "exp2" else _log(fb, arg, base))
        else:
            xd = fb.fpext(arg, F64)
            r = _exp2_32(fb, xd) if base == "exp2" else _log(fb, xd, base, arg)
            fb.ret(fb.fptrunc(r, F32))
    return b.call(fn, [x])


def _exp2(b, x):
    zh = b.fmul(x, _c(_LN2))
    zl = intrinsic(b, "fmuladd", [x, _c(_LN2_LO), intrinsic(b, "fma", [x, _c(_LN2), b.fneg(zh)])])
    # exp_dd clamps its argument: -inf gives 0, +inf inf; NaN passes through below
    r = exp_dd(b, zh, b.select(b.fcmp_ordered("<", intrinsic(b, "fabs", [x]), _c(float("inf"))),
                               zl, _c(0.0)))
    return b.select(b.fcmp_unordered("uno", x, x), x, r)


def _exp2_32(b, x):
    """2**x for a float32 x held as float64 (no double-double needed)."""
    return b.select(b.fcmp_unordered("uno", x, x), x, exp2_f64_cheap(b, x))


def _log(b, x, base, x32=None):
    """log2/log10 of float64 x; with `x32` (float32 x as float64 in `x`) the
    cheaper float32 log2 polynomial, rounded once by the caller."""
    if x32 is not None:
        ax = intrinsic(b, "fabs", [x32])
        r = log2_f32(b, ax)
        if base == "log10":
            r = b.fmul(r, _c(0.30102999566398120))       # log10(2)
    else:
        lh, ll = log_dd(b, x)
        ih, il = _INV[base]
        h = b.fmul(lh, _c(ih))
        lo = intrinsic(b, "fma", [lh, _c(ih), b.fneg(h)])
        lo = b.fadd(lo, intrinsic(b, "fmuladd", [lh, _c(il), b.fmul(ll, _c(ih))]))
        r = b.fadd(h, lo)
    inf = _c(float("inf"))
    r = b.select(b.fcmp_ordered("==", x, inf), inf, r)
    r = b.select(b.fcmp_ordered("==", x, _c(0.0)), _c(float("-inf")), r)
    # x < 0 or NaN: NaN (x + NaN keeps a NaN's payload)
    return b.select(b.fcmp_unordered("<", x, _c(0.0)), b.fadd(x, _c(float("nan"))), r)
