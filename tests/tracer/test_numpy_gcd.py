"""np.gcd and np.lcm on tensors (tracer/api/numpy_gcd.py): Euclid's algorithm on every
element in one compiled loop, equal to NumPy's."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

_RNG = np.random.default_rng(0)
_A = _RNG.integers(-10**6, 10**6, 40)
_B = _RNG.integers(-10**6, 10**6, 40)
_A[3], _B[:3] = 0, 0


@pytest.mark.parametrize("fn, args", [
    (lambda x, y: np.gcd(x, y), (_A, _B)),
    (lambda x, y: np.lcm(x, y), (_A % 1000, _B % 1000)),
    (lambda x: np.gcd(x, 12), (_A,)),
    (lambda x, y: np.gcd(x[:, None], y[None, :5]), (_A[:4], _B)),
    # consecutive Fibonacci numbers: Euclid's longest runs
    (lambda x, y: np.gcd(x, y), (np.array([7540113804746346429, 2**62, 0, -12]),
                                 np.array([4660046610375530309, 3, 5, 18]))),
    (lambda x, y: np.gcd(x, y), (_A.astype(np.int32), _B.astype(np.int32))),
    (lambda x, y: np.lcm(x, y), (np.arange(20, dtype=np.uint8), np.full(20, 12, np.uint8))),
])
def test_compiled_gcd_and_lcm_equal_numpy(fn, args):
    got, want = np.asarray(ag.function(fn)(*args)), fn(*args)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.int64, st.integers(0, 12), elements=st.integers(-10**9, 10**9)), st.data())
def test_eager_gcd_and_lcm_equal_numpy(x, data):
    y = data.draw(hnp.arrays(np.int64, x.shape, elements=st.integers(-10**4, 10**4)))
    np.testing.assert_array_equal(np.asarray(np.gcd(ag.constant(x), ag.constant(y))), np.gcd(x, y))
    np.testing.assert_array_equal(np.asarray(np.lcm(ag.constant(x % 10**4), ag.constant(y))),
                                  np.lcm(x % 10**4, y))


def test_floats_are_refused_as_numpy_refuses_them():
    with pytest.raises(TypeError, match=r"np\.gcd: ufunc 'gcd' did not contain a loop"):
        ag.function(lambda x: np.gcd(x, 2))(np.ones(3))
