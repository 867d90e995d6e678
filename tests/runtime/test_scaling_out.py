"""Compiled functions as the targets of process pools and Dask (examples/scaling_out.py).

multiprocessing with spawn (a fresh interpreter per worker) and fork,
ProcessPoolExecutor with a closure (pickled by value), and a real
`distributed.LocalCluster` of two worker processes running `map_blocks`:
each worker traces once per signature, and a fresh process loads the code
another one compiled from the shared disk cache.
"""
import concurrent.futures
import multiprocessing
import sys

import paths

import numpy as np
import pytest

if paths.ROOT not in sys.path:   # the workers import examples.scaling_out (they get sys.path)
    sys.path.insert(0, paths.ROOT)
from examples import scaling_out  # noqa: E402

TIMEOUT = 120   # seconds for any pool result: a hang fails instead of stalling the suite


@pytest.fixture
def cold_cache(tmp_path, monkeypatch):
    """An empty disk cache, inherited by every worker process started from now on."""
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _expected(tasks, n):
    return [float(np.sum(np.random.default_rng(seed).standard_normal(n) ** 2)) for seed in range(tasks)]


def test_spawn_pool_traces_once_and_the_next_process_loads_from_the_disk_cache(cold_cache):
    ctx = multiprocessing.get_context("spawn")
    args = [(seed, 1000) for seed in range(6)]
    with ctx.Pool(1) as pool:
        got = pool.starmap_async(scaling_out.block_energy, args).get(TIMEOUT)
        counts = pool.apply_async(scaling_out.trace_counts).get(TIMEOUT)
        stats = pool.apply_async(scaling_out.cache_stats).get(TIMEOUT)
    np.testing.assert_allclose(got, _expected(6, 1000), rtol=1e-12)
    assert counts == {"smoothstep": 0, "energy": 1}        # six tasks, one trace
    assert (stats["misses"], stats["stores"], stats["hits"]) == (1, 1, 0)
    with ctx.Pool(1) as pool:                              # a fresh process: the code is on disk
        again = pool.starmap_async(scaling_out.block_energy, args[:2]).get(TIMEOUT)
        stats = pool.apply_async(scaling_out.cache_stats).get(TIMEOUT)
    assert again == got[:2]
    assert (stats["misses"], stats["stores"], stats["hits"]) == (0, 0, 1)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform")
def test_fork_pool(cold_cache):
    with multiprocessing.get_context("fork").Pool(2) as pool:
        got = pool.starmap_async(scaling_out.block_energy, [(s, 500) for s in range(4)]).get(TIMEOUT)
    np.testing.assert_allclose(got, _expected(4, 500), rtol=1e-12)


def test_process_pool_executor_with_a_closure(cold_cache):
    scale = scaling_out.make_scaler(2.5)
    blocks = [np.full(3, float(k)) for k in range(4)]
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as ex:
        got = list(ex.map(scale, blocks, timeout=TIMEOUT))
    for k, r in enumerate(got):
        np.testing.assert_allclose(np.asarray(r), 2.5 * k)


def _remote_closure_traces():
    """Run in a worker: trace counts of the closures this process unpickled by value."""
    from autograph.runtime import pickling
    return sorted(f.tracing_count for f in list(pickling._RECENT.values()) if hasattr(f, "tracing_count"))


def test_dask_local_cluster_map_blocks_traces_once_per_worker(cold_cache):
    da = pytest.importorskip("dask.array")
    distributed = pytest.importorskip("distributed")
    n, chunk = 40_000, 5_000
    data = np.linspace(-1.0, 2.0, n)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        x = da.from_array(data, chunks=chunk)
        y = x.map_blocks(scaling_out.smoothstep, dtype=np.float64,
                         meta=np.array((), np.float64)).compute(timeout=TIMEOUT)
        t = np.clip(data, 0.0, 1.0)
        np.testing.assert_allclose(np.asarray(y), t * t * (3.0 - 2.0 * t), rtol=1e-12)
        # More blocks of the same shape on each worker in turn: whether or not a worker
        # ran one of the map_blocks tasks, it now has, and it traced exactly once.
        workers = sorted(client.scheduler_info()["workers"])
        assert len(workers) == 2
        for w in workers:
            futures = [client.submit(scaling_out.smoothstep, data[:chunk], workers=[w], pure=False)
                       for _ in range(3)]
            for f in futures:
                np.testing.assert_allclose(np.asarray(f.result(timeout=TIMEOUT)), y[:chunk])
        counts = client.run(scaling_out.trace_counts)
        assert sorted(counts) == workers
        assert all(c["smoothstep"] == 1 for c in counts.values()), counts
        # A closure, sent by value with every task, is also traced once per worker.
        scale = scaling_out.make_scaler(3.0)
        results = client.gather(client.map(scale, [data[:chunk]] * 6, pure=False))
        for r in results:
            np.testing.assert_allclose(np.asarray(r), data[:chunk] * 3.0)
        closure_traces = client.run(_remote_closure_traces)
        assert all(c in ([], [1]) for c in closure_traces.values()), closure_traces
        assert sum(len(c) for c in closure_traces.values()) >= 1
