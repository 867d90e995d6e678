"""The process-wide runtime that kernels import by symbol, provided on demand.

Kernels reference a few runtime symbols by name (`publish_symbol`): the
SIGINT epoch, the BLAS and LAPACK tables, the thread count and `autograph_parallel_for`,
the result capsules' destructor `autograph_capsule_free`. Each has a
*provider* here that makes it exist and publishes it, once per process:

* data (epoch, BLAS and LAPACK tables, thread count, pool state) is ctypes memory;
* code (the SIGINT handler, the thread pool, the destructor) is compiled
  from IR (`interrupt.py`, `threadpool.py`, `_CAPSULE_FREE_IR`) that
  references data only by symbol, so its object code holds no address of
  this process: it is stored in the disk cache (`side_cache`, keyed by its
  IR and the cache key's fixed part) and loaded with `objload`, without
  LLVM. When there is no stored object, LLVM compiles one (and it is
  stored); when `objload` cannot load it, the IR goes into the shared
  MCJIT engine as before (logged at debug level). Glue code is never freed:
  result arrays outlive kernels and call the destructor.

When LLVM starts, every provider runs (`provide_all`: the glue is ready for
whatever is compiled next). A kernel loaded from the disk cache without
LLVM gets only what its object's undefined symbols name (`provide`): a
kernel without loops or threads starts no thread pool and installs no
SIGINT handler. Callers hold the engine's LOCK.
"""
from __future__ import annotations

import ctypes
import logging
from typing import Callable, Dict, Iterable, List

from ..abi import blas, heap, lapack
from ..abi.binding import CAPSULE_FREE_SYMBOL
from ..abi.interrupt import EPOCH_SYMBOL
from ..abi.threads import PARALLEL_FOR_SYMBOL, THREADS_SYMBOL
from . import disk_cache, engine, interrupt, objload, side_cache, threadpool
from .symbols import publish_symbol, resolve_symbol

__all__ = ["provide", "provide_all", "load_code"]

log = logging.getLogger("autograph.codegen")

_CAPSULE_FREE_IR = """
declare ptr @PyCapsule_GetPointer(ptr, ptr)
declare void @free(ptr)

define void @{name}(ptr %capsule) nounwind {{
entry:
  %p = call ptr @PyCapsule_GetPointer(ptr %capsule, ptr null)
  call void @free(ptr %p)
  ret void
}}
"""

_KEEP: List[object] = []    # loaded glue code: mapped for the life of the process
_DONE: set = set()          # providers that ran (or are running: a provider may start LLVM,
                            # which runs every provider; the running one is skipped)


def _interrupt() -> None:
    interrupt.start(load_code)


def _threads() -> None:
    threadpool.start(load_code)


def _blas() -> None:
    blas.load()
    publish_symbol(blas.TABLE_SYMBOL, ctypes.addressof(blas.TABLE))


def _lapack() -> None:
    lapack.load()
    publish_symbol(lapack.TABLE_SYMBOL, ctypes.addressof(lapack.TABLE))


def _capsule_free() -> None:
    """The result capsules' destructor: result arrays outlive kernels, so the code
    they call must not be freed with a kernel's."""
    address = load_code("ag_capsule_free_module", _CAPSULE_FREE_IR.format(name=CAPSULE_FREE_SYMBOL),
                        [CAPSULE_FREE_SYMBOL])[CAPSULE_FREE_SYMBOL]
    publish_symbol(CAPSULE_FREE_SYMBOL, address)


# Symbol -> provider; the order of first appearance is the start-up order of `provide_all`.
_PROVIDERS: Dict[str, Callable[[], None]] = {
    EPOCH_SYMBOL: _interrupt,
    CAPSULE_FREE_SYMBOL: _capsule_free,
    blas.TABLE_SYMBOL: _blas,
    lapack.TABLE_SYMBOL: _lapack,
    THREADS_SYMBOL: _threads,
    PARALLEL_FOR_SYMBOL: _threads,
}


def _run(provider: Callable[[], None]) -> None:
    if provider in _DONE:
        return
    _DONE.add(provider)
    try:
        provider()
    except BaseException:
        _DONE.discard(provider)   # tried again next time
        raise


def provide(names: Iterable[str]) -> None:
    """Make the runtime symbols among `names` exist and published (others are ignored)."""
    heap.configure()   # dropped results' pages are reused, not faulted in again (abi/heap.py)
    for name in names:
        provider = _PROVIDERS.get(name)
        if provider is not None:
            _run(provider)


def provide_all() -> None:
    """Run every provider (when LLVM starts: anything compiled next may need them)."""
    provide(list(_PROVIDERS))


def load_code(module_name: str, ir_text: str, symbols: List[str]) -> Dict[str, int]:
    """The addresses of `symbols`, defined by glue module `ir_text` loaded for the
    life of the process: its stored object code without LLVM when possible."""
    statics = disk_cache._static_part(start_llvm=False)
    obj = side_cache.read("glue", statics + "\0" + ir_text) if statics else None
    if obj is None:
        obj = engine.emit_glue_object(ir_text, module_name)
        statics = disk_cache._static_part()
        side_cache.write("glue", statics + "\0" + ir_text, obj)
    if engine.USE_OBJECT_LOADER:
        try:
            loaded = objload.load(obj, symbols, resolve_symbol)
        except objload.ObjectError as exc:
            log.debug("glue %s: the object loader refused it (%s); compiling it into the shared "
                      "MCJIT engine", module_name, exc)
        else:
            _KEEP.append(loaded)
            return loaded.addresses
    return engine.mcjit_glue(ir_text, module_name, symbols)


# The engine asks for the glue through these (it sits below this module).
engine.attach_glue(provide, provide_all)
