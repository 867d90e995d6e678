"""The NumPy habits npbench's kernels needed that were missing (API.md §9):

* `a[i] = b[j] = v` and `a[i], b[j] = f()` (converter/multi_targets.py);
* `a[mask] = values` with one value per true element (tracer/api/masks.py);
* a ufunc's `outer` method, `np.add.outer(a, b)` (numpy_protocol.py);
* `@` of stacks of matrices, NumPy's batched matmul (batched_matmul.py);
* the `np.ndarray(shape, dtype)` constructor (numpy_creation.py);
* `<<` and `>>` on tensors (tracing/tensor_ops.py);
* `if n & 1:`, `while n:`, `not n`, `a if n else b` on a traced number:
  Python's truth, `n != 0` (operators/truth.py); `ag.cond` stays strict;
* an `if` whose condition the trace computes from constants (static
  shapes: `if a.shape[0] != b.shape[0]: raise ...`) runs as Python's `if`
  (tracer/tracing/known_values.py); `np.shares_memory` of tensors;
* no UnrolledLoopWarning for `for i in range(100)` with a traced `break`
  (npbench's Krylov solvers): the rest of the range compiles.

Differential: compiled against the same function run on NumPy.
"""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

SETTINGS = settings(max_examples=10, deadline=None)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def _check(f, *args):
    got, want = ag.function(f)(*args), f(*args)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        _same(g, w)


# ------------------------------------------------------- several targets


def chained(x):
    c = np.zeros((3, 3))
    for i in range(2):
        c[i + 1:, i] = c[i, i + 1:] = x[i] * x[i + 1:]
    p = q = x[0]
    return c, p, q


def unpacked(x):
    a = np.zeros(3)
    b = np.zeros(4)
    a[0], (b[1], c) = x[0], (x[1], x[2])
    a[1:], b[2] = x[1:3] * 2, x[0]
    return a, b, c


def same_array_twice(x):
    a = np.zeros(3)
    a[0] = a[1] = x[0]      # both writes land, left to right
    a[2], a[2] = x[1], x[2]  # the later target wins, as in Python
    return a


@SETTINGS
@given(hnp.arrays(np.float64, 3, elements=st.floats(-5, 5)))
def test_several_targets_write_every_item(x):
    _check(chained, x)
    _check(unpacked, x)
    _check(same_array_twice, x)


def test_several_targets_keep_python_lists_and_starred():
    def f(x):
        box = [0, 0]
        box[0], box[1] = x[0], x[1]
        first, *rest = [x[0], x[1], x[2]]
        return box[0] + box[1] + first + rest[1]
    _check(f, np.arange(3.0))
    assert "unpacked" in ag.to_code(f)


# ------------------------------------------------------- masks with values


def per_true(x):
    y = x.copy()
    y[y > 0] = y[y > 0] ** -1.5
    return y


def rows_per_true(x):
    y = x.copy()
    m = y[:, 0] > 0
    y[m] = y[m] * 2.0 + 1.0
    return y


def mask_2d_of_3d(x):
    y = x.copy()
    m = x[:, :, 0] < 0
    y[m] = np.abs(y[m])
    return y


@SETTINGS
@given(hnp.arrays(np.float64, (4, 3), elements=st.floats(-5, 5).filter(lambda v: abs(v) > 1e-3)))
def test_mask_assignment_with_one_value_per_true_element(x):
    _check(per_true, x)
    _check(rows_per_true, x)
    _check(mask_2d_of_3d, x.reshape(2, 2, 3))


def test_mask_assignment_of_a_wrong_length_is_refused_at_run_time():
    def f(x, v):
        y = x.copy()
        y[y > 0.5] = v
        return y
    x = np.array([0.1, 0.7, 0.9, 0.2])
    g = ag.function(f)
    _same(g(x, np.array([5.0, 6.0])), f(x, np.array([5.0, 6.0])))
    _same(g(x, np.array([5.0])), f(x, np.array([5.0])))   # one value broadcasts
    with pytest.raises(ag.errors.InvalidArgumentError,
                       match=r"a\[mask\] = values needs one value per true element"):
        g(x, np.array([5.0, 6.0, 7.0]))
    with pytest.raises(TypeError, match=r"cannot assign a float32 value to a float64 tensor"):
        g(x, np.array([5.0, 6.0], np.float32))


# ------------------------------------------------------- ufunc.outer


def outers(a, b):
    return (np.add.outer(a, b), np.multiply.outer(a, b[0]), np.maximum.outer(a[0], b),
            np.subtract.outer(b, a), np.minimum.outer(a, 2.0))


def test_ufunc_outer_methods():
    a = np.arange(6.0).reshape(2, 3) - 2
    b = np.array([3.0, -1.0, 0.5, 2.0])
    _check(outers, a, b)
    _same(np.add.outer(ag.constant(a), ag.constant(b)), np.add.outer(a, b))   # eagerly too
    ints = np.arange(4, dtype=np.int32)
    _check(lambda p: np.minimum(p, np.add.outer(p[:, 1], p[1, :])), np.outer(ints, ints))


# ------------------------------------------------------- batched matmul

SHAPES = [((3, 4, 1, 5), (5, 5)), ((2, 3, 4), (4, 2)), ((3, 4), (2, 4, 5)),
          ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
          ((2, 3, 4), (4,))]


@pytest.mark.parametrize("sa,sb", SHAPES)
def test_matmul_of_stacks_broadcasts_as_numpy(sa, sb):
    rng = np.random.default_rng(1)
    a, b = rng.random(sa), rng.random(sb)
    _check(lambda p, q: p @ q, a, b)
    np.testing.assert_allclose(ag.matmul(a, b), a @ b, rtol=1e-12)
    ai, bi = (rng.integers(-9, 9, s).astype(np.int32) for s in (sa, sb))
    np.testing.assert_array_equal(ag.function(lambda p, q: np.matmul(p, q))(ai, bi), ai @ bi)


def test_matmul_of_stacks_errors_and_gradient():
    with pytest.raises(ValueError, match=r"matmul: the inner dimensions do not match: a has "
                                         r"shape \(2, 3, 4\) and b has shape \(2, 5, 4\)"):
        ag.function(lambda p, q: p @ q)(np.zeros((2, 3, 4)), np.zeros((2, 5, 4)))
    a = ag.Variable(np.arange(24.0).reshape(2, 3, 4) / 10)
    b = ag.constant(np.arange(8.0).reshape(4, 2))
    with ag.GradientTape() as tape:
        y = ag.reduce_sum(a @ b)
    np.testing.assert_allclose(tape.gradient(y, a), np.broadcast_to(b.numpy().sum(1), (2, 3, 4)))


# ------------------------------------------------------- np.ndarray, shifts


def test_ndarray_constructor():
    def f(x):
        n = x.shape[0]
        a = np.ndarray((n, 2), dtype=x.dtype)
        a[:, 0] = x
        b = np.ndarray(n + 1, dtype=np.int32)
        b[1:] = 1
        return a[:, 0], b
    got = ag.function(f)(np.arange(3.0))
    _same(got[0], np.arange(3.0))
    _same(got[1], np.array([0, 1, 1, 1], np.int32))   # zeros where NumPy leaves garbage

    def g(x):
        return np.ndarray((2,), buffer=x)
    with pytest.raises(TypeError, match=r"np\.ndarray: buffer=, offset= and strides= .* not "
                                        r"supported on tensors; use np\.empty"):
        ag.function(g)(np.arange(3.0))


def shifts(x, s):
    return x >> 1, x << s, 1 << s, x[0] >> s[0], (x & 0xF) << 2


@SETTINGS
@given(hnp.arrays(np.int64, 4, elements=st.integers(-2**40, 2**40)),
       hnp.arrays(np.int64, 4, elements=st.integers(0, 20)))
def test_shift_operators_on_tensors(x, s):
    _check(shifts, x, s)
    _same(ag.constant(x) >> ag.constant(s), x >> s)
    _same(3 << ag.constant(s), 3 << s)


# ------------------------------------------------------- truth of numbers


def parity_steps(data):
    crc = np.uint16(0xFFFF)
    for b in data:
        if (crc ^ b) & np.uint16(1):
            crc = (crc >> np.uint16(1)) ^ np.uint16(0x8408)
        else:
            crc = crc >> np.uint16(1)
    return crc


def popcount(n):
    count = 0
    while n:
        n &= n - 1
        count += 1
    return count


def float_truth(x):
    return (x[0] * 2.0 if x[1] else x[0] - 1.0), not x[2], (1 if x[3] else 0)


def test_number_conditions_are_python_truth():
    data = np.array([3, 8, 255, 0, 17], np.uint16)
    _same(ag.function(parity_steps)(data), parity_steps(data))
    for n in (np.int64(0), np.int64(1), np.int64(0b1011011), np.int64(2**40 - 1)):
        assert int(ag.function(popcount)(n)) == popcount(n)
    for x in (np.array([1.5, 0.0, 0.0, -0.5]), np.array([1.5, -2.0, 3.0, 0.0])):
        got, want = ag.function(float_truth)(x), float_truth(x)
        assert [np.asarray(g).item() for g in got] == [np.asarray(w).item() for w in want]


def test_ag_cond_still_needs_a_bool():
    def f(n):
        return ag.cond(n, lambda: n + 1, lambda: n - 1)
    with pytest.raises(ValueError, match=r"must be a bool scalar, got a tensor of type int64"):
        ag.function(f)(np.int64(3))


# ------------------------------------------------------- conditions known while tracing


def checked_add(a, b):
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"shapes differ: {a.shape} and {b.shape}")
    if a.shape[0] > 2:
        scale = 2.0            # defined on one path only: fine for a Python `if`
    else:
        scale = 1.0
    return (a + b) * scale if a.ndim == 1 else a - b


def test_conditions_on_static_shapes_run_as_python():
    a = np.arange(3.0)
    _check(checked_add, a, a)
    _check(checked_add, a[:2], a[:2])
    with pytest.raises(ValueError, match=r"shapes differ: \(3,\) and \(2,\)"):
        ag.function(checked_add)(a, a[:2])
    graph = str(ag.function(checked_add).get_concrete_function(a, a).graph)
    assert "cond" not in graph

    def data_condition(a):
        return a * 2.0 if a[0] > 0 else a   # a condition on data still compiles
    assert "cond" in str(ag.function(data_condition).get_concrete_function(a).graph)


def test_shares_memory_of_tensors():
    def f(a):
        b = np.transpose(a).copy()
        c = a
        return np.shares_memory(a, b), np.may_share_memory(a, c)
    assert ag.function(f)(np.ones((2, 3))) == (False, True)


def halve_until_small(x):
    s = x[0]
    for i in range(500):
        s = s * 0.5
        if s < 1e-3:
            break
    return s


def test_a_range_loop_that_compiles_after_a_break_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ag.errors.UnrolledLoopWarning)
        got = ag.function(halve_until_small)(np.array([1.0]))
    assert float(got) == halve_until_small(np.array([1.0]))
