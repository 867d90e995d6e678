"""np.unwrap, np.lexsort, np.choose on tensors (tracer/api/numpy_selection.py)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

_RNG = np.random.default_rng(0)
_WRAPPED = np.angle(np.exp(1j * np.cumsum(_RNG.standard_normal(20)) * 2))
_A, _B = np.array([3, 1, 2, 1, 3]), np.array([9, 4, 0, 4, 0])
_I = np.array([0, 1, 2, 1])
_C = [np.array([1, 2, 3, 4]), np.array([10, 20, 30, 40]), np.array([100, 200, 300, 400])]

_CASES = [
    ("unwrap", lambda p: np.unwrap(p), (_WRAPPED,)),
    ("unwrap along axis 0", lambda p: np.unwrap(p, axis=0), (np.stack([_WRAPPED, -_WRAPPED], 1),)),
    ("unwrap with a period", lambda p: np.unwrap(p, period=6.0), (np.array([0.0, 5.0, 10.0, 2.0, 7.0]),)),
    ("unwrap with discont", lambda p: np.unwrap(p, discont=4.0), (_WRAPPED,)),
    ("unwrap float32", lambda p: np.unwrap(p), (_WRAPPED.astype(np.float32),)),
    ("lexsort", lambda x, y: np.lexsort((x, y)), (_A, _B)),
    ("lexsort by three keys", lambda x, y: np.lexsort((y, x, y)), (_A, _B)),
    ("choose", lambda i: np.choose(i, _C), (_I,)),
    ("choose, wrap", lambda i: np.choose(i, _C, mode="wrap"), (_I + 2,)),
    ("choose, clip", lambda i: np.choose(i, _C, mode="clip"), (_I * 3 - 1,)),
    ("choose, broadcast", lambda i: np.choose(i, [0.5, np.arange(4.0)]), (np.array([[0, 1, 1, 0]] * 2),)),
]


@pytest.mark.parametrize("name, fn, args", _CASES, ids=[c[0] for c in _CASES])
def test_compiled_results_equal_numpy(name, fn, args):
    got, want = np.asarray(ag.function(fn)(*args)), fn(*args)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.int64, st.integers(1, 12), elements=st.integers(0, 3)), st.data())
def test_eager_lexsort_equals_numpy_with_ties(primary, data):
    secondary = data.draw(hnp.arrays(np.int64, primary.shape, elements=st.integers(0, 3)))
    got = np.asarray(np.lexsort((ag.constant(secondary), ag.constant(primary))))
    np.testing.assert_array_equal(got, np.lexsort((secondary, primary)))


def test_choose_reports_an_index_out_of_range():
    with pytest.raises(ag.errors.InvalidArgumentError, match=r"index 3 is out of bounds for axis 0 with size 3"):
        ag.function(lambda i: np.choose(i, _C))(_I + 3)


def test_choose_with_an_unknown_mode_says_which_exist():
    with pytest.raises(ValueError, match=r"clipmode not understood \(got 'fold'\); use 'raise', 'wrap' or 'clip'"):
        ag.function(lambda i: np.choose(i, _C, mode="fold"))(_I)
