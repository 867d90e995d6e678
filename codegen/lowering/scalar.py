"""Scalar lowerings of the elementwise ops, one per op name.

Each function computes one element: `fn(lw, op, args) -> ir.Value`, where
`args` are LLVM register values of the operands' dtypes (bool is i1) and the
result has the dtype of `op.results[0]`. The same function serves rank-0
ops directly and tensor ops inside the shared broadcasting loop nest
(`autograph.codegen.lowering.elementwise`).

Semantics follow docs/ops.md: integers wrap; integer `//` and `%` by zero
are InvalidArgumentErrors and `MIN // -1 == MIN`, `MIN % -1 == 0` (x86 traps
on both, so they are never executed); float `//` and `%` reproduce NumPy's
`npy_divmod`; float->int casts truncate toward zero and
saturate (NaN gives 0), as `llvm.fptosi.sat`; no fast-math flags are used.

These are the forms for signed integers and real floats; `scalar_dtypes`
wraps them with the unsigned and complex forms (API.md section 2).
"""
from __future__ import annotations

from typing import Callable, Dict

from llvmlite import ir

from autograph.tracer.core.ir import Op

from ..llvm import mathfns, vecmath, vecmath_pow, vecmath_trig
from ..llvm.irutil import declare, intrinsic
from ..llvm.ltypes import I1, reg_type

__all__ = ["SCALAR", "scalar_op", "int_pow_function"]

ScalarFn = Callable[..., ir.Value]
SCALAR: Dict[str, ScalarFn] = {}


def scalar_op(*names: str):
    def deco(fn):
        for n in names:
            SCALAR[n] = fn
        return fn
    return deco


def _in(op: Op, i: int = 0):
    return op.operands[i].type.dtype


def _out(op: Op):
    return op.results[0].type.dtype


def _fconst(t: ir.Type, v: float) -> ir.Constant:
    return ir.Constant(t, v)


# ------------------------------------------------------------------ arithmetic

@scalar_op("add")
def _add(lw, op, args):
    x, y = args
    return lw.b.fadd(x, y) if _in(op).is_floating else lw.b.add(x, y)


@scalar_op("subtract")
def _sub(lw, op, args):
    x, y = args
    return lw.b.fsub(x, y) if _in(op).is_floating else lw.b.sub(x, y)


@scalar_op("multiply")
def _mul(lw, op, args):
    x, y = args
    return lw.b.fmul(x, y) if _in(op).is_floating else lw.b.mul(x, y)


@scalar_op("divide")
def _div(lw, op, args):
    x, y = args
    b = lw.b
    if not _in(op).is_floating:
        t = reg_type(_out(op))
        x, y = b.sitofp(x, t), b.sitofp(y, t)
    return b.fdiv(x, y)


def _int_div_guard(lw, op, x, y, what: str):
    """(safe divisor, y == -1) after reporting division by zero."""
    b = lw.b
    t = x.type
    lw.fail_if(b.icmp_signed("==", y, ir.Constant(t, 0)), op, "{op}: integer " + what + " by zero")
    minus1 = b.icmp_signed("==", y, ir.Constant(t, -1))
    return b.select(minus1, ir.Constant(t, 1), y), minus1


def _npy_divmod(lw, x, y):
    """NumPy's npy_divmod for floats: (floordiv, mod), y != 0 assumed handled."""
    b = lw.b
    t = x.type
    zero = _fconst(t, 0.0)
    mod = b.frem(x, y)
    div = b.fdiv(b.fsub(x, mod), y)
    mod_nz = b.fcmp_unordered("!=", mod, zero)
    sign_differs = b.icmp_unsigned("!=", b.fcmp_ordered("<", y, zero), b.fcmp_ordered("<", mod, zero))
    adjust = b.and_(mod_nz, sign_differs)
    mod = b.select(adjust, b.fadd(mod, y), mod)
    div = b.select(adjust, b.fsub(div, _fconst(t, 1.0)), div)
    mod = b.select(mod_nz, mod, intrinsic(b, "copysign", [zero, y]))
    div_nz = b.fcmp_unordered("!=", div, zero)
    fl = intrinsic(b, "floor", [div])
    fl = b.select(b.fcmp_ordered(">", b.fsub(div, fl), _fconst(t, 0.5)), b.fadd(fl, _fconst(t, 1.0)), fl)
    floordiv = b.select(div_nz, fl, intrinsic(b, "copysign", [zero, b.fdiv(x, y)]))
    return floordiv, mod


@scalar_op("floordiv")
def _floordiv(lw, op, args):
    x, y = args
    b = lw.b
    if _in(op).is_floating:
        fd, _ = _npy_divmod(lw, x, y)
        y_zero = b.fcmp_ordered("==", y, _fconst(x.type, 0.0))
        return b.select(y_zero, b.fdiv(x, y), fd)
    t = x.type
    ys, minus1 = _int_div_guard(lw, op, x, y, "division")
    q = b.sdiv(x, ys)
    r = b.srem(x, ys)
    zero = ir.Constant(t, 0)
    fix = b.and_(b.icmp_signed("!=", r, zero),
                 b.icmp_unsigned("!=", b.icmp_signed("<", r, zero), b.icmp_signed("<", y, zero)))
    q = b.select(fix, b.sub(q, ir.Constant(t, 1)), q)
    return b.select(minus1, b.sub(zero, x), q)


@scalar_op("mod")
def _mod(lw, op, args):
    x, y = args
    b = lw.b
    if _in(op).is_floating:
        _, m = _npy_divmod(lw, x, y)
        y_zero = b.fcmp_ordered("==", y, _fconst(x.type, 0.0))
        return b.select(y_zero, b.frem(x, y), m)
    t = x.type
    ys, minus1 = _int_div_guard(lw, op, x, y, "modulo")
    r = b.srem(x, ys)
    zero = ir.Constant(t, 0)
    fix = b.and_(b.icmp_signed("!=", r, zero),
                 b.icmp_unsigned("!=", b.icmp_signed("<", r, zero), b.icmp_signed("<", y, zero)))
    r = b.select(fix, b.add(r, y), r)
    return b.select(minus1, zero, r)


def int_pow_function(lw, t: ir.IntType, unsigned: bool = False) -> ir.Function:
    """internal iN ag.ipow.iN / ag.upow.iN(iN base, iN exp): exponentiation by squaring.

    Signed: for exp >= 0 (the caller handles negative exponents; a negative
    one runs no iteration). Unsigned: every exp, halved with a logical shift.
    """
    name = f"ag.{'u' if unsigned else 'i'}pow.i{t.width}"
    fn = lw.module.globals.get(name)
    if fn is not None:
        return fn
    fn = ir.Function(lw.module, ir.FunctionType(t, [t, t]), name)
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    fn.attributes.add("alwaysinline")
    base, exp = fn.args
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    one, zero = ir.Constant(t, 1), ir.Constant(t, 0)

    def more(v):   # any exponent bits left
        return b.icmp_unsigned("!=", v, zero) if unsigned else b.icmp_signed(">", v, zero)

    b.cbranch(more(exp), loop, done)
    b.position_at_end(loop)
    acc = b.phi(t)
    bb = b.phi(t)
    e = b.phi(t)
    acc.add_incoming(one, entry)
    bb.add_incoming(base, entry)
    e.add_incoming(exp, entry)
    odd = b.trunc(e, I1)
    acc2 = b.select(odd, b.mul(acc, bb), acc)
    bb2 = b.mul(bb, bb)
    e2 = b.lshr(e, one) if unsigned else b.ashr(e, one)
    acc.add_incoming(acc2, loop)
    bb.add_incoming(bb2, loop)
    e.add_incoming(e2, loop)
    b.cbranch(more(e2), loop, done)
    b.position_at_end(done)
    res = b.phi(t)
    res.add_incoming(one, entry)
    res.add_incoming(acc2, loop)
    b.ret(res)
    return fn


@scalar_op("pow")
def _pow(lw, op, args):
    x, y = args
    b = lw.b
    if _in(op).is_floating:
        if isinstance(y, ir.Constant) and y.constant == 2.0:
            return b.fmul(x, x)                 # exact, as pow(x, 2) is
        return vecmath_pow.pow_(b, x, y)        # vectorisable, unlike llvm.pow (a libm call)
    t = x.type
    if isinstance(y, ir.Constant) and isinstance(y.constant, int) and 0 <= y.constant <= 64:
        # Unrolled exponentiation by squaring for a constant exponent.
        n, acc, base = y.constant, None, x
        while n:
            if n & 1:
                acc = base if acc is None else b.mul(acc, base)
            n >>= 1
            if n:
                base = b.mul(base, base)
        return acc if acc is not None else ir.Constant(t, 1)
    lw.fail_if(b.icmp_signed("<", y, ir.Constant(t, 0)), op,
               "{op}: integers to negative integer powers are not allowed (exponent {0}); "
               "use ag.cast(x, ag.float32) first", [y])
    return b.call(int_pow_function(lw, t), [x, y])


def float_maxmin(b, x, y, is_max: bool) -> ir.Value:
    """NumPy's `maximum`/`minimum` of two floats (scalars or vectors): NaN if
    either is NaN, otherwise the larger (smaller). On a tie (0.0 and -0.0):
    `y`, as NumPy, except when `x` alone is a phi (a loop-carried value, as
    in `m = max(m, x[i])`, or a branch's merged result), which is then kept,
    as Python's `max`. A NaN coming from the operand that is not kept has all
    bits set (NumPy promises no particular NaN either).

    Compare-and-select, which x86 does in one `maxsd`/`minsd` (the operand
    kept on a tie is also the one returned when they are unordered), plus a
    NaN fix-up for the other operand, so a loop-carried chain sees one
    `maxsd` and one `or` (or masked move). `llvm.maximum` orders signed
    zeros, for which x86 has no instruction: its expansion (a sign test
    through an integer register, then mask compares) put ten cycles per
    iteration on a running max, and one merged select still put an AVX-512
    mask compare on the chain (about six cycles).
    """
    keep, other = (x, y) if _carried(x) and not _carried(y) else (y, x)
    picked = b.select(b.fcmp_ordered(">" if is_max else "<", other, keep), other, keep)
    # The NaN as an OR of all-one bits (a NaN) rather than a second select, which
    # LLVM would merge with the first into one whose mask compare sits on the chain.
    nan = b.fcmp_unordered("uno", other, other)
    bits = _same_width_int(picked.type)
    return b.bitcast(b.or_(b.bitcast(picked, bits), b.sext(nan, bits)), picked.type)


def _carried(v) -> bool:
    return isinstance(v, ir.PhiInstr)


def _same_width_int(t: ir.Type) -> ir.Type:
    """The integer type (or vector of them) as wide as the float type `t`."""
    if isinstance(t, ir.VectorType):
        return ir.VectorType(_same_width_int(t.element), t.count)
    width = {ir.DoubleType: 64, ir.FloatType: 32, ir.HalfType: 16}[type(t)]
    return ir.IntType(width)


@scalar_op("maximum", "minimum")
def _maxmin(lw, op, args):
    x, y = args
    is_max = op.name == "maximum"
    if _in(op).is_floating:
        return float_maxmin(lw.b, x, y, is_max)
    if _in(op).is_bool:
        return lw.b.or_(x, y) if is_max else lw.b.and_(x, y)
    return intrinsic(lw.b, "smax" if is_max else "smin", [x, y])


# ------------------------------------------------------------------ comparisons

_ICMP = {"equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=",
         "greater": ">", "greater_equal": ">="}


@scalar_op(*_ICMP)
def _compare(lw, op, args):
    x, y = args
    b = lw.b
    cmp = _ICMP[op.name]
    dt = _in(op)
    if dt.is_floating:
        if op.name == "not_equal":
            return b.fcmp_unordered("!=", x, y)   # NaN != NaN is True
        return b.fcmp_ordered(cmp, x, y)
    if dt.is_bool:
        return b.icmp_unsigned(cmp, x, y)         # False < True
    return b.icmp_signed(cmp, x, y)


# ------------------------------------------------------------------ logical / bitwise

@scalar_op("logical_and", "bitwise_and")
def _and(lw, op, args):
    return lw.b.and_(*args)


@scalar_op("logical_or", "bitwise_or")
def _or(lw, op, args):
    return lw.b.or_(*args)


@scalar_op("logical_xor", "bitwise_xor")
def _xor(lw, op, args):
    return lw.b.xor(*args)


@scalar_op("logical_not", "bitwise_not")
def _not(lw, op, args):
    (x,) = args
    return lw.b.xor(x, ir.Constant(x.type, -1))


@scalar_op("where")
def _where(lw, op, args):
    c, x, y = args
    return lw.b.select(c, x, y)


# ------------------------------------------------------------------ unary math

@scalar_op("negative")
def _neg(lw, op, args):
    (x,) = args
    if _in(op).is_floating:
        return lw.b.fneg(x)
    return lw.b.sub(ir.Constant(x.type, 0), x)


@scalar_op("abs")
def _abs(lw, op, args):
    (x,) = args
    if _in(op).is_floating:
        return intrinsic(lw.b, "fabs", [x])
    return intrinsic(lw.b, "abs", [x], extra=[ir.Constant(I1, 0)])  # abs(MIN) == MIN


@scalar_op("sign")
def _sign(lw, op, args):
    (x,) = args
    b = lw.b
    t = x.type
    if _in(op).is_floating:
        zero = _fconst(t, 0.0)
        # NaN stays NaN; 0 and -0 give +0, as np.sign (the reference) does.
        rest = b.select(b.fcmp_ordered("==", x, zero), zero, x)
        neg = b.select(b.fcmp_ordered("<", x, zero), _fconst(t, -1.0), rest)
        return b.select(b.fcmp_ordered(">", x, zero), _fconst(t, 1.0), neg)
    zero = ir.Constant(t, 0)
    return b.sub(b.zext(b.icmp_signed(">", x, zero), t), b.zext(b.icmp_signed("<", x, zero), t))


@scalar_op("square")
def _square(lw, op, args):
    (x,) = args
    return lw.b.fmul(x, x) if _in(op).is_floating else lw.b.mul(x, x)


_INTRINSIC_UNARY = {"sqrt": "sqrt"}


@scalar_op("sin", "cos", "tan")
def _trig(lw, op, args):
    # vectorisable routines (codegen/llvm/vecmath_trig.py), unlike llvm.sin (a libm call)
    from . import fixup
    # lowering/fixup.py: in a vectorised loop the fast form (the loop re-runs with the
    # exact one for huge arguments), in a huge scalar loop a call of the exact one
    # (one body, however many calls), else the exact one inlined
    mode = getattr(lw, "trig_mode", None)
    if isinstance(mode, str) and mode == fixup.OUTLINED:
        return vecmath_trig.outlined(lw.b, op.name, args[0])
    routine = getattr(vecmath_trig, op.name)
    if mode is None or isinstance(mode, str):
        return routine(lw.b, args[0])
    return routine(lw.b, args[0], mode)


@scalar_op("log")
def _log(lw, op, args):
    return vecmath.log(lw.b, args[0])     # vectorisable, unlike llvm.log (a libm call)


@scalar_op("tanh")
def _tanh(lw, op, args):
    return vecmath.tanh(lw.b, args[0])    # vectorisable, unlike llvm.tanh (a libm call)


@scalar_op("exp")
def _exp(lw, op, args):
    return mathfns.exp(lw.b, args[0])     # vectorisable, unlike llvm.exp (a libm call)


@scalar_op(*_INTRINSIC_UNARY)
def _math_unary(lw, op, args):
    (x,) = args
    return intrinsic(lw.b, _INTRINSIC_UNARY[op.name], [x])


@scalar_op("cbrt")
def _cbrt(lw, op, args):
    # LLVM has no cbrt intrinsic: call libm's cbrt/cbrtf, as NumPy's np.cbrt does.
    (x,) = args
    name = "cbrtf" if isinstance(x.type, ir.FloatType) else "cbrt"
    return lw.b.call(declare(lw.b.module, name, x.type, [x.type]), [x])


@scalar_op("sigmoid")
def _sigmoid(lw, op, args):
    # Without overflow: e = exp(-|x|); 1/(1+e) for x >= 0, e/(1+e) for x < 0.
    (x,) = args
    b = lw.b
    one = _fconst(x.type, 1.0)
    e = mathfns.exp(b, b.fneg(intrinsic(b, "fabs", [x])))
    num = b.select(b.fcmp_ordered(">=", x, _fconst(x.type, 0.0)), one, e)
    return b.fdiv(num, b.fadd(one, e))


# ------------------------------------------------------------------ cast

@scalar_op("cast")
def _cast(lw, op, args):
    (x,) = args
    b = lw.b
    src, dst = _in(op), _out(op)
    if src is dst:
        return x
    st, dt_ = reg_type(src), reg_type(dst)
    if dst.is_bool:
        if src.is_floating:
            return b.fcmp_unordered("!=", x, _fconst(st, 0.0))   # NaN is True, as NumPy
        return b.icmp_signed("!=", x, ir.Constant(st, 0))
    if src.is_bool:
        return b.uitofp(x, dt_) if dst.is_floating else b.zext(x, dt_)
    if src.is_integer and dst.is_integer:
        return b.sext(x, dt_) if dt_.width > st.width else b.trunc(x, dt_)
    if src.is_integer:
        return b.sitofp(x, dt_)
    if dst.is_floating:
        return b.fpext(x, dt_) if dst.itemsize > src.itemsize else b.fptrunc(x, dt_)
    # float -> int: truncate toward zero, saturating (NaN -> 0), as the reference.
    return intrinsic_sat(b, x, dt_)


@scalar_op("bitcast")
def _bitcast(lw, op, args):
    # The type rule allows only dtypes of one width, so LLVM's bitcast (free, and
    # vectorised with the loop) is the whole lowering; int <-> uint is the same register.
    (x,) = args
    to = reg_type(_out(op))
    return x if x.type == to else lw.b.bitcast(x, to)


def intrinsic_sat(b, x, to: ir.IntType) -> ir.Value:
    src = "f32" if isinstance(x.type, ir.FloatType) else "f64"
    fn = declare(b.module, f"llvm.fptosi.sat.i{to.width}.{src}", to, [x.type])
    return b.call(fn, [x])


