"""`compile_graph`: lower, optimise, JIT, and wrap as a `CompiledKernel`.

With the disk cache on (`autograph.codegen.jit.disk_cache`), the graph's cache key is computed
first; a hit loads the stored object file and skips lowering and LLVM
entirely, a miss compiles through an object file and stores it.
"""
from __future__ import annotations

import logging
import time
from typing import Optional

from autograph.tracer.core.ir import Graph

from . import disk_cache as cache
from .engine import JitModule, compile_ir, ensure_started, load_object, unique_name
from .kernel import CompiledKernel
from .progress import report_compile

log = logging.getLogger("autograph.codegen")

# Number of graphs lowered to LLVM in this process (tests use it to see a cache hit skip lowering).
LOWERED = 0


def _lower(graph: Graph, symbol: str, boundscheck: bool):
    global LOWERED
    from ..lowering.driver import lower_graph  # lazy: a cache hit needs no llvmlite.ir

    LOWERED += 1
    module, errors = lower_graph(graph, symbol, symbol + ".module", boundscheck)
    # The native entry (autograph.codegen.entry.emit) goes into the same module: compiled, cached
    # on disk and loaded with the kernel; `CompiledKernel.native_entry` looks it up by symbol.
    from ..entry.emit import emit_entry
    emit_entry(module, graph, symbol)
    return str(module), errors


def compile_graph(graph: Graph, boundscheck: bool = True, name: Optional[str] = None) -> CompiledKernel:
    """See `autograph.codegen.compile_graph`."""
    name = name or graph.name
    startup = ensure_started()   # timed apart: paid once per process, hit or miss
    t0 = time.perf_counter()
    key = cache.graph_key(graph, boundscheck) if cache.enabled() else None
    if key is not None:
        kernel = _from_cache(graph, key, name, boundscheck, t0, startup)
        if kernel is not None:
            return kernel
    symbol = cache.keyed_symbol(name, key) if key is not None else unique_name(name)
    t1 = time.perf_counter()
    ir_text, errors = _lower(graph, symbol, boundscheck)
    t2 = time.perf_counter()
    jm = compile_ir(ir_text, symbol + ".module", symbol, emit_object=key is not None)
    timings = {"lower": t2 - t1, **jm.timings}
    if startup:
        timings["llvm_start"] = startup
    if key is not None:
        timings["cache_key"] = t1 - t0
        cache.store(key, graph, symbol, jm.object_code, errors, timings)
        jm.object_code = None  # the engine has its own copy
    # INFO with the stage timings; a WARNING when slow (autograph.codegen.jit.progress).
    report_compile(name, graph, timings, time.perf_counter() - t0 + startup)
    return CompiledKernel(graph, jm, errors, name, timings)


def _from_cache(graph: Graph, key: str, name: str, boundscheck: bool, t0: float,
                startup: float) -> Optional[CompiledKernel]:
    entry = cache.load(key, graph, name)
    if entry is None:
        return None
    t1 = time.perf_counter()
    address = load_object(entry.obj, entry.symbol)
    if not address:  # never call a zero address: compile instead
        cache.STATS["bad"] += 1
        log.warning("disk-cache entry for %s gave no address for %s; recompiling", name, entry.symbol)
        return None
    cache.STATS["hits"] += 1
    t2 = time.perf_counter()
    symbol = entry.symbol

    def regenerate() -> str:
        # Inspection of cached code (llvm_ir, asm): lower again under the same symbol.
        return _lower(graph, symbol, boundscheck)[0]

    timings = {"cache_key": t1 - t0, "cache_load": t2 - t1}
    if startup:
        timings["llvm_start"] = startup
    jm = JitModule(None, symbol, address, None, timings, regenerate=regenerate, origin="disk-cache")
    report_compile(name, graph, timings, t2 - t0 + startup, cached=True)
    return CompiledKernel(graph, jm, entry.errors, name, timings)
