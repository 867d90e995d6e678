"""Row fusion (codegen/lowering/rowfuse.py, plan.row_reduction): a last-axis
keepdims reduction broadcast back over its rows is evaluated per row inside
the root's loop. Checked against NumPy, identical bytes for any thread
count, the fused code chosen where the rule says (its chunk is named in the
IR), and the unfused code (long rows, rows that turn out different, faults)
giving the same values and the same errors."""
import numpy as np
import pytest

import autograph as ag
from autograph.codegen.lowering import rowfuse

from test_parallel_axis import _same_for_every_count, _with_threads, low_threshold  # noqa: F401


def _softmax(x):
    e = ag.exp(x - ag.reduce_max(x, axis=-1, keepdims=True))
    return [e / ag.reduce_sum(e, axis=-1, keepdims=True)]


def _np_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _layer_norm(x):
    mu = ag.reduce_mean(x, axis=-1, keepdims=True)
    d = x - mu
    var = ag.reduce_mean(d * d, axis=-1, keepdims=True)
    return [d / ag.sqrt(var + 1e-5)]


def _np_layer_norm(x):
    d = x - x.mean(axis=-1, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=-1, keepdims=True) + 1e-5)


def _fused(f, *args) -> bool:
    return "ag.parallel.rowfuse" in f.get_concrete_function(*args).llvm_ir()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(123, 517), (3, 40, 61), (1, 700), (700, 1)])
def test_softmax_and_layer_norm_are_fused_and_match_numpy(low_threshold, dtype, shape):  # noqa: F811
    x = (np.random.default_rng(sum(shape)).standard_normal(shape) * 4).astype(dtype)
    rtol = 5e-6 if dtype == np.float32 else 1e-13
    for body, ref in ((_softmax, _np_softmax), (_layer_norm, _np_layer_norm)):
        f = ag.function(body, autograph=False)
        assert _fused(f, x)
        (got,) = _same_for_every_count(f, x)
        np.testing.assert_allclose(got, ref(x), rtol=rtol, atol=rtol)


def test_bool_int_and_several_reductions_per_row(low_threshold):  # noqa: F811
    @ag.function(autograph=False)
    def f(x, b):
        top = ag.reduce_max(x, axis=-1, keepdims=True)
        low = ag.reduce_min(x, axis=-1, keepdims=True)
        span = ag.reduce_sum(x - low, axis=-1, keepdims=True)
        anyb = ag.reduce_any(b, axis=-1, keepdims=True)
        return [ag.where(anyb, (x - low) * 3 + top - span, x * 0 - 1)]

    x = np.random.default_rng(3).integers(-100, 100, (301, 37)).astype(np.int32)
    b = np.random.default_rng(4).random((301, 37)) < 0.02
    assert _fused(f, x, b)
    (got,) = _same_for_every_count(f, x, b)
    low = x.min(-1, keepdims=True)
    want = np.where(b.any(-1, keepdims=True),
                    (x - low) * 3 + x.max(-1, keepdims=True) - (x - low).sum(-1, keepdims=True, dtype=np.int32),
                    x * 0 - 1)
    np.testing.assert_array_equal(got, want)


def test_a_reduction_used_by_two_roots_or_not_along_the_last_axis_is_not_deferred(low_threshold):  # noqa: F811
    g = ag.function(lambda x: [x - ag.reduce_max(x, axis=0, keepdims=True),
                               ag.reduce_sum(x - ag.reduce_max(x, axis=-1, keepdims=True))],
                    autograph=False)
    x = np.random.default_rng(5).standard_normal((40, 30))
    assert not _fused(g, x)
    a, s = _same_for_every_count(g, x)
    np.testing.assert_array_equal(a, x - x.max(axis=0, keepdims=True))
    np.testing.assert_allclose(s, (x - x.max(axis=-1, keepdims=True)).sum(), rtol=1e-12)

    def two(x):
        m = ag.reduce_max(x, axis=-1, keepdims=True)
        return [x - m, x * m]

    h = ag.function(two, autograph=False)
    assert not _fused(h, x)
    a, b = _same_for_every_count(h, x)
    np.testing.assert_array_equal(b, x * x.max(axis=-1, keepdims=True))


def test_long_rows_use_the_unfused_code(low_threshold):  # noqa: F811
    n = rowfuse.SCRATCH_BYTES // 4 + 3      # a float32 scratch row of e does not fit
    x = np.random.default_rng(6).standard_normal((3, n)).astype(np.float32)
    f = ag.function(_softmax, autograph=False)
    assert not _fused(f, x)
    (got,) = _same_for_every_count(f, x)
    np.testing.assert_allclose(got, _np_softmax(x), rtol=5e-6, atol=1e-12)


def test_dynamic_shapes_decide_at_run_time(low_threshold):  # noqa: F811
    f = ag.function(_softmax, autograph=False,
                    input_signature=[ag.TensorSpec([None, None], ag.float32)])
    for shape in [(50, 9), (2, rowfuse.SCRATCH_BYTES // 4 + 1), (0, 5), (5, 0), (1, 1)]:
        x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
        (got,) = _same_for_every_count(f, x)
        with np.errstate(all="ignore"):
            want = _np_softmax(x) if x.size else np.zeros(shape, np.float32)
        np.testing.assert_allclose(got, want, rtol=5e-6, atol=1e-12)


def test_rows_that_differ_at_run_time_use_the_unfused_code(low_threshold):  # noqa: F811
    f = ag.function(lambda x, y: [y - ag.reduce_max(x, axis=-1, keepdims=True)], autograph=False,
                    input_signature=[ag.TensorSpec([None, None], ag.float64)] * 2)
    x = np.random.default_rng(8).standard_normal((1, 30))
    y = np.random.default_rng(9).standard_normal((20, 30))
    (got,) = _same_for_every_count(f, x, y)          # x's one row, broadcast over y's 20
    np.testing.assert_array_equal(got, y - x.max(axis=-1, keepdims=True))
    (got,) = _same_for_every_count(f, y, y)
    np.testing.assert_array_equal(got, y - y.max(axis=-1, keepdims=True))


def test_row_expressions_that_may_fault_keep_their_error(low_threshold):  # noqa: F811
    f = ag.function(lambda x: [x // ag.reduce_max(x, axis=-1, keepdims=True)], autograph=False)
    x = np.random.default_rng(10).integers(1, 50, (40, 20)).astype(np.int64)
    assert not _fused(f, x)                  # integer division needs the kernel's error exit
    np.testing.assert_array_equal(_with_threads(2, f, x)[0], x // x.max(-1, keepdims=True))
    x[7] = np.minimum(x[7], 0) - 3
    x[7, 3] = 0                               # row 7's max is 0
    for count in (1, 2):
        with pytest.raises(ag.errors.InvalidArgumentError, match="division by zero"):
            _with_threads(count, f, x)
    g = ag.function(lambda x: [x - ag.reduce_mean(x[:, :0], axis=-1, keepdims=True)], autograph=False)
    with pytest.raises(ag.errors.InvalidArgumentError, match="the mean of an empty integer tensor"):
        g(x)


def _ref_extreme(row, is_max):
    """The fold of llvm.maximum/minimum: NaN propagates, -0 < +0."""
    acc = -np.inf if is_max else np.inf
    for v in row:
        if np.isnan(acc) or np.isnan(v):
            acc = np.nan
        elif v == acc == 0:
            acc = (0.0 if is_max else -0.0) if np.signbit(v) != np.signbit(acc) else v
        else:
            acc = max(acc, v) if is_max else min(acc, v)
    return acc


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_max_and_min_keep_nan_and_signed_zeros(low_threshold, dtype):  # noqa: F811
    # rows of special values (the fast max/min of extreme.py), fused, by rows, and in the kernel
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.5, -2.5, np.finfo(dtype).max,
                -np.finfo(dtype).max, np.finfo(dtype).tiny, -np.finfo(dtype).smallest_subnormal]
    rng = np.random.default_rng(11)
    rows = [[0.0, -0.0], [-0.0, 0.0], [-0.0, -0.0], [np.nan, 1.0], [1.0, -np.nan], [-np.inf] * 3,
            [np.inf, -np.inf]] + [list(rng.choice(specials, 37)) for _ in range(40)]
    x = np.zeros((len(rows), 37), dtype)
    x[:] = -np.inf                                     # shorter rows padded with the identity of max
    for k, r in enumerate(rows):
        x[k, :len(r)] = r
    y = np.where(np.isneginf(x), np.inf, x).astype(dtype)   # padded with the identity of min
    f = ag.function(lambda x, y: [ag.where(x > 0, ag.reduce_max(x, axis=-1, keepdims=True),
                                           ag.reduce_max(x, axis=-1, keepdims=True)),
                                  ag.reduce_max(x, axis=-1), ag.reduce_min(y, axis=-1),
                                  ag.reduce_max(x[:7]), ag.reduce_min(y[:7])], autograph=False)
    big = ag.function(lambda x: [ag.reduce_max(x, axis=-1), ag.reduce_min(x, axis=1)], autograph=False)
    fused, mx, mn, all_max, all_min = _same_for_every_count(f, x, y)
    want_max = np.array([_ref_extreme(r, True) for r in x], dtype)
    want_min = np.array([_ref_extreme(r, False) for r in y], dtype)
    for got, want in ((mx, want_max), (mn, want_min), (fused[:, 5], want_max),
                      (all_max, _ref_extreme(x[:7].ravel(), True)),
                      (all_min, _ref_extreme(y[:7].ravel(), False))):
        np.testing.assert_array_equal(got, want)     # NaN where NaN (of either sign)
        np.testing.assert_array_equal(np.signbit(got) & ~np.isnan(got), np.signbit(want) & ~np.isnan(want))
    # the same rows, many times over: by rows on the thread pool
    xs = np.tile(x, (8, 1))
    bmx, bmn = _same_for_every_count(big, xs)
    np.testing.assert_array_equal(np.signbit(bmx) & ~np.isnan(bmx), np.signbit(np.tile(want_max, 8)) &
                                  ~np.isnan(np.tile(want_max, 8)))
    np.testing.assert_array_equal(bmx, np.tile(want_max, 8))
    np.testing.assert_array_equal(bmn, np.array([_ref_extreme(r, False) for r in xs], dtype))


def test_float_max_and_min_in_the_kernels_own_loops():
    # below the thread threshold: the kernel's loops (reduce._extreme_rows), rows and full
    x = np.array([[0.0, -0.0, -0.0], [-0.0, -0.0, -np.inf], [np.nan, 1.0, 2.0], [3.0, -np.nan, 0.0],
                  [-np.inf, -np.inf, -np.inf], [5.0, np.inf, -1.0]])
    f = ag.function(lambda x: [ag.reduce_max(x, axis=1), ag.reduce_min(-x, axis=-1, keepdims=True),
                               ag.reduce_max(x[4:]), ag.reduce_min(x[:2])], autograph=False)
    mx, mn, full_max, full_min = [np.asarray(v) for v in f(x)]
    want = np.array([_ref_extreme(r, True) for r in x])
    np.testing.assert_array_equal(mx, want)
    np.testing.assert_array_equal(np.signbit(mx[[0, 1, 4, 5]]), [False, True, True, False])
    np.testing.assert_array_equal(mn[:, 0], [_ref_extreme(r, False) for r in -x])
    np.testing.assert_array_equal(np.signbit(mn[[0, 1], 0]), [True, False])
    assert full_max == np.inf and full_min == -np.inf and np.signbit(np.asarray(ag.function(
        lambda x: ag.reduce_min(x), autograph=False)(x[:1]))) == np.True_


def test_fused_and_unfused_rows_free_every_buffer_exactly_once():
    from alloc_counting import run_child
    body = """
from codegen_support import T, compile_fn
from autograph.tracer import api
from autograph.codegen.lowering import rowfuse

def softmax(x):
    e = api.exp(api.subtract(x, api.reduce_max(x, axis=-1, keepdims=True)))
    return [api.divide(e, api.reduce_sum(e, axis=-1, keepdims=True))]

def divide_by_max(x):
    return [api.floordiv(x, api.reduce_max(x, axis=-1, keepdims=True))]

g, k = compile_fn(softmax, T("float64", (None, None)))
long_row = rowfuse.SCRATCH_BYTES // 8 + 5             # the unfused code, with temporaries
for shape in ((3, 4), (300, 900), (2, long_row)):
    x = np.linspace(-1.0, 1.0, shape[0] * shape[1]).reshape(shape)
    for _ in range(3):
        out = k(x)
    del out
g, k = compile_fn(divide_by_max, T("int64", (None, None)))
x = np.arange(1, 301, dtype=np.int64).reshape(30, 10)
k(x)
x[4] = -x[4]
x[4, 0] = 0                                            # row 4's max is 0: division by zero
for _ in range(3):
    try:
        k(x)
        raise SystemExit("no error")
    except Exception as e:
        assert "division by zero" in str(e), e
gc.collect()
assert not problems, problems
assert not live, f"{len(live)} buffers leaked: {sorted(live.values())}"
print("balanced")
"""
    proc = run_child(body, timeout=120, AUTOGRAPH_NUM_THREADS="2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "balanced" in proc.stdout


def test_sin_in_rows_and_broadcasts_is_exact_for_huge_arguments(low_threshold):  # noqa: F811
    # the fast sin of fixup.py: a chunk with a huge argument re-runs exactly
    f = ag.function(lambda x, m: [ag.sin(x - ag.reduce_max(x, axis=-1, keepdims=True)),
                                  ag.sin(x * m)], autograph=False)
    x = np.random.default_rng(12).standard_normal((64, 33))
    m = np.ones((64, 1))
    m[40, 0] = 1e22
    x[50, 7] = -3e19
    a, b = _same_for_every_count(f, x, m)
    np.testing.assert_allclose(a, np.sin(x - x.max(-1, keepdims=True)), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(b, np.sin(x * m), rtol=1e-14, atol=1e-15)
    assert _fused(f, x, m)
