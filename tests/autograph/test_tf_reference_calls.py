"""Ports of TensorFlow's AutoGraph reference tests of calls, for `ag`:
builtins (`call_to_builtin_function_test.py`), lambdas
(`call_to_lambda_function_test.py`), named tuples
(`call_to_named_tuple_test.py`), NumPy functions
(`call_to_numpy_function_test.py`), library ops (`call_to_tf_api_test.py`),
user functions reached through names, parameters and factories
(`call_to_user_function_test.py`), and annotated names
(`type_annotations_test.py`).

Each function runs compiled (`ag.function`) and plainly, with Python values
and with tensors, and the two must agree.
"""
from __future__ import annotations

import collections

import numpy as np
import pytest

import autograph as ag
from tf_reference_support import assert_matches_plain


def _as_tensor(v):
    """What TensorFlow's harness does with `all_inputs_tensors`: numbers and
    lists become tensors, anything else stays as it is."""
    return ag.constant(v) if isinstance(v, (int, float, list, np.ndarray)) else v


# --------------------------------------------------------------- builtins

def make_dict(v):
    return dict(foo=v)


def make_dict_shadowed(v):
    def not_dict(v):
        return v

    dict = not_dict  # noqa: A001 - a local name hiding the builtin, on purpose
    return dict(v)


def make_dict_through_a_name(v):
    def which():
        return dict

    d = which()
    return d(foo=v)


def length(v):
    return len(v)


def length_shadowed(v):
    def not_len(v):
        return v

    len = not_len  # noqa: A001
    return len(v)


def length_through_a_name(v):
    def which():
        return len

    f = which()
    return f(v)


def indices_as_list(v):
    return list(range(len(v)))


def int_then_float(v):
    return float(int(v))


_BUILTIN_CASES = [
    (make_dict, (1,)), (length, ([1, 2],)), (make_dict_shadowed, (1,)),
    (length_shadowed, ([1, 2],)), (make_dict_through_a_name, (1,)),
    (length_through_a_name, ([1, 2],)), (indices_as_list, ([],)),
    (indices_as_list, ([1, 2, 3],)), (int_then_float, (3,)),
]


@pytest.mark.parametrize("fn,args", _BUILTIN_CASES)
def test_builtins_python_values(fn, args):
    assert_matches_plain(fn, *args)


@pytest.mark.parametrize("fn,args", _BUILTIN_CASES)
def test_builtins_tensors(fn, args):
    assert_matches_plain(fn, *(_as_tensor(a) for a in args))


# --------------------------------------------------------------- lambdas

def lambda_defined_inside(v):
    sq = lambda v: v * v if v > 0 else -v  # noqa: E731
    return sq(v)


def lambda_passed_in(v, fn):
    return fn(v)


def _is_zero(v):
    return v == 0


@pytest.mark.parametrize("v", [1, -2, "t1", "t-2"])
def test_lambda_defined_inside(v):
    v = ag.constant(int(v[1:])) if isinstance(v, str) else v
    assert_matches_plain(lambda_defined_inside, v)


@pytest.mark.parametrize("v", [1, 0, "t1", "t0"])
def test_lambda_passed_in(v):
    v = ag.constant(int(v[1:])) if isinstance(v, str) else v
    assert_matches_plain(lambda_passed_in, v, lambda u: u == 0)


# --------------------------------------------------------------- named tuples

def named_tuple_made_inside(v):
    pair = collections.namedtuple("Pair", ("a", "b"))
    return pair(a=1, b=v)


def named_tuple_passed_in(v, kind):
    return kind(a=1, b=v)


class Single(collections.namedtuple("Single", ("a",))):
    """A named tuple subclass with a method."""

    def next_one(self):
        return self.a + 1


def named_tuple_method(v):
    return Single(v).next_one()


_PAIR = collections.namedtuple("Pair", ("a", "b"))


@pytest.mark.parametrize("tensor", [False, True])
def test_named_tuple_made_inside(tensor):
    got = assert_matches_plain(named_tuple_made_inside, ag.constant(1) if tensor else 1)
    assert got.value._fields == ("a", "b")


@pytest.mark.parametrize("tensor", [False, True])
def test_named_tuple_passed_in(tensor):
    got = assert_matches_plain(named_tuple_passed_in, ag.constant(1) if tensor else 1, _PAIR)
    assert type(got.value) is _PAIR


@pytest.mark.parametrize("tensor", [False, True])
def test_named_tuple_subclass_method(tensor):
    assert_matches_plain(named_tuple_method, ag.constant(1) if tensor else 1)


# --------------------------------------------------------------- NumPy, library ops

def seeded_numpy_draw():
    np.random.seed(1)
    return 2 * np.random.binomial(1, 0.5, size=(10,)) - 1


def times_two_constant(v):
    return v * ag.constant(2)


def test_numpy_call_runs_at_trace_time():
    # A NumPy random call runs while tracing and its result is a constant of
    # the trace (the contract, section 3): with a fixed seed, the plain run agrees.
    assert_matches_plain(seeded_numpy_draw)


@pytest.mark.parametrize("v", [1, "t1"])
def test_library_op_call(v):
    assert_matches_plain(times_two_constant, ag.constant(1) if v == "t1" else v)


# --------------------------------------------------------------- user functions

def cube(v):
    return v * v * v


def eleven_minus(v):
    return -1 * v + 11


def pick(k):
    if k == 1:
        return cube
    return eleven_minus


def both_by_name(v):
    return cube(v) + eleven_minus(v)


def both_from_factory(v):
    f = pick(1)
    first = f(v)
    f = pick(2)
    return first + f(v)


def call_parameter(f, v):
    return f(v)


def both_through_a_variable(v):
    f = cube
    first = f(v)
    f = eleven_minus
    return first + f(v)


def library_op_through_a_variable(v):
    f = ag.identity
    return f(v)


def call_parameter_by_keyword(f, v):
    return f(v=v)


_USER_CASES = [
    (both_by_name, (1,)), (both_from_factory, (1,)), (call_parameter, (cube, 1)),
    (both_through_a_variable, (1,)), (library_op_through_a_variable, (1,)),
    (call_parameter_by_keyword, (cube, 1)),
]


@pytest.mark.parametrize("fn,args", _USER_CASES)
def test_user_functions_python_values(fn, args):
    assert_matches_plain(fn, *args)


@pytest.mark.parametrize("fn,args", _USER_CASES)
def test_user_functions_tensors(fn, args):
    assert_matches_plain(fn, *(_as_tensor(a) for a in args))


# --------------------------------------------------------------- annotations

def annotated_name_only():
    k: int  # noqa: F842 - a declaration without a value, on purpose
    return 1


def annotated_assignment(v):
    k: int = 2
    return v * k


def test_annotation_without_value():
    assert_matches_plain(annotated_name_only)


@pytest.mark.parametrize("v", [3, "t3"])
def test_annotated_assignment(v):
    assert_matches_plain(annotated_assignment, ag.constant(3) if v == "t3" else v)
