"""np.modf, np.divmod, np.cumulative_sum/prod (tracer/api/numpy_pairs.py) and np.nanprod:
NumPy's values, signs of zero, NaN and dtypes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

_SPECIAL = np.array([-0.5, -3.0, np.inf, -np.inf, np.nan, 2.5, 0.0, -0.0])


def _same(got, want):
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


_CASES = [
    ("modf of specials", lambda v: np.modf(v), _SPECIAL),
    ("modf of float32", lambda v: np.modf(v), _SPECIAL.astype(np.float32)),
    ("modf of ints is float64", lambda v: np.modf(v), np.arange(-2, 3)),
    ("divmod of floats", lambda v: np.divmod(v, 2.0), np.array([7.0, -7.0, 7.5, -0.0])),
    ("divmod of ints", lambda v: np.divmod(v, 3), np.array([7, -7, 0])),
    ("cumulative_sum", lambda v: np.cumulative_sum(v), np.arange(5.0)),
    ("cumulative_sum with the initial 0", lambda v: np.cumulative_sum(v, axis=1, include_initial=True),
     np.ones((2, 3))),
    ("cumulative_prod with the initial 1", lambda v: np.cumulative_prod(v, include_initial=True), np.arange(1.0, 5.0)),
    ("cumulative_sum of bools", lambda v: np.cumulative_sum(v > 1), np.arange(5.0)),
    ("nanprod", lambda v: np.nanprod(v), np.array([[1.5, np.nan, 2.0], [np.nan, np.nan, 3.0]])),
    ("nanprod along an axis", lambda v: np.nanprod(v, axis=0, keepdims=True),
     np.array([[1.5, np.nan, 2.0], [np.nan, np.nan, 3.0]])),
]


@pytest.mark.parametrize("name, fn, arg", _CASES, ids=[c[0] for c in _CASES])
def test_compiled_results_equal_numpy(name, fn, arg):
    _same(ag.function(fn)(arg), fn(arg))


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 10),
                  elements=st.floats(-1e6, 1e6) | st.sampled_from([np.nan, np.inf, -0.0])))
def test_eager_modf_equals_numpy_for_any_values(x):
    _same(np.modf(ag.constant(x)), np.modf(x))


def test_cumulative_sum_of_a_matrix_needs_an_axis():
    with pytest.raises(ValueError, match=r"For arrays which have more than one dimension ``axis`` "
                                         r"argument is required"):
        ag.function(lambda v: np.cumulative_sum(v))(np.ones((2, 2)))


def test_modf_of_complex_is_refused_as_numpy_refuses_it():
    with pytest.raises(TypeError, match=r"np\.modf: ufunc 'modf' not supported for complex input"):
        ag.function(lambda v: np.modf(v))(np.ones(2, complex))
