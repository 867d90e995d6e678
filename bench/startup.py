"""K8: start-up of a fresh process, with an empty and with a warm disk cache.

Each row is a new Python process (medians over `--repeat` processes):

* `import autograph` (NumPy imported before, and timed apart);
* the first call of K4 (`branchy_sum`) and of K5 (`mandelbrot_total`), as a
  user sees it;
* in a second kind of process, the same first calls split into phases
  (forcing the normal path: conversion and tracing run even on a warm cache):
  AutoGraph conversion, tracing (to a verified graph), LLVM start-up
  (`import llvmlite.binding`, target machine, MCJIT engine: paid once per
  process, and not at all on a warm disk cache, whose objects are loaded
  without LLVM: codegen/jit/objload.py), the kernel (cache key + load on a
  hit; key + lowering + O3 + machine code + store on a miss) and the native
  call itself;
* in a third, a warm process's first calls as the call index serves them
  (`autograph.runtime.warm_start`): fingerprint, index key, record read,
  kernel load and binding, timed inside the call.

Scenarios: an empty disk cache (the first process fills it), a warm disk
cache, and the disk cache turned off. Timings are printed, never asserted.

Python's own bytecode cache matters as much as ours: an installed package
has its `.pyc` files, while a source tree run with PYTHONDONTWRITEBYTECODE=1
recompiles every module in every process (~+100 ms here). By default the
children write and reuse `.pyc` files under a temporary PYTHONPYCACHEPREFIX
(primed by one run first), as an installed package would; `--no-pyc` keeps
the environment as it is.

    python bench/startup.py [--repeat 5] [--no-pyc]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_INPUTS = """
x = np.random.default_rng(0).standard_normal(1000)
xs = np.linspace(-2.0, 1.0, 40); ys = np.linspace(-1.2, 1.2, 30)
"""

# The first calls exactly as a user makes them.
_PLAIN = """
import time, sys, json
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
sys.path.insert(0, {root!r})
import autograph
t2 = time.perf_counter()
from examples.kernels import branchy_sum as k4, mandelbrot_total as k5
t3 = time.perf_counter()
{inputs}
t4 = time.perf_counter(); k4(x); t5 = time.perf_counter()
k5(xs, ys); t6 = time.perf_counter()
import autograph.codegen.jit.disk_cache as cache
from autograph.runtime import warm_start
print(json.dumps(dict(numpy=t1 - t0, autograph=t2 - t1, examples=t3 - t2, k4=t5 - t4, k5=t6 - t5,
                      stats=cache.STATS, index=warm_start.STATS,
                      traces=k4.tracing_count + k5.tracing_count)))
"""

# The same calls, one phase at a time.
_PHASED = """
import time, sys, json
import numpy as np
sys.path.insert(0, {root!r})
import autograph
from examples.kernels import branchy_sum as k4, mandelbrot_total as k5
{inputs}
out = {{}}
def phases(tag, f, *args):
    t0 = time.perf_counter(); f._traceable(); t1 = time.perf_counter()
    cf = f.get_concrete_function(*args); t2 = time.perf_counter()
    if tag == "k4":
        # LLVM starts here when the first call would start it (compile_graph: not on a warm
        # disk cache, whose keys and loads need no LLVM; the key's fixed part is then made here).
        from autograph.codegen.jit import disk_cache, engine as jit
        if not disk_cache.enabled() or disk_cache.key_needs_llvm():
            jit.ensure_started()
    t3 = time.perf_counter()
    k = cf.kernel; t4 = time.perf_counter()
    f(*args); t5 = time.perf_counter()
    out[tag] = dict(convert=t1 - t0, trace=t2 - t1, llvm_init=t3 - t2, kernel=t4 - t3, call=t5 - t4,
                    kernel_parts={{n: v for n, v in k.timings.items()}},
                    llvm_loaded=float("llvmlite.binding" in sys.modules))
phases("k4", k4, x)
phases("k5", k5, xs, ys)
print(json.dumps(out))
"""


# The first calls of a warm process that the call index serves (autograph.runtime.warm_start),
# one step at a time: the steps are wrapped with timers, the calls are made as a user makes them.
_WARM = """
import time, sys, json
import numpy as np
sys.path.insert(0, {root!r})
import autograph
from examples.kernels import branchy_sum as k4, mandelbrot_total as k5
{inputs}
from autograph.runtime import warm_start, fingerprint
from autograph.codegen.jit import compile as jit_compile, disk_cache, side_cache
spent = {{}}
def timed(mod, name, label):
    f = getattr(mod, name)
    def wrapper(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            spent[label] = spent.get(label, 0.0) + time.perf_counter() - t
    setattr(mod, name, wrapper)
timed(fingerprint, "fingerprint", "fingerprint")
timed(warm_start, "_index_key", "index_key")
timed(side_cache, "read", "record_read")
timed(jit_compile, "load_kernel", "kernel_load")
timed(warm_start, "_bind", "bind")
out = {{}}
for tag, f, args in (("k4", k4, (x,)), ("k5", k5, (xs, ys))):
    spent.clear()
    t0 = time.perf_counter(); f(*args); total = time.perf_counter() - t0
    out[tag] = dict(spent, total=total, traces=f.tracing_count)
print(json.dumps(out))
"""


def _child(template: str, env: dict) -> dict:
    code = template.format(root=ROOT, inputs=_INPUTS)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError((proc.stderr.strip().splitlines() or ["?"])[-1])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _median(rows, *path):
    vals = []
    for r in rows:
        v = r
        for p in path:
            v = v.get(p, 0.0) if isinstance(v, dict) else 0.0
        vals.append(v)
    return statistics.median(vals) * 1e3


def _fmt(ms: float) -> str:
    return f"{ms:8.1f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="processes per scenario (medians)")
    parser.add_argument("--no-pyc", action="store_true",
                        help="do not give the children a bytecode cache (keep the environment)")
    args = parser.parse_args(argv)
    base = dict(os.environ)
    base.pop("AUTOGRAPH_DISABLE_CACHE", None)
    base.pop("AUTOGRAPH_VERBOSITY", None)

    with tempfile.TemporaryDirectory(prefix="autograph-startup-") as tmp:
        if not args.no_pyc:
            base.pop("PYTHONDONTWRITEBYTECODE", None)
            base["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pyc")
            _child(_PHASED, dict(base, AUTOGRAPH_CACHE_DIR=os.path.join(tmp, "prime")))
        pyc = "off (PYTHONDONTWRITEBYTECODE)" if base.get("PYTHONDONTWRITEBYTECODE") else "on"

        def empty_env():
            d = tempfile.mkdtemp(dir=tmp)
            return dict(base, AUTOGRAPH_CACHE_DIR=d)

        warm = dict(base, AUTOGRAPH_CACHE_DIR=os.path.join(tmp, "warm"))
        _child(_PLAIN, warm)  # fill the warm cache
        off = dict(base, AUTOGRAPH_CACHE_DIR=os.path.join(tmp, "off"), AUTOGRAPH_DISABLE_CACHE="1")
        scenarios = [("empty disk cache", empty_env), ("warm disk cache", lambda: warm),
                     ("disk cache off", lambda: off)]

        print("K8  fresh process: import and first calls (ms, median of "
              f"{args.repeat} processes; Python bytecode cache {pyc})\n")
        print(f"  {'scenario':<18} {'numpy':>8} {'import':>8} {'K4 1st':>8} {'K5 1st':>8}   cache, "
              "call index, traces")
        plain = {}
        for name, env in scenarios:
            rows = [_child(_PLAIN, env()) for _ in range(args.repeat)]
            plain[name] = rows
            st = rows[-1]["stats"]
            print(f"  {name:<18} {_fmt(_median(rows, 'numpy'))} {_fmt(_median(rows, 'autograph'))} "
                  f"{_fmt(_median(rows, 'k4'))} {_fmt(_median(rows, 'k5'))}   "
                  f"hits {st['hits']} misses {st['misses']}; index hits {rows[-1]['index']['hits']}; "
                  f"traces {rows[-1]['traces']}")

        print("\n  where the first call's time goes (ms; LLVM start-up is paid by the first kernel only)")
        print(f"  {'scenario':<18} {'kernel':<4} {'convert':>8} {'trace':>8} {'llvm init':>9} "
              f"{'kernel':>8} {'call':>8}   kernel parts")
        for name, env in scenarios:
            rows = [_child(_PHASED, env()) for _ in range(args.repeat)]
            for tag in ("k4", "k5"):
                parts = rows[-1][tag]["kernel_parts"]
                shown = ", ".join(f"{k} {_median(rows, tag, 'kernel_parts', k):.1f}" for k in parts)
                if not rows[-1][tag].get("llvm_loaded", 1.0):
                    shown += " (no llvmlite.binding)"
                print(f"  {name:<18} {tag.upper():<4} {_fmt(_median(rows, tag, 'convert'))} "
                      f"{_fmt(_median(rows, tag, 'trace'))} {_median(rows, tag, 'llvm_init'):9.1f} "
                      f"{_fmt(_median(rows, tag, 'kernel'))} {_fmt(_median(rows, tag, 'call'))}   {shown}")
        print("\n  warm start from the call index (ms; a warm process, no conversion, no trace; the\n"
              "  kernel load includes the entry's read; total is the whole first call)")
        print(f"  {'kernel':<6} {'total':>8} {'fprint':>8} {'key':>8} {'record':>8} {'load':>8} "
              f"{'bind':>8}   traces")
        rows = [_child(_WARM, warm) for _ in range(args.repeat)]
        for tag in ("k4", "k5"):
            print(f"  {tag.upper():<6} {_fmt(_median(rows, tag, 'total'))} "
                  f"{_fmt(_median(rows, tag, 'fingerprint'))} {_fmt(_median(rows, tag, 'index_key'))} "
                  f"{_fmt(_median(rows, tag, 'record_read'))} {_fmt(_median(rows, tag, 'kernel_load'))} "
                  f"{_fmt(_median(rows, tag, 'bind'))}   {rows[-1][tag]['traces']}")
    print("\n(the target for a fresh process with a warm disk cache is < 10 ms; the phase table\n"
          " above forces the normal path (convert, trace), the call index skips both)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
