"""Vectorisable x**y for float32 and float64 as branch-free LLVM IR.

`llvm.pow` is a call of libm's scalar `pow`, which keeps a loop scalar.
The general case |x|**y = 2**(y log2|x|) or e**(y log|x|) is
`vecmath_pow_double.py` (float64: log|x| and the product in double-double) and
`vecmath_pow_single.py` (float32: in float64, rounded once); both return
log|x| = -inf for x = 0 and +inf for |x| = inf, so that 0**y, inf**y and
x**(+-inf) come out of the arithmetic itself as 0 or inf (the exponential
saturates), and float64 adds only the rest of C99's (and NumPy's) special
cases as selects (`_special_cases`):

* x**0 = 1 and 1**y = 1 for any x, y (NaN too); otherwise NaN propagates;
* |x| = 1: 1 (y = +-inf would give 0 * inf; x = -1 takes the sign below);
* an odd integer y keeps the sign of x (-0 and -inf included);
* a negative finite x with a non-integer finite y gives NaN.

float32 keeps one select per case (`_special_cases_full`, same results):
with the shorter list LLVM's loop vectoriser picks 8 lanes instead of 16
for the float32 loop (it weighs the float64 arithmetic more), which was
measured 10% slower.
"""
from __future__ import annotations

from llvmlite import ir

from . import vecmath_pow_single, vecmath_pow_double
from .irutil import intrinsic
from .ltypes import F32, I32, I64

__all__ = ["pow_"]


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
            fb.ret(_special_cases(fb, fx, fy, vecmath_pow_double.pow64(fb, fx, fy)))
        else:
            fb.ret(_special_cases_full(fb, fx, fy, vecmath_pow_single.pow32(fb, fx, fy)))
    return b.call(fn, [x, y])


def _special_cases(b, x, y, general):
    """C99's pow special cases around `general` (|x|**y, exact 0 or inf for x = 0,
    |x| = inf or y = +-inf with |x| != 1)."""
    t = x.type

    def c(v):
        return ir.Constant(t, v)

    ax = intrinsic(b, "fabs", [x])
    r = b.select(b.fcmp_ordered("==", ax, c(1.0)), c(1.0), general)
    y_int = b.fcmp_ordered("==", intrinsic(b, "roundeven", [y]), y)        # +-inf too
    half = b.fmul(y, c(0.5))
    y_odd = b.and_(y_int, b.fcmp_unordered("!=", intrinsic(b, "roundeven", [half]), half))
    bits = I64 if t.intrinsic_name == "f64" else I32
    x_signed = b.icmp_signed("<", b.bitcast(x, bits), ir.Constant(bits, 0))
    r = b.select(b.and_(x_signed, y_odd), b.fneg(r), r)
    bad = b.and_(b.fcmp_ordered("<", x, c(0.0)), b.fcmp_ordered("<", ax, c(float("inf"))))
    r = b.select(b.and_(bad, b.not_(y_int)), c(float("nan")), r)
    r = b.select(b.fcmp_unordered("uno", x, y), b.fadd(x, y), r)
    one = b.or_(b.fcmp_ordered("==", y, c(0.0)), b.fcmp_ordered("==", x, c(1.0)))
    return b.select(one, c(1.0), r)


def _special_cases_full(b, x, y, general):
    """C99's pow special cases around `general` (|x|**y for finite nonzero x, finite
    y), every one by its own select: float32's (see pow_)."""
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
    bits = I64 if t.intrinsic_name == "f64" else I32
    x_signed = b.icmp_signed("<", b.bitcast(x, bits), ir.Constant(bits, 0))
    r = b.select(b.and_(x_signed, y_odd), b.fneg(r), r)
    bad = b.and_(b.and_(b.fcmp_ordered("<", x, c(0.0)), b.fcmp_ordered("<", ax, inf)),
                 b.and_(y_fin, b.not_(y_int)))
    r = b.select(bad, c(float("nan")), r)
    nan = b.or_(b.fcmp_unordered("uno", x, x), b.fcmp_unordered("uno", y, y))
    r = b.select(nan, b.fadd(x, y), r)
    one = b.or_(b.fcmp_ordered("==", y, c(0.0)), b.fcmp_ordered("==", x, c(1.0)))
    return b.select(one, c(1.0), r)
