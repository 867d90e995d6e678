"""The `cast` op: elementwise dtype conversion with defined results everywhere.

float -> int truncates toward zero; NaN gives 0 and values beyond the integer
range saturate to its MIN/MAX (LLVM's `fptosi.sat`), so the result never
depends on the platform. int -> int wraps; bool -> number gives 1/0; number ->
bool is `x != 0` (NaN is True); float64 -> float32 rounds (overflow gives inf).
"""
from __future__ import annotations

import numpy as np

from ..core.registry import declare
from ..core.types import DType, TensorType
from ._common import check_kind, expect_arity


def _cast_rule(types, attrs, consts):
    expect_arity("cast", types, 1)
    (x,) = types
    to = attrs.get("dtype")
    if not isinstance(to, DType):
        raise TypeError(f"cast: expected an ag dtype for the dtype attribute, got {to!r}")
    if x.dtype is not to:
        # string <-> number has no meaning here; a string to itself is a no-op.
        check_kind("cast", "plain", x.dtype, f"a cast to {to.name}")
        if to.name == "string":
            raise TypeError(f"cast: cannot cast {x.dtype.name} to string")
    return [TensorType(to, x.shape)]


def _float_to_int(x: np.ndarray, to: np.dtype) -> np.ndarray:
    info = np.iinfo(to)
    # 2**(bits-1) is exact in float32 and float64, so these comparisons are exact.
    hi = float(2 ** (info.bits - 1))
    with np.errstate(invalid="ignore"):
        out = np.asarray(np.trunc(x)).astype(to)
    out[x >= hi] = info.max
    out[x < -hi] = info.min
    out[np.isnan(x)] = 0
    return out


def _cast_reference(x, *, dtype):
    to = dtype.np_dtype
    if x.dtype == to:
        return x.copy()
    if x.dtype.kind == "f" and to.kind == "i":
        return _float_to_int(x, to)
    with np.errstate(all="ignore"):
        return x.astype(to)


declare("cast", _cast_rule, _cast_reference, elementwise="unary",
        doc="cast[dtype=D](x) -> x's shape, dtype D (float->int truncates, saturating)",
        public=("cast",))
