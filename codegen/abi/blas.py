"""The BLAS that compiled matmuls call: found at run time, reached by symbol.

NumPy's wheels ship OpenBLAS (`numpy.libs/libscipy_openblas64_*.so`, with
the ILP64 CBLAS interface under names such as `scipy_cblas_sgemm64_`). This
module finds that library when LLVM starts (no new dependency), resolves
`cblas_{s,d}gemm` and `cblas_{s,d}gemv` and writes their addresses into
`TABLE`, a process-wide array of function pointers published to native code
under `TABLE_SYMBOL` (resolved when code is loaded, like `malloc`), so
object code in the disk cache holds no address of this process.

A kernel reads its slot of the table at run time: a null slot (no BLAS
found, or `disabled()` in force) sends it to its own loop. Only ILP64
interfaces (64-bit integer arguments) are used, which is what every
NumPy >= 2 wheel ships; an LP64-only BLAS counts as "no BLAS".

The calling convention every slot must have (CBLAS, 64-bit integers):

    gemm(i32 order, i32 transa, i32 transb, i64 m, i64 n, i64 k, T alpha,
         T *a, i64 lda, T *b, i64 ldb, T beta, T *c, i64 ldc)
    gemv(i32 order, i32 trans, i64 m, i64 n, T alpha, T *a, i64 lda,
         T *x, i64 incx, T beta, T *y, i64 incy)

This module imports no llvmlite (it is data shared with the JIT).
"""
from __future__ import annotations

import ctypes
import glob
import os
from typing import Optional

from .function_table import FunctionTable

__all__ = ["TABLE_SYMBOL", "SGEMM", "DGEMM", "SGEMV", "DGEMV", "SLOTS", "ROW_MAJOR", "NO_TRANS",
           "TRANS", "TABLE", "load", "library_path", "available", "disabled"]

TABLE_SYMBOL = "autograph_blas_table"
SGEMM, DGEMM, SGEMV, DGEMV = range(4)
SLOTS = 4
ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112     # CBLAS enum values

# name stems in slot order; each is tried with the prefixes and suffixes below
_STEMS = ("cblas_sgemm", "cblas_dgemm", "cblas_sgemv", "cblas_dgemv")
_PREFIXES = ("scipy_", "")
_SUFFIXES = ("64_", "_64")        # ILP64 only: the kernels pass 64-bit integers


def _candidates() -> list:
    """Shared libraries that may hold an ILP64 CBLAS, best first."""
    out = []
    try:
        import numpy
        root = os.path.dirname(os.path.dirname(os.path.abspath(numpy.__file__)))
        for pattern in ("numpy.libs/libscipy_openblas64*", "numpy.libs/libopenblas64*",
                        "numpy/.dylibs/libscipy_openblas64*", "numpy.libs/*openblas*"):
            out.extend(sorted(glob.glob(os.path.join(root, pattern))))
    except ImportError:   # pragma: no cover - numpy is a dependency
        pass
    return out


def _resolve(lib) -> Optional[list]:
    addrs = []
    for stem in _STEMS:
        for prefix in _PREFIXES:
            for suffix in _SUFFIXES:
                try:
                    fn = getattr(lib, prefix + stem + suffix)
                except AttributeError:
                    continue
                addrs.append(ctypes.cast(fn, ctypes.c_void_p).value)
                break
            else:
                continue
            break
        else:
            return None
    return addrs


# The table (abi/function_table.py); `_candidates` is read at load time, so a
# test may replace it first.
_TABLE = FunctionTable(SLOTS, _resolve, lambda: _candidates())
TABLE = _TABLE.table


def load() -> Optional[str]:
    """Find the BLAS and fill `TABLE` (once per process); the library's path,
    or None when no usable BLAS was found (every slot then stays null and
    compiled matmuls use their own loops).

    Example: `load()` -> '/.../numpy.libs/libscipy_openblas64_-32a4b2a6.so'
    """
    return _TABLE.load()


def library_path() -> Optional[str]:
    """The BLAS library compiled matmuls call, or None (none found / not loaded yet)."""
    return _TABLE.library_path()


def available() -> bool:
    """Do compiled float matmuls call BLAS now (a library was found and
    `disabled()` is not in force)? Searches for the library if not done yet."""
    load()
    return bool(TABLE[SGEMM])


def disabled():
    """While active, compiled matmuls use their own loops (the table is
    cleared; kernels read it on every call). For tests and measurements.

    Example::

        with blas.disabled():
            f(x, w)     # the own-loop path
    """
    return _TABLE.disabled()
