"""Ports of TensorFlow's AutoGraph reference tests for `break`, `continue`
and `return` in loops (`loop_control_flow_test.py`,
`loop_control_flow_illegal_cases_test.py`) and for loops that create
variables (`loop_created_variables_test.py`).

Each case runs a plain function compiled and plainly and compares them
(tests/autograph/tf_reference.py); the illegal cases must raise with a
message naming the variable or the construct.
"""
from __future__ import annotations

import itertools

import pytest

import autograph as ag
from semantics import line_of
from tf_reference import int_tensor, list_of_int_tensor, matches_eager, matches_eager_batch, raises

pytestmark = pytest.mark.filterwarnings("ignore::autograph.tracer.core.logs.RetracingWarning")

NO_DATASETS = pytest.mark.skip(reason="tf.data datasets do not exist in autograph")


def _cases(*axes):
    return list(itertools.product(*axes))


# ----------------------------------------------------- loop_control_flow_test


def continue_in_single_for(seq):
    s = 0
    for c in seq:
        if c % 2 > 0:
            continue
        s += c
    return s


def continue_in_single_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 > 0:
            continue
        s += x
    return s


def continue_in_inner_for(m):
    s = 0
    for seq in m:
        for c in seq:
            if c % 2 > 0:
                continue
            s += c
    return s


def continue_in_inner_while(x, y):
    s = 0
    while x > 0:
        x -= 1
        while y > 0:
            y -= 1
            if (x + y) % 2 > 0:
                continue
            s += x + y
    return s


def break_in_single_for(seq):
    s = 0
    for c in seq:
        if c % 2 > 0:
            break
        s += c
    return s


def unconditional_return_in_single_for(seq):
    s = 0
    for c in seq:
        s += c
        return s
    return s


def effectively_unconditional_return_in_single_for(seq):
    s = 0
    for c in seq:
        s += c
        if c % 2 > 0:
            return s
        else:
            return -s
    return s


def unconditional_return_in_single_while(x):
    s = 0
    while x > 0:
        x -= 1
        s += x
        return s
    return s


def effectively_unconditional_return_in_single_while(x):
    s = 0
    while x > 0:
        x -= 1
        s += x
        if x % 2 > 0:
            return s
        else:
            return -s
    return s


def break_in_single_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 > 0:
            break
        s += x
    return s


def break_in_inner_for(m):
    s = 0
    for seq in m:
        for c in seq:
            if c % 2 > 0:
                break
            s += c
    return s


def break_in_inner_while(x, y):
    s = 0
    while x > 0:
        x -= 1
        while y > 0:
            y -= 1
            if ((x + y) % 2) == 0:
                break
            s += x + y
    return s


def break_continue_in_inner_for(m):
    s = 0
    for seq in m:
        for c in seq:
            if c % 2 > 0:
                break
            else:
                continue
            s += c
    return s


def break_continue_in_inner_while(x, y):
    s = 0
    while x > 0:
        x -= 1
        while y > 0:
            y -= 1
            if (x + y) % 2 > 0:
                break
            else:
                continue
            s += x + y
    return s


def break_followed_by_cond_in_single_while(x):
    while x > 0:
        if x == 2:
            break
        if x > 0:
            x -= 1
    return x


def multiple_breaks_in_single_while(n):
    s = 1
    i = 0
    while i < n:
        i += 1
        if i > 10 * n:
            break
        if i == n:
            break
        s = s * 10 + i
    return i, s


SINGLE_FOR = [continue_in_single_for, break_in_single_for, unconditional_return_in_single_for,
              effectively_unconditional_return_in_single_for]
RETURNS_FOR = SINGLE_FOR[2:]
SINGLE_WHILE = [continue_in_single_while, break_in_single_while, multiple_breaks_in_single_while,
                break_followed_by_cond_in_single_while, unconditional_return_in_single_while,
                effectively_unconditional_return_in_single_while]
RETURNS_WHILE = SINGLE_WHILE[4:]
NESTED_FOR = [continue_in_inner_for, break_in_inner_for, break_continue_in_inner_for]
NESTED_WHILE = [continue_in_inner_while, break_in_inner_while, break_continue_in_inner_while]


# Each test covers TensorFlow's grid for one function: the cases with Python
# arguments in one batch (tf_reference.matches_eager_batch), then the cases
# with tensor arguments one by one (they share traces).
SINGLE_LISTS = ([], [1], [1, 2], [1, 2, 3], [1, 2, 3, 4])


@pytest.mark.parametrize("target", SINGLE_FOR)
def test_single_for(target):
    # TensorFlow skips the empty list for the returns: see the next test.
    lists = [seq for seq in SINGLE_LISTS if seq or target not in RETURNS_FOR]
    matches_eager_batch(target, [(seq,) for seq in lists])
    for seq in lists:
        matches_eager(target, int_tensor(seq))


@NO_DATASETS
@pytest.mark.parametrize("target", SINGLE_FOR)
def test_single_for_over_a_dataset(target):
    """TensorFlow's `_int_dataset` variants of `test_single_for`."""


@pytest.mark.parametrize("target", SINGLE_WHILE)
def test_single_while(target):
    ns = [n for n in range(5) if n or target not in RETURNS_WHILE]
    matches_eager_batch(target, [(n,) for n in ns])
    for n in ns:
        matches_eager(target, int_tensor(n))


# TensorFlow raises "must iterate at least once to initialize" here (its
# converted `return` leaves the return value undefined after a loop that never
# ran); autograph returns the value of the `return` after the loop, as Python.
@pytest.mark.parametrize("target, arg", [
    (unconditional_return_in_single_for, []),
    (effectively_unconditional_return_in_single_for, []),
    (unconditional_return_in_single_while, 0),
    (effectively_unconditional_return_in_single_while, 0),
])
def test_single_loop_return_after_zero_iterations(target, arg):
    matches_eager(target, int_tensor(arg))


@pytest.mark.parametrize("target", NESTED_FOR)
def test_nested_for(target):
    grid = ([[], []], [[1], [2]], [[1, 2], [3, 4]], [[1, 2, 3], [4, 5, 6]])
    matches_eager_batch(target, [(a,) for a in grid])
    for a, type_ in _cases(grid, (int_tensor, list_of_int_tensor)):
        matches_eager(target, type_(a))


@NO_DATASETS
@pytest.mark.parametrize("target", NESTED_FOR)
def test_nested_for_over_a_dataset(target):
    """TensorFlow's `_int_dataset` variants of `test_nested_for`."""


# TensorFlow passes both arguments through the first type; so do these.
@pytest.mark.parametrize("target", NESTED_WHILE)
def test_nested_while(target):
    grid = _cases(range(5), range(5))
    matches_eager_batch(target, grid)
    for m, n in grid:
        matches_eager(target, int_tensor(m), int_tensor(n))


# ---------------------------------------- loop_control_flow_illegal_cases_test


def tf_break_in_py_for(seq):
    s = 0
    for c in seq:
        if ag.greater(c % 2, 0):
            break
        s += c
    return s


def tf_return_in_py_for(seq):
    s = 0
    for c in seq:
        if ag.greater(c % 2, 0):
            return s
        else:
            return s
        s += c
    return s


def tf_break_in_py_while(x):
    s = 0
    while x > 0:
        x -= 1
        if ag.greater(x % 2, 0):
            break
        s += x
    return s


def tf_return_in_py_while(x):
    s = 0
    while x > 0:
        x -= 1
        if ag.greater(x % 2, 0):
            return s
        else:
            return s
        s += x
    return s


# TensorFlow refuses both with a Python list of Python ints. Here
# `ag.greater(c % 2, 0)` of Python ints is a constant known at trace time, so
# the `if` and its `break` run in Python, as in plain Python.
@pytest.mark.parametrize("target", [tf_break_in_py_for, tf_return_in_py_for])
def test_tf_control_flow_in_py_for(target):
    matches_eager_batch(target, [([1],), ([1, 2],), ([1, 2, 3],)])


# Over a Python list of tensors the `break` depends on a traced value: refused,
# naming the loop.
@pytest.mark.parametrize("seq", ([1], [1, 2], [1, 2, 3]))
def test_tf_break_in_py_for_over_tensors_is_refused(seq):
    e = raises(tf_break_in_py_for, (list_of_int_tensor(seq),), NotImplementedError,
               "not supported in a Python for loop over a Python list.*iterate over `ag.range")
    assert f"line {line_of(tf_break_in_py_for, 'for c in seq')}" in str(e)


# Both branches return: the return is unconditional and the loop stops in its
# first iteration, as in Python.
@pytest.mark.parametrize("seq", ([1], [1, 2], [1, 2, 3]))
def test_tf_return_in_py_for_over_tensors(seq):
    matches_eager(tf_return_in_py_for, list_of_int_tensor(seq))


# TensorFlow refuses a Python `while` whose condition turns into a tensor
# ("condition of while loop started as non-Tensor, then changed to Tensor");
# autograph runs the first iterations in Python and continues compiled.
@pytest.mark.parametrize("target", [tf_break_in_py_while, tf_return_in_py_while])
def test_tf_control_flow_in_py_while(target):
    matches_eager_batch(target, [(1,), (2,), (3,)])


# -------------------------------------------------- loop_created_variables_test


def while_creates_var_static_shape(n):
    i = 0
    while i < n:
        v = ag.zeros([1, 2, 3])
        i += 1
    return v  # noqa: F821 - defined by the loop when it runs


def while_creates_var_dynamic_shape(n):
    i = 0
    while i < n:
        v = ag.zeros([1, ag.random.uniform((), i, i + 1, ag.int32), 2])
        i += 1
    return v  # noqa: F821 - defined by the loop when it runs


def while_creates_var_dynamic_rank(n):
    i = 0
    while i < n:
        v = ag.zeros(ag.range(ag.random.uniform((), i, i + 1, ag.int32)))
        i += 1
    return v  # noqa: F821 - defined by the loop when it runs


def while_creates_var_dynamic_shape_py_init_var(n):
    i = 0
    while i < n:
        v = ag.range(i)
        i += 1
    return v  # noqa: F821 - defined by the loop when it runs


def while_creates_nested_var_static_shape(n):
    i = 0
    while i < n:
        v = {"a": ag.zeros([1, 2, 3]), "b": ag.ones([1, 2, 3])}
        i += 1
    return v["a"], v["b"]  # noqa: F821 - defined by the loop when it runs


def while_creates_nested_var_dynamic_shape(n):
    i = 0
    while i < n:
        v = {
            "a": ag.zeros([1, ag.random.uniform((), i, i + 1, ag.int32)]),
            "b": ag.ones([ag.random.uniform((), i, i + 1, ag.int32), 2]),
        }
        i += 1
    return v["a"], v["b"]  # noqa: F821 - defined by the loop when it runs


def while_creates_nested_var_dynamic_rank(n):
    i = 0
    while i < n:
        v = {
            "a": ag.ones(ag.range(ag.random.uniform((), i, i + 1, ag.int32))),
            "b": ag.ones([1, 2, 3]),
        }
        i += 1
    return v["a"], v["b"]  # noqa: F821 - defined by the loop when it runs


CREATES_VAR = [while_creates_var_static_shape, while_creates_var_dynamic_shape, while_creates_var_dynamic_rank,
               while_creates_var_dynamic_shape_py_init_var, while_creates_nested_var_static_shape,
               while_creates_nested_var_dynamic_shape, while_creates_nested_var_dynamic_rank]
# `ag.zeros(shape)` with a shape vector of unknown length: API.md section 3
# refuses it with TypeError (a result of unknown rank), where TensorFlow
# builds a tensor of unknown rank.
DYNAMIC_RANK = [while_creates_var_dynamic_rank, while_creates_nested_var_dynamic_rank]
KNOWN_RANK = [f for f in CREATES_VAR if f not in DYNAMIC_RANK]


@pytest.mark.parametrize("target", KNOWN_RANK)
def test_while_creates_var_illegal_tf(target):
    e = raises(target, (ag.constant(0),), ag.errors.InvalidArgumentError, "'v'.*must iterate at least once")
    assert f"line {line_of(target, 'while i < n')}" in str(e)


@pytest.mark.parametrize("target", CREATES_VAR)
def test_while_creates_var_illegal_py(target):
    raises(target, (0,), UnboundLocalError, "'v' is used before assignment")


@pytest.mark.parametrize("target", KNOWN_RANK)
def test_while_creates_var(target):
    matches_eager_batch(target, [(1,), (2,)])
    for n in (1, 2):
        matches_eager(target, ag.constant(n))


@pytest.mark.parametrize("n", (0, 1, 2))
@pytest.mark.parametrize("target", DYNAMIC_RANK)
def test_while_creates_var_of_dynamic_rank_is_refused(target, n):
    e = raises(target, (ag.constant(n),), TypeError,
               "(zeros|ones): a shape given as a traced tensor needs a known length")
    assert f"line {line_of(target, 'ag.range(ag.random')}" in str(e)
