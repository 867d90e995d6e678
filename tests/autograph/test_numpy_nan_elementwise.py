"""NumPy's extra elementwise functions, whole-array comparisons, select and
piecewise (tracer/api/numpy_elementwise.py) and NaN-ignoring statistics
(tracer/api/numpy_nan.py) on tensors.

Differential: the same plain-NumPy function on arrays, on eager tensors,
compiled, and compiled with dimensions unknown at trace time. Selections
and order statistics must equal NumPy's to the last bit; functions built
on the compiled transcendental functions (sin, exp, log1p, pow) agree to a
few ulps, as those do; sums (nanvar) are added in another order than
NumPy's pairwise sums.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

RNG = np.random.default_rng(11)
X = RNG.standard_normal((4, 5))
X32 = X.astype(np.float32)
XI = (np.arange(20).reshape(4, 5) * 7919) % 23 - 11
XR = np.round(X * 2) / 2          # zeros and ties
XN = RNG.standard_normal((4, 6))
XN[1, 2] = XN[3, 0] = XN[3, 5] = np.nan
XN[2, :] = np.nan                  # an all-NaN row
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 710.0, -745.0, 1e-300])

ULPS = 4e-16    # relative tolerance of results of compiled transcendental functions


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


def _quiet():
    w = warnings.catch_warnings()
    w.__enter__()
    warnings.simplefilter("ignore", RuntimeWarning)
    return w


def _check(fn, *arrays, rtol=0.0, signature=None):
    w = _quiet()
    try:
        with np.errstate(all="ignore"):
            want = fn(*arrays)
    finally:
        w.__exit__(None, None, None)
    _same(fn(*[ag.constant(a) for a in arrays]), want, rtol)
    _same(ag.function(fn)(*arrays), want, rtol)
    if signature is not None:
        specs = [ag.TensorSpec(s, ag.as_dtype(a.dtype)) for s, a in zip(signature, arrays)]
        _same(ag.function(fn, input_signature=specs)(*arrays), want, rtol)


CASES = {
    "sinc": (lambda a: np.sinc(a), [XR], ULPS, [[None, 5]]),
    "sinc_ints": (lambda a: np.sinc(a), [XI], ULPS, None),
    "sinc_float32": (lambda a: np.sinc(a), [X32], 3e-7, None),
    "heaviside": (lambda a: np.heaviside(a, 0.5), [XR], 0, [[None, None]]),
    "heaviside_special": (lambda a, h: np.heaviside(a, h), [SPECIAL, SPECIAL[::-1]], 0, None),
    "heaviside_ints": (lambda a: np.heaviside(a, 2), [XI], 0, None),
    "reciprocal": (lambda a: np.reciprocal(a), [X], 0, None),
    "reciprocal_float32": (lambda a: np.reciprocal(a), [X32], 0, None),
    "fabs": (lambda a: np.fabs(a), [X], 0, None),
    "fabs_ints": (lambda a: np.fabs(a), [XI], 0, None),
    "fabs_int16": (lambda a: np.fabs(a), [XI.astype(np.int16)], 0, None),
    "float_power": (lambda a, b: np.float_power(np.abs(a), b), [X, X[::-1]], ULPS, None),
    "float_power_float32": (lambda a: np.float_power(a, 2), [X32], 0, None),
    "float_power_ints": (lambda a: np.float_power(a, -1), [XI[XI != 0]], ULPS, None),
    "logaddexp": (lambda a, b: np.logaddexp(a, b), [X, X[::-1] * 30], ULPS, [[None, 5], [4, 5]]),
    "logaddexp_special": (lambda a, b: np.logaddexp(a, b), [SPECIAL, SPECIAL[[1, 0, 2, 4, 4, 5, 6,
                                                                             7, 8, 9]]], ULPS,
                          None),
    "logaddexp_float32": (lambda a, b: np.logaddexp(a, b), [X32, X32.T.reshape(4, 5)], 1e-6, None),
    "logaddexp2": (lambda a, b: np.logaddexp2(a, b), [X, X[::-1] * 30], ULPS, None),
    "logaddexp2_special": (lambda a, b: np.logaddexp2(a, b), [SPECIAL, SPECIAL[::-1]], ULPS,
                           None),
    "nancumsum": (lambda a: np.nancumsum(a, axis=1), [XN], 0, [[None, None]]),
    "nancumsum_flat": (lambda a: np.nancumsum(a), [XN], 0, None),
    "nancumsum_ints": (lambda a: np.nancumsum(a, axis=0), [XI], 0, None),
    "nancumsum_bools": (lambda a: np.nancumsum(a > 0), [X], 0, None),
    "nancumprod": (lambda a: np.nancumprod(a, axis=0), [XN], 0, None),
    "nancumprod_flat": (lambda a: np.nancumprod(a), [XI[:2]], 0, None),
    "array_equal": (lambda a, b: (np.array_equal(a, b), np.array_equal(a, b + 1),
                                  np.array_equal(a, b[:2]), np.array_equal(a, b[0])),
                    [X, X.copy()], 0, None),
    "array_equal_nan": (lambda a: (np.array_equal(a, a), np.array_equal(a, a, equal_nan=True)),
                        [XN], 0, None),
    "array_equal_unknown": (lambda a, b: np.array_equal(a, b), [X[:1], X], 0,
                            [[None, 5], [None, 5]]),
    "array_equal_mixed": (lambda a, b: np.array_equal(a, b), [XI, XI.astype(np.float64)], 0, None),
    "array_equiv": (lambda a, b: (np.array_equiv(a, b[0]), np.array_equiv(a, b[:2]),
                                  np.array_equiv(a[:1], a), np.array_equiv(a, b[:, :1])),
                    [np.ones((4, 5)), np.ones((4, 5))], 0, None),
    "isin": (lambda a, b: np.isin(a, b), [XI, XI[1]], 0, [[None, 5], [None]]),
    "isin_invert": (lambda a, b: np.isin(a, b, invert=True), [XR, np.array([0.0, 0.5, 1.0])], 0,
                    None),
    "isin_nan": (lambda a: np.isin(a, a), [XN], 0, None),
    "isin_mixed": (lambda a: np.isin(a, [0.0, 3.0, -2.5]), [XI], 0, None),
    "select": (lambda a: np.select([a > 1, a < -1], [a, a * 2], 0.5), [X], 0, [[None, 5]]),
    "select_first_wins": (lambda a: np.select([a > 0, a > 1], [a, -a]), [X], 0, None),
    "select_scalars": (lambda a: np.select([a > 0, a < -1], [1, 2], default=-1), [X], 0, None),
    "select_dtypes": (lambda a, b: np.select([a > 0], [b], default=0.25), [X32, XI], 0, None),
    "piecewise": (lambda a: np.piecewise(a, [a < 0, a > 1],
                                         [lambda v: -v, 7.0, lambda v: v * 2]), [X], 0,
                  [[None, 5]]),
    "piecewise_overlap": (lambda a: np.piecewise(a, [a < 1, a < 0], [1.0, 2.0]), [X], 0, None),
    "piecewise_ints": (lambda a: np.piecewise(a, [a < 0], [lambda v: v * 3, 1.5]), [XI], 0,
                       None),
    "piecewise_one": (lambda a: np.piecewise(a, a > 0, [lambda v: v + 1]), [X[0]], 0, None),
    "nanvar": (lambda a: np.nanvar(a), [XN], 1e-13, [[None, 6]]),
    "nanvar_axis_ddof": (lambda a: np.nanvar(a, axis=1, ddof=1), [XN], 1e-13, None),
    "nanvar_keepdims": (lambda a: np.nanvar(a, axis=0, keepdims=True), [XN], 1e-13, None),
    "nanvar_ddof_too_big": (lambda a: np.nanvar(a, axis=1, ddof=5), [XN], 1e-13, None),
    "nanvar_float32": (lambda a: np.nanvar(a, axis=1), [XN.astype(np.float32)], 1e-6, None),
    "nanvar_ints": (lambda a: np.nanvar(a, axis=0), [XI], 1e-13, None),
    "nanstd": (lambda a: np.nanstd(a, axis=1), [XN], 1e-13, [[None, None]]),
    "nanargmax": (lambda a: np.nanargmax(a, axis=1), [XN[[0, 1, 3]]], 0, [[None, 6]]),
    "nanargmin": (lambda a: np.nanargmin(a), [XN], 0, None),
    "nanargmin_keepdims": (lambda a: np.nanargmin(a, axis=0, keepdims=True), [XN], 0, None),
    "nanargmax_ints": (lambda a: np.nanargmax(a, axis=0), [XI], 0, None),
    "nanmedian": (lambda a: np.nanmedian(a), [XN], 0, [[None, 6]]),
    "nanmedian_rows": (lambda a: np.nanmedian(a, axis=1), [XN], 0, [[None, None]]),
    "nanmedian_cols_keepdims": (lambda a: np.nanmedian(a, axis=0, keepdims=True), [XN], 0, None),
    "nanmedian_ints": (lambda a: np.nanmedian(a, axis=1), [XI], 0, None),
    "nanquantile": (lambda a: np.nanquantile(a, 0.3, axis=1), [XN], 0, [[None, 6]]),
    "nanquantile_list": (lambda a: np.nanquantile(a, [0.0, 0.5, 1.0], axis=0), [XN], 0, None),
    "nanpercentile": (lambda a: np.nanpercentile(a, 37.5), [XN], 0, None),
    "nanquantile_float32": (lambda a: np.nanquantile(a, 0.61, axis=0), [XN.astype(np.float32)], 0,
                            [[None, 6]]),
    "nanmedian_signed_zero": (lambda a: np.nanmedian(a, axis=1),
                              [np.array([[-0.0, np.nan, 1.0], [-0.0, -0.0, np.nan]])], 0, None),
    "nanpercentile_ints": (lambda a: np.nanpercentile(a, (25, 75), axis=1), [XI], 0, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    fn, arrays, rtol, signature = CASES[name]
    _check(fn, *arrays, rtol=rtol, signature=signature)


_floats = st.one_of(st.floats(-1e3, 1e3, width=64), st.just(np.nan))


@settings(max_examples=12, deadline=None)
@given(data=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=6),
                       elements=_floats),
       q=st.floats(0.0, 1.0), axis=st.sampled_from([None, 0, -1]))
def test_nan_order_statistics_property(data, q, axis):
    fn = ag.function(lambda a: (np.nanmedian(a, axis=axis), np.nanquantile(a, q, axis=axis)))
    w = _quiet()
    try:
        want = (np.nanmedian(data, axis=axis), np.nanquantile(data, q, axis=axis))
    finally:
        w.__exit__(None, None, None)
    _same(fn(data), want)


def test_in1d_flattens():
    # NumPy 2 dropped np.in1d; its autograph function is still dispatched for NumPy 1
    from autograph.tracer.api.numpy_elementwise import np_in1d
    got = ag.function(lambda a, b: (np_in1d(a, b), np_in1d(a, b, invert=True)))(XI, XI[0])
    _same(got, (np.isin(XI.ravel(), XI[0]), ~np.isin(XI.ravel(), XI[0])))


def test_nanargmax_all_nan_slice_raises():
    a = XN.copy()
    with pytest.raises(ValueError, match=r"All-NaN slice encountered"):
        np.nanargmax(ag.constant(a), axis=1)
    f = ag.function(lambda a: np.nanargmin(a, axis=1))
    with pytest.raises(ValueError, match=r"All-NaN slice encountered"):
        f(a)                                          # checked when the compiled code runs
    _same(f(a[[0, 1, 3]]), np.nanargmin(a[[0, 1, 3]], axis=1))


def test_errors():
    f = ag.function
    with pytest.raises(TypeError, match=r"np\.reciprocal: integer input.*no autograph "
                                        r"equivalent"):
        f(lambda a: np.reciprocal(a))(XI)
    with pytest.raises(TypeError, match=r"np.fabs: .*(loop|supported)"):
        f(lambda a: np.fabs(a))(X.astype(np.complex128))
    with pytest.raises(ValueError, match=r"np.select: list of cases must be same length as list "
                                         r"of conditions"):
        f(lambda a: np.select([a > 0], [a, a]))(X)
    with pytest.raises(TypeError, match=r"np.select: invalid entry 0 in condlist: should be "
                                        r"boolean"):
        f(lambda a: np.select([a], [a]))(X)
    with pytest.raises(ValueError, match=r"np.piecewise: with 2 condition\(s\), either 2 or 3 "
                                         r"functions are expected"):
        f(lambda a: np.piecewise(a, [a > 0, a < 0], [1.0]))(X)
    with pytest.raises(ValueError, match=r"np.isin: Invalid kind: 'hash'"):
        f(lambda a: np.isin(a, a, kind="hash"))(X)
    with pytest.raises(TypeError, match=r"np\.nanquantile: method='nearest' \(only 'linear'"):
        f(lambda a: np.nanquantile(a, 0.5, method="nearest"))(XN)
    with pytest.raises(ValueError, match=r"np.nanpercentile: Percentiles must be in the range"):
        f(lambda a: np.nanpercentile(a, 101))(XN)
    with pytest.raises(TypeError, match=r"np\.nanvar: the out= argument"):
        f(lambda a: np.nanvar(a, out=a))(XN)
    with pytest.raises(TypeError, match=r"np\.nancumsum: the dtype= argument"):
        f(lambda a: np.nancumsum(a, dtype=np.float32))(XN)
