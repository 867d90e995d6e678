"""`compile_graph`: lower, optimise, JIT, and wrap as a `CompiledKernel`.

With the disk cache on (`autograph.codegen.jit.disk_cache`), the graph's cache key is computed
first; a hit loads the stored object file and skips lowering and LLVM
entirely, a miss compiles through an object file and stores it.

Each load is a library of its own (`autograph.codegen.jit.engine`), owned by
its `JitModule` and freed when that dies. `_LOADED` finds loaded code by
cache key while it is alive, without keeping it alive.
"""
from __future__ import annotations

import logging
import time
import weakref
from typing import Optional, Tuple

from autograph.tracer.core.ir import Graph

from . import disk_cache as cache
from ..abi.binding import dispatch_symbol, entry_symbol, supported
from .engine import JitModule, compile_ir, ensure_started, load_object, unique_name
from .kernel import CompiledKernel
from .mappings import check_room
from .progress import report_compile

log = logging.getLogger("autograph.codegen")

# Number of graphs lowered to LLVM in this process (tests use it to see a cache hit skip lowering).
LOWERED = 0


def _lower(graph: Graph, symbol: str, boundscheck: bool, fastmath: bool = False):
    global LOWERED
    from ..lowering.driver import lower_graph  # lazy: a cache hit needs no llvmlite.ir

    LOWERED += 1
    module, errors = lower_graph(graph, symbol, symbol + ".module", boundscheck, fastmath)
    if fastmath:
        # Only the kernel's own functions: the CPython glue added below does no float maths.
        from ..llvm.fastmath import apply_fastmath
        apply_fastmath(module)
    # The native entry (autograph.codegen.entry.emit) goes into the same module: compiled, cached
    # on disk and loaded with the kernel; `CompiledKernel.native_entry` looks it up by symbol.
    from ..entry.emit import emit_entry
    emit_entry(module, graph, symbol)
    return str(module), errors


def compile_graph(graph: Graph, boundscheck: bool = True, name: Optional[str] = None,
                  fastmath: bool = False) -> CompiledKernel:
    """See `autograph.codegen.compile_graph`."""
    name = name or graph.name
    # LLVM starts first (timed apart: paid once per process), unless the disk cache may serve
    # this graph without it: keys need no LLVM once the host record exists (disk_cache), and a
    # hit loads with the object loader (engine.load_object); a miss starts it below.
    startup = 0.0 if cache.enabled() and not cache.key_needs_llvm() else ensure_started()
    t0 = time.perf_counter()
    key = cache.graph_key(graph, boundscheck, fastmath)   # also without the disk cache: see _LOADED
    if key is not None:
        kernel = _loaded(graph, key, name, t0)
        if kernel is not None:
            return kernel
    disk = key is not None and cache.enabled()
    if disk:
        kernel = _from_cache(graph, key, name, boundscheck, t0, startup, fastmath)
        if kernel is not None:
            return kernel
    symbol = cache.keyed_symbol(name, key) if disk else unique_name(name)
    t_key = time.perf_counter()
    startup += ensure_started()
    t1 = time.perf_counter()
    ir_text, errors = _lower(graph, symbol, boundscheck, fastmath)
    t2 = time.perf_counter()
    check_room(name)   # a clear MemoryError, not a crash, when mappings run out
    jm = compile_ir(ir_text, symbol + ".module", symbol, emit_object=disk, exports=_glue(symbol))
    timings = {"lower": t2 - t1, **jm.timings}
    if startup:
        timings["llvm_start"] = startup
    if disk:
        timings["cache_key"] = t_key - t0
        cache.store(key, graph, symbol, jm.object_code, errors, timings)
        jm.object_code = None  # the engine has its own copy
    _remember(key, jm, errors, graph)
    # INFO with the stage timings; a WARNING when slow (autograph.codegen.jit.progress).
    report_compile(name, graph, timings, time.perf_counter() - t0 - (t1 - t_key) + startup)
    return CompiledKernel(graph, jm, errors, name, timings)


def _from_cache(graph: Graph, key: str, name: str, boundscheck: bool, t0: float,
                startup: float, fastmath: bool = False, interface_only: bool = False) -> Optional[CompiledKernel]:
    # `interface_only` (load_kernel): `graph` has the inputs and outputs but no ops; the real
    # graph, needed to lower again for inspection, comes with the first compile of it that
    # reuses this code (_loaded).
    entry = cache.load(key, graph, name)
    if entry is None:
        return None
    t1 = time.perf_counter()
    check_room(name)
    # The entry and dispatcher are emitted exactly when the graph is `supported` (entry/emit.py).
    library = load_object(entry.obj, entry.symbol, _glue(entry.symbol) if supported(graph) else ())
    if library is None:  # never call a zero address: compile instead
        cache.STATS["bad"] += 1
        log.warning("disk-cache entry for %s gave no address for %s; recompiling", name, entry.symbol)
        return None
    cache.STATS["hits"] += 1
    t2 = time.perf_counter()
    symbol = entry.symbol

    real = [None if interface_only else graph]

    def regenerate() -> str:
        # Inspection of cached code (llvm_ir, asm): lower again under the same symbol.
        if real[0] is None:
            raise RuntimeError(f"the code of {name} was loaded without its graph (warm start): "
                               "inspect the kernel of a ConcreteFunction instead")
        return _lower(real[0], symbol, boundscheck, fastmath)[0]

    timings = {"cache_key": t1 - t0, "cache_load": t2 - t1}
    if startup:
        timings["llvm_start"] = startup
    jm = JitModule(library, symbol, None, timings, regenerate=regenerate, origin="disk-cache")
    if interface_only:
        jm.awaiting_graph = real
    _remember(key, jm, entry.errors, None if interface_only else graph)
    report_compile(name, graph, timings, t2 - t0 + startup, cached=True)
    return CompiledKernel(graph, jm, entry.errors, name, timings)


def load_kernel(key: str, interface: Graph, name: str, boundscheck: bool = True,
                fastmath: bool = False) -> Optional[CompiledKernel]:
    """The kernel of disk-cache entry `key`, or None (no such entry, or it failed a check).

    For the warm start (`autograph.runtime.warm_start`), which knows the key
    without tracing: `interface` is a graph with the kernel's inputs and
    outputs and no ops (the entry's types are checked against it). The code
    is shared through `_LOADED` like any other: a later trace of the real
    graph reuses it, and from then on it can be inspected (`llvm_ir`).
    """
    global REUSED
    if not cache.enabled():
        return None
    jm = _LOADED.get(key)
    if jm is not None:   # loaded already (another function with the same graph): no second copy
        REUSED += 1
        return CompiledKernel(interface, jm, jm.errors, name, {"cache_key": 0.0})
    return _from_cache(interface, key, name, boundscheck, time.perf_counter(), 0.0, fastmath,
                       interface_only=True)


def _glue(symbol: str) -> Tuple[str, str]:
    """The glue symbols that may share kernel `symbol`'s module (its native entry, its dispatcher)."""
    return entry_symbol(symbol), dispatch_symbol(symbol)


# The code loaded in this process and still alive, by cache key. A graph that
# compiles to code already loaded (a new function object for the same Python
# function, a retrace that gives the same graph) reuses it instead of loading
# another copy (each load maps fresh pages: about two mappings, and a process's
# mappings are finite: vm.max_map_count). The values are weak: an entry does
# not keep code alive, so code nothing else refers to is freed (its JitModule
# owns it) and a later identical graph loads it again. Each JitModule carries
# its error-site table (`errors`).
_LOADED: "weakref.WeakValueDictionary[str, JitModule]" = weakref.WeakValueDictionary()
# Loads that reused code (tests read it).
REUSED = 0


# Ops whose lowering keeps state in the loaded code itself: each random op has an
# execution counter, a global of its module starting at 0 when the code is loaded
# (codegen/lowering/random.py). Code holding such state is never shared between two
# functions: a second function must start its own stream, as when it was loaded anew.
KERNEL_STATE_OPS = frozenset({"random_uniform", "random_normal", "random_uniform_int"})


def _remember(key: Optional[str], jm: JitModule, errors, graph: Optional[Graph] = None) -> None:
    jm.errors = errors
    jm.cache_key = key   # the disk-cache key of this code (the warm-start index points at it)
    if key is None:
        return
    if graph is not None and any(op.name in KERNEL_STATE_OPS for op in graph.walk()):
        return
    _LOADED.setdefault(key, jm)


def _loaded(graph: Graph, key: str, name: str, t0: float) -> Optional[CompiledKernel]:
    global REUSED
    jm = _LOADED.get(key)   # a strong reference from here on, or None: the code is alive or gone
    if jm is None:
        return None
    REUSED += 1
    waiting = getattr(jm, "awaiting_graph", None)
    if waiting is not None and waiting[0] is None:
        waiting[0] = graph   # code loaded by the warm start: now it can be lowered again for inspection
    timings = {"cache_key": time.perf_counter() - t0}
    return CompiledKernel(graph, jm, jm.errors, name, timings)
