"""Reporting each compile: its stage timings, and a warning when it is slow.

Every compile (or load from the disk cache) logs one record to the
``autograph.codegen`` logger: at INFO (AUTOGRAPH_VERBOSITY >= 1) the time of
each stage, or, when it took longer than `SLOW_COMPILE_SECONDS`, a WARNING
(shown at the default verbosity) naming the function, its op count and the
slowest stage, so that a user waiting on a big kernel knows what the wait is.
"""
from __future__ import annotations

import logging
from typing import Dict

from autograph.tracer.core.ir import Graph
from autograph.tracer.core.logs import RETRACE

__all__ = ["SLOW_COMPILE_SECONDS", "report_compile", "format_timings"]

log = logging.getLogger("autograph.codegen")

SLOW_COMPILE_SECONDS = 2.0

# What each timing key measures, in words (keys come from compile.py and engine.py).
_STAGE_NAMES = {
    "llvm_start": "LLVM start-up",
    "cache_key": "computing the disk-cache key",
    "cache_load": "loading from the disk cache",
    "lower": "lowering to LLVM IR",
    "parse": "parsing the LLVM IR",
    "optimize": "LLVM optimisation",
    "optimise": "LLVM optimisation",
    "codegen": "native code generation",
    "jit": "native code generation",
}


def format_timings(timings: Dict[str, float]) -> str:
    """`lower 3.1 ms, optimize 12.0 ms, ...` in the order the stages ran."""
    return ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in timings.items())


def _slowest(timings: Dict[str, float]):
    key = max(timings, key=timings.get)
    return _STAGE_NAMES.get(key, key), timings[key]


def report_compile(name: str, graph: Graph, timings: Dict[str, float], total: float,
                   cached: bool = False) -> None:
    """Log one compile of `graph` (as function `name`) that took `total` seconds.

    `timings` maps each stage to its seconds; `cached` says the code was
    loaded from the disk cache rather than compiled.
    """
    if total > SLOW_COMPILE_SECONDS and timings:
        stage, secs = _slowest(timings)
        what = f"loading {name} from the disk cache" if cached else f"compiling {name}"
        log.warning("%s took %.1f s: %d ops; the slowest stage was %s (%.1f s) [%s]",
                    what, total, _op_count(graph), stage, secs, format_timings(timings))
        return
    if log.isEnabledFor(RETRACE):
        what = f"loaded {name} from the disk cache" if cached else f"compiled {name}"
        log.info("%s in %.1f ms: %d ops (%s)", what, total * 1e3, _op_count(graph), format_timings(timings))


def _op_count(graph: Graph) -> int:
    return sum(1 for _ in graph.walk())
