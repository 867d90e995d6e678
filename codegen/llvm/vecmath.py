"""Vectorisable math routines: log, log1p, expm1, tanh as branch-free LLVM IR,
each now in a module of its own that this one re-exports.

(sin, cos, tan: vecmath_trig.py; pow: vecmath_pow.py; exp: mathfns.py.)

`llvm.log`, `llvm.tanh` and friends become calls of the C library's scalar
functions, which keep every loop that uses them scalar. The routines here
are internal, always-inlined functions with no branches (special cases are
`select`s), so the loop vectoriser widens them to the host's widest
vectors like any arithmetic.

Algorithms (the classic fdlibm reductions, coefficients from the published
minimax fits):

* log, log1p: `vecmath_log.py` (with log2, log10).
* expm1: `vecmath_exp_minus_one.py` (x = k ln2 + r, one polynomial, 2**(k-1) times
  r and the constant 2**(k-1) - 1/2 summed exactly, no case split).
* tanh: `vecmath_tanh.py` (1 - 2/(e + 1) with e = e**(2|x|) inlined above
  log(3)/2, an odd fit below).

NaN, +-inf, +-0, overflow and underflow give NumPy's results; the measured
max ulp errors are in docs/ARCHITECTURE.md ("Vector maths").
"""
from __future__ import annotations

from llvmlite import ir

from . import vecmath_exp_minus_one, vecmath_log, vecmath_tanh
from .irutil import intrinsic
from .ltypes import F32, F64, I32

__all__ = ["log", "log1p", "expm1", "tanh"]

_LN2_HI = {"f64": 6.93147180369123816490e-01, "f32": 6.9313812256e-01}
_LN2_LO = {"f64": 1.90821492927058770002e-10, "f32": 9.0580006145e-06}


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
    """Natural log of a float32/float64 register value (vectorisable; `vecmath_log.py`)."""
    return vecmath_log.log(b, x)


def log1p(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log(1 + x), accurate for tiny x (vectorisable)."""
    return vecmath_log.log1p(b, x)


def expm1(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """e**x - 1, accurate for tiny x (vectorisable; `vecmath_exp_minus_one.py`)."""
    return vecmath_exp_minus_one.expm1(b, x)


def tanh(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Hyperbolic tangent (vectorisable; `vecmath_tanh.py`)."""
    return vecmath_tanh.tanh(b, x)


# ------------------------------------------------------------------ helpers

def _c(key: str, v: float) -> ir.Constant:
    return ir.Constant(F32 if key == "f32" else F64, v)


def _fma(b, x, y, z):
    """x*y + z, fused where the target has FMA (polynomial steps: one rounding fewer)."""
    return intrinsic(b, "fmuladd", [x, y, z])


def _i32(v: int) -> ir.Constant:
    return ir.Constant(I32, v)


def _float_type(key):
    return F32 if key == "f32" else F64
