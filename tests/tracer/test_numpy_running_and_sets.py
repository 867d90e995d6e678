"""`ufunc.accumulate` of the exact ufuncs (tracer/api/numpy_accumulate.py),
the set routines (tracer/api/numpy_sets.py), `np.unique(return_inverse=True)`,
`np.dstack`/`np.atleast_3d` and `np.ediff1d`, on traced tensors, against
NumPy running the same calls (bit-exact: none of these rounds).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

SETTINGS = settings(max_examples=15, deadline=None)


def _exact(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


ACCUMULATE = {
    "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin,
}


def _running(x, axis):
    return tuple(ufunc.accumulate(x, axis=axis) for ufunc in ACCUMULATE.values())


_RUNNING = {}


@SETTINGS
@given(x=hnp.arrays(np.float64, (4, 7),
                    elements=st.sampled_from([-np.inf, -2.5, -0.0, 0.0, 1.0, 3.5, np.inf, np.nan])),
       axis=st.sampled_from([0, 1, -1]))
def test_accumulate_of_floats_matches_numpy(x, axis):
    # one shape: a trace per axis (hypothesis varies the values)
    f = _RUNNING.setdefault("f", ag.function(_running))
    for g, w in zip(f(x, axis), _running(x, axis)):
        _exact(g, w)


def test_accumulate_of_ints_and_bools():
    i = np.array([[5, -3, 9, 9, 2], [0, 7, 7, -8, 1]], np.int32)
    b = np.array([False, False, True, False, True])

    def f(i, b):
        return (np.maximum.accumulate(i, axis=1), np.minimum.accumulate(i), np.logical_or.accumulate(b),
                np.logical_and.accumulate(~b), np.bitwise_xor.accumulate(i, axis=1),
                np.bitwise_or.accumulate(i[0]), np.bitwise_and.accumulate(i[1]))
    for g, w in zip(ag.function(f)(i, b), f(i, b)):
        _exact(g, w)


def test_accumulate_refusals():
    with pytest.raises(TypeError, match=r"np\.maximum\.accumulate: the dtype= argument has no "
                                        r"autograph equivalent"):
        ag.function(lambda x: np.maximum.accumulate(x, dtype=np.float32))(np.ones(3))
    with pytest.raises(TypeError, match=r"np\.subtract\.accumulate has no autograph equivalent"):
        ag.function(lambda x: np.subtract.accumulate(x))(np.ones(3))
    with pytest.raises(ValueError, match=r"axis 2 is out of bounds for a tensor of rank 1"):
        ag.function(lambda x: np.maximum.accumulate(x, axis=2))(np.ones(3))


def _sets(a, b):
    return (np.union1d(a, b), np.intersect1d(a, b), np.setdiff1d(a, b), np.setxor1d(a, b),
            np.intersect1d(b, a))


_SETS = ag.function(_sets, input_signature=[ag.TensorSpec([None], ag.int64),
                                             ag.TensorSpec([None], ag.int64)])


@SETTINGS
@given(a=hnp.arrays(np.int64, st.integers(0, 8), elements=st.integers(-3, 3)),
       b=hnp.arrays(np.int64, st.integers(0, 6), elements=st.integers(-3, 3)))
def test_set_routines_match_numpy(a, b):
    # one trace of unknown lengths; 2-D inputs are in the test below
    for g, w in zip(_SETS(a, b), _sets(a, b)):
        _exact(g, w)


def test_set_routines_with_floats_nans_and_run_time_lengths():
    a = np.array([[2.0, np.nan, 1.0], [2.0, -0.5, 7.0]])
    b = np.array([2.0, 5.0, np.nan, -0.5])

    def f(a, b):
        picked = a[a > 0]                    # a length known only at run time
        return (_sets(a, b) + _sets(picked, b) +
                (np.setdiff1d(np.unique(a), b, assume_unique=True), np.union1d(a.astype(np.float32), b)))
    for g, w in zip(ag.function(f)(a, b), f(a, b)):
        _exact(g, w)
    with pytest.raises(TypeError, match=r"np\.intersect1d: the return_indices= argument"):
        ag.function(lambda a: np.intersect1d(a, a, return_indices=True))(a)


def test_unique_return_inverse():
    def f(x):
        values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
        kept = np.unique(x[x > 1], return_inverse=True)
        return values, inverse, counts, kept[0], kept[1], values[inverse]
    for x in (np.array([[3, 1, 4], [1, 5, 9], [2, 6, 5]]),
              np.array([2.0, np.nan, 1.0, np.nan, 2.0]), np.array([], np.int32)):
        for g, w in zip(ag.function(f)(x), f(x)):
            _exact(g, w)


def test_dstack_atleast_3d_and_ediff1d():
    a, b = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    v = np.array([1, 4, 9, 16], np.int64)

    def f(a, b, v):
        return (np.dstack((a, b)), np.dstack([v, v]), np.atleast_3d(v), np.atleast_3d(a),
                np.atleast_3d(a[None]), np.ediff1d(a), np.ediff1d(v, to_begin=[-1, 0], to_end=99),
                np.ediff1d(v[:1]))
    for g, w in zip(ag.function(f)(a, b, v), f(a, b, v)):
        _exact(g, w)
