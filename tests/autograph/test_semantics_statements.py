"""`try`/`except`, `del`, `assert` and `in` in converted code: exactly Python's
semantics at trace time, a compiled equivalent for traced values, or an error
naming the construct; never a sentinel or a silently wrong value."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from autograph import impl
from semantics import assert_same_as_python, compiled_outcome, line_of, outcome

THIS_FILE = __file__


# ---------------------------------------------------------------- try / except


def raises_value_error():
    raise ValueError("no value")


def return_of_a_raising_call_caught(x):
    try:
        return raises_value_error()
    except ValueError:
        pass
    return x


def return_of_a_raising_call_falls_off_the_end(x):
    try:
        return raises_value_error()
    except ValueError:
        pass


def return_in_finally_overrides(x):
    try:
        return x
    finally:
        return x * 2


def return_in_try_with_finally(x):
    out = []
    try:
        return x + 1
    finally:
        out.append(1)


def exception_then_return_in_handler(x):
    try:
        y = raises_value_error()
    except ValueError as e:
        return x - 1 if "no value" in str(e) else x
    return y


def return_in_with_that_swallows(x):
    import contextlib
    with contextlib.suppress(ValueError):
        return raises_value_error()
    return x + 5


def try_inside_a_compiled_branch(x):
    if x > 0:
        try:
            y = raises_value_error()
        except ValueError:
            y = x * 10
    else:
        y = x
    return y


@pytest.mark.parametrize("fn", [
    return_of_a_raising_call_caught, return_of_a_raising_call_falls_off_the_end,
    return_in_finally_overrides, return_in_try_with_finally, exception_then_return_in_handler,
    return_in_with_that_swallows, try_inside_a_compiled_branch,
])
@pytest.mark.parametrize("x", [3, -3])
def test_try_statements_behave_as_python(fn, x):
    got = assert_same_as_python(fn, ag.constant(x))
    assert "Undefined" not in repr(got.value)


def branch_raises_and_is_caught(x):
    try:
        if x > 0:
            raise ValueError("positive")
        y = x
    except ValueError:
        y = -x
    return y


def loop_raises_and_is_caught(n):
    total = 0
    try:
        for i in range(n):
            if i == 3:
                raise KeyError("three")
            total += i
    except KeyError:
        total = -1
    return total


def and_raises_and_is_caught(x):
    try:
        ok = x > 0 and raises_value_error()
    except ValueError:
        ok = False
    return ok


@pytest.mark.parametrize("fn, construct, line", [
    (branch_raises_and_is_caught, "`if`", "if x > 0"),
    (loop_raises_and_is_caught, "`if`", "if i == 3"),      # the innermost compiled statement
    (and_raises_and_is_caught, "`and`", "ok = x > 0 and"),
])
def test_an_exception_raised_in_compiled_control_flow_is_not_caught_at_trace_time(
        fn, construct, line):
    # With a Python value the handler runs, as in Python...
    assert compiled_outcome(fn, 5).error is None
    # ...with a traced one, whether it raises is only known at run time.
    got = compiled_outcome(fn, ag.constant(5))
    assert isinstance(got.error, NotImplementedError), repr(got.error)
    message = str(got.error)
    assert f"was raised while tracing a compiled {construct}" in message
    assert f"line {line_of(fn, line)} of {THIS_FILE}" in message
    assert "cannot be caught at trace time" in message
    assert f'File "{THIS_FILE}", line {line_of(fn, "except")}' in message


def test_an_uncaught_exception_in_a_branch_reaches_the_caller_unchanged():
    def f(x):
        if x > 0:
            raise ValueError("positive")
        return x

    got = compiled_outcome(f, ag.constant(1))
    assert type(got.error) is ValueError and str(got.error) == "positive"


# ---------------------------------------------------------------- del


def del_in_both_branches(c):
    v = 1
    if c > 0:
        del v
    else:
        del v
    return v


def del_in_one_branch(c):
    v = 1
    if c > 0:
        del v
    return v


def del_then_reassign(c):
    v = 1
    if c > 0:
        del v
        v = c * 2
    else:
        v = c
    return v


def del_in_loop_body(n):
    v = 1
    i = 0
    while i < n:
        del v
        i += 1
    return v


def del_of_a_temporary_in_loop_body(n):
    i = 0
    while i < n:
        t = i * 2
        del t
        i += 1
    return i


def test_del_in_both_branches_of_a_compiled_if_unbinds_the_variable():
    got = assert_same_as_python(del_in_both_branches, ag.constant(1))
    assert isinstance(got.error, UnboundLocalError)
    assert "'v' is used before assignment" in str(got.error)


def test_del_in_one_branch_names_the_variable():
    assert isinstance(outcome(del_in_one_branch, ag.constant(-1)).error, type(None))
    got = compiled_outcome(del_in_one_branch, ag.constant(1))
    assert isinstance(got.error, ValueError)
    assert "'v' must also be initialized in the main branch" in str(got.error)


@pytest.mark.parametrize("c", [2, -2])
def test_del_then_reassign(c):
    assert_same_as_python(del_then_reassign, ag.constant(c))


def test_del_of_a_loop_variable_in_a_compiled_loop_is_an_error():
    got = compiled_outcome(del_in_loop_body, ag.constant(2))
    assert isinstance(got.error, ValueError)
    assert "'v' is defined before the loop, but not at the end of the iteration" in str(got.error)


@pytest.mark.parametrize("n", [0, 3])
def test_del_of_a_temporary_in_a_compiled_loop(n):
    assert_same_as_python(del_of_a_temporary_in_loop_body, ag.constant(n))


# ---------------------------------------------------------------- assert


def asserts_positive(x):
    assert x > 0, "x must be positive"
    return x * 2


def asserts_with_value_message(x):
    assert x < 10, x
    return x


def asserts_without_message(x):
    assert x != 0
    return 1 / x


def test_assert_on_a_python_value_is_pythons_assert():
    f = impl.convert(asserts_positive)
    assert f(2) == 4
    with pytest.raises(AssertionError, match="x must be positive"):
        f(0)
    with pytest.raises(AssertionError) as info:
        impl.convert(asserts_without_message)(0)
    assert info.value.args == ()


def test_assert_on_a_traced_value_is_a_run_time_check():
    f = ag.function(asserts_positive)
    assert int(f(ag.constant(3))) == 6
    assert "check" in str(f.get_concrete_function(ag.TensorSpec([], ag.int32)).graph)
    with pytest.raises(ag.errors.InvalidArgumentError) as info:
        f(ag.constant(-1))
    message = str(info.value)
    assert "assertion failed: x must be positive" in message
    assert f'File "{THIS_FILE}", line {line_of(asserts_positive, "assert x > 0")}' in message
    assert 'assert x > 0, "x must be positive"' in message


def test_assert_messages_quote_traced_values_and_default_to_assertion_failed():
    with pytest.raises(ag.errors.InvalidArgumentError, match="assertion failed: 12"):
        ag.function(asserts_with_value_message)(ag.constant(12))
    with pytest.raises(ag.errors.InvalidArgumentError, match="assertion failed"):
        ag.function(asserts_without_message)(ag.constant(0.0))
    assert float(ag.function(asserts_without_message)(ag.constant(4.0))) == 0.25


def test_assert_on_a_vector_is_ambiguous():
    got = compiled_outcome(asserts_positive, ag.constant([1, 2]))
    assert isinstance(got.error, ValueError)
    assert "truth value is ambiguous" in str(got.error)


# ---------------------------------------------------------------- in


def in_tensor(x):
    return 3 in x


def not_in_tensor(x):
    return 3 not in x


def in_python_list(x):
    if x in (1, 2, 3):
        return x * 10
    return x


def in_range_(x):
    return x in range(2, 10, 2)


def in_chain(x, y):
    return 0 < x in y


@pytest.mark.parametrize("fn, arg", [
    (in_tensor, [1, 2, 3]), (in_tensor, [4, 5]), (not_in_tensor, [1, 3]), (not_in_tensor, [0]),
    (in_python_list, 2), (in_python_list, 7),
    (in_range_, 4), (in_range_, 5), (in_range_, 10), (in_range_, 0),
])
def test_in_on_a_traced_tensor_compiles(fn, arg):
    assert_same_as_python(fn, ag.constant(arg))


def test_in_is_reduce_any_of_equal():
    text = str(ag.function(in_tensor).get_concrete_function(ag.TensorSpec([None], ag.int32)).graph)
    assert "= equal(" in text and "= reduce_any[" in text


def test_in_a_chain_of_comparisons():
    assert_same_as_python(in_chain, ag.constant(2), ag.constant([1, 2]))
    assert_same_as_python(in_chain, ag.constant(5), ag.constant([1, 2]))


def in_dict(x):
    return x in {1: "a", 2: "b"}


def test_in_a_dict_with_a_traced_key_is_an_error():
    got = compiled_outcome(in_dict, ag.constant(1))
    assert isinstance(got.error, TypeError)
    message = str(got.error)
    assert "`in` cannot look up a traced tensor in a dict" in message
    assert f'File "{THIS_FILE}", line {line_of(in_dict, "return x in")}' in message


def test_in_with_python_values_is_python():
    assert impl.convert(in_dict)(1) is True
    assert impl.convert(in_python_list)(3) == 30
    assert 2 in ag.constant([1, 2]) and 5 not in ag.constant([[1, 2], [3, 4]])
    assert bool(np.isin(2, [1, 2]))
