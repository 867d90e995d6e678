"""np.vander, polyder, polyint, polyfit on tensors (tracer/api/numpy_polynomials.py)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

_RNG = np.random.default_rng(2)
_X = np.linspace(0.0, 1.0, 20)
_Y = 3 * _X ** 2 - _X + 0.5 + 0.01 * _RNG.standard_normal(20)
_P = np.array([3.0, -1.0, 0.5, 2.0])
_PI = np.array([3, -1, 5, 2])

_CASES = [
    ("vander", lambda a: np.vander(a), (_X[:5],)),
    ("vander, N, increasing", lambda a: np.vander(a, 3, increasing=True), (_X[:5],)),
    ("vander of ints is int64", lambda a: np.vander(a, 4), (_PI,)),
    ("vander of float32 is float64", lambda a: np.vander(a, 3), (_X[:4].astype(np.float32),)),
    ("polyder", lambda a: np.polyder(a), (_P,)),
    ("polyder twice, ints", lambda a: np.polyder(a, 2), (_PI,)),
    ("polyint", lambda a: np.polyint(a), (_P,)),
    ("polyint twice with constants", lambda a: np.polyint(a, 2, k=[1.0, 2.0]), (_PI,)),
    ("polyfit", lambda a, b: np.polyfit(a, b, 2), (_X, _Y)),
    ("polyfit, several columns", lambda a, b: np.polyfit(a, b, 3), (_X, np.stack([_Y, 2 * _Y], 1))),
    ("polyfit, weights", lambda a, b: np.polyfit(a, b, 1, w=np.linspace(1, 2, 20)), (_X, _Y)),
    ("polyfit, float32", lambda a, b: np.polyfit(a, b, 2), (_X.astype(np.float32), _Y.astype(np.float32))),
]


@pytest.mark.parametrize("name, fn, args", _CASES, ids=[c[0] for c in _CASES])
def test_compiled_polynomials_equal_numpy(name, fn, args):
    got, want = np.asarray(ag.function(fn)(*args)), fn(*args)
    assert got.dtype == want.dtype and got.shape == want.shape
    # the same arithmetic, and for polyfit the same LAPACK routine: equal to rounding
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(-10, 10)), st.integers(0, 3))
def test_eager_derivatives_and_integrals_equal_numpy(p, m):
    np.testing.assert_array_equal(np.asarray(np.polyder(ag.constant(p), m)), np.polyder(p, m))
    np.testing.assert_array_equal(np.asarray(np.polyint(ag.constant(p), m)), np.polyint(p, m))
    np.testing.assert_array_equal(np.asarray(np.vander(ag.constant(p), m + 1)), np.vander(p, m + 1))


@pytest.mark.parametrize("fn, error, message", [
    (lambda a, b: np.polyfit(a, b, -1), ValueError, r"np\.polyfit: expected deg >= 0"),
    (lambda a, b: np.polyfit(a, b[:5], 1), TypeError, r"np\.polyfit: expected x and y to have same length"),
    (lambda a, b: np.polyfit(a, b, 1, full=True), TypeError, r"np\.polyfit.*full=True and cov=True"),
    (lambda a, b: np.polyder(a, -1), ValueError, r"Order of derivative must be positive"),
    (lambda a, b: np.vander(a, 2.5), TypeError, r"np\.vander: N must be an int"),
])
def test_errors_name_the_problem(fn, error, message):
    with pytest.raises(error, match=message):
        ag.function(fn)(_X, _Y)
