"""The `cast` op: elementwise dtype conversion with defined results everywhere.

Between every pair of non-string dtypes, as NumPy's `astype` where NumPy's
result is defined:
* int -> int (signed or unsigned, any width) keeps the low bits (wraps);
* bool -> number gives 1/0; number -> bool is `x != 0` (NaN is True; a complex
  number is True unless both parts are 0);
* float -> float rounds (overflow gives inf); int -> float rounds to nearest;
* float -> int truncates toward zero; where C (and LLVM) leave the result
  undefined it is defined here: NaN gives 0 and values beyond the integer
  range saturate to its MIN/MAX (LLVM's `fptosi.sat`/`fptoui.sat`: a
  negative float to an unsigned dtype gives 0), so it never depends on the
  platform;
* complex -> real drops the imaginary part (NumPy warns and does the same);
  real -> complex has imaginary part 0; complex64 <-> complex128 rounds each part.
"""
from __future__ import annotations

import numpy as np

from ..core.registry import declare
from ..core.types import DType, TensorType
from ._common import expect_arity


def _operand_and_target(name: str, types, attrs):
    """The one operand's type and the `dtype` attribute of cast-like op `name`."""
    expect_arity(name, types, 1)
    to = attrs.get("dtype")
    if not isinstance(to, DType):
        raise TypeError(f"{name}: expected an ag dtype for the dtype attribute, got {to!r}")
    return types[0], to


def _cast_rule(types, attrs, consts):
    x, to = _operand_and_target("cast", types, attrs)
    if x.dtype is not to:
        # string <-> number has no meaning here; a string to itself is a no-op.
        if x.dtype.name == "string":
            raise TypeError(f"cast: expected a bool, int, float or complex tensor for a cast to "
                            f"{to.name}, got string")
        if to.name == "string":
            raise TypeError(f"cast: cannot cast {x.dtype.name} to string")
    return [TensorType(to, x.shape)]


def float_to_int(x: np.ndarray, to: np.dtype) -> np.ndarray:
    """Truncate the real floats `x` toward zero into integer dtype `to`,
    saturating at its range, NaN giving 0."""
    info = np.iinfo(to)
    # Powers of two are exact in float32 and float64, so these comparisons are exact.
    hi = float(2 ** (info.bits - 1)) if to.kind == "i" else float(2 ** info.bits)
    lo = -hi if to.kind == "i" else 0.0
    t = np.trunc(x)
    inside = (t >= lo) & (t < hi)
    with np.errstate(invalid="ignore"):
        out = np.where(inside, t, 0).astype(to)
    out = np.asarray(out)
    out[np.asarray(x >= hi)] = info.max
    out[np.asarray(t < lo)] = info.min
    return out


def _cast_reference(x, *, dtype):
    to = dtype.np_dtype
    if x.dtype == to:
        return x.copy()
    if x.dtype.kind == "c" and to.kind != "c":
        if to.kind == "b":
            return np.asarray(x != 0)
        x = x.real
    if x.dtype.kind == "f" and to.kind in "iu":
        return float_to_int(x, to)
    with np.errstate(all="ignore"):
        return np.asarray(x.astype(to))


declare("cast", _cast_rule, _cast_reference, elementwise="unary",
        doc="cast[dtype=D](x) -> x's shape, dtype D (float->int truncates, saturating; "
            "complex->real keeps the real part)",
        public=("cast",))


# ---------------------------------------------------------------- bitcast
#
# The bits of a value read as another dtype of the same width (NumPy's
# `x.view(dtype)`, C's memcpy between a float and an integer): the float
# functions of `tracer/api/numpy_float_bits.py` (frexp, ldexp, nextafter,
# spacing) work on the sign, exponent and mantissa fields through it.

_SAME_WIDTH = ({"float32", "int32", "uint32"}, {"float64", "int64", "uint64"})


def _bitcast_rule(types, attrs, consts):
    x, to = _operand_and_target("bitcast", types, attrs)
    if not any({x.dtype.name, to.name} <= group for group in _SAME_WIDTH):
        raise TypeError(f"bitcast: cannot reinterpret the bits of {x.dtype.name} as {to.name}: "
                        f"only between float32, int32 and uint32, or between float64, int64 "
                        f"and uint64 (dtypes of the same width)")
    return [TensorType(to, x.shape)]


def _bitcast_reference(x, *, dtype):
    # a C-ordered copy, so that viewing works for every layout (broadcast and 0-d too)
    return np.array(x, order="C").view(dtype.np_dtype)


declare("bitcast", _bitcast_rule, _bitcast_reference, elementwise="unary",
        doc="bitcast[dtype=D](x) -> x's shape, dtype D: x's bits read as D (float32/int32/uint32 "
            "among themselves, float64/int64/uint64 likewise)")
