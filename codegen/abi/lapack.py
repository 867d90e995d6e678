"""The LAPACK that compiled `np.linalg` ops call: found at run time, reached by symbol.

The same library as the BLAS (`abi/blas.py`): NumPy's wheels ship OpenBLAS
(`numpy.libs/libscipy_openblas64_*.so`), whose LAPACK has the Fortran
interface with 64-bit integers under names such as `scipy_dgesv_64_`. This
module resolves the routines NumPy's own `numpy.linalg` calls (so compiled
results are NumPy's, bit for bit: see `lowering/lapack_call.py`) and writes
their addresses into `TABLE`, a process-wide array of function pointers
published to native code under `TABLE_SYMBOL` (resolved when code is
loaded, like the BLAS table), so object code in the disk cache holds no
address of this process.

Only the double-precision routines are resolved: NumPy computes float32
linear algebra in float64 and rounds the results (`numpy.linalg._commonType`),
and compiled code does the same. A null slot (no library, an LP64-only
library, or `disabled()` in force) makes the op fail with `NOT_FOUND`, an
InvalidArgumentError naming the user's line, never a call through null.

Fortran calling convention: every argument by pointer (integers i64, chars
as one byte plus a hidden trailing length argument, i64), matrices in
column-major order:

    dgetrf(m, n, a, lda, ipiv, info)
    dgesv(n, nrhs, a, lda, ipiv, b, ldb, info)
    dpotrf(uplo, n, a, lda, info, len(uplo))
    dsyevd(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, len, len)
    dgeqrf(m, n, a, lda, tau, work, lwork, info)
    dorgqr(m, n, k, a, lda, tau, work, lwork, info)
    dgesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, len)
    dgelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info)

This module imports no llvmlite (it is data shared with the JIT).
"""
from __future__ import annotations

import ctypes
from typing import Optional

from . import blas
from .function_table import FunctionTable

__all__ = ["TABLE_SYMBOL", "GETRF", "GESV", "POTRF", "SYEVD", "GEQRF", "ORGQR", "GESDD", "GELSD", "SLOTS",
           "NAMES", "NOT_FOUND", "TABLE", "load", "library_path", "available", "disabled"]

TABLE_SYMBOL = "autograph_lapack_table"
GETRF, GESV, POTRF, SYEVD, GEQRF, ORGQR, GESDD, GELSD = range(8)
SLOTS = 8
NAMES = ("dgetrf", "dgesv", "dpotrf", "dsyevd", "dgeqrf", "dorgqr", "dgesdd", "dgelsd")   # slot order
NOT_FOUND = ("{op}: no LAPACK library was found (autograph calls the one NumPy ships, "
             "numpy.libs/libscipy_openblas64_*.so, with 64-bit integers)")

_PREFIXES = ("scipy_", "")
_SUFFIXES = ("_64_", "_64")        # ILP64 only: the kernels pass 64-bit integers


def _resolve(lib) -> Optional[list]:
    """Every slot's address in `lib`, or None when one is missing."""
    addrs = []
    for stem in NAMES:
        for name in (p + stem + s for p in _PREFIXES for s in _SUFFIXES):
            fn = getattr(lib, name, None)
            if fn is not None:
                addrs.append(ctypes.cast(fn, ctypes.c_void_p).value)
                break
        else:
            return None
    return addrs


# The same search as the BLAS's (abi/function_table.py), in the same libraries.
_TABLE = FunctionTable(SLOTS, _resolve, lambda: blas._candidates())
TABLE = _TABLE.table


def load() -> Optional[str]:
    """Find LAPACK and fill `TABLE` (once per process); the library's path, or
    None when none was found (every slot stays null: the ops then fail with
    `NOT_FOUND` when called).

    Example: `load()` -> '/.../numpy.libs/libscipy_openblas64_-32a4b2a6.so'
    """
    return _TABLE.load()


def library_path() -> Optional[str]:
    """The LAPACK library compiled linalg ops call, or None (none found / not loaded yet)."""
    return _TABLE.library_path()


def available() -> bool:
    """Can compiled linalg ops call LAPACK now (found, and `disabled()` not in force)?"""
    load()
    return all(TABLE[i] for i in range(SLOTS))


def disabled():
    """While active, the table is cleared (kernels read it on every call): the
    linalg ops fail with `NOT_FOUND`, as in a process without LAPACK. For tests.

    Example::

        with lapack.disabled():
            f(a)     # InvalidArgumentError: ... no LAPACK library was found
    """
    return _TABLE.disabled()
