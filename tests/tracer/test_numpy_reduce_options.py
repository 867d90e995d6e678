"""dtype=, where= and initial= of NumPy's reductions on tensors
(tracer/api/numpy_reduce_options.py): NumPy's values and dtypes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

_X = np.arange(12.0).reshape(3, 4) - 5
_I8 = (np.arange(12, dtype=np.int8) * 20).reshape(3, 4)

_CASES = [
    ("sum in a wider dtype", lambda a: np.sum(a, dtype=np.int64), _I8),
    ("sum where", lambda a: np.sum(a, where=a > 0), _X),
    ("sum where, an axis", lambda a: np.sum(a, axis=1, where=a > 0), _X),
    ("sum where, a broadcast mask", lambda a: np.sum(a, axis=0, where=np.array([True, False, True, True])), _X),
    ("sum from initial", lambda a: np.sum(a, initial=5.0), _X),
    ("prod where", lambda a: np.prod(a, where=a > 0), _X),
    ("max from initial", lambda a: np.max(a, initial=100.0), _X),
    ("max where with initial", lambda a: np.max(a, axis=0, where=a < 0, initial=-10.0), _X),
    ("amax keepdims where", lambda a: np.amax(a, axis=1, keepdims=True, where=a > 0, initial=0.0), _X),
    ("min from initial", lambda a: np.min(a, axis=1, initial=-7.0), _X),
    ("mean where", lambda a: np.mean(a, where=a > 0), _X),
    ("mean where, an axis", lambda a: np.mean(a, axis=0, where=a > -3), _X),
    ("mean in float32", lambda a: np.mean(a, dtype=np.float32), _X),
    ("mean of ints where", lambda a: np.mean(a, where=a > 50), _I8),
]


@pytest.mark.parametrize("name, fn, arg", _CASES, ids=[c[0] for c in _CASES])
def test_compiled_reductions_with_options_equal_numpy(name, fn, arg):
    got, want = np.asarray(ag.function(fn)(arg)), np.asarray(fn(arg))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5), elements=st.integers(-50, 50)),
       st.integers(-20, 20))
def test_eager_masked_integer_sums_and_maxima_equal_numpy(x, cut):
    t = ag.constant(x)
    mask = x > cut
    for fn in (lambda a: np.sum(a, where=mask, axis=0), lambda a: np.max(a, where=mask, initial=-99, axis=-1),
               lambda a: np.prod(a % 3 + 1, where=mask), lambda a: np.sum(a, dtype=np.int64, initial=7)):
        got, want = np.asarray(fn(t)), np.asarray(fn(x))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_max_where_without_initial_says_what_numpy_says():
    with pytest.raises(ValueError, match=r"reduction operation 'maximum' does not have an identity, so to use "
                                         r"a where mask one has to specify 'initial'"):
        ag.function(lambda a: np.max(a, where=a > 0))(_X)


def test_a_mask_that_is_not_boolean_is_refused():
    with pytest.raises(TypeError, match=r"where= must be a boolean mask, got a tensor of dtype float64"):
        ag.function(lambda a: np.sum(a, where=a))(_X)
