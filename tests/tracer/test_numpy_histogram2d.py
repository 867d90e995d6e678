"""np.histogram2d on tensors (tracer/api/numpy_histogram2d.py): NumPy's histogramdd steps,
so counts and edges equal NumPy's exactly."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

_RNG = np.random.default_rng(0)
_X, _Y = _RNG.standard_normal(200), _RNG.standard_normal(200) * 2
_W = _RNG.random(200)


@pytest.mark.parametrize("fn, args", [
    (lambda a, b: np.histogram2d(a, b), (_X, _Y)),
    (lambda a, b: np.histogram2d(a, b, bins=(4, 6)), (_X, _Y)),
    (lambda a, b: np.histogram2d(a, b, bins=5, range=[[-1, 1], [-2, 2]]), (_X, _Y)),
    (lambda a, b, c: np.histogram2d(a, b, bins=5, weights=c, density=True), (_X, _Y, _W)),
    (lambda a, b: np.histogram2d(a, b, bins=[np.array([-3.0, 0, 1, 3]), np.array([-5.0, -1, 0, 1, 5])]),
     (_X, _Y)),
    (lambda a, b: np.histogram2d(a, b, bins=3), (np.arange(10), np.arange(10) % 3)),
    (lambda a, b: np.histogram2d(a, b, bins=2), (np.ones(5), np.arange(5.0))),
])
def test_compiled_histogram2d_equals_numpy(fn, args):
    for got, want in zip(ag.function(fn)(*args), fn(*args)):
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 30), elements=st.floats(-100, 100)), st.integers(1, 6))
def test_eager_histogram2d_equals_numpy(x, bins):
    y = x[::-1] * 0.5
    for got, want in zip(np.histogram2d(ag.constant(x), ag.constant(y), bins=bins), np.histogram2d(x, y, bins=bins)):
        np.testing.assert_array_equal(np.asarray(got), want)


def test_samples_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match=r"np\.histogram2d: x and y must have the same length"):
        ag.function(lambda a, b: np.histogram2d(a, b))(_X, _Y[:10])
