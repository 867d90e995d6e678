"""A process-wide table of C function pointers found in a shared library at
run time, which compiled code reaches through one published symbol.

The BLAS (`abi/blas.py`) and the LAPACK (`abi/lapack.py`) tables work the
same way: search candidate libraries once per process, resolve every slot's
function in the first library that has them all, and write the addresses
into `table`, a ctypes array that is never freed (kernels read it on every
call, and it is published to native code under its symbol, so object code in
the disk cache holds no address of this process). A null slot means "not
available": the kernel takes its own path (an own loop, or a clear error).
`disabled()` clears the table for tests and measurements.

This module imports no llvmlite (it is data shared with the JIT).
"""
from __future__ import annotations

import contextlib
import ctypes
from typing import Callable, Iterator, List, Optional

from autograph.tracer.core import forksafe

__all__ = ["FunctionTable"]


class FunctionTable:
    """`slots` function pointers resolved by `resolve(lib)` (a list of
    addresses, or None when `lib` lacks one) in the first of `candidates()`
    (library paths, best first) that has them all.

    `candidates` is called at load time, so a test can replace the module
    function it reads (as `blas._candidates`) before the first load.
    """

    def __init__(self, slots: int, resolve: Callable[[ctypes.CDLL], Optional[List[int]]],
                 candidates: Callable[[], List[str]]):
        self.slots = slots
        self.table = (ctypes.c_void_p * slots)()     # never freed: kernels read it
        self._found = (ctypes.c_void_p * slots)()    # what `load` resolved (table may be cleared)
        self._resolve = resolve
        self._candidates = candidates
        self._lock = forksafe.lock()                 # a fork child gets it back unlocked
        self._loaded = False
        self._path: Optional[str] = None
        self._disabled = 0

    def load(self) -> Optional[str]:
        """Search once per process and fill the table; the library's path, or
        None when no candidate has every slot (the table then stays null)."""
        with self._lock:
            if not self._loaded:
                self._loaded = True
                for path in self._candidates():
                    try:
                        lib = ctypes.CDLL(path)   # already mapped by NumPy: no second copy
                    except OSError:
                        continue
                    addrs = self._resolve(lib)
                    if addrs is not None:
                        self._path = path
                        for i, a in enumerate(addrs):
                            self._found[i] = a
                        break
                if not self._disabled:
                    self._fill(self._found)
            return self._path

    def library_path(self) -> Optional[str]:
        """The library the table points into, or None (none found / not loaded yet)."""
        return self._path

    def _fill(self, source) -> None:
        for i in range(self.slots):
            self.table[i] = source[i] if source is not None else None

    @contextlib.contextmanager
    def disabled(self) -> Iterator[None]:
        """While active, every slot is null (kernels read the table on every
        call), as in a process without the library."""
        with self._lock:
            self._disabled += 1
            self._fill(None)
        try:
            yield
        finally:
            with self._lock:
                self._disabled -= 1
                if not self._disabled:
                    self._fill(self._found)
