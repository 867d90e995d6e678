"""Exact-arithmetic building blocks shared by the vector maths routines
(`vecmath_trig`, `vecmath_pow_double`): float64 constants, fused
and contractible multiply-adds, and the error-free sum of double-double
arithmetic (Knuth's TwoSum)."""
from __future__ import annotations

from llvmlite import ir

from .irutil import intrinsic
from .ltypes import F64

__all__ = ["c64", "fma", "mad", "two_sum"]


def c64(v) -> ir.Constant:
    """The float64 constant `v`."""
    return ir.Constant(F64, v)


def fma(b: ir.IRBuilder, x, y, z):
    """x*y + z rounded once (llvm.fma: exact products in the reductions)."""
    return intrinsic(b, "fma", [x, y, z])


def mad(b: ir.IRBuilder, x, y, z):
    """x*y + z, fused where the target can (polynomial steps)."""
    return intrinsic(b, "fmuladd", [x, y, z])


def two_sum(b: ir.IRBuilder, a, c):
    """(s, e) with s = fl(a + c) and s + e = a + c exactly."""
    s = b.fadd(a, c)
    bb = b.fsub(s, a)
    e = b.fadd(b.fsub(a, b.fsub(s, bb)), b.fsub(c, bb))
    return s, e
