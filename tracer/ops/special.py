"""The error and gamma functions of Python's `math` module as elementwise ops:
`erf`, `erfc`, `lgamma` and `gamma` (TensorFlow's `tf.math.erf`, `erfc`,
`lgamma`; `gamma` is `math.gamma`).

Kernels written for Numba call `math.erf` for the normal distribution
(Black-Scholes) and `math.lgamma` for log-likelihoods; NumPy itself has none
of these, so they have no NumPy names. Float tensors only; the compiled code
calls the C library (as `math` does for erf and erfc), and so does the eager
reference of lgamma and gamma (Python's own lgamma differs in the last
bits). `lgamma` is log|gamma(x)| (inf at the poles), `gamma` is inf at 0
and NaN at the negative integers, as C's `tgamma` (Python's `math.gamma`
raises there instead).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

from .elementwise import unary

__all__ = ["SPECIAL"]

SPECIAL = ("erf", "erfc", "lgamma", "gamma")


def _libm(name: str):
    """The C library's double `name`, as `float -> float`: what the compiled code
    calls for float64 (`lowering/mathfuncs.py`), so both paths give the same bits
    there (float32 is computed in float64 and rounded, as before). Python's
    `math.lgamma` is CPython's own (differing in the last bits, near its roots by
    1e-13 relatively) and `math.gamma` raises at the poles and on overflow, where C
    gives inf or NaN (with gamma's sign: -inf for a tiny negative x)."""
    lib = ctypes.CDLL(None)            # the process's C library (CPython links libm)
    if not hasattr(lib, name):
        lib = ctypes.CDLL(ctypes.util.find_library("m"))
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
    return fn


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
unary("lgamma", "float", _reference(_libm("lgamma")),
      "log|gamma(x)| elementwise (math.lgamma; inf at the poles 0, -1, -2, ...).",
      public=("math.lgamma",))
unary("gamma", "float", _reference(_libm("tgamma")),
      "The gamma function elementwise (math.gamma; inf at +-0 with the zero's sign, NaN at "
      "the negative integers, as C's tgamma).", public=("math.gamma",))
