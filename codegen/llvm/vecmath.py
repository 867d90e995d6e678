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

__all__ = ["log", "log1p", "expm1", "tanh"]


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
