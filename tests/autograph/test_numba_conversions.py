"""Numba habits that convert (API.md §9): `complex(x, y)`, NumPy scalar
types as casts (`np.float64(i)`), the in-place statements `x.sort()` and
`x.fill(v)`, and a compiled `if` of two Python ints, which stands for a
Python int (it adopts the dtype of the tensors it meets).

Each is checked against plain Python/NumPy running the same function, and
the refusals keep their clear messages.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import autograph as ag


def _run(f, *args):
    return ag.function(f)(*args)


# ------------------------------------------------------------ complex()

def escape_count(cx, cy, max_iter):
    c = complex(cx, cy)
    z = 0.0j
    for i in range(max_iter):
        z = z * z + c
        if abs(z) > 2.0:
            return i
    return max_iter


def test_complex_builtin_of_traced_floats():
    for cx, cy in ((-0.75, 0.1), (0.3, 0.5), (-2.0, 0.0), (0.0, 0.0)):
        got = _run(escape_count, np.float64(cx), np.float64(cy), 30)
        assert int(got) == escape_count(cx, cy, 30)

    def parts(x, y):
        c = complex(x, y)
        return c, complex(x), complex(x, 2.0), c.real, c.imag
    x, y = np.float64(1.5), np.float64(-0.25)
    got = _run(parts, x, y)
    want = parts(float(x), float(y))
    for g, w in zip(got, want):
        assert np.asarray(g).dtype in (np.complex128, np.float64)
        assert complex(np.asarray(g)) == complex(w)
    assert np.asarray(got[0]).dtype == np.complex128


# ------------------------------------------------------------ np.float64(t) & co.

def casts(x, k):
    s = 0.0
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        s += np.float64(i) * x[i]
        out[i] = np.int64(x[i] * 10.0)
    return s, out, np.float32(s), np.uint8(k), np.int32(k) * np.int32(3), np.bool_(k)


@pytest.mark.parametrize("k", [np.int64(300), np.int64(0)])
def test_numpy_scalar_types_cast_traced_values(k):
    x = np.array([0.15, -2.7, 3.99, 0.0])
    got = _run(casts, x, k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # NumPy warns on uint8(300) of a NumPy int
        want = casts(x, k)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, (g, w)
        np.testing.assert_allclose(g, w, rtol=1e-15)


def test_numpy_scalar_type_of_a_python_value_is_untouched():
    f = ag.function(lambda x: x * np.float64(2.5) + np.float64(1))
    assert np.asarray(f(np.array([1.0]))).tolist() == [3.5]


# ------------------------------------------------------------ x.sort(), x.fill(v)

def sorts_and_fills(x, n):
    y = x.copy()
    y.sort()
    m = x.reshape(2, -1).copy()
    m.sort(axis=0)
    z = np.empty(n, dtype=np.int64)
    z.fill(2.7)                  # cast to the array's dtype, as NumPy's fill
    w = np.empty_like(x)
    w.fill(x[0])
    names = [3, 1, 2]
    names.sort()                 # a Python list: its own sort
    for i in range(x.shape[0]):
        if x[i] > 0.9:           # in a compiled loop and branch: a loop variable
            w.fill(-1.0)
    return y, m, z, w, names[0]


def test_sort_and_fill_statements_are_functional_updates():
    x = np.array([0.3, 0.95, 0.1, 0.5, 0.7, 0.2])
    got = _run(sorts_and_fills, x, 3)
    want = sorts_and_fills(x.copy(), 3)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    assert np.asarray(got[2]).dtype == np.int64


def test_sort_of_an_argument_warns_and_leaves_the_caller_array():
    def sort_arg(x):
        x.sort()
        return x
    x = np.array([3.0, 1.0, 2.0])
    with pytest.warns(ag.errors.ArgumentWriteWarning, match="'x' is an argument"):
        got = _run(sort_arg, x)
    assert np.asarray(got).tolist() == [1.0, 2.0, 3.0]
    assert x.tolist() == [3.0, 1.0, 2.0]


def test_sort_of_a_non_name_is_still_refused():
    def sort_row(x):
        x[0].sort()
        return x
    with pytest.raises(TypeError, match=r"x.sort\(\) sorts an array in place"):
        _run(sort_row, np.ones((2, 2)))


# ------------------------------------------------------------ `0 if c else 1`

def edit_distance(a, b):
    d = np.zeros((a.shape[0] + 1, b.shape[0] + 1), dtype=np.int64)
    for i in range(a.shape[0] + 1):
        d[i, 0] = int(i)
    for j in range(b.shape[0] + 1):
        d[0, j] = int(j)
    for i in range(1, a.shape[0] + 1):
        for j in range(1, b.shape[0] + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[-1, -1]


def weak_ints(x, flag):
    total = 0                               # a loop variable from a Python int
    hits = 0
    for i in range(x.shape[0]):
        step = 1 if x[i] > 2 else -1        # adopts int64 below, float64 further down
        if step > 0:
            bump = step * 2 + 1             # arithmetic with Python ints stays weak
        else:
            bump = 0
        total = total + x[i] * step
        hits += bump
    big = 3_000_000_000 if flag > 0 else 1  # beyond int32: int64
    scale = x.astype(np.float64) * (2 if flag > 0 else 3)
    alone = 5 if flag > 0 else 7            # meets no tensor: int32, as a Python int alone
    return total, hits, x + big, scale, alone


def test_if_of_two_python_ints_adopts_the_dtype_it_meets():
    rng = np.random.default_rng(3)
    for _ in range(3):
        a, b = rng.integers(0, 3, 7), rng.integers(0, 3, 5)
        assert int(_run(edit_distance, a, b)) == edit_distance(a, b)
    x = np.array([1, 5, 3, 0, 7], np.int64)
    for flag in (np.int64(1), np.int64(-1)):
        got = _run(weak_ints, x, flag)
        want = weak_ints(x, flag)
        dtypes = [np.int64, np.int32, np.int64, np.float64, np.int32]
        for g, w, dt in zip(got, want, dtypes):
            assert np.asarray(g).dtype == dt, (g, dt)
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_if_of_two_python_floats_is_still_a_strong_float32():
    # (a weak float would be rounded to float32 before it met a float64 tensor)
    def f(x):
        s = 0.5 if x[0] > 0 else 2.0
        return x * s
    with pytest.raises(TypeError, match="multiply: the operands have different dtypes"):
        _run(f, np.array([1.0]))


# ------------------------------------------------------------ the refusals' messages

def test_dtype_messages_name_the_cast_numpy_would_have_made():
    def store(x):
        out = np.zeros(x.shape[0], dtype=np.int64)
        for i in range(x.shape[0]):
            out[i] = i
        return out

    def scale(x):
        n = 0
        for v in x:
            n += 1
        return 2.5 * n
    with pytest.raises(TypeError, match=r"set_item: cannot assign an int32 value to an int64 "
                                        r"tensor; use ag\.cast\(value, ag\.int64\) to convert it "
                                        r"\(NumPy would have cast it to int64 silently"):
        _run(store, np.ones(3))
    with pytest.raises(TypeError, match=r"multiply: cannot use the float 2\.5 with a tensor of "
                                        r"dtype int32; use ag\.cast\(x, ag\.float64\) .*NumPy "
                                        r"would have promoted to float64"):
        _run(scale, np.ones(3))


# ------------------------------------------------------------ x.shape given to NumPy's own code

def test_static_dimensions_are_ints_to_numpy_code():
    # NumPy's C functions read `a.shape` with operator.index: a static dimension answers
    def flat_positions(a):
        rows, cols = np.array([1, 2]), np.array([0, 3])
        return np.ravel_multi_index((rows, cols), a.shape), a[rows, cols]
    a = np.arange(12.0).reshape(3, 4)
    got = ag.function(flat_positions)(a)
    want = flat_positions(a)
    np.testing.assert_array_equal(np.asarray(got[0]), want[0])
    np.testing.assert_array_equal(np.asarray(got[1]), want[1])
    # a dimension known only at run time is still refused
    f = ag.function(lambda a: np.ravel_multi_index((np.array([0]), np.array([1])), a.shape),
                    input_signature=[ag.TensorSpec([None, 4], ag.float64)])
    with pytest.raises(TypeError, match="traced tensor as a Python integer"):
        f(a)


# ------------------------------------------------------------ np.vectorize

def _soft_clip(t):
    if t > 0.5:
        return 1.0 / (1.0 + math.exp(-t))
    return t * 0.5


def vectorized(x, y):
    f = np.vectorize(_soft_clip)
    g = np.vectorize(lambda a, b: a * b + 1, otypes=[np.float32])
    h = np.vectorize(lambda a: a > 0.3)
    return f(x), g(x, y), h(x), f(x[0])


def test_np_vectorize_converts_the_scalar_function_into_a_compiled_loop():
    x = np.random.default_rng(5).random((3, 4))
    y = np.linspace(-1.0, 1.0, 4)
    got = ag.function(vectorized)(x, y)
    for g, w in zip(got, vectorized(x, y)):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6)
    graph = str(ag.function(vectorized).get_concrete_function(x, y).graph)
    assert "while" in graph


def test_np_vectorize_refusals():
    pair = np.vectorize(lambda a: (a, a))
    with pytest.raises(TypeError, match="np.vectorize: a function returning several values"):
        ag.function(lambda x: pair(x))(np.ones(3))
    sig = np.vectorize(lambda a: a.sum(), signature="(n)->()")
    with pytest.raises(TypeError, match=r"np.vectorize: signature= is not supported"):
        ag.function(lambda x: sig(x))(np.ones((2, 3)))
