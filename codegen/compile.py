"""`compile_graph`: lower, optimise, JIT, and wrap as a `CompiledKernel`."""
from __future__ import annotations

import time
from typing import Optional

from tracer.ir import Graph

from .jit import compile_ir, unique_name
from .kernel import CompiledKernel
from .lowering import lower_graph


def compile_graph(graph: Graph, boundscheck: bool = True, name: Optional[str] = None) -> CompiledKernel:
    """See `codegen.compile_graph`."""
    name = name or graph.name
    symbol = unique_name(name)
    t0 = time.perf_counter()
    module, errors = lower_graph(graph, symbol, symbol + ".module", boundscheck)
    ir_text = str(module)
    t1 = time.perf_counter()
    jm = compile_ir(ir_text, symbol + ".module", symbol)
    timings = {"lower": t1 - t0, **jm.timings}
    return CompiledKernel(graph, jm, errors, name, timings)
