"""Threads for large compiled loops: the names and data kernels and the pool share.

A kernel whose fused elementwise loop (or reduction) is large enough
(`lowering/parallel.py`, `parallel_reduce.py`; by rows: `parallel_rows.py`,
`rowfuse.py`) outlines the loop into a
*chunk function* `void chunk(ptr ctx, i64 lo, i64 hi)` and, when the i64
at `THREADS_SYMBOL` is above 1, calls

    autograph_parallel_for(chunk, ctx, n, align)

which runs the chunks [0, n) on a native thread pool (`jit/threadpool.py`,
JIT-compiled when LLVM starts) and returns when all are done; bounds are
multiples of `align` (64 elements for maps, 1 block for reductions, 1 row
or 256 columns for loops split by rows). Both
names are resolved by symbol when code is loaded, so cached object code
holds no address. No Python runs meanwhile.

`AUTOGRAPH_NUM_THREADS` sets the count (default: all cores; 1 turns
threads off; at most `MAX_THREADS`); an invalid value raises `EnvironmentSettingError` naming the
variable. `POOL` is the pool's state: job fields (`POOL_*` indices), then a
pthread mutex and two condition variables at byte offsets `POOL_MUTEX`,
`POOL_WORK`, `POOL_DONE` (64 bytes each, more than glibc needs).

This module imports no llvmlite.
"""
from __future__ import annotations

import ctypes
import os

__all__ = ["PARALLEL_FOR_SYMBOL", "THREADS_SYMBOL", "MIN_PARALLEL", "MIN_WORK", "ALIGN", "MAX_THREADS",
           "THREADS",
           "POOL", "POOL_SYMBOL", "POOL_WORKERS", "POOL_JOBS", "POOL_CALLS", "POOL_MUTEX", "POOL_WORK",
           "POOL_DONE", "configure", "num_threads", "jobs"]

PARALLEL_FOR_SYMBOL = "autograph_parallel_for"
THREADS_SYMBOL = "autograph_num_threads"
POOL_SYMBOL = "autograph_thread_pool"   # `POOL`, reached by symbol by the pool's glue code
# A loop is split when it has at least MIN_PARALLEL elements and at least
# MIN_WORK / weight, where a loop's weight is 1 + its ops + 8 per costly op
# (exp, log, division, ...: `lowering/parallel.py`): the workers poll between
# jobs (`jit/threadpool.py`), so back-to-back calls of `x * y + 1` over 512K
# float64 take 57 us split against 99 on one thread; after a 2 ms pause, 88
# against 106, but 55 against 51 at 256K, hence a cheap map splits from 350K.
MIN_PARALLEL = 1 << 18
MIN_WORK = 1 << 20
ALIGN = 64                                   # chunk boundaries of maps: whole cache lines / vectors
MAX_THREADS = 1024                           # a bound on the workers a typo can start

THREADS = (ctypes.c_int64 * 1)(1)            # read by kernels on every call; never freed
# i64 fields: 0 generation, 1 chunk fn, 2 ctx, 3 n, 4 step, 5 chunks, 6 workers, 7 busy,
# 8 jobs run on the pool, 9 calls, 10 claim word (generation << 32 | next chunk),
# 11 chunks finished; then the mutex and the two condition variables.
POOL_WORKERS, POOL_JOBS, POOL_CALLS = 6, 8, 9
POOL_MUTEX, POOL_WORK, POOL_DONE = 128, 192, 256
POOL = (ctypes.c_int64 * 40)()               # 320 bytes, never freed


def num_threads() -> int:
    """The thread count compiled loops use (`AUTOGRAPH_NUM_THREADS`, default all cores).

    Raises `EnvironmentSettingError` for a value that is not an integer from
    1 to `MAX_THREADS`. Example: `num_threads()` -> 2 on a two-core machine.
    """
    from autograph.tracer.core import env
    return env.integer("AUTOGRAPH_NUM_THREADS", min(os.cpu_count() or 1, MAX_THREADS), 1, MAX_THREADS)


def configure() -> int:
    """Read `AUTOGRAPH_NUM_THREADS` into `THREADS` (called when LLVM starts); the count."""
    THREADS[0] = num_threads()
    return int(THREADS[0])


def jobs() -> tuple:
    """(calls of autograph_parallel_for, of which run on the pool) in this process,
    for tests and measurements. Example: `jobs()` -> (3, 3)."""
    return int(POOL[POOL_CALLS]), int(POOL[POOL_JOBS])
