"""np.append, insert, delete, resize, block on tensors (tracer/api/numpy_editing.py):
NumPy's values, dtypes and shapes, compiled and eager."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

_X = np.arange(6.0)
_I = np.arange(5)
_M = np.arange(12).reshape(3, 4)

_CASES = [
    ("append", lambda a: np.append(a, 1.5), _X),
    ("append a float to ints: float64", lambda a: np.append(a, 1.5), _I),
    ("append a list", lambda a: np.append(a, [7, 8]), _I),
    ("append along an axis", lambda m: np.append(m, m[:1], axis=0), _M),
    ("append flattens", lambda m: np.append(m, [1, 2]), _M),
    ("insert", lambda a: np.insert(a, 2, 9.0), _X),
    ("insert a block", lambda a: np.insert(a, 1, [7, 8, 9]), _I),
    ("insert at unsorted, repeated positions", lambda a: np.insert(a, [1, 3, 1], [10, 20, 30]), _I),
    ("insert at the end and from the end", lambda a: np.insert(np.insert(a, 5, 99), -1, 98), _I),
    ("insert casts to the array's dtype", lambda a: np.insert(a, 1, 2.7), _I),
    ("insert a row", lambda m: np.insert(m, 1, 0, axis=0), _M),
    ("insert a column", lambda m: np.insert(m, 1, [5, 6, 7], axis=1), _M),
    ("insert columns", lambda m: np.insert(m, [0, 2], [[1], [2], [3]], axis=1), _M),
    ("insert at a slice", lambda a: np.insert(a, slice(0, 4, 2), -1), _I),
    ("delete", lambda a: np.delete(a, 2), _X),
    ("delete a list", lambda a: np.delete(a, [0, -1]), _X),
    ("delete a slice", lambda a: np.delete(a, slice(None, None, 2)), _X),
    ("delete a column", lambda m: np.delete(m, 1, axis=1), _M),
    ("delete by a mask", lambda a: np.delete(a, np.array([True, False] * 3)), _X),
    ("delete flattens", lambda m: np.delete(m, [0, 5]), _M),
    ("resize up", lambda a: np.resize(a, (3, 5)), _X),
    ("resize down", lambda a: np.resize(a, 4), _X),
    ("block of matrices", lambda m: np.block([[m, m], [m, m]]), _M),
    ("block of vectors", lambda a: np.block([a, a]), _X),
    ("block of mixed shapes", lambda m: np.block([[m, np.zeros((3, 1), int)], [np.ones((1, 5), int)]]), _M),
    ("block promotes", lambda a: np.block([a, np.arange(3)]), _X),
]


def _same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name, fn, arg", _CASES, ids=[c[0] for c in _CASES])
def test_compiled_edits_equal_numpy(name, fn, arg):
    _same(ag.function(fn)(arg), fn(arg))


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.int64, st.integers(1, 8)), st.data())
def test_eager_insert_and_delete_equal_numpy(x, data):
    n = x.shape[0]
    pos = data.draw(st.lists(st.integers(-n, n), min_size=1, max_size=4))
    values = data.draw(st.lists(st.integers(-9, 9), min_size=len(pos), max_size=len(pos)))
    _same(np.insert(ag.constant(x), pos, values), np.insert(x, pos, values))
    drop = data.draw(st.lists(st.integers(-n, n - 1), max_size=4))
    _same(np.delete(ag.constant(x), drop), np.delete(x, np.array(drop, dtype=np.int64)))


@pytest.mark.parametrize("fn, error, message", [
    (lambda a: np.delete(a, 9), IndexError, r"np\.delete: index 9 is out of bounds for axis with size 6"),
    (lambda a: np.insert(a, 8, 0.0), IndexError, r"np\.insert: index 8 is out of bounds for axis with size 6"),
    (lambda a: np.delete(a, np.array([True, False])), ValueError,
     r"must be one dimensional and match the axis length of 6"),
    (lambda a: np.block([[a], []]), ValueError, r"np\.block: Lists cannot be empty"),
    (lambda a: np.block([a, [a]]), ValueError, r"np\.block: List depths are mismatched"),
    (lambda a: np.resize(a, -1), ValueError, r"all elements of `new_shape` must be non-negative"),
    (lambda a: np.append(a.reshape(2, 3), a, axis=0), ValueError,
     r"np\.append: all the input arrays must have the same number of dimensions"),
    (lambda a: np.delete(a, a > 2), TypeError, r"np\.delete.*positions \(obj\) that are tensors"),
])
def test_errors_say_what_numpy_says(fn, error, message):
    with pytest.raises(error, match=message):
        ag.function(fn)(_X)
