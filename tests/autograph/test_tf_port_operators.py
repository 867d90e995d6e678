"""Ports of TensorFlow's AutoGraph operator tests, for `ag`:
`operators/logical_test.py`, `slices_test.py`, `data_structures_test.py`,
`conditional_expressions_test.py`, `exceptions_test.py` and
`control_flow_test.py`.

TensorFlow calls the operators (`logical.and_`, `control_flow.for_stmt`,
...) directly with lambdas; the user-visible form is the Python statement
inside a converted function, which the converter turns into that operator.
So each case writes the statement, runs it under `ag.function` and plainly,
and compares (or checks the error the operator must raise).

Differences kept on purpose (API.md wins):
* An empty Python list cannot be stacked (`ag.stack([])`): ValueError, as
  TensorFlow's `list_stack` of an empty list without a known element.
* A Python loop unrolled over 1,000 times warns (UserWarning naming the
  line) instead of TensorFlow's log message.
* Tensor lists (`list_ops`) do not exist in ag: a Python list of tensors,
  or one filled in a compiled loop (a TensorArray), plays their part.
"""
from __future__ import annotations

import warnings

import pytest

import autograph as ag
from tf_reference_support import assert_matches_plain, compiled, line_of
from tf_reference_support import as_list as _val, const as _c

pytestmark = pytest.mark.filterwarnings("ignore::autograph.tracer.core.logs.RetracingWarning")

NO_DATASETS = pytest.mark.skip(reason="tf.data datasets do not exist in autograph")


def _never_called():
    raise AssertionError("the right operand must not be evaluated")


# -------------------------------------------------------------- logical_test

def and_or_not_python():
    return (True and True, [1] and True, True and [1], False and True, False and _never_called(),
            False or False, [] or False, False or [1], False or True, True or _never_called(),
            not True, not [1], not [])


def test_logical_python_values_short_circuit():
    assert_matches_plain(and_or_not_python)


def and_or_tensor(t, f):
    return t and t, t and True, f and True, f or t, f or True, t or True, not f, not t


def test_logical_tensors():
    got = compiled(and_or_tensor)(_c(True), _c(False))
    assert [bool(v) for v in got] == [True, True, False, True, True, True, True, False]
    assert_matches_plain(and_or_tensor, _c(True), _c(False))


def guarded_division(n):
    # The right side would divide by zero: it must only run where n != 0.
    return (n != 0) and (10 // n > 2), (n == 0) or (10 // n > 2)


@pytest.mark.parametrize("n", [0, 3, 5])
def test_logical_tensor_short_circuit(n):
    assert_matches_plain(guarded_division, _c(n))


# -------------------------------------------------------------- slices_test

def set_item_of_list_of_tensors():
    items = [_c([1, 2]), _c([3, 4])]
    items[0] = _c([5, 6])
    return ag.stack(items), items[1]


def test_set_and_get_item_of_list_of_tensors():
    stacked, second = compiled(set_item_of_list_of_tensors)()
    assert _val(stacked) == [[5, 6], [3, 4]] and _val(second) == [3, 4]
    assert_matches_plain(set_item_of_list_of_tensors)


def get_item_of_list_filled_in_loop(n):
    items = []
    for i in range(n):
        items.append(_c([1, 1]) * i)
    return items[1]


def test_get_item_of_list_filled_in_compiled_loop():
    assert _val(compiled(get_item_of_list_filled_in_loop)(_c(3))) == [1, 1]


def test_get_item_of_string_vector():
    def f(x):
        return x[1]
    assert compiled(f)(_c(["abcd", "bcde"])).numpy() == b"bcde"


@pytest.mark.skip(reason="indexing the characters of a scalar string tensor is tf.strings (out of scope)")
def test_get_item_of_string_scalar():
    """TensorFlow: ag's get_item of tf.constant('abcd') at 1 gives b'b'."""


# ----------------------------------------------------- data_structures_test

def append_python(x):
    items = []
    items.append(x)
    items.append(x + 1)
    return items


def test_append_python_list():
    assert_matches_plain(append_python, _c(1))


def append_in_loop(n):
    items = []
    for i in range(n):
        items.append(_c([1, 2, 3]) * i)
    return ag.stack(items)


def test_append_tensors_in_compiled_loop():
    assert _val(compiled(append_in_loop)(_c(2))) == [[0, 0, 0], [1, 2, 3]]
    assert_matches_plain(append_in_loop, _c(3))


def append_to_tensor_array(n):
    ta = ag.TensorArray(ag.int32, size=0, dynamic_size=True)
    first = ta.write(0, 1)
    second = first.write(1, 2)
    for i in range(n):
        second = second.write(i + 2, i * 10)
    return first.stack(), second.stack()


def test_tensor_array_writes_return_new_arrays():
    first, second = compiled(append_to_tensor_array)(_c(2))
    assert _val(first) == [1] and _val(second) == [1, 2, 0, 10]


def pop_python(x):
    items = [x, x + 1, x + 2]
    last = items.pop()
    before = items.pop()
    return last, before, ag.stack(items)


def test_pop_python_list():
    assert_matches_plain(pop_python, _c(1))


def pop_in_loop(n):
    items = []
    for i in range(n):
        items.append(i)
    s = 0
    for i in range(n):
        s = s * 10 + items.pop()
    return s


@pytest.mark.parametrize("n", [1, 4])
def test_pop_in_compiled_loop(n):
    assert_matches_plain(pop_in_loop, _c(n))


def stack_empty():
    items = []
    return ag.stack(items)


def test_stack_of_empty_list_is_refused():
    with pytest.raises(ValueError, match="non-empty"):
        compiled(stack_empty)()


def stack_python_numbers():
    return ag.stack([3, 4, 5])


def test_stack_python_numbers():
    assert _val(compiled(stack_python_numbers)()) == [3, 4, 5]


def test_mixed_dtypes_in_one_list_are_refused():
    # TensorFlow: a tensor list of [3, 4.0] is a ValueError; here the two
    # dtypes meet in the loop's TensorArray.
    def f(n):
        items = []
        for i in range(n):
            items.append(i)
            items.append(ag.cast(i, ag.float32))
        return ag.stack(items)

    with pytest.raises((TypeError, ValueError), match="float32"):
        compiled(f)(_c(2))


# ------------------------------------------- conditional_expressions_test

def if_exp(c):
    return 1 if c else -1


def if_exp_pair(c):
    return (1, 2) if c else (-1, -2)


@pytest.mark.parametrize("fn", [if_exp, if_exp_pair])
@pytest.mark.parametrize("c", [True, False])
def test_conditional_expression(fn, c):
    assert_matches_plain(fn, c)
    assert_matches_plain(fn, _c(c))


def if_exp_lazy(n):
    # Only the branch taken may run: the other divides by zero.
    return 10 // n if n != 0 else n - 1


@pytest.mark.parametrize("n", [0, 4])
def test_conditional_expression_evaluates_one_branch(n):
    assert_matches_plain(if_exp_lazy, _c(n))


def if_exp_side_effects(c):
    seen = []
    v = seen.append("a") or 1 if c else seen.append("b") or 2
    return v, len(seen)


def test_conditional_expression_python_condition_runs_one_side():
    assert_matches_plain(if_exp_side_effects, True)
    assert_matches_plain(if_exp_side_effects, False)


def if_exp_structures_differ(n):
    return (n, n) if n > 0 else n


def test_conditional_expression_structures_must_match():
    with pytest.raises(TypeError, match="same nested structure") as info:
        compiled(if_exp_structures_differ)(_c(1))
    assert str(line_of(if_exp_structures_differ, "(n, n) if n > 0")) in str(info.value)
    assert '"(n, n) if n > 0 else n"' in str(info.value)   # the expression, quoted


# -------------------------------------------------------- exceptions_test

def checked(x):
    assert x > 0, "x must be positive"
    return x + 1


def checked_no_message(x):
    assert x > 0
    return x


def test_assert_on_tensor_untriggered():
    assert int(compiled(checked)(_c(1))) == 2


def test_assert_on_tensor_triggered_at_run_time():
    f = compiled(checked)
    f(_c(5))   # traced and compiled: the check is in the compiled code
    with pytest.raises(ag.errors.InvalidArgumentError, match="x must be positive") as info:
        f(_c(-1))
    assert str(line_of(checked, "assert x > 0")) in str(info.value)
    with pytest.raises(ag.errors.InvalidArgumentError, match="assertion failed"):
        compiled(checked_no_message)(_c(-1))


def checked_in_loop(n):
    s = 0
    for i in range(n):
        assert i < 3, "i got too big"
        s += i
    return s


def test_assert_inside_compiled_loop():
    assert int(compiled(checked_in_loop)(_c(3))) == 3
    with pytest.raises(ag.errors.InvalidArgumentError, match="i got too big") as info:
        compiled(checked_in_loop)(_c(5))
    assert str(line_of(checked_in_loop, "assert i < 3")) in str(info.value)


def checked_two_messages(x):
    assert x > 0, ("test message", "another message")
    return x


def test_assert_with_several_message_values():
    with pytest.raises(ag.errors.InvalidArgumentError, match="test message.*another message"):
        compiled(checked_two_messages)(_c(-1))


_TRACE = []


def checked_python(flag):
    assert flag, _TRACE.append("evaluated") or "python message"
    return 1


def test_assert_on_python_value():
    _TRACE.clear()
    assert compiled(checked_python)(True) == 1
    assert _TRACE == []   # the message is only evaluated when the assertion fails
    with pytest.raises(AssertionError, match="python message"):
        compiled(checked_python)(False)
    assert _TRACE == ["evaluated"]


# ------------------------------------------------------ control_flow_test

def for_over_tensor(x):
    s = 0
    for i in x:
        s += i
    return s


def for_over_range(n):
    s = 0
    for i in range(n):
        s += i
    return s


def for_with_python_and_tensor_state(x):
    count = 0
    s = x[0] * 0
    for v in x:
        s += v
        count += 1
    return s, count


def for_over_rows(m):
    s = m[0] * 0
    for row in m:
        s += row
    return s


def while_tensor(n):
    i, s = 0, 0
    while i < n:
        s += i
        i += 1
    return i, s


def while_python_bound_tensor_state(x):
    i = 0
    s = x * 0
    while i < 5:
        s += i
        i += 1
    return i, s


@pytest.mark.parametrize("fn,args", [
    (for_over_tensor, ([1, 2, 3, 4],)), (for_over_range, (5,)),
    (for_with_python_and_tensor_state, ([1, 2, 3],)), (for_over_rows, ([[1, 2], [3, 4]],)),
    (while_tensor, (5,)), (while_python_bound_tensor_state, (3,)),
])
def test_loops(fn, args):
    assert_matches_plain(fn, *args)
    assert_matches_plain(fn, *(_c(a) for a in args))


def test_loop_results():
    assert int(compiled(for_over_tensor)(_c([1, 2, 3, 4]))) == 10
    assert [int(v) for v in compiled(while_tensor)(_c(5))] == [5, 10]


def for_with_break_continue(x):
    s = 0
    for v in x:
        if v % 2 == 0:
            continue
        if v > 6:
            break
        s += v
    return s


def while_with_break_continue(n):
    i, s = 0, 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if s > 20:
            break
        s += i
    return s


@pytest.mark.parametrize("x", [[1, 2, 3, 5, 7, 9], [2, 4], [9]])
def test_for_with_break_and_continue(x):
    assert_matches_plain(for_with_break_continue, _c(x))


@pytest.mark.parametrize("n", [0, 4, 100])
def test_while_with_break_and_continue(n):
    assert_matches_plain(while_with_break_continue, _c(n))


def while_with_tensor_side_effect_in_condition(v, n):
    i = 0

    def bump():
        v.assign_add(1)
        return v.read_value()

    while bump() < n:
        i += 1
    return i


def test_while_condition_with_variable_side_effect():
    v = ag.Variable(0)
    got = ag.function(while_with_tensor_side_effect_in_condition)(v, _c(5))
    assert int(got) == 4 and int(v.numpy()) == 5


def if_single(c):
    if c:
        r = 1
    else:
        r = -1
    return r


def if_multiple(c):
    if c:
        a, b = 1, 2
    else:
        a, b = -1, -2
    return a, b


@pytest.mark.parametrize("fn", [if_single, if_multiple])
@pytest.mark.parametrize("c", [True, False])
def test_if_statements(fn, c):
    assert_matches_plain(fn, c)
    assert_matches_plain(fn, _c(c))


def long_python_loop(x):
    for _ in range(1200):
        x = x + 1
    return x


def test_long_unrolled_loop_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert int(ag.function(long_python_loop)(_c(0))) == 1200
    msgs = [str(w.message) for w in caught]
    assert any("unrolled" in m and str(line_of(long_python_loop, "for _ in range")) in m
               for m in msgs), msgs


def loop_option_outside_a_loop(x):
    ag.autograph.experimental.set_loop_options(maximum_iterations=3)
    return x


def test_loop_option_outside_a_loop_is_refused():
    # It could not bound any loop there; ignoring it would change results.
    with pytest.raises(NotImplementedError, match="top level of the body of a converted loop"):
        compiled(loop_option_outside_a_loop)(_c(1))


@NO_DATASETS
def test_for_over_dataset():
    """for over tf.data.Dataset.range(5), with and without loop state."""


# ------------------------------------------------------------ illegal cases

def defined_in_one_branch(x):
    if x > 0:
        y = 1
    return y  # noqa: F821 - the case under test


def dtype_changes_in_loop(n):
    s = ag.constant(0)
    for _ in range(n):
        s = ag.cast(s, ag.float32)
    return s


def structure_changes_in_loop(n):
    s = ag.constant(0)
    for _ in range(n):
        s = (s, s)
    return s


def none_before_loop(n):
    s = None
    for i in range(n):
        s = i
    return s


def shape_changes_in_loop(n):
    v = ag.constant([0])
    for i in range(n):
        v = ag.concat([v, [i]], 0)
    return v


def defined_in_loop(n):
    for i in range(n):
        t = i * 2
    return t  # noqa: F821


def test_variable_defined_in_one_branch():
    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch") as info:
        compiled(defined_in_one_branch)(_c(1))
    assert str(line_of(defined_in_one_branch, "if x > 0")) in str(info.value)


@pytest.mark.parametrize("fn,error,pattern,where", [
    (dtype_changes_in_loop, TypeError, "'s' has dtype int32 before the loop, but dtype float32",
     "for _ in range"),
    (structure_changes_in_loop, TypeError, "'s'", "for _ in range"),
    (none_before_loop, ValueError, "'s' is not allowed to be None before the loop", "for i in range"),
    (shape_changes_in_loop, (TypeError, ValueError), "'v'", "for i in range"),
])
def test_illegal_loop_variables(fn, error, pattern, where):
    with pytest.raises(error, match=pattern) as info:
        compiled(fn)(_c(3))
    assert str(line_of(fn, where)) in str(info.value)


def test_variable_defined_only_in_a_loop_that_ran_zero_times():
    assert int(compiled(defined_in_loop)(_c(3))) == 4
    with pytest.raises(ag.errors.InvalidArgumentError, match="'t'"):
        compiled(defined_in_loop)(_c(0))
