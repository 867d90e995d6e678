"""Vectorisable exp2, log2, log10 (float32 and float64) as branch-free LLVM IR.

`llvm.exp2`, `llvm.log2` and `llvm.log10` are calls of libm's scalar
functions, which keep a loop scalar. exp2 is `vecmath_exp_two.py`'s (an exact
reduction and one polynomial); log2 and log10 are `vecmath_log.py`'s (log's
core with the base changed exactly, rounded once at the end). Special values
are NumPy's: exp2(-inf) = 0, exp2(inf) = inf; log of 0 is -inf, of a negative
number or NaN NaN, of inf inf. docs/ARCHITECTURE.md ("Vector maths") gives
the measured errors.
"""
from __future__ import annotations

from llvmlite import ir

from . import vecmath_exp_two, vecmath_log

__all__ = ["exp2", "log2", "log10"]


def exp2(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """2**x of a float32/float64 register value (vectorisable; `vecmath_exp_two.py`)."""
    return vecmath_exp_two.exp2(b, x)


def log2(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Base-2 log of a float32/float64 register value (vectorisable; `vecmath_log.py`)."""
    return vecmath_log.log2(b, x)


def log10(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Base-10 log of a float32/float64 register value (vectorisable; `vecmath_log.py`)."""
    return vecmath_log.log10(b, x)

