"""NumPy's order statistics, NaN-ignoring reductions, meshgrid and
broadcast_to on tensors (tracer/api/numpy_statistics.py).

Differential: the same plain-NumPy function on arrays, on eager tensors,
compiled, and compiled with the reduced axis of unknown length; results
must be NumPy's to the last bit (the functions follow NumPy's arithmetic),
NaN where NumPy gives NaN.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag


def _same(got, want, rtol=0.0):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, rtol)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
    else:
        np.testing.assert_array_equal(got, want)


def _check(fn, *arrays, rtol=0.0):
    want = fn(*arrays)
    _same(fn(*[ag.constant(a) for a in arrays]), want, rtol)
    _same(ag.function(fn)(*arrays), want, rtol)


X = np.random.default_rng(3).standard_normal((4, 5, 6))
XI = (np.arange(120).reshape(4, 5, 6) * 7919) % 23 - 11
XN = X.copy()
XN[1, 2, 3] = np.nan
XN[2, :, 0] = np.nan

class _nowarn:
    """NumPy warns on all-NaN slices; the comparison is about values."""
    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)


CASES = {
    "median_all": (lambda a: np.median(a), X),
    "median_axis0": (lambda a: np.median(a, axis=0), X),
    "median_even": (lambda a: np.median(a, axis=2), X),
    "median_odd": (lambda a: np.median(a, axis=1, keepdims=True), X),
    "median_axes": (lambda a: np.median(a, axis=(0, 2)), X),
    "median_ints": (lambda a: np.median(a, axis=-1), XI),
    "median_nan": (lambda a: np.median(a, axis=1), XN),
    "quantile": (lambda a: np.quantile(a, 0.3, axis=2), X),
    "quantile_ends": (lambda a: np.quantile(a, [0.0, 1.0], axis=0), X),
    "quantile_list_keepdims": (lambda a: np.quantile(a, [0.1, 0.5, 0.77], axis=1,
                                                     keepdims=True), X),
    "percentile": (lambda a: np.percentile(a, 37.5), X),
    "percentile_ints": (lambda a: np.percentile(a, (25, 75), axis=2), XI),
    "percentile_nan": (lambda a: np.percentile(a, 90, axis=2), XN),
    "ptp": (lambda a: np.ptp(a, axis=1), XI),
    "ptp_keepdims": (lambda a: np.ptp(a, keepdims=True), X),
    "nansum": (lambda a: np.nansum(a, axis=1), XN),
    "nansum_ints": (lambda a: np.nansum(a), XI),
    "nanmean": (lambda a: np.nanmean(a, axis=2), XN),
    "nanmean_all": (lambda a: np.nanmean(a), XN),
    "nanmax": (lambda a: np.nanmax(a, axis=0), XN),
    "nanmin_keepdims": (lambda a: np.nanmin(a, axis=-1, keepdims=True), XN[:, :, 1:]),
    "broadcast_to": (lambda a: np.broadcast_to(a[0, :, :1], (3, 5, 6)), X),
    "broadcast_to_bool": (lambda a: np.broadcast_to(a[0, 0] > 0, (2, 6)), X),
    "meshgrid_xy": (lambda a: np.meshgrid(a[0, 0], a[0, :, 0]), X),
    "meshgrid_ij": (lambda a: np.meshgrid(a[0, 0], a[0, :, 0], a[:, 0, 0], indexing="ij"), X),
    "meshgrid_sparse": (lambda a: np.meshgrid(a[0, 0], a[0, :, 0], sparse=True), XI),
    "diff_prepend": (lambda a: np.diff(a, axis=1, prepend=0.0), X),
    "diff_append_array": (lambda a: np.diff(a, append=a[:, :, :2]), XI),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    fn, arr = CASES[name]
    with np.errstate(invalid="ignore"), _nowarn():
        # sums are added in another order than NumPy's pairwise summation
        _check(fn, arr, rtol=1e-12 if name.startswith(("nansum", "nanmean")) else 0.0)


@settings(max_examples=40, deadline=None)
@given(data=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=7),
                       elements=st.floats(-1e6, 1e6, allow_nan=False, width=64)),
       q=st.floats(0.0, 1.0), axis=st.integers(-1, 2), keepdims=st.booleans())
def test_quantile_and_median_property(data, q, axis, keepdims):
    ax = None if axis >= data.ndim else axis
    fn = ag.function(lambda a: (np.quantile(a, q, axis=ax, keepdims=keepdims),
                                np.median(a, axis=ax, keepdims=keepdims)))
    _same(fn(data), (np.quantile(data, q, axis=ax, keepdims=keepdims),
                     np.median(data, axis=ax, keepdims=keepdims)))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), q=st.floats(0.0, 100.0), seed=st.integers(0, 2**16))
def test_unknown_length(n, q, seed):
    # the axis's length is only known at run time: indices are traced values
    v = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    fn = ag.function(lambda v: (np.median(v), np.percentile(v, q)),
                     input_signature=[ag.TensorSpec([None], ag.float32)])
    got = fn(v)
    np.testing.assert_array_equal(np.asarray(got[0]), np.median(v))
    # NumPy computes a float32 percentile's weight in float64 then rounds:
    # allow one float32 ulp of the interpolation
    np.testing.assert_allclose(np.asarray(got[1]), np.percentile(v, q), rtol=2e-7, atol=1e-7)


def test_empty_axis_gives_nan():
    e = np.zeros((3, 0))
    with np.errstate(invalid="ignore"), _nowarn():
        want = np.median(e, axis=1)
    _same(ag.function(lambda a: np.median(a, axis=1))(e), want)


def test_errors_name_the_function():
    x = ag.constant(X)
    f = ag.function(lambda a: np.quantile(a, 1.5))
    with pytest.raises(ValueError, match=r"np.quantile: Quantiles must be in the range \[0, 1\]"):
        f(X)
    with pytest.raises(ValueError, match=r"np.percentile: Percentiles must be in the range"):
        ag.function(lambda a: np.percentile(a, -1))(X)
    with pytest.raises(TypeError, match=r"np.quantile: method='nearest' \(only 'linear'.*no "
                                        r"autograph equivalent"):
        ag.function(lambda a: np.quantile(a, 0.5, method="nearest"))(X)
    with pytest.raises(TypeError, match=r"np.percentile: a q that is a tensor"):
        ag.function(lambda a, q: np.percentile(a, q))(X, np.array(50.0))
    with pytest.raises(ValueError, match=r"np.meshgrid: indexing must be 'xy' or 'ij'"):
        np.meshgrid(x[0, 0], x[0, 0], indexing="xx")
    with pytest.raises(ValueError, match=r"broadcast_to: cannot broadcast shape \(4, 5, 6\)"):
        ag.broadcast_to(x, [4, 2, 6])
    with pytest.raises(ValueError, match=r"broadcast_to: cannot broadcast a tensor of shape"):
        ag.broadcast_to(x, [6])


def test_broadcast_keeps_special_values():
    v = np.array([-0.0, np.nan, np.inf, -np.inf])
    got = np.asarray(ag.function(lambda a: ag.broadcast_to(a, [2, 4]))(v))
    np.testing.assert_array_equal(got, np.broadcast_to(v, (2, 4)))
    assert np.signbit(got[1, 0])
