"""`ag.constant` / `ag.convert_to_tensor` inside traced code are constants of
the graph (as `tf.constant` in a `tf.function`), and empty lists take the
dtype they are given."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from semantics import assert_same_as_python


@pytest.mark.parametrize("value, dtype, shape", [
    ([], ag.int32, (0,)),
    ([[]], ag.int32, (1, 0)),
    ([[], []], ag.int64, (2, 0)),
    ([], ag.bool, (0,)),
    ((), ag.float64, (0,)),
    ([], None, (0,)),
])
def test_empty_lists_take_the_given_dtype(value, dtype, shape):
    t = ag.constant(value, dtype=dtype)
    assert t.shape == shape
    assert t.dtype == (dtype or ag.float32)
    assert ag.convert_to_tensor(value, dtype=dtype).dtype == (dtype or ag.float32)


def test_empty_constants_inside_a_trace():
    @ag.function
    def f(x):
        e = ag.constant([], dtype=ag.int32)
        return ag.concat([e, x], 0)

    np.testing.assert_array_equal(f(ag.constant([1, 2], ag.int32)), [1, 2])


def test_non_empty_lists_still_convert_losslessly():
    with pytest.raises(TypeError, match="float"):
        ag.constant([1.5], dtype=ag.int32)
    np.testing.assert_array_equal(ag.constant([[1, 2]], dtype=ag.int64), [[1, 2]])


def test_a_constant_inside_a_trace_is_a_graph_constant():
    seen = []

    @ag.function
    def f(x):
        c = ag.constant(2.0, ag.float64)
        t = ag.convert_to_tensor([1.0, 2.0], ag.float64)
        seen.append((type(c).__name__, type(t).__name__))
        return x * c + t

    np.testing.assert_array_equal(f(np.ones(2)), [3.0, 4.0])
    assert seen == [("SymbolicTensor", "SymbolicTensor")]
    assert isinstance(ag.constant(1.0), ag.Tensor)            # outside a trace: eager


def constant_condition(x):
    if ag.constant(True):
        y = x + 1
    else:
        y = x - 1
    return y


def constant_bound(x):
    total = x * 0
    for i in range(ag.constant(4)):
        total += i
    return total


@pytest.mark.parametrize("fn", [constant_condition, constant_bound])
def test_graph_constants_as_conditions_and_bounds(fn):
    assert_same_as_python(fn, ag.constant(3))
    graph = str(ag.function(fn).get_concrete_function(ag.TensorSpec([], ag.int32)).graph)
    assert ("cond(" in graph) or ("while(" in graph)


def _product_up_to(n):
    r = 1.0                      # a Python float, carried through a loop over an int64 tensor
    for i in range(1, n + 1):
        r *= i
    return r


@pytest.mark.parametrize("fn, arg, message", [
    (_product_up_to, np.int64(5), r"multiply: cannot use a Python float value with an int64 tensor; NumPy would "
                                  r"have promoted to float64, autograph does not promote \(TensorFlow's rule\): "
                                  r"use ag\.cast\(x, ag\.float64\)"),
])
def test_a_carried_python_number_names_the_cast_numpy_would_have_made(fn, arg, message):
    with pytest.raises(TypeError, match=message) as info:
        ag.function(fn)(arg)
    assert "r *= i" in str(info.value)
