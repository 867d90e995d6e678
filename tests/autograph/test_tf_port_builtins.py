"""Ports of TensorFlow's `tensorflow/python/autograph/operators/py_builtins_test.py`, for `ag`.

TensorFlow calls its overloads (`py_builtins.abs_`, `len_`, `range_`, ...)
directly; a user writes the builtin inside a converted function and gets
the overload. So each case here calls the builtin inside `ag.function` on
traced tensors (and on Python values, which stay Python) and checks the
value TensorFlow's test expects, or the plain run where they agree.

Differences kept on purpose (API.md wins):
* `float(t)` is float64 and `int(t)` int64 (API.md section 9); TensorFlow
  gives float32 / int32.
* `print(...)` of traced values is a Python side effect, run once per trace
  (API.md section 4); `ag.print` is the one that prints at every call, so
  TensorFlow's print tests use `ag.print`.
* Builtins refused on a traced tensor raise the Python error of the same
  misuse (`len()` of a scalar, `max()` of a 2-D tensor: TypeError; `int(t,
  base)`: TypeError), not TensorFlow's ValueError / NotImplementedError.
* Strings are not parsed into numbers (`float(ag.constant("1.0"))`): a
  TypeError naming the cast (TensorFlow's tf.strings is out of scope).
* Datasets, dataset iterators and tensor lists do not exist in ag; their
  cases are skipped.
"""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import autograph as ag
from tf_reference_support import assert_matches_plain, compiled
from tf_reference_support import as_list as _val, const as _c

pytestmark = pytest.mark.filterwarnings("ignore::autograph.tracer.core.logs.RetracingWarning")

NO_DATASETS = pytest.mark.skip(reason="tf.data datasets and their iterators do not exist in autograph")


# ------------------------------------------------------------------ abs

def absolute(x):
    return abs(x)


@pytest.mark.parametrize("x", [-1, [-1, 2, -3]])
def test_abs(x):
    assert_matches_plain(absolute, _c(x))
    assert _val(compiled(absolute)(_c(x))) == _val(np.abs(x))


def test_abs_python():
    assert compiled(absolute)(-1) == 1


@NO_DATASETS
def test_abs_dataset():
    """abs of a dataset maps over it."""


# ------------------------------------------------------------ float / int

def to_float(x):
    return float(x)


def to_int(x):
    return int(x)


def test_float_of_tensor_is_float64():
    got = compiled(to_float)(_c(1, ag.int64))
    assert got.dtype == ag.float64 and float(got) == 1.0
    assert_matches_plain(to_float, _c(1, ag.int64))


def test_float_of_python_values():
    def f():
        return float(10), float("10.0")
    assert_matches_plain(f)


def test_int_of_tensor_is_int64():
    got = compiled(to_int)(_c(1.7, ag.float64))
    assert got.dtype == ag.int64 and int(got) == 1
    assert_matches_plain(to_int, _c(-1.7, ag.float64))


def test_int_of_python_values_with_base():
    def f():
        return int(10.0), int("11", 2)
    assert_matches_plain(f)


def test_int_with_base_of_tensor_is_refused():
    def f(x):
        return int(x, 2)
    with pytest.raises(TypeError, match="explicit base"):
        compiled(f)(_c(1.0, ag.float64))


@pytest.mark.parametrize("fn", [to_float, to_int])
def test_number_of_string_tensor_is_refused(fn):
    with pytest.raises(TypeError, match="string"):
        compiled(fn)(_c("1"))


# ------------------------------------------------------------------ len

def length(x):
    return len(x)


def test_len_of_list_and_tensor():
    assert compiled(length)([1, 2, 3]) == 3
    assert int(compiled(length)(_c([[1], [2], [3]]))) == 3
    assert_matches_plain(length, _c([[1], [2], [3]]))


def test_len_of_tensor_array():
    def f():
        return len(ag.TensorArray(ag.int32, size=5))
    assert int(compiled(f)()) == 5


def test_len_of_list_filled_in_compiled_loop():
    def f(n):
        items = []
        for i in range(n):
            items.append(i)
        return len(items)
    assert int(compiled(f)(_c(3))) == 3


def test_len_of_scalar_is_refused():
    with pytest.raises(TypeError, match="scalar"):
        compiled(length)(_c(1))


def test_len_of_unknown_rank_is_checked_at_run_time():
    f = ag.function(length, input_signature=[ag.TensorSpec(None, ag.int32)])
    assert int(f(_c([1, 2, 3]))) == 3
    with pytest.raises(ag.errors.InvalidArgumentError):
        f(_c(1))


@NO_DATASETS
def test_len_dataset():
    """len of a (finite, infinite, unknown) dataset."""


# ---------------------------------------------------------------- print

def test_print_of_tensors_prints_at_every_call_with_ag_print():
    def f(x):
        ag.print(ag.constant("test message"), x)
        ag.print(ag.constant("test message"), [1, 2])
        return x

    g = ag.function(f)
    for _ in range(2):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            g(_c(1))
        assert out.getvalue() == "test message 1\ntest message [1, 2]\n"


def test_python_print_runs_once_per_trace():
    def f(x):
        print("tracing", 1)
        return x + 1

    g = ag.function(f)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        g(_c(1))
        g(_c(2))
    assert out.getvalue() == "tracing 1\n"


# ------------------------------------------------------------- max / min

def maximum_of_list(xs):
    return max(xs), max(0, 2, 1), min(xs), min(2, 0, 1)


def test_max_min_python():
    assert_matches_plain(maximum_of_list, [1, 3, 2])


def max_of(x):
    return max(x)


def min_of(x):
    return min(x)


def max_of_three(a, b, c):
    return max(a, b, c), min(a, b, c)


@pytest.mark.parametrize("fn,x,want", [(max_of, [1, 3, 2], 3), (min_of, [3, 1, 2], 1)])
def test_max_min_of_vector(fn, x, want):
    assert int(compiled(fn)(_c(x))) == want
    assert_matches_plain(fn, _c(x))


def test_max_min_of_scalars():
    got = compiled(max_of_three)(_c(6), _c(4), _c(8))
    assert [int(v) for v in got] == [8, 4]
    assert_matches_plain(max_of_three, _c(6), _c(4), _c(8))


@pytest.mark.parametrize("fn", [max_of, min_of])
@pytest.mark.parametrize("x", [[[2]], [[1, 3], [3, 4]]])
def test_max_min_of_matrix_is_refused(fn, x):
    with pytest.raises(TypeError, match="1-D tensor"):
        compiled(fn)(_c(x))


def test_max_of_scalar_tensor():
    # TensorFlow: max(t) of a scalar is t. Python cannot iterate a scalar, and
    # neither does ag: max() needs a 1-D tensor (API difference, kept).
    with pytest.raises(TypeError, match="1-D tensor"):
        compiled(max_of)(_c(2))


# ---------------------------------------------------------------- range

def python_ranges():
    return list(range(3)), list(range(1, 3)), list(range(2, 0, -1))


def test_range_python():
    assert_matches_plain(python_ranges)


def make_range(*bounds):
    return range(*bounds)


@pytest.mark.parametrize("bounds,want", [
    ((_c(3),), [0, 1, 2]),
    ((1, _c(3)), [1, 2]),
    ((2, 0, _c(-1)), [2, 1]),
    ((_c(-3),), []),
    ((5, _c(2)), []),
    ((_c(1), _c(10), _c(4)), [1, 5, 9]),
])
def test_range_with_tensor_bounds_is_a_tensor(bounds, want):
    got = ag.function(make_range)(*bounds)
    assert _val(got) == want


def sum_over_range(a, b, step):
    s = 0
    for i in range(a, b, step):
        s += i
    return s


@pytest.mark.parametrize("a,b,step", [(0, 5, 1), (5, 0, -1), (5, 0, -2), (3, 3, 1), (0, -4, 1),
                                      (10, 0, -3)])
def test_loop_over_range_with_tensor_bounds(a, b, step):
    assert_matches_plain(sum_over_range, _c(a), _c(b), _c(step))


# -------------------------------------------------- enumerate / zip / map

def enumerate_list(xs):
    return list(enumerate(xs)), list(enumerate(xs, 5)), list(enumerate([-8], -3))


def test_enumerate_python():
    assert_matches_plain(enumerate_list, [3, 2, 1])


def enumerate_tensor(x):
    s = 0
    for i, v in enumerate(x, 5):
        s += i * v
    return s


def test_enumerate_tensor():
    assert_matches_plain(enumerate_tensor, _c([3, 2, 1]))


def zip_lists(a, b):
    return list(zip(a, b)), list(zip([4, 5, 6], [-1, -2]))


def test_zip_python():
    assert_matches_plain(zip_lists, [3, 2, 1], [1, 2, 3])


def zip_tensors(a, b):
    s = 0
    for u, v in zip(a, b):
        s += u * v
    return s


def test_zip_tensors():
    assert_matches_plain(zip_tensors, _c([3, 2, 1]), _c([1, 2, 3]))


def map_lists(xs):
    def increment(x):
        return x + 1

    return list(map(increment, xs)), list(map(lambda x, y: x + y, [3, 2, 1], [-1, -2, -3]))


def test_map_python():
    assert_matches_plain(map_lists, [4, 5, 6])


def map_over_tensors(a, b):
    def clip(x):
        if x > 2:
            return x * 0 + 2
        return x

    return list(map(clip, [a, b]))


def test_map_with_converted_function_over_tensors():
    assert_matches_plain(map_over_tensors, _c(1), _c(5))


@NO_DATASETS
def test_map_zip_enumerate_datasets():
    """map / zip / enumerate over datasets."""


# ---------------------------------------------------------- next / iter

def next_of_iterator(x):
    it = iter([x, x + 1, x + 2])
    first = next(it)
    second = next(it)
    third = next(it)
    return first, second, third, next(it, x * 0 - 4)


def test_next_python_iterator():
    assert_matches_plain(next_of_iterator, _c(1))


def test_next_past_the_end_raises_stop_iteration():
    def f(x):
        it = iter([x])
        next(it)
        return next(it)

    with pytest.raises(StopIteration):
        compiled(f)(_c(1))


@NO_DATASETS
def test_next_dataset_iterator():
    """next() of a dataset iterator, with and without default."""


# -------------------------------------------------------------- filter

def filter_lists():
    return list(filter(lambda x: x == "b", ["a", "b", "c"])), list(filter(lambda x: x < 3, [3, 2, 1]))


def test_filter_python():
    assert_matches_plain(filter_lists)


# ------------------------------------------------------------- any / all

def any_all_lists():
    return any([False, True, False]), any([False, False, False]), all([False, True, False]), \
        all([True, True, True])


def test_any_all_python():
    assert_matches_plain(any_all_lists)


def any_all_tensor(x):
    return any(x), all(x)


@pytest.mark.parametrize("x", [[False, True, False], [True, True, True], [False, False, False]])
def test_any_all_tensor(x):
    got = compiled(any_all_tensor)(_c(x))
    assert [bool(v) for v in got] == [any(x), all(x)]


# -------------------------------------------------------------- sorted

def sorted_variants(xs):
    return (sorted(xs), sorted(xs, key=lambda x: -x), sorted(xs, reverse=True),
            sorted(xs, key=lambda x: -x, reverse=True), sorted([[4, 3], [2, 1]], key=lambda x: sum(x)))


def test_sorted_python():
    assert_matches_plain(sorted_variants, [2, 3, 1])


def sorted_tensor(x):
    return (sorted(x), sorted(x, key=lambda v: -v), sorted(x, reverse=True),
            sorted(x, key=lambda v: -v, reverse=True))


def test_sorted_tensor():
    got = compiled(sorted_tensor)(_c([2, 3, 1]))
    assert [_val(g) for g in got] == [[1, 2, 3], [3, 2, 1], [3, 2, 1], [1, 2, 3]]


def sorted_rows(x):
    return sorted(x, key=lambda r: ag.reduce_sum(r))


def test_sorted_matrix_by_row_key():
    assert _val(compiled(sorted_rows)(_c([[4, 3], [2, 1]]))) == [[2, 1], [4, 3]]


def test_sorted_is_stable_on_equal_keys():
    def f(x):
        return sorted(x, key=lambda r: r[0]), sorted(x, key=lambda r: r[0], reverse=True)

    rows = [[1, 0], [0, 1], [1, 2], [0, 3]]
    got = compiled(f)(_c(rows))
    assert [_val(g) for g in got] == [sorted(rows, key=lambda r: r[0]),
                                      sorted(rows, key=lambda r: r[0], reverse=True)]


def test_sorted_matrix_without_key_is_refused():
    def f(x):
        return sorted(x)

    with pytest.raises(ValueError, match="key"):
        compiled(f)(_c([[4, 3], [2, 1]]))


def test_sorted_with_elementwise_key_on_matrix_is_refused():
    def f(x):
        return sorted(x, key=lambda v: -v)

    with pytest.raises(ValueError, match="one scalar per row"):
        compiled(f)(_c([[4, 3], [2, 1]]))


# ------------------------------------------------------------ sum / isinstance

def sums(x, xs):
    return sum(x), sum(xs), sum(x, 10), sum([x[0], x[1]])


def test_sum():
    assert_matches_plain(sums, _c([1, 2, 3]), [4, 5])


def kinds(x, n):
    return (isinstance(x, ag.Tensor), isinstance(n, ag.Tensor), isinstance(n, int),
            isinstance(x, (int, ag.Tensor)), isinstance(x, int | float))


def test_isinstance_sees_traced_tensors_as_tensors():
    assert_matches_plain(kinds, _c([1, 2]), 3)
    got = compiled(kinds)(_c([1, 2]), 3)
    assert [bool(v) for v in got] == [True, False, True, True, False]


def tensor_or_python(x):
    if isinstance(x, ag.Tensor):
        return x * 2
    return x


def test_isinstance_guards_a_tensor_path():
    assert int(compiled(tensor_or_python)(_c(3))) == 6
    assert compiled(tensor_or_python)(3) == 3
