"""The runtime symbols kernels import by name, and how an undefined symbol resolves.

Kernels and glue code reference a few process-wide runtime objects by symbol
name (the SIGINT epoch, the BLAS and LAPACK tables, the thread pool, the
result destructor). Whoever makes one exist publishes its address here
(`publish_symbol`); every library loaded afterwards imports it, whether the
object loader (`objload`, through `resolve_symbol`) or LLVM links it.

LLVM is told too, once it runs: `engine` calls `attach_llvm` when it starts
(replaying what was published before), and from then on `publish_symbol`
also gives each symbol to `llvm.add_symbol`. This module imports no LLVM
itself, so a process that only loads cached objects never does.
"""
from __future__ import annotations

import ctypes
import sys
from typing import Dict, Optional

__all__ = ["publish_symbol", "resolve_symbol", "attach_llvm"]

# name -> address of every published runtime symbol (they live as long as the process)
_PUBLISHED: Dict[str, int] = {}
_llvm = None                 # llvmlite.binding once the engine has started it
_dlsym: Optional[object] = None


def publish_symbol(name: str, address: int) -> None:
    """Make the runtime symbol `name` (data or code at `address`, living as long as the
    process) resolvable by all code loaded from now on: every kernel library (imported by
    address, or resolved by the object loader) and, once LLVM runs, the shared engine
    (`llvm.add_symbol`). Caller holds the engine's LOCK."""
    _PUBLISHED[name] = address
    if _llvm is not None:
        _llvm.add_symbol(name, address)


def attach_llvm(llvm) -> None:
    """LLVM has started (`llvm` is llvmlite.binding): give it every symbol published so
    far, and each one published from now on. Caller holds the engine's LOCK."""
    global _llvm
    for name, address in _PUBLISHED.items():
        llvm.add_symbol(name, address)
    _llvm = llvm


def published() -> Dict[str, int]:
    """A copy of the published symbols (name -> address)."""
    return dict(_PUBLISHED)


def resolve_symbol(name: str) -> int:
    """The address an object's undefined symbol `name` gets, as the engine's linker
    resolves it without LLVM: a published runtime symbol, else (when llvmlite.binding is
    loaded) a symbol given to `llvm.add_symbol` (tests route malloc/free through counters
    so), else the process (`dlsym(RTLD_DEFAULT)`: libc, libm, the CPython API); 0 if none."""
    global _dlsym
    address = _PUBLISHED.get(name)
    if address:
        return address
    llvm = sys.modules.get("llvmlite.binding")
    if llvm is not None:
        address = llvm.address_of_symbol(name)
        if address:
            return address
    if _dlsym is None:
        f = ctypes.CDLL(None).dlsym
        f.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        f.restype = ctypes.c_void_p
        _dlsym = f
    return _dlsym(None, name.encode()) or 0
