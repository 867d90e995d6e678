"""NumPy's shape/order functions and products on tensors
(tracer/api/numpy_arrange.py, tracer/api/numpy_products.py).

Differential: the same plain-NumPy function on arrays, on eager tensors,
compiled, and compiled with dimensions unknown at trace time. Rearranging
functions and elementwise arithmetic must equal NumPy's to the last bit;
sums of products (dot products, convolutions, covariances) are added in
another order than NumPy's BLAS/pairwise sums and agree to rounding.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 5))
X3 = RNG.standard_normal((2, 3, 4))
V = RNG.standard_normal(7)
W = RNG.standard_normal(3)
XI = (np.arange(20).reshape(4, 5) * 7919) % 23 - 11
SQ = RNG.standard_normal((3, 3)) / 2
SQI = np.array([[1, 2, 0], [0, 1, -1], [2, 0, 1]])

SUMS = 1e-12   # relative tolerance of sums of products


def _same(got, want, rtol=0.0):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, rtol)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, want)


def _check(fn, *arrays, rtol=0.0, signature=None):
    want = fn(*arrays)
    _same(fn(*[ag.constant(a) for a in arrays]), want, rtol)
    _same(ag.function(fn)(*arrays), want, rtol)
    if signature is not None:
        specs = [ag.TensorSpec(s, ag.as_dtype(a.dtype)) for s, a in zip(signature, arrays)]
        _same(ag.function(fn, input_signature=specs)(*arrays), want, rtol)


# name: (function, arrays, tolerance, shapes for the unknown-dimension run or None)
CASES = {
    "triu": (lambda a: np.triu(a), [X], 0, [[None, None]]),
    "triu_k": (lambda a: np.triu(a, 2), [X3], 0, [[2, None, 4]]),
    "tril_neg_k": (lambda a: np.tril(a, -1), [XI], 0, [[None, 5]]),
    "tril_vector": (lambda v: np.tril(v, 1), [V], 0, [[None]]),
    "triu_bool": (lambda a: np.triu(a > 0), [X], 0, None),
    "flip_all": (lambda a: np.flip(a), [X3], 0, [[None, 3, None]]),
    "flip_axis": (lambda a: np.flip(a, 1), [X3], 0, None),
    "flip_axes": (lambda a: np.flip(a, (0, -1)), [X3], 0, None),
    "fliplr": (lambda a: np.fliplr(a), [X], 0, [[None, None]]),
    "flipud": (lambda a: np.flipud(a), [V], 0, None),
    "rot90": (lambda a: np.rot90(a), [X], 0, [[None, 5]]),
    "rot90_k2": (lambda a: np.rot90(a, 2), [X], 0, None),
    "rot90_k3_axes": (lambda a: np.rot90(a, -1, axes=(2, 0)), [X3], 0, None),
    "rot90_k4": (lambda a: np.rot90(a, 4), [X], 0, None),
    "moveaxis": (lambda a: np.moveaxis(a, 0, -1), [X3], 0, [[None, 3, 4]]),
    "moveaxis_many": (lambda a: np.moveaxis(a, [0, 1], [-1, 0]), [X3], 0, None),
    "split_sections": (lambda a: np.split(a, 2), [X], 0, None),
    "split_indices": (lambda a: np.split(a, [1, 3], axis=1), [X], 0, [[None, None]]),
    "split_negative_index": (lambda a: np.split(a, [-2, 10], axis=1), [X], 0, None),
    "array_split": (lambda a: np.array_split(a, 3, axis=1), [X], 0, None),
    "array_split_more": (lambda a: np.array_split(a, 6), [X], 0, None),
    "hsplit": (lambda a: np.hsplit(a, [2]), [X], 0, None),
    "hsplit_vector": (lambda v: np.hsplit(v, 7), [V], 0, None),
    "vsplit": (lambda a: np.vsplit(a, 2), [X], 0, None),
    "dsplit": (lambda a: np.dsplit(a, [1]), [X3], 0, None),
    "diag_make": (lambda v: np.diag(v), [V], 0, [[None]]),
    "diag_make_k": (lambda v: np.diag(v, 2), [V], 0, [[None]]),
    "diag_make_neg_k": (lambda v: np.diag(v, -3), [XI[0]], 0, None),
    "diag_take": (lambda a: np.diag(a, 1), [X], 0, [[None, None]]),
    "diag_take_neg": (lambda a: np.diag(a, -2), [XI], 0, [[None, 5]]),
    "diag_take_beyond": (lambda a: (np.diag(a, 7), np.diag(a, -4)), [X], 0, [[None, None]]),
    "diag_take_special": (lambda a: np.diag(a), [np.array([[-0.0, np.inf], [np.nan, 2.0]])], 0,
                          None),
    "diagflat": (lambda a: np.diagflat(a[:2, :2], -1), [X], 0, None),
    "pad_constant": (lambda a: np.pad(a, 2), [XI], 0, [[None, 5]]),
    "pad_constant_pairs": (lambda a: np.pad(a, ((1, 2), (0, 1)), constant_values=((1, 2), (3, 4))),
                           [X], 0, [[None, None]]),
    "pad_constant_cast": (lambda a: np.pad(a, (1, 1), constant_values=2.7), [XI], 0, None),
    "pad_edge": (lambda a: np.pad(a, ((2, 3), (1, 0)), mode="edge"), [X], 0, [[None, None]]),
    "pad_reflect": (lambda a: np.pad(a, (3, 9), mode="reflect"), [X], 0, [[None, None]]),
    "pad_symmetric": (lambda a: np.pad(a, 6, mode="symmetric"), [X], 0, [[None, None]]),
    "pad_wrap": (lambda a: np.pad(a, ((7, 1), (0, 11)), mode="wrap"), [X], 0, [[None, None]]),
    "pad_reflect_single": (lambda a: np.pad(a[:, :1], 2, mode="reflect"), [X], 0, None),
    "partition": (lambda a: np.partition(a, 2, axis=1)[:, 2], [X], 0, [[None, None]]),
    "partition_flat": (lambda a: np.partition(a, [1, -1], axis=None)[[1, -1]], [XI], 0, None),
    "argpartition": (lambda a: np.argpartition(a, 3)[:, 3], [X], 0, None),
    "kron": (lambda a, b: np.kron(a, b), [X[:2, :3], W], 0, None),
    "kron_ints": (lambda a, b: np.kron(a, b), [SQI, XI[:2, :2]], 0, None),
    "kron_scalar": (lambda a: np.kron(a, 2.0), [X], 0, None),
    "inner": (lambda a, b: np.inner(a, b), [X, X], SUMS, [[None, 5], [None, 5]]),
    "inner_vectors": (lambda a, b: np.inner(a, b), [V, V], SUMS, None),
    "inner_3d": (lambda a, b: np.inner(a, b), [X3, X[:, :4]], SUMS, None),
    "tensordot_axes": (lambda a, b: np.tensordot(a, b, axes=([1], [1])), [X, X], SUMS,
                       [[None, 5], [4, 5]]),
    "tensordot_int": (lambda a, b: np.tensordot(a, b, axes=2), [X3, X3.reshape(3, 4, 2)], SUMS,
                      None),
    "tensordot_zero": (lambda a, b: np.tensordot(a, b, axes=0), [V[:3], W], SUMS, None),
    "tensordot_pairs": (lambda a, b: np.tensordot(a, b, axes=([0, 2], [2, 0])),
                        [X3, X3.transpose(2, 1, 0)], SUMS, None),
    "cross3": (lambda a, b: np.cross(a, b), [X[:, :3], X[:, 2:5]], 0, [[None, 3], [None, 3]]),
    "cross2": (lambda a, b: np.cross(a, b), [X[:, :2], X[:, 2:4]], 0, None),
    "cross23": (lambda a, b: np.cross(a, b), [X[:, :2], X[:, 2:5]], 0, None),
    "cross32_broadcast": (lambda a, b: np.cross(a, b), [X[:, :3], W[:2]], 0, None),
    "cross_axis": (lambda a, b: np.cross(a, b, axis=0), [X[:3], X[1:4]], 0, None),
    "cross_ints": (lambda a, b: np.cross(a, b), [SQI, SQI[::-1]], 0, None),
    "polyval": (lambda p, x: np.polyval(p, x), [W, X], 0, [[3], [None, 5]]),
    "polyval_ints": (lambda p, x: np.polyval(p, x), [SQI[0], XI], 0, None),
    "polyval_list": (lambda x: np.polyval([1.0, -2.0, 0.5], x), [X], 0, None),
    "trapezoid": (lambda y: np.trapezoid(y), [X], SUMS, [[None, None]]),
    "trapezoid_dx_axis": (lambda y: np.trapezoid(y, dx=0.1, axis=0), [X], SUMS, None),
    "trapezoid_x": (lambda y, x: np.trapezoid(y, x), [X, V[:5]], SUMS, None),
    "trapezoid_x_nd": (lambda y, x: np.trapezoid(y, x, axis=0), [X, X * 2], SUMS, None),
    "trapezoid_ints": (lambda y: np.trapezoid(y), [XI], SUMS, None),
    "convolve": (lambda a, v: np.convolve(a, v), [V, W], SUMS, None),
    "convolve_same": (lambda a, v: np.convolve(a, v, "same"), [W, V], SUMS, None),
    "convolve_same_even": (lambda a, v: np.convolve(a, v, "same"), [V, V[:4]], SUMS, None),
    "convolve_valid": (lambda a, v: np.convolve(a, v, mode="valid"), [V, W], SUMS, None),
    "convolve_ints": (lambda a, v: np.convolve(a, v), [XI[0], SQI[1]], 0, None),
    "correlate": (lambda a, v: np.correlate(a, v), [V, W], SUMS, None),
    "correlate_full_swapped": (lambda a, v: np.correlate(a, v, "full"), [W, V], SUMS, None),
    "correlate_same": (lambda a, v: np.correlate(a, v, "same"), [W, V[:6]], SUMS, None),
    "cov": (lambda a: np.cov(a), [X], SUMS, [[4, None]]),
    "cov_rowvar": (lambda a: np.cov(a, rowvar=False, bias=True), [X], SUMS, [[None, 5]]),
    "cov_ddof_y": (lambda a, b: np.cov(a, b, ddof=2), [X, X[:2] * 3], SUMS, None),
    "cov_vector": (lambda v: np.cov(v), [V], SUMS, None),
    "cov_ints": (lambda a: np.cov(a), [XI], SUMS, None),
    "corrcoef": (lambda a: np.corrcoef(a), [X], SUMS, [[4, None]]),
    "corrcoef_rowvar": (lambda a: np.corrcoef(a, rowvar=False), [X], SUMS, None),
    "corrcoef_vector": (lambda v: np.corrcoef(v), [V], 0, None),
    "matrix_power": (lambda a: np.linalg.matrix_power(a, 13), [SQ], SUMS, [[None, None]]),
    "matrix_power_ints": (lambda a: np.linalg.matrix_power(a, 6), [SQI], 0, None),
    "matrix_power_small": (lambda a: (np.linalg.matrix_power(a, 1), np.linalg.matrix_power(a, 2),
                                      np.linalg.matrix_power(a, 3)), [SQI], 0, None),
    "matrix_power_zero": (lambda a: np.linalg.matrix_power(a, 0), [SQ], 0, [[None, None]]),
}


@pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors:DeprecationWarning")
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    fn, arrays, rtol, signature = CASES[name]
    _check(fn, *arrays, rtol=rtol, signature=signature)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 9), before=st.integers(0, 12), after=st.integers(0, 12),
       mode=st.sampled_from(["edge", "reflect", "symmetric", "wrap"]))
def test_pad_modes_unknown_length(n, before, after, mode):
    # the run-time index formulas against NumPy's own padding
    v = np.arange(n, dtype=np.float64) * 1.5 - 2
    fn = ag.function(lambda v: np.pad(v, (before, after), mode=mode),
                     input_signature=[ag.TensorSpec([None], ag.float64)])
    _same(fn(v), np.pad(v, (before, after), mode=mode))


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 9), m=st.integers(1, 9), mode=st.sampled_from(["full", "same", "valid"]),
       seed=st.integers(0, 2**16))
def test_convolve_and_correlate_lengths(n, m, mode, seed):
    rng = np.random.default_rng(seed)
    a, v = rng.integers(-9, 9, n), rng.integers(-9, 9, m)    # ints: exact whatever the order
    fn = ag.function(lambda a, v: (np.convolve(a, v, mode), np.correlate(a, v, mode)))
    _same(fn(a, v), (np.convolve(a, v, mode), np.correlate(a, v, mode)))


@settings(max_examples=10, deadline=None)
@given(n=st.integers(1, 6), m=st.integers(1, 6), k=st.integers(-7, 7))
def test_triangles_and_diag_offsets(n, m, k):
    a = np.arange(n * m, dtype=np.float64).reshape(n, m) - 3
    fn = ag.function(lambda a: (np.triu(a, k), np.tril(a, k), np.diag(a, k), np.diag(a[0], k)))
    _same(fn(a), (np.triu(a, k), np.tril(a, k), np.diag(a, k), np.diag(a[0], k)))


def _rearranged(a):
    return (np.triu(a, 1), np.tril(a), np.flip(a), np.rot90(a, 3), np.moveaxis(a, 0, 1),
            np.array_split(a, 3, axis=1), np.diag(a), np.pad(a, 1), np.pad(a, (2, 1), "wrap"),
            np.kron(a, a[:1, :2]))


@settings(max_examples=10, deadline=None)
@given(a=hnp.arrays(st.sampled_from([np.int32, np.int64, np.float32, np.float64, np.bool_]),
                    hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=5)))
def test_rearranging_keeps_dtype_and_values(a):
    with np.errstate(over="ignore"):   # (kron of huge floats: inf, as NumPy's)
        want = _rearranged(a)
    _same(ag.function(_rearranged)(a), want)


def test_rearranging_bools():
    a = X > 0
    _same(ag.function(_rearranged)(a), _rearranged(a))


def _sizes_from_shapes(a, v):
    # NumPy code computes sizes from shapes; in converted code `a.shape[0]`
    # is a traced scalar whose value (and that of `n // 2`, ...) is known
    n, m = a.shape
    k = n // 2
    return (np.split(a, k), np.triu(a, k - 1), np.rot90(a, n - 3),
            np.pad(a, ((k, 0), (0, m - 4)), mode="edge"), np.partition(a, m - 1)[:, -1],
            np.tensordot(a, a, axes=([0], [k - 2])), np.linalg.matrix_power(a[:, :4], n),
            np.cov(a, ddof=k), np.nanquantile(v, k / n))


def test_sizes_computed_from_shapes_in_converted_code():
    _check(_sizes_from_shapes, X, V, rtol=SUMS)


def test_sizes_from_run_time_values_are_refused():
    f = ag.function(lambda a, k: np.split(a, k))
    with pytest.raises(TypeError, match=r"np\.split: split indices that are a tensor \(they must "
                                        r"be known at trace time\) has no autograph equivalent"):
        f(X, np.int32(2))


def test_partition_is_a_valid_partition():
    a = RNG.standard_normal((3, 11))
    for k in (0, 4, 10):
        p = np.asarray(ag.function(lambda a: np.partition(a, k))(a))
        i = np.asarray(ag.function(lambda a: np.argpartition(a, k))(a))
        assert i.dtype == np.int64
        np.testing.assert_array_equal(p[:, k], np.sort(a)[:, k])
        assert (p[:, :k] <= p[:, k:k + 1]).all() and (p[:, k + 1:] >= p[:, k:k + 1]).all()
        np.testing.assert_array_equal(np.take_along_axis(a, i, axis=1), p)


def test_errors():
    f = ag.function
    with pytest.raises(ValueError, match=r"np.split: array split does not result in an equal "
                                         r"division"):
        f(lambda a: np.split(a, 3))(X)
    with pytest.raises(TypeError, match=r"np\.split: a number of sections along an axis whose "
                                        r"length is only known at run time.*no autograph "
                                        r"equivalent"):
        f(lambda a: np.split(a, 2), input_signature=[ag.TensorSpec([None, 5], ag.float64)])(X)
    with pytest.raises(ValueError, match=r"np.vsplit only works on arrays of 2 or more "
                                         r"dimensions"):
        f(lambda v: np.vsplit(v, 7))(V)
    with pytest.raises(ValueError, match=r"np.fliplr: Input must be >= 2-d"):
        f(lambda v: np.fliplr(v))(V)
    with pytest.raises(ValueError, match=r"np.rot90: Axes must be different"):
        f(lambda a: np.rot90(a, axes=(1, 1)))(X)
    with pytest.raises(ValueError, match=r"np.rot90: len\(axes\) must be 2"):
        f(lambda a: np.rot90(a, axes=(0,)))(X)
    with pytest.raises(ValueError, match=r"np.moveaxis: `source` and `destination`"):
        f(lambda a: np.moveaxis(a, [0, 1], [0]))(X3)
    with pytest.raises(ValueError, match=r"np.diag: Input must be 1- or 2-d"):
        f(lambda a: np.diag(a))(X3)
    with pytest.raises(TypeError, match=r"np\.pad: mode='mean' \(constant, edge, reflect, "
                                        r"symmetric and wrap are\) has no autograph equivalent"):
        f(lambda a: np.pad(a, 1, mode="mean"))(X)
    with pytest.raises(TypeError, match=r"np.pad: `pad_width` must be of integral type"):
        f(lambda a: np.pad(a, 1.5))(X)
    with pytest.raises(ValueError, match=r"np.pad: index can't contain negative values"):
        f(lambda a: np.pad(a, -1))(X)
    with pytest.raises(ValueError, match=r"np.pad: unsupported keyword arguments for mode 'edge'"):
        f(lambda a: np.pad(a, 1, mode="edge", constant_values=3))(X)
    with pytest.raises(ValueError, match=r"np.partition: kth\(=5\) out of bounds \(5\)"):
        f(lambda a: np.partition(a, 5))(X)
    with pytest.raises(ValueError, match=r"np.tensordot: shape-mismatch for sum"):
        f(lambda a: np.tensordot(a, a, axes=([0], [1])))(X)
    with pytest.raises(ValueError, match=r"np.inner: shapes \(4, 5\) and \(3,\) not aligned"):
        f(lambda a, b: np.inner(a, b))(X, W)
    with pytest.raises(ValueError, match=r"np.cross: incompatible dimensions for cross product"):
        f(lambda a: np.cross(a, a))(X)
    with pytest.raises(ValueError, match=r"np.convolve: mode must be one of 'valid', 'same', "
                                         r"or 'full'"):
        f(lambda a: np.convolve(a, a, mode="middle"))(V)
    with pytest.raises(ValueError, match=r"np.convolve: v cannot be empty"):
        f(lambda a: np.convolve(a, a[:0]))(V)
    with pytest.raises(TypeError, match=r"np\.convolve: inputs whose length is only known at "
                                        r"run time has no autograph equivalent"):
        f(lambda a: np.convolve(a, a), input_signature=[ag.TensorSpec([None], ag.float64)])(V)
    with pytest.raises(ValueError, match=r"np.cov: ddof must be integer"):
        f(lambda a: np.cov(a, ddof=1.5))(X)
    with pytest.raises(ValueError, match=r"np.cov: m has more than 2 dimensions"):
        f(lambda a: np.cov(a))(X3)
    with pytest.raises(TypeError, match=r"np\.cov: the fweights=/aweights= arguments has no "
                                        r"autograph equivalent"):
        f(lambda a: np.cov(a, aweights=a[0]))(X)
    with pytest.raises(TypeError, match=r"np\.linalg\.matrix_power: a negative exponent"):
        f(lambda a: np.linalg.matrix_power(a, -2))(SQ)
    with pytest.raises(TypeError, match=r"exponent must be an integer"):
        f(lambda a: np.linalg.matrix_power(a, 1.5))(SQ)
    with pytest.raises(np.linalg.LinAlgError, match=r"Last 2 dimensions of the array must be "
                                                   r"square"):
        f(lambda a: np.linalg.matrix_power(a, 2))(X)
