"""Port of TensorFlow's AutoGraph reference test for function calls in loops
(`loop_with_function_call_test.py`): calls in a `while` condition, in a `for`
iterable and in loop bodies, of global functions, lambdas, bound methods,
builtins, local functions and closures over a loop variable.

Each case runs a plain function compiled and plainly and compares them
(tests/autograph/tf_reference.py).
"""
from __future__ import annotations

import itertools

import pytest

import autograph as ag
from tf_reference import int_tensor, matches_eager, matches_eager_batch

pytestmark = pytest.mark.filterwarnings("ignore::autograph.tracer.core.logs.RetracingWarning")


def _cases(*axes):
    return list(itertools.product(*axes))


def while_with_call_in_cond(n, fn):
    i = 0
    s = 0
    while i < fn(n):
        s = s * 10 + i
        i += 1
    return s


def for_with_call_in_target(seq, fn):
    s = 0
    for i in fn(seq):
        s = s * 10 + i
    return s


def while_with_local_call_in_cond(n):
    def local_fn(x):
        return x * 3

    i = 0
    s = 0
    while i < local_fn(n):
        s = s * 10 + i
        i += 1
    return s


def for_with_local_call_in_target(seq):
    def local_fn(seq):
        return seq * 1

    s = 0
    for i in local_fn(seq):
        s = s * 10 + i
    return s


def while_with_call(n, fn):
    i = 0
    s = 0
    while i < n:
        s = s * 10 + fn(i)
        i += 1
    return s


def for_with_call(seq, fn):
    s = 0
    for i in seq:
        s = s * 10 + fn(i)
    return s


def while_with_local_call(n):
    def local_fn(x):
        return x * 3

    i = 0
    s = 0
    while i < n:
        s = s * 10 + local_fn(i)
        i += 1
    return s


def for_with_local_call(seq):
    def local_fn(x):
        return x * 3

    s = 0
    for i in seq:
        s = s * 10 + local_fn(i)
    return s


def while_with_closure_call(n):
    i = 0

    def i_via_closure():
        return i + 2

    i = 0
    s = 0
    while i < n:
        s = s * 10 + i_via_closure()
        i += 1
    return s


def for_with_closure_call(seq):
    i = 0

    def i_via_closure():
        return i + 2

    s = 0
    for i in seq:
        s = s * 10 + i_via_closure()
    return s, i


def while_with_lambda_closure_call(n):
    i = 0
    s = 0
    i_via_closure = lambda: i + 2  # noqa: E731 - the case is about a lambda
    while i < n:
        s = s * 10 + i_via_closure()
        i += 1
    return s


def for_with_lambda_closure_call(seq):
    i = 0
    s = 0
    i_via_closure = lambda: i + 2  # noqa: E731 - the case is about a lambda
    for i in seq:
        s = s * 10 + i_via_closure()
    return s, i


def while_with_method_closure_call(n):
    i = 0

    class Callable(object):
        def __call__(self):
            return i

    i_via_closure = Callable()
    i = 0
    s = 0
    while i < n:
        s = s * 10 + i_via_closure()
        i += 1
    return s


def for_with_method_closure_call(seq):
    i = 0

    class Callable(object):
        def __call__(self):
            return i

    i_via_closure = Callable()
    i = 0
    s = 0
    for i in seq:
        s = s * 10 + i_via_closure()
    return s, i


def global_fn(x):
    return x * 2


class TestClass(object):
    __test__ = False   # not a pytest class

    def method(self, x):
        return x * 4


CALLEES = {"global_fn": global_fn, "lambda": lambda x: x * 1, "method": TestClass().method, "abs": abs}
TENSOR_CALLEES = dict(CALLEES, abs=ag.abs)
INTS = (0, 1, 2)
LISTS = ([], [1], [1, 2])


# Each test covers TensorFlow's grid for one function: the cases with Python
# arguments in one batch (tf_reference.matches_eager_batch), then the cases
# with tensor arguments one by one (they share traces).


@pytest.mark.parametrize("target", [while_with_call_in_cond, while_with_call])
def test_while_with_call(target):
    grid = _cases(INTS, CALLEES.values())
    matches_eager_batch(target, grid)
    for n, fn in grid:
        matches_eager(target, ag.constant(n), fn)


def test_for_with_call_in_target():
    # TensorFlow skips tf.abs of a Python list ([] would be float32).
    python_callees = [fn for fn in TENSOR_CALLEES.values() if fn is not ag.abs]
    matches_eager_batch(for_with_call_in_target, _cases(LISTS, python_callees))
    for seq, fn in _cases(LISTS, TENSOR_CALLEES.values()):
        matches_eager(for_with_call_in_target, int_tensor(seq), fn)


def test_for_with_range_call_in_target():
    matches_eager_batch(for_with_call_in_target, _cases(INTS, (range, ag.range)))
    for n, fn in _cases(INTS, (range, ag.range)):
        matches_eager(for_with_call_in_target, int_tensor(n), fn)


def test_for_with_call():
    grid = _cases(LISTS, CALLEES.values())
    matches_eager_batch(for_with_call, grid)
    for seq, fn in grid:
        matches_eager(for_with_call, int_tensor(seq), fn)


@pytest.mark.parametrize("target", [while_with_local_call, while_with_closure_call, while_with_lambda_closure_call,
                                    while_with_method_closure_call, while_with_local_call_in_cond])
def test_while_with_local_calls(target):
    # (TensorFlow skips the method closures, "fix static analysis for nested
    # classes", and never runs the local call in the condition.)
    matches_eager_batch(target, [(n,) for n in INTS])
    for n in INTS:
        matches_eager(target, ag.constant(n))


@pytest.mark.parametrize("target", [for_with_local_call, for_with_closure_call, for_with_lambda_closure_call,
                                    for_with_method_closure_call, for_with_local_call_in_target])
def test_for_with_local_calls(target):
    matches_eager_batch(target, [(seq,) for seq in LISTS])
    for seq in LISTS:
        matches_eager(target, int_tensor(seq))
