"""Scaling out: compiled functions in process pools and on a Dask cluster.

    python examples/scaling_out.py            # multiprocessing (fork and spawn), ProcessPoolExecutor
    python examples/scaling_out.py --dask     # and a local Dask cluster, if dask[distributed] is installed

An `ag.function` pickles like a plain function: a module-level one by
reference (each worker imports this module), a closure or lambda by value.
Each worker process traces once per input signature and compiles, or loads
the code from the disk cache (`AUTOGRAPH_CACHE_DIR`) that all processes on a
machine share, so only the first process to need a kernel compiles it.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import sys
import time

import numpy as np

import autograph as ag


@ag.function
def smoothstep(x, edge0=0.0, edge1=1.0):
    """The smoothstep of each element: 0 below edge0, 1 above edge1, a cubic between."""
    t = ag.minimum(ag.maximum((x - edge0) / (edge1 - edge0), 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


@ag.function
def energy(x):
    """The sum of squares, accumulated in a compiled loop."""
    total = ag.constant(0.0, dtype=x.dtype)
    for i in ag.range(ag.shape(x)[0]):
        total += x[i] * x[i]
    return total


def make_scaler(factor):
    """A closure: pickled by value (its code, `factor` and the globals it uses)."""
    @ag.function
    def scale(x):
        return x * factor
    return scale


def block_energy(seed: int, n: int) -> float:
    """One task of a pool: make a block of data and reduce it with a compiled kernel."""
    x = np.random.default_rng(seed).standard_normal(n)
    return float(energy(x))


def trace_counts() -> dict:
    """How many times this process traced each kernel (run it in a worker: `client.run`)."""
    return {"smoothstep": smoothstep.tracing_count, "energy": energy.tracing_count}


def cache_stats() -> dict:
    """This process's disk-cache counters: hits (loaded), misses and stores (compiled)."""
    from autograph.codegen.jit import disk_cache
    return dict(disk_cache.STATS)


# --------------------------------------------------------------------------- demos

def with_pool(method: str, tasks: int = 8, n: int = 10_000) -> list:
    """`multiprocessing.Pool.starmap` with the "fork" or "spawn" start method."""
    with multiprocessing.get_context(method).Pool(2) as pool:
        return pool.starmap(block_energy, [(seed, n) for seed in range(tasks)])


def with_executor(factor: float = 2.5) -> list:
    """`ProcessPoolExecutor.map` with a closure made at run time (sent by value)."""
    scale = make_scaler(factor)
    blocks = [np.full(4, float(k)) for k in range(6)]
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx) as ex:
        return [np.asarray(r) for r in ex.map(scale, blocks)]


def with_dask(n: int = 1_000_000, chunk: int = 125_000):
    """`dask.array.map_blocks` and `Client.submit` on a local cluster of two worker processes."""
    import dask.array as da
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        x = da.from_array(np.linspace(-1.0, 2.0, n), chunks=chunk)
        # dtype and meta given: Dask need not call the kernel on an empty block to learn them.
        y = x.map_blocks(smoothstep, dtype=np.float64, meta=np.array((), np.float64)).compute()
        total = client.submit(energy, np.arange(10.0)).result()
        return np.asarray(y), float(total), client.run(trace_counts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dask", action="store_true", help="also run on a local Dask cluster")
    args = parser.parse_args(argv)
    expected = [block_energy(seed, 10_000) for seed in range(8)]
    methods = ["spawn"] + (["fork"] if "fork" in multiprocessing.get_all_start_methods() else [])
    for method in methods:
        t0 = time.perf_counter()
        got = with_pool(method)
        assert np.allclose(got, expected), (got, expected)
        print(f"Pool({method!r}).starmap(block_energy, ...): {len(got)} tasks in "
              f"{time.perf_counter() - t0:.2f} s")
    t0 = time.perf_counter()
    scaled = with_executor()
    assert all(np.allclose(r, 2.5 * k) for k, r in enumerate(scaled))
    print(f"ProcessPoolExecutor.map(closure, ...): {len(scaled)} tasks in {time.perf_counter() - t0:.2f} s")
    if args.dask:
        t0 = time.perf_counter()
        y, total, counts = with_dask()
        reference = np.linspace(-1.0, 2.0, y.size)
        t = np.clip(reference, 0.0, 1.0)
        assert np.allclose(y, t * t * (3.0 - 2.0 * t)) and total == 285.0
        print(f"dask map_blocks over {y.size} elements and Client.submit in "
              f"{time.perf_counter() - t0:.2f} s; traces per worker: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
