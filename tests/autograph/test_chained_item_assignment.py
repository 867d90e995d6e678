"""`a[i][j] = v` and `a[i][j] += v`, as NumPy users write them
(autograph/converter/slices.py, autograph/operators/slices.py).

Differential: each function runs as plain Python on NumPy arrays and
compiled; on a tensor the chain is one functional update when every index
but the last is a single integer, and a clear error otherwise."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag


def fill_table(n, m):
    a = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            a[i][j] = i * 10 + j
    return a


def aug_rows(x):
    a = np.zeros((3, 4))
    for i in range(3):
        a[i][1] += x[i]
        a[i][2:] *= 0.5
        a[i][2:] += x[i] * 2
    a[0][0] -= 1.0
    return a


def three_levels(x):
    a = np.zeros((2, 3, 4))
    for i in range(2):
        for j in range(3):
            a[i][j][j] = x[i] + j
            a[i][j, 1:3] += 1.0
    return a


def list_of_arrays(x):
    rows = [np.zeros(3), np.zeros(3)]
    rows[1][0] = x[0]
    rows[0][2] += x[1]
    table = [[1.0, 2.0], [3.0, 4.0]]
    table[1][0] *= 5.0
    return rows[0], rows[1], table[1][0]


CASES = [(fill_table, (3, 4)), (aug_rows, (np.arange(3.0),)), (three_levels, (np.array([1.5, -2.0]),)),
         (list_of_arrays, (np.array([7.0, 8.0]),))]


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_matches_python(fn, args):
    want = fn(*[np.array(a) if isinstance(a, np.ndarray) else a for a in args])
    got = ag.function(fn)(*args)
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    else:
        np.testing.assert_array_equal(np.asarray(got), want)


def test_traced_integer_index():
    @ag.function
    def f(x, k):
        a = np.zeros((3, 3))
        a[k][k] = x
        return a
    want = np.zeros((3, 3))
    want[2][2] = 4.0
    np.testing.assert_array_equal(np.asarray(f(4.0, ag.constant(2))), want)


def test_earlier_slice_is_refused_with_the_line():
    @ag.function
    def f(x):
        a = np.zeros((3, 4))
        a[1:][0] = x
        return a
    with pytest.raises(TypeError, match=r"a chained item assignment `x\[a\]\[b\] = v` on a tensor "
                                        r"is supported when every index but the last is a single "
                                        r"integer(.|\n)*test_chained_item_assignment.py(.|\n)*"
                                        r"a\[1:\]\[0\] = x"):
        f(1.0)
