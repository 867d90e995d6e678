"""Port of TensorFlow's AutoGraph reference test for nested control flow
(`nested_control_flow_test.py`): `if` inside `if`, loops inside loops,
`if` inside `for`, `break`/`continue` inside `with` and `try`/`finally`,
and variables first assigned inside a loop.

Each case runs a plain function compiled and plainly and compares them
(tests/autograph/tf_reference.py); the illegal cases must raise with a
message naming the variable and the user's line.
"""
from __future__ import annotations

import itertools

import pytest

import autograph as ag
from semantics import line_of
from tf_reference import int_tensor, matches_eager, matches_eager_batch, raises

pytestmark = pytest.mark.filterwarnings("ignore::autograph.tracer.core.logs.RetracingWarning")


def _cases(*axes):
    return list(itertools.product(*axes))


def independent_ifs(x, y):
    z = 0
    if x > 0:
        if y > 0:
            z = x + y
    return z


def dependent_inner_if(x):
    y = 0
    if x > 0:
        y = -2 * x
        if y > 0:
            x = -3 * x
    else:
        y = 4 * x
    return x, y


def dependent_imbalanced_inner_if(x):
    y = 0
    if x > 0:
        if x < 3:
            y = -2 * x
            x = -3 * x
    return x, y


def _hidden_raise():
    raise ValueError("exception used for control flow")


def if_with_local_modification_masked_by_exception(x):
    y = 0
    if x > 0:
        try:
            if x > 1:
                _hidden_raise()
            y = 1
        except ValueError:
            pass
        if y == 0:
            y = 2
    return y


_test_global = None


def if_nested_with_modification_of_global(x):
    y = 0
    if x > 0:
        if x > 0:
            global _test_global
            if _test_global is None:
                _test_global = 1
            else:
                _test_global += 1
            y += _test_global
    return y


def independent_inner_for(a, b):
    p = 0
    for _ in a:
        tmp = b
        for j in tmp:
            p += j
    return p


def independent_inner_while(a, b):
    p = 0
    while a > 0:
        tmp = b
        while tmp > 0:
            p += 1
            tmp -= 1
        a -= 1
    return p


def dependent_inner_for(a, b):
    r = 1
    s = 0
    for _ in a:
        r += s
        tmp = b
        for j in tmp:
            s += j
    return r


def dependent_inner_while(a, b):
    r = 1
    while a > 0:
        r += 1
        tmp = b
        while tmp > 0:
            a -= 1
            tmp -= 1
        a -= 1
    return r


def if_in_for(a):
    k = 0
    for i in a:
        if i % 2 > 0:
            j = i // 2
            k += j
    return k


def while_with_continue_in_context_manager(x):
    z = 0
    while x > 0:
        with ag.name_scope(""):
            x = x - 1
            if x < 5:
                continue
            z = z + 1
    return z


def while_continue_in_try(x):
    z = 0
    while x > 0:
        x = x - 1
        try:
            if x < 5:
                continue
            z = z + 1
        finally:
            z = z + 10
    return z


def while_break_in_context_manager(x):
    z = 0
    while x > 0:
        with ag.name_scope(""):
            x = x - 1
            if x < 5:
                break
            z = z + 1
    return z


def while_break_in_try(x):
    z = 0
    while x > 0:
        x = x - 1
        try:
            if x < 5:
                break
            z = z + 1
        finally:
            z = z + 10
    return z


def loop_initializing_invariant_variable(n):
    for i in range(n):
        if i == 0:
            a = 1
        else:
            a = 2
    return a  # noqa: F821 - defined by the loop when it runs


def loop_initializing_variant_variable(n):
    for i in range(n):
        if i == 0:
            a = 1
        else:
            a = a + 1  # noqa: F821 - set by the first iteration
    return a  # noqa: F821 - defined by the loop when it runs


TYPES = (int, int_tensor)
RANGES = (range, ag.range)


# Each test covers TensorFlow's grid for one function: the cases with Python
# arguments in one batch (tf_reference.matches_eager_batch), then the cases
# with tensor arguments one by one (they share traces).


# TensorFlow passes both arguments through the first type; so do these.
def test_independent_ifs():
    grid = _cases((-1, 1), (-1, 1))
    matches_eager_batch(independent_ifs, grid)
    for x, y in grid:
        matches_eager(independent_ifs, int_tensor(x), int_tensor(y))


@pytest.mark.parametrize("target", [dependent_inner_if, dependent_imbalanced_inner_if])
def test_dependent_inner_ifs(target):
    matches_eager_batch(target, [(-1,), (1,)])
    for x in (-1, 1):
        matches_eager(target, int_tensor(x))


def test_if_with_local_modification_masked_by_exception():
    # (with a tensor the behaviour is undefined, as TensorFlow notes)
    matches_eager_batch(if_with_local_modification_masked_by_exception, [(-1,), (0,), (1,), (2,)])


def test_if_nested_with_modification_of_global():
    global _test_global
    _test_global = None
    assert ag.function(if_nested_with_modification_of_global)(1) == 1
    assert _test_global == 1


def test_if_nested_with_modification_of_global_not_executed():
    global _test_global
    _test_global = None
    assert ag.function(if_nested_with_modification_of_global)(0) == 0
    assert _test_global is None


@pytest.mark.parametrize("target", [independent_inner_for, dependent_inner_for])
def test_inner_for(target):
    grid = _cases((0, 1, 2), (0, 1, 2))
    matches_eager_batch(target, [(range(a), range(b)) for a, b in grid])
    for (a, b), (type_a, type_b) in _cases(grid, _cases(RANGES, RANGES)[1:]):
        matches_eager(target, type_a(a), type_b(b))


def test_independent_inner_while():
    grid = _cases((0, 1, 2), (0, 1, 2))
    matches_eager_batch(independent_inner_while, grid)
    for (a, b), (type_a, type_b) in _cases(grid, _cases(TYPES, TYPES)[1:]):
        matches_eager(independent_inner_while, type_a(a), type_b(b))


def test_dependent_inner_while():
    # TensorFlow skips a Python `a` with a tensor `b` (b/124378596): `a` becomes
    # a tensor in the inner compiled loop, so the outer loop continues compiled.
    grid = _cases(range(5), range(5))
    matches_eager_batch(dependent_inner_while, grid)
    for (a, b), (type_a, type_b) in _cases(grid, _cases(TYPES, TYPES)[1:]):
        matches_eager(dependent_inner_while, type_a(a), type_b(b))


def test_if_in_for():
    matches_eager_batch(if_in_for, [(range(a),) for a in (0, 1, 2)])
    for a in (0, 1, 2):
        matches_eager(if_in_for, ag.range(a))


@pytest.mark.parametrize("target", [while_with_continue_in_context_manager, while_continue_in_try,
                                    while_break_in_context_manager, while_break_in_try])
def test_break_and_continue_in_with_and_try(target):
    matches_eager_batch(target, [(x,) for x in (0, 4, 10)])
    for x in (0, 4, 10):
        matches_eager(target, int_tensor(x))


def test_loop_initializing_invariant_variable_legal():
    matches_eager_batch(loop_initializing_invariant_variable, [(1,), (2,)])
    for n in (1, 2):
        matches_eager(loop_initializing_invariant_variable, int_tensor(n))


def test_loop_initializing_invariant_variable_illegal():
    raises(loop_initializing_invariant_variable, (0,), UnboundLocalError, "'a' is used before assignment")
    e = raises(loop_initializing_invariant_variable, (ag.constant(0),), ag.errors.InvalidArgumentError,
               "'a'.*loop must iterate at least once")
    assert f"line {line_of(loop_initializing_invariant_variable, 'for i in range(n)')}" in str(e)


def test_loop_initializing_variant_variable_legal():
    matches_eager_batch(loop_initializing_variant_variable, [(1,), (2,)])


@pytest.mark.parametrize("n", (0, 1, 2))
def test_loop_initializing_variant_variable_illegal(n):
    e = raises(loop_initializing_variant_variable, (ag.constant(n),), ValueError,
               "must be defined before the loop: 'a' is used before assignment")
    assert f"line {line_of(loop_initializing_variant_variable, 'a = a + 1')}" in str(e)
