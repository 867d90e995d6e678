"""The error and gamma functions of Python's `math` module as elementwise ops:
`erf`, `erfc`, `lgamma` and `gamma` (TensorFlow's `tf.math.erf`, `erfc`,
`lgamma`; `gamma` is `math.gamma`).

Kernels written for Numba call `math.erf` for the normal distribution
(Black-Scholes) and `math.lgamma` for log-likelihoods; NumPy itself has none
of these, so they have no NumPy names. Float tensors only; the compiled code
calls the C library (as `math` does), so results agree with Python's to the
last bit or so. `lgamma` is log|gamma(x)| (inf at the poles), `gamma` is
inf at 0 and NaN at the negative integers, as C's `tgamma` (Python's
`math.gamma` raises there instead).
"""
from __future__ import annotations

import math

import numpy as np

from .elementwise import unary

__all__ = ["SPECIAL"]

SPECIAL = ("erf", "erfc", "lgamma", "gamma")


def _c_gamma(v: float) -> float:
    # C's tgamma where Python's math.gamma raises: a pole gives inf with the
    # sign of the zero, a negative integer NaN, overflow inf.
    try:
        return math.gamma(v)
    except (ValueError, OverflowError):
        if v == 0.0:
            return math.copysign(math.inf, v)
        if v == -math.inf or (v < 0 and v == math.floor(v)):
            return math.nan
        return math.inf


def _c_lgamma(v: float) -> float:
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):   # the poles: log|gamma| is +inf
        return math.inf


def _reference(fn):
    """The elementwise reference of a `math` function, in the operand's dtype."""
    def ref(x):
        flat = [fn(float(v)) for v in np.asarray(x).reshape(-1)]
        return np.asarray(flat, dtype=np.float64).astype(x.dtype).reshape(np.shape(x))
    return ref


unary("erf", "float", _reference(math.erf), "The error function elementwise (math.erf).",
      public=("math.erf",))
unary("erfc", "float", _reference(math.erfc),
      "The complementary error function 1 - erf(x) elementwise, accurate for large x "
      "(math.erfc).", public=("math.erfc",))
unary("lgamma", "float", _reference(_c_lgamma),
      "log|gamma(x)| elementwise (math.lgamma; inf at the poles 0, -1, -2, ...).",
      public=("math.lgamma",))
unary("gamma", "float", _reference(_c_gamma),
      "The gamma function elementwise (math.gamma; inf at +-0 with the zero's sign, NaN at "
      "the negative integers, as C's tgamma).", public=("math.gamma",))
