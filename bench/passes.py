"""The IR pass pipeline: what it costs at trace time, and what it saves at compile time.

For K4 (`branchy_sum`), K5 (`mandelbrot_total`) and an unrolled function of
about 5,000 ops (`for i in range(N): y = y * 1.0001 + ag.sin(y) - 0.5 * y`,
`y` a float64[100] input), each in a fresh trace with the disk cache off:

* `trace`: `get_concrete_function` (conversion, tracing, verifying and, since
  the passes run at the end of tracing, the pipeline);
* `passes`: the pipeline alone (`optimize(cf.raw_graph)`: copy, constant
  folding, CSE, DCE), then each pass on its own;
* `compile raw` / `compile opt`: lowering + LLVM + machine code for the graph
  as traced (what was compiled before the pipeline ran) and for the
  optimised graph (what is compiled now), each in a fresh process (a second
  big module compiled in one process is much slower, whatever its graph);
* whether the two graphs lower to the same LLVM IR;
* op counts before and after.

"before" = trace - passes + compile raw; "after" = trace + compile opt.
Timings are printed, never asserted (medians of `--repeat` for the
graph-level steps; compiles once each, they are long).

    python bench/passes.py [--unroll 1250] [--repeat 5] [--no-compile]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
os.environ["AUTOGRAPH_DISABLE_CACHE"] = "1"   # compile for real

import autograph as ag  # noqa: E402
from autograph.codegen import compile_graph  # noqa: E402
from autograph.tracer.core.clone import clone_graph  # noqa: E402
from autograph.tracer.passes import DEFAULT_PIPELINE, PASSES, optimize  # noqa: E402
from autograph.tracer.passes.manager import _gc_paused  # noqa: E402
from examples import kernels as K  # noqa: E402


def _unrolled(n: int):
    def unrolled(y):
        for _ in range(n):
            y = y * 1.0001 + ag.sin(y) - 0.5 * y
        return y
    return unrolled


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:9.1f} ms"


def _median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _ops(graph) -> int:
    return sum(1 for _ in graph.walk())


def _workloads(unroll: int):
    f64 = ag.float64
    return {
        "K4": ("K4 branchy_sum(float64[None])", K.branchy_sum.python_function,
               [ag.TensorSpec([None], f64)]),
        "K5": ("K5 mandelbrot_total(float64[40], float64[30], 100)", K.mandelbrot_total.python_function,
               [ag.TensorSpec([40], f64), ag.TensorSpec([30], f64), 100]),
        "unrolled": (f"unrolled x{unroll} (float64[100])", _unrolled(unroll), [ag.TensorSpec([100], f64)]),
    }


def _trace(fn, specs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # the unrolled loop warns, on purpose
        return ag.function(fn).get_concrete_function(*specs)


def _child(workload: str, which: str, unroll: int) -> None:
    """In a fresh process: compile one graph of one workload, print the seconds."""
    _, fn, specs = _workloads(unroll)[workload]
    cf = _trace(fn, specs)
    _warm_up()
    t0 = time.perf_counter()
    compile_graph(cf.raw_graph if which == "raw" else cf.graph)
    print(time.perf_counter() - t0)


def _compile_in_child(workload: str, which: str, unroll: int) -> float:
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", workload, which,
                          "--unroll", str(unroll)], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _warm_up() -> None:
    """LLVM start-up, paid once per process, kept out of the rows."""
    compile_graph(ag.function(lambda x: x + 1).get_concrete_function(ag.TensorSpec([], ag.float32)).graph)


def measure(workload: str, unroll: int, repeat: int, compile_too: bool) -> None:
    """Print the rows of one workload."""
    name, fn, specs = _workloads(unroll)[workload]

    def trace():
        return _trace(fn, specs)

    trace()                            # warm-up: conversion caches, imports
    t_trace = _median(trace, repeat)
    cf = trace()
    raw = cf.raw_graph
    t_passes = _median(lambda: optimize(raw), repeat)
    with _gc_paused():   # as `optimize` runs it
        t_clone = _median(lambda: clone_graph(raw), repeat)
    print(f"{name}: {_ops(raw)} ops traced, {_ops(cf.graph)} after the passes")
    print(f"  trace (incl. passes) {_ms(t_trace)}")
    print(f"  passes               {_ms(t_passes)}   (copy {_ms(t_clone).strip()}, then:)")
    g = clone_graph(raw)
    for pname in DEFAULT_PIPELINE:
        t0 = time.perf_counter()
        g = PASSES[pname](g)
        print(f"    {pname:<18} {_ms(time.perf_counter() - t0)}   -> {_ops(g)} ops")
    from autograph.codegen.jit.compile import _lower
    same = _lower(raw, "kernel", True)[0] == _lower(cf.graph, "kernel", True)[0]
    print(f"  same LLVM IR         {'yes' if same else 'no'}")
    if not compile_too:
        return
    t_raw = _compile_in_child(workload, "raw", unroll)
    t_opt = _compile_in_child(workload, "opt", unroll)
    print(f"  compile raw          {_ms(t_raw)}")
    print(f"  compile opt          {_ms(t_opt)}")
    print(f"  before (trace - passes + compile raw) {_ms(t_trace - t_passes + t_raw)}")
    print(f"  after  (trace + compile opt)          {_ms(t_trace + t_opt)}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--unroll", type=int, default=1250, help="iterations of the unrolled loop (7 ops each)")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-compile", action="store_true", help="graph-level steps only")
    p.add_argument("--child", nargs=2, metavar=("WORKLOAD", "raw|opt"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        _child(args.child[0], args.child[1], args.unroll)
        return 0
    for workload in ("K4", "K5", "unrolled"):
        measure(workload, args.unroll, args.repeat, not args.no_compile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
