"""Vectorisable exp2 (float32 and float64) as branch-free LLVM IR.

The reduction of 2**x is exact: n = roundeven(x), r = x - n in [-1/2, 1/2]
(no ln2 in two parts, no double-double), so the whole error is that of a
polynomial 2**r = 1 + r q(r), a near-minimax fit of relative error 2**-55
(degree 11, float64) or 2**-28.9 (degree 6, float32; computed in float32,
16 lanes with AVX-512) from bench/polyfit.py, and of its evaluation with
fused multiply-adds. The result is p * 2**n (`mathfns.times_power_of_two`:
one vscalef with AVX-512, else two exponent steps); subnormal results are
rounded once, overflow gives inf; x is
clamped to [-1080, 1030] / [-160, 130] first so that n stays in the exponent
range. exp2(-inf) = 0, exp2(inf) = inf, NaN propagates (the ordered clamps
let it through). docs/ARCHITECTURE.md ("Vector maths") gives the measured
errors.
"""
from __future__ import annotations

from llvmlite import ir

from .irutil import routine
from .ltypes import F32
from .mathfns import one_plus_r_q, rounded_by_shifter, times_power_of_two

__all__ = ["exp2", "EXP2_Q"]

# 2**r = 1 + r q(r) on [-1/2, 1/2]: q's coefficients (bench/polyfit.py, leading 1 fixed)
EXP2_Q = {
    "f64": (0.6931471805599453, 0.2402265069591013, 0.05550410866482009, 0.009618129107594112,
            0.0013333558146773694, 0.00015403530457119757, 1.525273349357681e-05,
            1.321543527967857e-06, 1.0178199540239418e-07, 7.073783552601127e-09,
            4.4347560259655845e-10),
    "f32": (0.6931472028559704, 0.24022647913498998, 0.055503324696938736, 0.009618437366418873,
            0.0013398874866602222, 0.00015353360629289734),
}
# (lowest clamp, highest clamp, mantissa bits)
_SPEC = {"f64": (-1080.0, 1030.0, 52), "f32": (-160.0, 130.0, 23)}


def exp2(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """2**x of a float32/float64 register value (vectorisable)."""
    key = "f32" if x.type == F32 else "f64"
    return routine(b, f"ag.exp2.{key}", x, lambda fb, a: _exp2(fb, a, key))


def _exp2(b, x, key):
    t = x.type
    lo, hi, mant = _SPEC[key]

    def c(v):
        return ir.Constant(t, v)

    xc = b.select(b.fcmp_ordered(">", x, c(hi)), c(hi), x)
    xc = b.select(b.fcmp_ordered("<", xc, c(lo)), c(lo), xc)
    shifter = 1.5 * 2.0 ** mant
    ni, n = rounded_by_shifter(b, b.fadd(xc, c(shifter)), shifter)   # roundeven(x)
    r = b.fsub(xc, n)                                          # exact
    return times_power_of_two(b, one_plus_r_q(b, r, EXP2_Q[key]), ni)
