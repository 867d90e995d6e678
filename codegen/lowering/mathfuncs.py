"""Scalar lowerings of the NumPy-kernel math functions (`tracer/ops/mathfuncs.py`,
`tracer/ops/bitwise.py`): rounding, exp/log variants, inverse and hyperbolic
trigonometry, `atan2`, `hypot`, `fmod`, `copysign`, `fmax`/`fmin`, the
predicates and the shifts.

Each is one scalar function added to `scalar.SCALAR`, so these ops share the
broadcasting loop nest and fusion of every elementwise op
(`lowering/elementwise.py`). Rounding uses LLVM's intrinsics (`llvm.floor`,
`ceil`, `trunc`, `roundeven`: exact, vectorisable); `exp2`/`log2`/`log10`
the double-double routines of `codegen/llvm/vecmath_bases.py`;
`log1p`/`expm1` those of `codegen/llvm/vecmath.py`, `sinh`/`cosh`
`codegen/llvm/vecmath_hyper.py`'s, and `atan`/`atan2` Cephes' rational approximation (all
branch-free, so they vectorise: docs/ARCHITECTURE.md "Vector maths" gives
their errors); `asin`, `acos`, `asinh`, `acosh`, `atanh`, `hypot` and the
special functions `erf`, `erfc`, `lgamma`, `gamma` (`tgamma`; tracer/ops/special.py)
call the C library (`asinf`/`asin`, ...; scalar loops), as `cbrt` does, so results
agree with NumPy's within a few ulps (tests/codegen/test_compiled_numpy_math.py
states the bound). `fmod` of floats is LLVM's `frem` (C's fmod, exact).
"""
from __future__ import annotations

from llvmlite import ir

from autograph.tracer.core.ir import Op

from ..llvm.irutil import declare, intrinsic
from ..llvm import vecmath, vecmath_bases, vecmath_hyper
from ..llvm.ltypes import I1
from .elementwise import lower_elementwise
from .registry import register
from .scalar import scalar_op

__all__ = ["NAMES"]

NAMES = []   # every op this module lowers (registered as elementwise at the end)


def _op(*names: str):
    NAMES.extend(names)
    return scalar_op(*names)


def _dtype(op: Op, i: int = 0):
    return op.operands[i].type.dtype


def _libm(b: ir.IRBuilder, name: str, args):
    """Call the C library's `name` (float64) or `name`f (float32) on `args`."""
    t = args[0].type
    full = name + ("f" if isinstance(t, ir.FloatType) else "")
    return b.call(declare(b.module, full, t, [a.type for a in args]), list(args))


# ------------------------------------------------------------------ rounding

_ROUNDING = {"floor": "floor", "ceil": "ceil", "trunc": "trunc", "round": "roundeven",
             "rint": "roundeven"}


@_op(*_ROUNDING)
def _round(lw, op, args):
    (x,) = args
    if not _dtype(op).is_floating:
        return x      # integers are already integral (the type rule keeps their dtype)
    # roundeven is round-half-to-even whatever the FP environment's mode (rint's mode).
    return intrinsic(lw.b, _ROUNDING[op.name], [x])


# ------------------------------------------------------------------ exp / log / trigonometry

_INTRINSICS = {"exp2": "exp2", "log2": "log2", "log10": "log10"}
_LIBM_UNARY = {"asin": "asin", "acos": "acos", "asinh": "asinh", "acosh": "acosh",
               "atanh": "atanh",
               # tracer/ops/special.py: what Python's math module calls too
               "erf": "erf", "erfc": "erfc", "lgamma": "lgamma", "gamma": "tgamma"}
_LIBM_BINARY = {"hypot": "hypot"}


@_op(*_INTRINSICS)
def _bases(lw, op, args):
    # vectorisable routines (codegen/llvm/vecmath_bases.py), unlike llvm.exp2 & co. (libm calls)
    return getattr(vecmath_bases, _INTRINSICS[op.name])(lw.b, args[0])


@_op("log1p", "expm1")
def _vecmath_unary(lw, op, args):
    # vectorisable IR routines (codegen/llvm/vecmath.py), unlike the libm calls
    return getattr(vecmath, op.name)(lw.b, args[0])


@_op("sinh", "cosh")
def _sinh_cosh(lw, op, args):
    # one exponential core for e**|x| and e**-|x|, no division (codegen/llvm/vecmath_hyper.py)
    return getattr(vecmath_hyper, op.name)(lw.b, args[0])


# Cephes' atan: rational P/Q (float64) or polynomial (float32) on a reduced argument.
_ATAN_P = (-8.750608600031904122785e-1, -1.615753718733365076637e1, -7.500855792314704667340e1,
           -1.228866684490136173410e2, -6.485021904942025371773e1)
_ATAN_Q = (1.0, 2.485846490142306297962e1, 1.650270098316988542046e2, 4.328810604912902668951e2,
           4.853903996359136964868e2, 1.945506571482613964425e2)
_ATANF = (8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1)
_MOREBITS = 6.123233995736765886130e-17       # pi/2 - float64(pi/2)
_PI_LO = 1.2246467991473532e-16               # pi - float64(pi)


def _atan_abs(b, ax):
    """atan(ax) for ax >= 0 (or NaN), branch-free: Cephes' three ranges."""
    t = ax.type
    f32 = isinstance(t, ir.FloatType)

    def c(v):
        return ir.Constant(t, v)

    big = b.fcmp_ordered(">", ax, c(2.414213562373095))                  # tan(3 pi / 8)
    mid = b.fcmp_ordered(">", ax, c(0.4142135623730950 if f32 else 0.66))
    xr = b.select(big, b.fdiv(c(-1.0), ax),
                  b.select(mid, b.fdiv(b.fsub(ax, c(1.0)), b.fadd(ax, c(1.0))), ax))
    base = b.select(big, c(1.5707963267948966), b.select(mid, c(0.7853981633974483), c(0.0)))
    z = b.fmul(xr, xr)
    if f32:
        acc = c(_ATANF[0])
        for k in _ATANF[1:]:
            acc = b.fadd(b.fmul(acc, z), c(k))
        return b.fadd(base, b.fadd(b.fmul(b.fmul(acc, z), xr), xr))
    p, q = c(_ATAN_P[0]), c(_ATAN_Q[0])
    for k in _ATAN_P[1:]:
        p = b.fadd(b.fmul(p, z), c(k))
    for k in _ATAN_Q[1:]:
        q = b.fadd(b.fmul(q, z), c(k))
    r = b.fadd(b.fmul(xr, b.fdiv(b.fmul(z, p), q)), xr)
    extra = b.select(big, c(_MOREBITS), b.select(mid, c(0.5 * _MOREBITS), c(0.0)))
    return b.fadd(base, b.fadd(r, extra))


@_op("atan")
def _atan(lw, op, args):
    (x,) = args
    b = lw.b
    r = _atan_abs(b, intrinsic(b, "fabs", [x]))
    return intrinsic(b, "copysign", [r, x])       # odd; NaN stays NaN


@_op("atan2")
def _atan2(lw, op, args):
    """C99's atan2(y, x) from atan(|y| / |x|), with its special cases as selects."""
    y, x = args
    b = lw.b
    t = x.type

    def c(v):
        return ir.Constant(t, v)

    pi, pio2 = c(3.141592653589793), c(1.5707963267948966)
    ay, ax = intrinsic(b, "fabs", [y]), intrinsic(b, "fabs", [x])
    z = _atan_abs(b, b.fdiv(ay, ax))
    x_neg = b.fcmp_ordered("<", x, c(0.0))
    # x < 0: pi - z, with pi's rounding error folded in (fdlibm's form).
    r = b.select(x_neg, b.fsub(pi, b.fsub(z, c(_PI_LO))), z)
    inf = c(float("inf"))
    y_inf, x_inf = b.fcmp_ordered("==", ay, inf), b.fcmp_ordered("==", ax, inf)
    r = b.select(b.and_(y_inf, b.not_(x_inf)), pio2, r)
    r = b.select(b.and_(y_inf, x_inf),
                 b.select(x_neg, c(2.356194490192345), c(0.7853981633974483)), r)
    # y == +-0: 0 for x of positive sign (+0 too), pi for negative (-0 too).
    bits = ir.IntType(32 if isinstance(t, ir.FloatType) else 64)
    x_signed = b.icmp_signed("<", b.bitcast(x, bits), ir.Constant(bits, 0))   # sign bit of x
    y_zero = b.fcmp_ordered("==", y, c(0.0))
    r = b.select(b.and_(y_zero, b.fcmp_ordered("ord", x, x)), b.select(x_signed, pi, c(0.0)), r)
    r = intrinsic(b, "copysign", [r, y])
    nan = b.or_(b.fcmp_unordered("uno", x, x), b.fcmp_unordered("uno", y, y))
    return b.select(nan, b.fadd(x, y), r)


@_op(*_LIBM_UNARY)
def _libm_unary(lw, op, args):
    return _libm(lw.b, _LIBM_UNARY[op.name], args)


@_op(*_LIBM_BINARY)
def _libm_binary(lw, op, args):
    return _libm(lw.b, _LIBM_BINARY[op.name], args)


@_op("fmod")
def _fmod(lw, op, args):
    x, y = args
    b = lw.b
    dt = _dtype(op)
    if dt.is_floating:
        return b.frem(x, y)          # C's fmod: exact, the sign of x
    t = x.type
    zero = ir.Constant(t, 0)
    lw.fail_if(b.icmp_unsigned("==", y, zero), op, "{op}: integer modulo by zero")
    if dt.np_dtype.kind == "u":
        return b.urem(x, y)
    # MIN % -1 traps on x86; its value is 0, as x % -1 is for every x.
    minus1 = b.icmp_signed("==", y, ir.Constant(t, -1))
    return b.select(minus1, zero, b.srem(x, b.select(minus1, ir.Constant(t, 1), y)))


@_op("copysign")
def _copysign(lw, op, args):
    return intrinsic(lw.b, "copysign", list(args))


@_op("fmax", "fmin")
def _fmaxmin(lw, op, args):
    x, y = args
    b = lw.b
    dt = _dtype(op)
    is_max = op.name == "fmax"
    if dt.is_floating:
        # x when x wins or ties, or y is NaN; else y (NaN only when both are). Of two
        # equal zeros NumPy's own loops return either, depending on length and dtype.
        keep_x = b.or_(b.fcmp_ordered(">=" if is_max else "<=", x, y), b.fcmp_unordered("uno", y, y))
        return b.select(keep_x, x, y)
    unsigned = dt.np_dtype.kind == "u"
    name = ("umax" if is_max else "umin") if unsigned else ("smax" if is_max else "smin")
    return intrinsic(b, name, [x, y])


@_op("signbit")
def _signbit(lw, op, args):
    (x,) = args
    b = lw.b
    dt = _dtype(op)
    if dt.is_floating:
        bits = ir.IntType(dt.itemsize * 8)
        return b.icmp_signed("<", b.bitcast(x, bits), ir.Constant(bits, 0))
    if dt.np_dtype.kind == "u":
        return ir.Constant(I1, 0)
    return b.icmp_signed("<", x, ir.Constant(x.type, 0))


# ------------------------------------------------------------------ predicates

@_op("isnan", "isinf", "isfinite")
def _predicate(lw, op, args):
    (x,) = args
    b = lw.b
    if not _dtype(op).is_floating:
        return ir.Constant(I1, int(op.name == "isfinite"))   # integers and bools are finite
    if op.name == "isnan":
        return b.fcmp_unordered("uno", x, x)
    inf = ir.Constant(x.type, float("inf"))
    ax = intrinsic(b, "fabs", [x])
    if op.name == "isinf":
        return b.fcmp_ordered("==", ax, inf)
    return b.fcmp_ordered("<", ax, inf)   # false for NaN (unordered) and for +-inf


# ------------------------------------------------------------------ shifts

@_op("left_shift", "right_shift")
def _shift(lw, op, args):
    x, n = args
    b = lw.b
    t = x.type
    unsigned = _dtype(op).np_dtype.kind == "u"
    # LLVM's shl/ashr/lshr are poison for n >= width; NumPy defines them (and
    # n < 0, which as unsigned is >= width): << gives 0, >> gives 0 or -1.
    in_range = b.icmp_unsigned("<", n, ir.Constant(t, t.width))
    safe = b.select(in_range, n, ir.Constant(t, 0))
    if op.name == "left_shift":
        return b.select(in_range, b.shl(x, safe), ir.Constant(t, 0))
    if unsigned:
        return b.select(in_range, b.lshr(x, safe), ir.Constant(t, 0))
    return b.ashr(x, b.select(in_range, n, ir.Constant(t, t.width - 1)))


register(*NAMES, fusable=True, fuses_into=True)(lower_elementwise)
