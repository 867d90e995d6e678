"""NumPy's integer-array ("fancy") indexing and the functions built on it,
against NumPy: eager (on tensors) and compiled, also with dimensions unknown
at trace time (tracer/api/fancy_indexing.py, numpy_indexing.py, the scatter
op, the converter's rewrite of `np.add.at(a, idx, v)`)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph as ag
from autograph.tracer.api.slicing import getitem, setitem

SETTINGS = settings(max_examples=15, deadline=None)

A = np.arange(24.0).reshape(4, 6)
B = np.arange(60).reshape(3, 4, 5)

KEYS_2D = [
    ([0, 1], [1, 2]), (np.array([[0], [3]]), np.array([1, -1])), np.ix_([0, 1], [1, 2]),
    np.triu_indices(4), np.tril_indices(4, -1), np.diag_indices(4), (slice(1, None), [0, 2]),
    (2, [0, 5]), ([0, 2], 1), (slice(None), [1, 1, 0]), (None, [1, 2], [0, 1]),
    ([1, 2], slice(None, None, 2)), (np.array([True, False, True, True]), [0, 1, 2]),
    (Ellipsis, [0, -1]),
]
KEYS_3D = [
    ([0, 1], slice(None), [2, 3]), (slice(None), [0, 1], [2, 3]), (1, slice(None), [0, 4]),
    (Ellipsis, [0, 1], [2, 3]), ([0, 2], Ellipsis, [1]), ([[0], [2]], [[1, 3]], slice(1, 3)),
]


def _same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("arr,key", [(A, k) for k in KEYS_2D] + [(B, k) for k in KEYS_3D],
                         ids=lambda v: "" if isinstance(v, np.ndarray) and v.size > 20 else repr(v))
def test_getitem_eager_matches_numpy(arr, key):
    _same(getitem(ag.constant(arr), key), arr[key])


@ag.function(input_signature=[ag.TensorSpec([None, None], ag.float64),
                              ag.TensorSpec([None], ag.int64), ag.TensorSpec([None], ag.int64)])
def _gathers(a, i, j):
    return a[i, j], a[i], a[:, j], a[1:, j], a[np.ix_(i, j)], a[i[:, None], j], a[i, ::2]


@given(st.integers(1, 6), st.integers(1, 6), st.data())
@SETTINGS
def test_getitem_compiled_unknown_dims(n, m, data):
    a = np.arange(n * m, dtype=np.float64).reshape(n, m) * 1.5
    k = data.draw(st.integers(1, 5))
    i = np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=k, max_size=k)), np.int64)
    j = np.array(data.draw(st.lists(st.integers(-m, m - 1), min_size=k, max_size=k)), np.int64)
    got = _gathers(a, i, j)
    want = (a[i, j], a[i], a[:, j], a[1:, j], a[np.ix_(i, j)], a[i[:, None], j], a[i, ::2])
    for g, w in zip(got, want):
        _same(g, w)


def test_out_of_bounds_eager_and_compiled():
    with pytest.raises(ag.errors.InvalidArgumentError, match="index 5 is out of bounds for axis 1 "
                                                             "with size 6|index 6 is out of"):
        getitem(ag.constant(A), ([0, 1], [1, 6]))
    with pytest.raises(ag.errors.InvalidArgumentError) as e:
        _gathers(A, np.array([0, 7], np.int64), np.array([0, 0], np.int64))
    assert "index 7 is out of bounds for axis 0 with size 4" in str(e.value)
    assert "_gathers" in str(e.value) or "test_numpy_fancy_indexing.py" in str(e.value)
    with pytest.raises(ag.errors.InvalidArgumentError, match="index -9 is out of bounds for axis 1 "
                                                             "with size 6"):
        _gathers(A, np.array([0, 1], np.int64), np.array([0, -9], np.int64))


@ag.function(input_signature=[ag.TensorSpec([None, None], ag.float64),
                              ag.TensorSpec([None], ag.int64), ag.TensorSpec([], ag.float64)])
def _updates(a, idx, v):
    b = a + 0.0
    b[idx] = v                   # repeated indices: the last write wins
    c = a + 0.0
    c[idx, 1:3] += v             # read once, written once: a repeated index counts once
    d = a + 0.0
    d[idx, idx] = [v]
    e = a + 0.0
    np.add.at(e, idx, v)         # accumulates repeated indices
    f = a + 0.0
    np.add.at(f, (idx, 0), 1.0)
    g = a + 0.0
    np.maximum.at(g, (0, idx), v)
    return b, c, d, e, f, g


@given(st.integers(1, 5), st.integers(1, 5), st.data())
@SETTINGS
def test_updates_match_numpy(n, m, data):
    a = np.arange(n * m, dtype=np.float64).reshape(n, m)
    k = data.draw(st.integers(0, 6))
    lo, hi = -min(n, m), min(n, m) - 1
    idx = np.array(data.draw(st.lists(st.integers(lo, hi), min_size=k, max_size=k)), np.int64)
    v = data.draw(st.sampled_from([2.5, -1.0, 100.0]))
    want = [a.copy() for _ in range(6)]
    want[0][idx] = v
    want[1][idx, 1:3] += v
    want[2][idx, idx] = [v]
    np.add.at(want[3], idx, v)
    np.add.at(want[4], (idx, 0), 1.0)
    np.maximum.at(want[5], (0, idx), v)
    for g, w in zip(_updates(a, idx, v), want):
        _same(g, w)


def test_setitem_eager_and_errors():
    t = ag.constant(A)
    want = A.copy()
    want[[0, 1, 0], [1, 2, 1]] = [7.0, 8.0, 9.0]
    _same(setitem(t, ([0, 1, 0], [1, 2, 1]), np.array([7.0, 8.0, 9.0])), want)
    want = A.copy()
    want[:, [5, 0]] = [[1.0], [2.0], [3.0], [4.0]]
    _same(setitem(t, (slice(None), [5, 0]), np.array([[1.0], [2.0], [3.0], [4.0]])), want)
    with pytest.raises(ag.errors.InvalidArgumentError, match="index 4 is out of bounds for axis 0"):
        setitem(t, [0, 4], 1.0)
    with pytest.raises(ValueError, match="cannot assign a value of shape"):
        setitem(t, ([0, 1], [1, 2]), np.ones(3))
    with pytest.raises(TypeError, match="cannot assign a int32 value to a float64 tensor"):
        setitem(t, [0, 1], ag.constant([1, 2]))


@ag.function
def _functions(a, idx, x, w):
    o = np.argsort(a, axis=1)
    p = a + 0.0
    np.put_along_axis(p, o[:, :1], -1.0, axis=1)
    q = a + 0.0
    np.put(q, idx, 0.5)
    return (np.take_along_axis(a, o, axis=1), np.take_along_axis(a, o[:, ::-1], axis=-1), p, q,
            np.flatnonzero(a > 10), np.unravel_index(np.argmax(a), a.shape),
            np.ravel_multi_index((idx, idx), a.shape), np.bincount(x),
            np.bincount(x, weights=w, minlength=12), np.take_along_axis(a, idx, axis=None))


def test_index_functions_match_numpy():
    rng = np.random.default_rng(0)
    a = rng.permutation(24).reshape(4, 6).astype(np.float64)
    idx = np.array([0, 3, 3, 1])
    x = np.array([0, 1, 1, 3, 7, 7, 7])
    w = rng.random(7)
    o = np.argsort(a, axis=1)
    p, q = a.copy(), a.copy()
    np.put_along_axis(p, o[:, :1], -1.0, axis=1)
    np.put(q, idx, 0.5)
    want = (np.take_along_axis(a, o, 1), np.take_along_axis(a, o[:, ::-1], -1), p, q,
            np.flatnonzero(a > 10), np.unravel_index(np.argmax(a), a.shape),
            np.ravel_multi_index((idx, idx), a.shape), np.bincount(x),
            np.bincount(x, weights=w, minlength=12), np.take_along_axis(a, idx, None))
    for g, wv in zip(_functions(a, idx, x, w), want):
        if isinstance(wv, tuple):
            for gg, ww in zip(g, wv):
                _same(gg, np.asarray(ww))
        else:
            _same(g, wv)
    # eagerly, on tensors (the in-place forms are statements of converted code only)
    ta, ti, tx, tw = (ag.constant(v) for v in (a, idx, x, w))
    _same(np.take_along_axis(ta, ag.constant(o), axis=1), want[0])
    _same(np.flatnonzero(ta > 10), want[4])
    _same(np.ravel_multi_index((ti, ti), a.shape), want[6])
    _same(np.bincount(tx), want[7])
    _same(np.bincount(tx, weights=tw, minlength=12), want[8])
    for g, ww in zip(np.unravel_index(ag.constant(np.argmax(a)), a.shape), want[5]):
        _same(g, np.asarray(ww))


def test_ix_and_bool_ix():
    t = ag.constant(A)
    rows, cols = np.ix_(ag.constant([True, False, True, False]), ag.constant([4, 1]))
    _same(getitem(t, (rows, cols)), A[np.ix_([True, False, True, False], [4, 1])])


def test_bincount_errors():
    with pytest.raises(ag.errors.InvalidArgumentError, match="must have no negative elements"):
        np.bincount(ag.constant([1, -1]))
    with pytest.raises(ValueError, match="'minlength' must not be negative"):
        np.bincount(ag.constant([1]), minlength=-1)


@ag.function
def _at_as_expression(a, idx):
    return np.add.at(a, idx, 1.0)


def test_at_outside_a_statement_is_a_clear_error():
    with pytest.raises(TypeError, match=r"np\.add\.at: an in-place update of a tensor"):
        _at_as_expression(A, np.array([0, 1]))


def test_at_on_numpy_arrays_keeps_numpy_semantics():
    from autograph.operators import numpy_inplace
    counts = np.zeros(4)         # a NumPy array: the rewritten call still mutates it
    assert numpy_inplace(np.add.at, counts, [0, 0, 3], 1.0) is counts
    _same(counts, np.array([2.0, 0.0, 0.0, 1.0]))
    t = ag.constant(np.zeros(4))
    _same(numpy_inplace(np.add.at, t, [0, 0, 3], 1.0), counts)
    _same(t, np.zeros(4))        # tensors are immutable: the result is a new one


def test_add_at_gradient():
    x = ag.constant(np.array([1.0, 2.0]))
    base = ag.constant(np.zeros(3))
    with ag.GradientTape() as tape:
        tape.watch(x)
        y = ag.tracer.api.fancy_indexing.scatter(base, [2, 2], x, mode="add")
        loss = ag.reduce_sum(y * np.array([1.0, 2.0, 3.0]))
    _same(tape.gradient(loss, x), np.array([3.0, 3.0]))


# ---------------------------------------------------------------- histogram

@ag.function(input_signature=[ag.TensorSpec([None], ag.float64), ag.TensorSpec([None], ag.float64)])
def _histograms(a, w):
    return (np.histogram(a), np.histogram(a, bins=7, range=(-1.0, 2.5)),
            np.histogram(a, bins=5, weights=w), np.histogram(a, bins=[-1, 0, 0.5, 3]),
            np.histogram(a, bins=[-1, 0, 0.5, 3], weights=w), np.histogram(a, bins=4, density=True))


@np.errstate(invalid="ignore")     # density of an empty a: 0 / 0, NaN (as compiled)
def _histograms_numpy(a, w):
    return (np.histogram(a), np.histogram(a, bins=7, range=(-1.0, 2.5)),
            np.histogram(a, bins=5, weights=w), np.histogram(a, bins=[-1, 0, 0.5, 3]),
            np.histogram(a, bins=[-1, 0, 0.5, 3], weights=w), np.histogram(a, bins=4, density=True))


@given(st.integers(0, 40), st.sampled_from([1.0, 1e-3, 1e5]), st.sampled_from([0.0, 1.0, 1e8]),
       st.booleans(), st.integers(0, 2 ** 32 - 1))
@SETTINGS
def test_histogram_matches_numpy_bit_for_bit(n, scale, offset, constant, seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n) * scale + offset
    if constant and n:
        a[:] = a[0]                        # min == max: NumPy widens the range by 0.5
    w = rng.random(n)
    try:
        want = _histograms_numpy(a, w)
    except ValueError as e:                # "Too many bins for data range": the same error
        with pytest.raises(ValueError, match=str(e)):
            _histograms(a, w)
        return
    for (gh, ge), (wh, we) in zip(_histograms(a, w), want):
        _same(gh, wh)
        _same(ge, we)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int32])
def test_histogram_other_dtypes_eager(dtype):
    rng = np.random.default_rng(3)
    a = (rng.normal(size=50) * 20).astype(dtype)
    w32 = rng.random(50).astype(np.float32)
    for kw in (dict(bins=9), dict(bins=6, range=(0, 7)), dict(bins=4, weights=w32),
               dict(bins=[-5, 0, 1, 30]), dict(bins=3, weights=np.arange(50))):
        h, e = np.histogram(ag.constant(a), **kw)
        wh, we = np.histogram(a, **kw)
        _same(h, wh)
        _same(e, we)


def test_histogram_errors():
    t = ag.constant(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match=r"autodetected range of \[nan, nan\] is not finite"):
        np.histogram(t)
    with pytest.raises(ValueError, match="max must be larger than min in range parameter"):
        np.histogram(t, range=(2, 1))
    with pytest.raises(ValueError, match="`bins` must increase monotonically"):
        np.histogram(t, bins=[0, 2, 1])
    with pytest.raises(ValueError, match="`bins` must be positive"):
        np.histogram(t, bins=0)
    with pytest.raises(TypeError, match=r"np\.histogram: bins='auto' \(a bin estimator\) has no "
                                        r"autograph equivalent"):
        _histograms_auto(np.ones(3))
    with pytest.raises(ag.errors.InvalidArgumentError, match="autodetected range of "):
        _histograms(np.array([1.0, np.inf]), np.ones(2))


@ag.function
def _histograms_auto(a):
    return np.histogram(a, bins="auto")


def test_index_function_errors():
    t = ag.constant(A)
    with pytest.raises(ag.errors.InvalidArgumentError,
                       match="index 30 is out of bounds for array with size 24"):
        np.unravel_index(ag.constant([3, 30]), (4, 6))
    with pytest.raises(ag.errors.InvalidArgumentError, match="invalid entry in coordinates array"):
        np.ravel_multi_index((ag.constant([0, 4]), ag.constant([1, 1])), (4, 6))
    with pytest.raises(ag.errors.InvalidArgumentError,
                       match="index 6 is out of bounds for axis 1 with size 6"):
        np.take_along_axis(t, ag.constant([[0], [6], [1], [2]]), axis=1)
    with pytest.raises(ValueError, match="`indices` and `arr` must have the same number"):
        np.take_along_axis(t, ag.constant([0, 1]), axis=1)
    with pytest.raises(IndexError, match="`indices` must be an integer array"):
        np.take_along_axis(t, ag.constant(np.zeros((4, 1))), axis=1)
    with pytest.raises(TypeError, match="bincount: x must be a 1-D array of non-negative integers"):
        np.bincount(ag.constant([True, False]))
    with pytest.raises(TypeError, match=r"np\.negative\.at: np\.negative\.at has no autograph"):
        _negative_at(A)
    with pytest.raises(IndexError, match="too many indices for a tensor of rank 2: 3 were given"):
        getitem(t, ([0], [0], [0]))
    with pytest.raises(IndexError, match=r"shape mismatch: indexing arrays could not be broadcast "
                                         r"together with shapes \(2,\) \(3,\)"):
        getitem(t, ([0, 1], [0, 1, 2]))


@ag.function
def _negative_at(a):
    b = a + 0.0
    np.negative.at(b, [0])
    return b


@ag.function
def _add_at_argument(a):
    np.add.at(a, [0, 0], 1.0)
    return a


def test_add_at_on_an_argument_warns_as_item_assignment():
    with pytest.warns(ag.errors.ArgumentWriteWarning, match="'a' is an argument of the function"):
        got = _add_at_argument(np.zeros(2))
    _same(got, np.array([2.0, 0.0]))


def test_set_gradient_keeps_the_last_write():
    x = ag.constant(np.array([1.0, 2.0, 3.0]))
    base = ag.constant(np.arange(4.0))
    w = np.array([1.0, 10.0, 100.0, 1000.0])
    with ag.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(base)
        y = setitem(base, [2, 0, 2], x)          # position 2 is written twice: x[2] stays
        loss = ag.reduce_sum(y * w)
    _same(tape.gradient(loss, x), np.array([0.0, 1.0, 100.0]))
    _same(tape.gradient(loss, base), np.array([0.0, 10.0, 0.0, 1000.0]))


TABLE = np.arange(10.0) * 2          # a captured NumPy array, read with traced indices
GRID = np.arange(12.0).reshape(3, 4)


@ag.function
def _captured_reads(i, idx):
    lookup = {"k": 1}
    return (TABLE[i], TABLE[idx], GRID[idx[:2] % 3, 1], GRID[:, idx % 4], TABLE[i:i + 2],
            [5, 6, 7][lookup["k"]])


def test_captured_numpy_arrays_indexed_by_traced_values():
    i, idx = np.int64(3), np.array([1, 2, 5])
    want = (TABLE[i], TABLE[idx], GRID[idx[:2] % 3, 1], GRID[:, idx % 4], TABLE[i:i + 2], 6)
    got = _captured_reads(i, idx)
    for g, w in zip(got[:5], want):
        _same(g, w)
    assert got[5] == 6


@ag.function
def _traced_scalars_in_a_list(a, i, j):
    a2 = a + 0.0
    a2[[i, j]] = -1.0
    return a[[i, j]], a[[i, j], [j, i]], a[i, [j, 0]], a2


def test_lists_of_traced_scalars_as_index_arrays():
    a = np.arange(12.0).reshape(3, 4)
    i, j = np.int64(2), np.int64(1)
    a2 = a.copy()
    a2[[i, j]] = -1.0
    for g, w in zip(_traced_scalars_in_a_list(a, i, j), (a[[i, j]], a[[i, j], [j, i]],
                                                         a[i, [j, 0]], a2)):
        _same(g, w)


def test_gradient_of_other_scatter_modes_is_a_clear_error():
    x = ag.constant(np.array([2.0, 3.0]))
    with ag.GradientTape() as tape:
        tape.watch(x)
        y = ag.tracer.api.fancy_indexing.scatter(ag.constant(np.ones(3)), [0, 0], x, mode="mul")
        loss = ag.reduce_sum(y)
    with pytest.raises(NotImplementedError, match="the gradient of scatter mode 'mul'"):
        tape.gradient(loss, x)


@ag.function(input_signature=[ag.TensorSpec([None, None], ag.float64),
                              ag.TensorSpec([None, None], ag.float64)])
def _more_inplace(a, c):
    d = a + 0.0
    np.fill_diagonal(d, np.inf)
    g = a + 0.0
    np.copyto(g, c, where=c > 0.5)
    h = a + 0.0
    np.putmask(h, a > 5, -1.0)
    return d, g, h, np.compress(a[:, 0] > 0, a, axis=0), np.extract(a > 4, a)


@pytest.mark.parametrize("shape", [(3, 3), (5, 4), (2, 6)])
def test_fill_diagonal_copyto_putmask_compress_extract(shape):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    c = np.random.default_rng(0).random(shape)
    d, g, h = a.copy(), a.copy(), a.copy()
    np.fill_diagonal(d, np.inf)
    np.copyto(g, c, where=c > 0.5)
    np.putmask(h, a > 5, -1.0)
    want = (d, g, h, np.compress(a[:, 0] > 0, a, axis=0), np.extract(a > 4, a))
    for got, w in zip(_more_inplace(a, c), want):
        _same(got, w)


def test_indices_from_and_errors():
    a = np.arange(16.0).reshape(4, 4)
    t = ag.constant(a)
    _same(getitem(t, np.triu_indices_from(t, 1)), a[np.triu_indices_from(a, 1)])
    _same(getitem(t, np.tril_indices_from(t)), a[np.tril_indices_from(a)])
    _same(getitem(t, np.diag_indices_from(t)), a[np.diag_indices_from(a)])
    with pytest.raises(ValueError, match="All dimensions of input must be of equal length"):
        np.diag_indices_from(ag.constant(np.zeros((2, 3))))
    with pytest.raises(TypeError, match=r"Cannot cast array data from dtype\('float64'\) to "
                                        r"dtype\('int32'\) according to the rule 'same_kind'"):
        _copyto_float_into_int(np.zeros(2, np.int32))


@ag.function
def _copyto_float_into_int(a):
    b = a + 0
    np.copyto(b, np.array([1.5, 2.5]))
    return b


@ag.function(input_signature=[ag.TensorSpec([None, 4], ag.float64), ag.TensorSpec([None], ag.int64)])
def _take_modes(a, idx):
    return (np.take(a, idx, axis=0, mode="wrap"), np.take(a, idx, axis=1, mode="clip"),
            np.take(a, idx, mode="wrap"), np.take(a, idx, axis=-1, mode="clip"))


def test_take_modes():
    a = np.arange(12.0).reshape(3, 4)
    idx = np.array([-7, -1, 0, 3, 4, 11])
    want = (np.take(a, idx, axis=0, mode="wrap"), np.take(a, idx, axis=1, mode="clip"),
            np.take(a, idx, mode="wrap"), np.take(a, idx, axis=-1, mode="clip"))
    for got, w in zip(_take_modes(a, idx), want):
        _same(got, w)
    _same(np.take(ag.constant(a), ag.constant(idx), mode="clip"), np.take(a, idx, mode="clip"))


@ag.function(input_signature=[ag.TensorSpec([None, 3], ag.int64)])
def _loop_updates(idx):
    out = np.zeros(5)
    c = np.zeros((5, 2))
    for k in range(idx.shape[0]):          # a compiled loop carrying the updated tensors
        np.add.at(out, idx[k], 1.0)
        c[idx[k], 1] += 2.0
        out[idx[k][:1]] = -out[idx[k][:1]]
    return out, c


def test_updates_in_a_compiled_loop():
    idx = np.array([[0, 1, 1], [4, 4, 4], [2, 0, 1], [3, 3, 0]])
    out, c = np.zeros(5), np.zeros((5, 2))
    for k in range(len(idx)):
        np.add.at(out, idx[k], 1.0)
        c[idx[k], 1] += 2.0
        out[idx[k][:1]] = -out[idx[k][:1]]
    got = _loop_updates(idx)
    _same(got[0], out)
    _same(got[1], c)


@ag.function(input_signature=[ag.TensorSpec([None], ag.float64), ag.TensorSpec([], ag.float64),
                              ag.TensorSpec([], ag.float64)])
def _traced_range_histograms(a, lo, hi):
    return (np.histogram(a, bins=8, range=(lo, hi)),
            np.histogram(a, bins=4, range=(a.min(), a.max() + 1.0)))


@given(st.integers(1, 30), st.integers(0, 2 ** 32 - 1), st.booleans())
@SETTINGS
def test_histogram_with_a_traced_range(n, seed, equal_ends):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    lo, hi = sorted(rng.normal(size=2))
    if equal_ends:
        hi = lo
    want = (np.histogram(a, bins=8, range=(lo, hi)),
            np.histogram(a, bins=4, range=(a.min(), a.max() + 1.0)))
    for (gh, ge), (wh, we) in zip(_traced_range_histograms(a, lo, hi), want):
        _same(gh, wh)
        _same(ge, we)
    with pytest.raises(ag.errors.InvalidArgumentError,
                       match="max must be larger than min in range parameter"):
        _traced_range_histograms(a, 1.0, 0.0)


@ag.function(input_signature=[ag.TensorSpec([None], ag.int64), ag.TensorSpec([None], ag.float64),
                              ag.TensorSpec([None], ag.float32)])
def _edge_histograms(a, edges, w):
    return (np.histogram(a, bins=edges), np.histogram(a, bins=edges, weights=w),
            np.histogram(a, bins=edges, density=True))


def test_histogram_with_traced_edges():
    a = np.array([0, 1, 5, 3, 3, 9, -2])
    edges = np.array([-1.0, 0.5, 3.0, 9.0])
    w = np.linspace(0, 1, 7).astype(np.float32)
    want = (np.histogram(a, bins=edges), np.histogram(a, bins=edges, weights=w),
            np.histogram(a, bins=edges, density=True))
    for (gh, ge), (wh, we) in zip(_edge_histograms(a, edges, w), want):
        _same(gh, wh)
        _same(ge, we)
    with pytest.raises(ag.errors.InvalidArgumentError,
                       match="`bins` must increase monotonically, when an array"):
        _edge_histograms(a, np.array([0.0, 2.0, 1.0]), w)
