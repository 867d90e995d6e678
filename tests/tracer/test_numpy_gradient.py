"""np.gradient on tensors (tracer/api/numpy_gradient.py): bit-exact with NumPy,
compiled and eager, for spacings, coordinates, axes, edge orders and dtypes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

_RNG = np.random.default_rng(3)


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def _coords(n):
    return np.cumsum(_RNG.random(n) + 0.1)


_CASES = [
    ("unit", lambda f: np.gradient(f), (_RNG.standard_normal(7),)),
    ("spacing, second order", lambda f: np.gradient(f, 0.3, edge_order=2), (_RNG.standard_normal(7),)),
    ("coordinates", lambda f, x: np.gradient(f, x), (_RNG.standard_normal(7), _coords(7))),
    ("coordinates, second order", lambda f, x: np.gradient(f, x, edge_order=2),
     (_RNG.standard_normal(7), _coords(7))),
    ("evenly spaced coordinates", lambda f, x: np.gradient(f, x, edge_order=2),
     (_RNG.standard_normal(6), np.arange(6) * 0.25)),
    ("2-D, every axis", lambda f: np.gradient(f), (_RNG.standard_normal((4, 5)),)),
    ("2-D, one axis", lambda f: np.gradient(f, 2.0, axis=-1), (_RNG.standard_normal((4, 5)),)),
    ("2-D, coordinates per axis", lambda f, a, b: np.gradient(f, a, b, edge_order=2),
     (_RNG.standard_normal((4, 5)), _coords(4), _coords(5))),
    ("integers in float64", lambda f: np.gradient(f), (np.array([1, 4, 9, 16, 25]),)),
    ("float32", lambda f: np.gradient(f), (_RNG.standard_normal(6).astype(np.float32),)),
    ("float32 with float64 coordinates", lambda f, x: np.gradient(f, x),
     (_RNG.standard_normal(6).astype(np.float32), _coords(6))),
    ("two points", lambda f: np.gradient(f), (np.array([1.0, 3.0]),)),
]


@pytest.mark.parametrize("name, fn, args", _CASES, ids=[c[0] for c in _CASES])
def test_compiled_gradient_equals_numpy_bit_for_bit(name, fn, args):
    _same(ag.function(fn)(*args), fn(*args))


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=3, max_side=6),
                  elements=st.floats(-1e3, 1e3)),
       st.sampled_from([1, 2]), st.floats(0.01, 10.0))
def test_eager_gradient_equals_numpy_for_any_shape(f, edge_order, h):
    _same(np.gradient(ag.constant(f), h, edge_order=edge_order), np.gradient(f, h, edge_order=edge_order))
    x = np.cumsum(np.linspace(0.5, 1.5, f.shape[0]))
    _same(np.gradient(ag.constant(f), x, axis=0, edge_order=edge_order),
          np.gradient(f, x, axis=0, edge_order=edge_order))


@pytest.mark.parametrize("fn, args, error, message", [
    (lambda f: np.gradient(f, edge_order=2), (np.array([1.0, 3.0]),), ValueError,
     r"np\.gradient: Shape of array too small to calculate a numerical gradient, at least "
     r"\(edge_order \+ 1\) = 3 elements are required"),
    (lambda f, x: np.gradient(f, x), (np.ones(5), np.arange(3.0)), ValueError,
     r"distances must match the length of the corresponding dimension"),
    (lambda f: np.gradient(f, 1.0, 2.0, 3.0), (np.ones((3, 3)),), TypeError,
     r"np\.gradient: invalid number of arguments"),
    (lambda f: np.gradient(f, edge_order=3), (np.ones(5),), ValueError, r"'edge_order' greater than 2"),
    (lambda f: np.gradient(f), (np.float64(2.0),), ValueError, r"at least one dimension"),
])
def test_errors_say_what_numpy_says(fn, args, error, message):
    with pytest.raises(error, match=message):
        ag.function(fn)(*args)
