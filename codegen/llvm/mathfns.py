"""Math functions written in LLVM IR so that loops using them vectorise.

LLVM lowers `llvm.exp` to a call of the C library's scalar `exp` (there is no
vector math library behind llvmlite), which keeps every loop that uses it
scalar. `exp` here is branch-free straight-line IR (internal, always
inlined), so the loop vectoriser turns it into AVX code.

Algorithm (Cephes): n = round(x / ln 2); r = x - n ln 2 in two parts (Cody and
Waite); e^r by a minimax polynomial (float32) or a Pade form (float64); the
result is scaled by 2^n in two steps so that results near the overflow and
underflow limits (subnormals included) stay correct. NaN propagates, +inf
gives inf, -inf gives 0. Accuracy is about 1 ulp.
"""
from __future__ import annotations

from llvmlite import ir

from .irutil import intrinsic
from .ltypes import F32, F64, I32, I64

__all__ = ["exp"]

# name: (float type, int type, mantissa bits, bias, clamp lo, clamp hi)
_SPEC = {
    "f32": (F32, I32, 23, 127, -110.0, 90.0),
    "f64": (F64, I64, 52, 1023, -750.0, 710.0),
}
_LOG2E = 1.4426950408889634
_F32_C1, _F32_C2 = 0.693359375, -2.12194440e-4
_F32_POLY = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
             1.6666665459e-1, 5.0000001201e-1)
_F64_C1, _F64_C2 = 6.93145751953125e-1, 1.42860682030941723212e-6
_F64_P = (1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1)
_F64_Q = (3.00198505138664455042e-6, 2.52448340349684104192e-3, 2.27265548208155028766e-1,
          2.00000000000000000009e0)


def exp(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """e**x for a float32/float64 register value (vectorisable)."""
    key = "f32" if x.type == F32 else "f64"
    name = f"ag.exp.{key}"
    fn = b.module.globals.get(name)
    if fn is None:
        fn = _define_exp(b.module, name, key)
    return b.call(fn, [x])


def _horner(b, coeffs, x, t):
    acc = ir.Constant(t, coeffs[0])
    for c in coeffs[1:]:
        acc = b.fadd(b.fmul(acc, x), ir.Constant(t, c))
    return acc


def _define_exp(module: ir.Module, name: str, key: str) -> ir.Function:
    ft, it, mant, bias, lo, hi = _SPEC[key]
    fn = ir.Function(module, ir.FunctionType(ft, [ft]), name)
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    fn.attributes.add("nounwind")
    (x,) = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    c = lambda v: ir.Constant(ft, v)  # noqa: E731
    # Clamp (NaN handled at the end) so that the exponent arithmetic stays in range.
    xc = b.select(b.fcmp_ordered("<", x, c(lo)), c(lo), x)
    xc = b.select(b.fcmp_ordered(">", xc, c(hi)), c(hi), xc)
    n = intrinsic(b, "floor", [b.fadd(b.fmul(xc, c(_LOG2E)), c(0.5))])
    if key == "f32":
        r = b.fsub(b.fsub(xc, b.fmul(n, c(_F32_C1))), b.fmul(n, c(_F32_C2)))
        z = b.fmul(r, r)
        p = b.fadd(b.fadd(b.fmul(_horner(b, _F32_POLY, r, ft), z), r), c(1.0))
    else:
        r = b.fsub(b.fsub(xc, b.fmul(n, c(_F64_C1))), b.fmul(n, c(_F64_C2)))
        rr = b.fmul(r, r)
        px = b.fmul(r, _horner(b, _F64_P, rr, ft))
        q = b.fdiv(px, b.fsub(_horner(b, _F64_Q, rr, ft), px))
        p = b.fadd(c(1.0), b.fmul(c(2.0), q))
    ni = b.fptosi(n, it)
    n1 = b.ashr(ni, ir.Constant(it, 1))
    n2 = b.sub(ni, n1)
    s1 = b.bitcast(b.shl(b.add(n1, ir.Constant(it, bias)), ir.Constant(it, mant)), ft)
    s2 = b.bitcast(b.shl(b.add(n2, ir.Constant(it, bias)), ir.Constant(it, mant)), ft)
    res = b.fmul(b.fmul(p, s1), s2)
    b.ret(b.select(b.fcmp_unordered("uno", x, x), x, res))
    return fn
