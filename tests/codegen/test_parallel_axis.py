"""Reductions along axes and broadcasting maps on the thread pool
(codegen/lowering/parallel_rows.py): the same results as NumPy, identical
bytes for 1, 2 and 3 threads (floats included: each output element is
computed by one chunk, in the same order whatever the count), the pool used
only where the rule says, and expressions that may fault keep their error.

The thresholds are lowered (MIN_PARALLEL 256, MIN_WORK 1) so that small
arrays exercise the split, chunk bounds and remainders quickly; they are read
when a function is compiled, so each test compiles its own functions with
the disk cache and the in-process code sharing off."""
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import autograph as ag
from autograph.codegen.abi import threads

from test_parallel_loops import _Jobs

LOW = 256
REDUCTIONS = {"sum": (ag.reduce_sum, np.sum), "max": (ag.reduce_max, np.max),
              "min": (ag.reduce_min, np.min), "prod": (ag.reduce_prod, np.prod),
              "mean": (ag.reduce_mean, np.mean)}
AXES = [0, 1, -1, (0, 2), (1, 2)]


@pytest.fixture
def low_threshold(monkeypatch):
    """Split from LOW elements, whatever the expression's cost; nothing reused
    from code compiled with other thresholds."""
    from autograph.codegen.jit import compile as jit_compile
    monkeypatch.setattr(threads, "MIN_PARALLEL", LOW)
    monkeypatch.setattr(threads, "MIN_WORK", 1)
    monkeypatch.setenv("AUTOGRAPH_DISABLE_CACHE", "1")
    monkeypatch.setattr(jit_compile, "_LOADED", weakref.WeakValueDictionary())
    return _Jobs()


def _with_threads(count, fn, *args):
    """fn(*args) with the thread count set to `count`: a list of NumPy arrays."""
    saved = threads.THREADS[0]
    threads.THREADS[0] = count
    try:
        out = fn(*args)
    finally:
        threads.THREADS[0] = saved
    return [np.asarray(o) for o in out] if isinstance(out, (list, tuple)) else np.asarray(out)


def _same_for_every_count(fn, *args):
    """fn(*args) with 1, 2 and 3 threads: identical bytes; the 1-thread result."""
    results = [_with_threads(t, fn, *args) for t in (1, 2, 3)]
    for r in results[1:]:
        assert len(r) == len(results[0])
        for a, b in zip(r, results[0]):
            assert a.shape == b.shape and a.tobytes() == b.tobytes()
    return results[0]


def _data(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return (rng.random(shape) * 2 + 0.5).astype(dtype)     # products stay finite
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.9
    return rng.integers(-3, 4, shape).astype(dtype)


def _cases():
    """(name, axis, keepdims) of every reduction checked: keepdims alternates."""
    return [(name, a, k % 2 == 1) for name in REDUCTIONS for k, a in enumerate(AXES)]


def _reduce_all(x):
    return [REDUCTIONS[name][0](x, axis=a, keepdims=kd) for name, a, kd in _cases()]


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
def test_axis_reductions_match_numpy_for_any_thread_count(low_threshold, dtype):
    f = ag.function(_reduce_all, autograph=False,
                    input_signature=[ag.TensorSpec([None, None, None], ag.as_dtype(dtype))])
    # around the threshold, row counts not divisible by the chunk count; empty axes
    # (not for integers: their mean over an empty axis is an error)
    shapes = [(3, 85, 1), (9, 29, 1), (31, 17, 13), (7, 300, 5), (2, 1, 400)]
    if np.dtype(dtype).kind == "f":
        shapes += [(0, 40, 9), (40, 0, 9)]
    for shape in shapes:
        x = _data(dtype, shape, seed=sum(shape))
        got = _same_for_every_count(f, x)
        for k, (name, a, kd) in enumerate(_cases()):
            ref = REDUCTIONS[name][1]
            empty = any(x.shape[ax] == 0 for ax in np.atleast_1d(a))
            if name in ("max", "min") and empty:
                # NumPy refuses an empty max/min; ours gives the identity
                want = np.full(np.sum(x, axis=a, keepdims=kd).shape,
                               np.inf if name == "min" else -np.inf, dtype)
            elif name == "mean" and x.dtype.kind == "i":   # integer mean: truncated
                total = np.sum(x, axis=a, keepdims=kd)
                want = np.trunc(total / (x.size // total.size)).astype(dtype)
            else:
                kw = {"dtype": x.dtype} if name in ("sum", "prod") else {}   # no int32 -> int64
                with np.errstate(all="ignore"):
                    want = ref(x, axis=a, keepdims=kd, **kw)
            where = f"{name} axis={a} keepdims={kd} shape={shape}"
            if x.dtype.kind == "f":
                np.testing.assert_allclose(got[k], want, rtol=8 * np.finfo(dtype).eps * 400,
                                           err_msg=where)
            else:
                np.testing.assert_array_equal(got[k], want, err_msg=where)
    assert low_threshold                  # the 2- and 3-thread runs used the pool


def test_any_and_all_along_axes(low_threshold):
    f = ag.function(lambda x: [g(x, axis=a, keepdims=kd) for g in (ag.reduce_any, ag.reduce_all)
                               for a in (0, 1, -1) for kd in (False, True)], autograph=False)
    x = _data(np.bool_, (33, 21, 17), seed=3)
    got = _same_for_every_count(f, x)
    want = [g(x, axis=a, keepdims=kd) for g in (np.any, np.all) for a in (0, 1, -1) for kd in (False, True)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert low_threshold


def test_float_rows_are_identical_across_thread_counts_and_close_to_numpy(low_threshold):
    # long rows: the vectorised partial sums of each row are the same in every chunk
    f = ag.function(lambda x: [ag.reduce_sum(ag.exp(x * 0.1), axis=1),
                               ag.reduce_sum(ag.exp(x * 0.1), axis=0),      # columns: a costly input
                               ag.reduce_mean(x * x, axis=-1, keepdims=True)], autograph=False)
    x = np.random.default_rng(1).standard_normal((257, 1031))
    rows, cols, mean = _same_for_every_count(f, x)
    np.testing.assert_allclose(rows, np.exp(x * 0.1).sum(axis=1), rtol=1e-13)
    np.testing.assert_allclose(cols, np.exp(x * 0.1).sum(axis=0), rtol=1e-13)
    np.testing.assert_allclose(mean, (x * x).mean(axis=-1, keepdims=True), rtol=1e-13)
    assert low_threshold.calls() == 6


def test_cheap_column_reductions_stay_on_one_thread(low_threshold):
    # a reduced axis outside the split one: a memory-bound reduction gains nothing
    f = ag.function(lambda x: ag.reduce_max(x, axis=0), autograph=False)
    x = np.random.default_rng(2).standard_normal((300, 400))
    np.testing.assert_array_equal(_with_threads(2, f, x), x.max(axis=0))
    np.testing.assert_array_equal(_with_threads(2, f, x[:, :1]), x[:, :1].max(axis=0))
    assert not low_threshold


BROADCASTS = {
    "rows": (lambda x, m: x - m, lambda s: (s, (s[0], 1))),
    "cols": (lambda x, m: x * m + 1, lambda s: (s, (s[1],))),
    "outer": (lambda x, m: x + m, lambda s: ((s[0], 1), (1, s[1]))),
    "scalar-like": (lambda x, m: x * 3 - m, lambda s: (s, (1, 1))),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64])
@pytest.mark.parametrize("kind", sorted(BROADCASTS))
def test_broadcasting_maps_match_numpy_for_any_thread_count(low_threshold, dtype, kind):
    body, shapes = BROADCASTS[kind]
    f = ag.function(lambda x, m: [body(x, m)], autograph=False)
    for s in [(97, 13), (3, 301)]:
        xs, ms = shapes(s)
        x, m = _data(dtype, xs, 1), _data(dtype, ms, 2)
        (got,) = _same_for_every_count(f, x, m)
        np.testing.assert_array_equal(got, body(x, m))
    assert low_threshold


def test_rank3_broadcast_and_dynamic_shapes(low_threshold):
    f = ag.function(lambda x, m: [ag.exp(x - m) * 2.0], autograph=False,
                    input_signature=[ag.TensorSpec([None, None, None], ag.float64),
                                     ag.TensorSpec([None, 1, None], ag.float64)])
    for shape in [(5, 7, 11), (1, 300, 3), (4, 0, 9), (1, 1, 1)]:
        rng = np.random.default_rng(4)
        x, m = rng.standard_normal(shape), rng.standard_normal((shape[0], 1, shape[2]))
        (got,) = _same_for_every_count(f, x, m)
        np.testing.assert_allclose(got, np.exp(x - m) * 2.0, rtol=1e-15)
    assert low_threshold


def test_softmax_k9_matches_numpy_for_any_thread_count(low_threshold):
    def softmax(x):
        e = ag.exp(x - ag.reduce_max(x, axis=-1, keepdims=True))
        return [e / ag.reduce_sum(e, axis=-1, keepdims=True)]

    f = ag.function(softmax, autograph=False)
    x = np.random.default_rng(9).standard_normal((123, 517)).astype(np.float32) * 4
    (got,) = _same_for_every_count(f, x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=-1, keepdims=True), rtol=2e-6, atol=1e-9)
    assert low_threshold


def test_broadcast_expressions_that_may_fault_keep_their_error(low_threshold):
    f = ag.function(lambda x, y: [x // y + 1, ag.reduce_sum(x % y, axis=1)], autograph=False)
    x = np.arange(40 * 50, dtype=np.int64).reshape(40, 50)
    y = np.ones((40, 1), dtype=np.int64)
    y[33, 0] = 0
    for count in (1, 2):
        with pytest.raises(ag.errors.InvalidArgumentError, match="division by zero|modulo by zero"):
            _with_threads(count, f, x, y)
    assert not low_threshold                # not outlined: faults need the kernel's error exit
    y[33, 0] = 1
    a, s = _same_for_every_count(f, x, y)
    np.testing.assert_array_equal(a, x + 1)
    np.testing.assert_array_equal(s, np.zeros(40, dtype=np.int64))


CHILD = """
    import hashlib, numpy as np, autograph as ag
    from autograph.codegen.abi import threads

    @ag.function
    def f(x):
        e = ag.exp(x - ag.reduce_max(x, axis=-1, keepdims=True))
        s = e / ag.reduce_sum(e, axis=-1, keepdims=True)
        return s, ag.reduce_sum(ag.exp(x), axis=0), ag.reduce_mean(ag.sqrt(x * x + 1.0), axis=1)

    x = np.random.default_rng(0).standard_normal((700, 600)).astype(np.float32)
    outs = [np.asarray(o) for o in f(x)]
    print(int(threads.THREADS[0]), threads.jobs()[0] > 0 or threads.THREADS[0] == 1,
          hashlib.sha256(b"".join(o.tobytes() for o in outs)).hexdigest())
"""


def test_num_threads_1_2_3_give_identical_bytes_in_subprocesses(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(CHILD))
    outs = []
    for count in ("1", "2", "3"):
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env=dict(os.environ, AUTOGRAPH_NUM_THREADS=count), timeout=120)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout.split())
    assert [o[:2] for o in outs] == [["1", "True"], ["2", "True"], ["3", "True"]]
    assert outs[0][2] == outs[1][2] == outs[2][2]


def test_full_reductions_with_keepdims_use_the_blocked_split(low_threshold):
    f = ag.function(lambda x: [ag.reduce_sum(x, keepdims=True), ag.reduce_mean(x * 2.0, keepdims=True),
                               ag.reduce_max(x, axis=(0, 1), keepdims=True)], autograph=False)
    x = np.random.default_rng(6).standard_normal((300, 7))
    s, m, mx = _same_for_every_count(f, x)
    assert s.shape == m.shape == mx.shape == (1, 1)
    np.testing.assert_allclose(s, x.sum(keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(m, (x * 2.0).mean(keepdims=True), rtol=1e-12)
    np.testing.assert_array_equal(mx, x.max(keepdims=True))
    assert low_threshold.calls() == 6
