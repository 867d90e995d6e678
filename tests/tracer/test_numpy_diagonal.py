"""Diagonals of any rank (tracer/api/numpy_diagonal.py): np.diagonal and np.trace with any
axes and offsets, and einsum's repeated indices, equal to NumPy's."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

_RNG = np.random.default_rng(1)
_M = _RNG.standard_normal((4, 4))
_B = _RNG.standard_normal((2, 3, 3))
_T = _RNG.standard_normal((3, 4, 3, 5))


@pytest.mark.parametrize("fn, arg", [
    (lambda m: np.einsum("ii", m), _M),
    (lambda m: np.einsum("ii->i", m), _M),
    (lambda b: np.einsum("bii->bi", b), _B),
    (lambda b: np.einsum("bii->b", b), _B),
    (lambda m: np.einsum("ij,jj->i", m, m), _M),
    (lambda t: np.diagonal(t, 0, 0, 2), _T),
    (lambda t: np.diagonal(t, 1, 2, 0), _T),
    (lambda m: np.diagonal(m, -2), _M),
    (lambda t: np.trace(t, 0, 0, 2), _T),
    (lambda t: np.trace(t, -1, 2, 0), _T),
    (lambda b: b.diagonal(0, 1, 2), _B),
])
def test_compiled_diagonals_equal_numpy(fn, arg):
    got, want = np.asarray(ag.function(fn)(arg)), fn(arg)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=2, max_dims=4, max_side=4)), st.data())
def test_eager_diagonal_of_any_axes_equals_numpy(x, data):
    a1 = data.draw(st.integers(0, x.ndim - 1))
    a2 = data.draw(st.integers(0, x.ndim - 1).filter(lambda a: a != a1))
    k = data.draw(st.integers(-4, 4))
    np.testing.assert_array_equal(np.asarray(np.diagonal(ag.constant(x), k, a1, a2)), np.diagonal(x, k, a1, a2))


def test_the_same_axis_twice_is_refused_as_numpy_refuses_it():
    with pytest.raises(ValueError, match=r"axis1 and axis2 cannot be the same"):
        ag.function(lambda t: np.diagonal(t, 0, 1, 1))(_T)
