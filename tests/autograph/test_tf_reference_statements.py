"""Ports of TensorFlow's AutoGraph reference tests of statements, for `ag`:
printing (`call_to_print_function_test.py`), `assert`
(`assertion_test.py`), generators (`generator_test.py`), extended slices
(`ext_slice_test.py`) and Python lists in compiled loops
(`basic_list_test.py`).

TensorFlow's list test annotates lists with `set_element_type` and stacks
them with `stack(l, strict=False)`; here (API.md section 9) a list filled by
`append` in a compiled loop takes the dtype of what is appended, and
`ag.stack(l)` stacks it, so the annotations are left out.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tf_reference_support import assert_matches_plain, compiled, line_of, run_captured


# --------------------------------------------------------------- printing

def print_one(v):
    print(v)


def print_with_text(v):
    print("v is", v)


def ag_print_twice(v, w):
    ag.print("v is", v)
    ag.print("w is", w)


def print_with_a_dict(v):
    print("v is", v, {"foo": "bar"})


def print_if_zero(v):
    if v == 0:
        print(v)


def ag_print_one(v):
    ag.print(v)


@pytest.mark.parametrize("fn,args", [
    (print_one, (1,)), (print_with_text, (1,)), (print_with_a_dict, (1,)),
    (print_if_zero, (0,)), (print_if_zero, (1,)),
    (ag_print_twice, (1, 2)), (ag_print_twice, (np.array([1, 2, 3]), 4)),
    (ag_print_one, (0,)),
])
def test_print_matches_plain(fn, args):
    assert_matches_plain(fn, *args)


def test_ag_print_prints_on_every_call():
    f = ag.function(ag_print_twice)
    first = run_captured(f, np.array([1, 2, 3]), 4)
    again = run_captured(f, np.array([5, 6, 7]), 4)
    assert first.printed == "v is [1 2 3]\nw is 4\n"
    assert again.printed == "v is [5 6 7]\nw is 4\n"


@pytest.mark.parametrize("fn,text", [(print_one, ""), (print_with_text, "v is "),
                                     (print_with_a_dict, "v is ")])
def test_python_print_of_a_tensor_runs_at_trace_time(fn, text):
    # TensorFlow turns `print` of a tensor into a run-time print. Here the
    # contract (API.md section 4) keeps Python's `print` a side effect of the
    # trace: it runs once per trace and shows the traced tensor, not its value
    # (use ag.print for values at run time).
    f = ag.function(fn)
    first = run_captured(f, np.array([1, 2, 3]))
    again = run_captured(f, np.array([4, 5, 6]))
    assert first.error is None and again.error is None
    assert first.printed.startswith(text + "Tensor(") and "shape=(3,)" in first.printed
    assert again.printed == ""


# --------------------------------------------------------------- assert

def checked_positive(v):
    assert v > 0
    return v


@pytest.mark.parametrize("v", [1, "t1"])
def test_assert_that_holds(v):
    assert_matches_plain(checked_positive, ag.constant(1) if v == "t1" else v)


def test_assert_on_python_value_fails_at_trace_time():
    with pytest.raises(AssertionError):
        compiled(checked_positive)(0)


def test_assert_on_tensor_fails_when_the_code_runs():
    f = compiled(checked_positive)
    assert int(f(ag.constant(2))) == 2
    with pytest.raises(ag.errors.InvalidArgumentError, match="assertion failed") as info:
        f(ag.constant(0))
    assert f"line {line_of(checked_positive, 'assert v > 0')}" in str(info.value)


# --------------------------------------------------------------- generators

def yields_once():
    yield 1


def yields_in_for(n):
    for i in range(n):
        yield i


def yields_in_while(n):
    k = 0
    while k < n:
        k += 1
        yield k


@pytest.mark.parametrize("fn,args", [(yields_once, ()), (yields_in_for, ([],)),
                                     (yields_in_while, (0,))])
def test_generators_are_refused(fn, args):
    with pytest.raises(NotImplementedError, match="generators are not supported") as info:
        ag.function(fn)(*args)
    assert f"line {line_of(fn, '    yield')}" in str(info.value)


# --------------------------------------------------------------- extended slices

def slices_of_a_matrix(m):
    return m[:, :], m[0, :], m[:, 0]


def outer_difference(m):
    return m[:, ag.newaxis] - m[ag.newaxis, :]


def slices_of_a_call(f, m):
    return f(m)[:, ag.newaxis] - f(m)[ag.newaxis, :]


def test_extended_slices():
    assert_matches_plain(slices_of_a_matrix, ag.eye(3))


def test_new_axes():
    assert_matches_plain(outer_difference, ag.eye(3))


def test_slices_of_a_call():
    assert_matches_plain(slices_of_a_call, lambda m: m, ag.eye(3))


# --------------------------------------------------------------- lists

def appended_in_loop(n):
    out = []
    for i in range(n):
        out.append(i)
    return ag.stack(out)


def item_read():
    out = []
    out.append(1)
    out.append(2)
    out.append(3)
    return 2 * out[1]


def item_written():
    out = []
    out.append(1)
    out.append(2)
    out.append(3)
    out[1] = 5
    return ag.stack(out)


def rows_appended_in_nested_loops(m, n):
    rows = []
    for _ in range(m):
        row = []
        for j in range(n):
            row.append(j)
        rows.append(ag.stack(row))
    return ag.stack(rows)


def reads_and_writes_in_loop(n):
    out = []
    out.append(1)
    out.append(1)
    for i in range(2, n):
        out.append(out[i - 1] + out[i - 2])
        out[i - 2] = -out[i - 2]
    return ag.stack(out)


def popped_in_loop(n):
    out = []
    out.append(1)
    out.append(2)
    out.append(3)
    out.append(4)
    total = 0
    for _ in range(n):
        total += out.pop()
    return ag.stack(out), total


def items_assigned(xs, n):
    for i in range(n):
        xs[i] = i
    return xs


@pytest.mark.parametrize("fn,args", [
    (item_read, ()), (item_written, ()), (appended_in_loop, (3,)), (appended_in_loop, (5,)),
    (rows_appended_in_nested_loops, (5, 3)), (reads_and_writes_in_loop, (4,)),
    (popped_in_loop, (0,)), (popped_in_loop, (2,)),
])
def test_lists_in_compiled_loops(fn, args):
    # Tensor arguments, as TensorFlow's test passes them: the loops compile.
    assert_matches_plain(fn, *(ag.constant(a) for a in args))


def test_list_appended_zero_times_stacks_empty():
    # TensorFlow cannot stack a list it never saw an element of (ValueError).
    # Here the loop's body gives the list its dtype and element shape when it
    # is traced, so a loop that runs zero times stacks to an empty tensor.
    got = compiled(appended_in_loop)(ag.constant(0))
    assert got.dtype == ag.int32 and got.shape == (0,)
    rows = compiled(rows_appended_in_nested_loops)(ag.constant(0), ag.constant(3))
    assert rows.dtype == ag.int32 and rows.shape[0] == 0


def test_list_popped_to_empty():
    # Plain Python cannot stack the empty list (no dtype); compiled, it is an
    # empty int32 vector (as the zero-iteration case above).
    out, total = compiled(popped_in_loop)(ag.constant(4))
    assert out.dtype == ag.int32 and out.shape == (0,) and int(total) == 10


def test_list_popped_past_its_end_raises():
    with pytest.raises(ag.errors.InvalidArgumentError, match="pop from empty list") as info:
        compiled(popped_in_loop)(ag.constant(5))
    assert f"line {line_of(popped_in_loop, 'out.pop()')}" in str(info.value)


def test_python_list_items_assigned():
    assert_matches_plain(items_assigned, [0] * 10, 10)


def pops_outside_loops(k):
    out = [1, 2, 3, 4]
    last = out.pop()
    first = out.pop(0)
    kept = [out.pop() for _ in range(1)]    # in a comprehension: stays a Python call
    return last * 10 + first + k, kept, out


def popped_at_front_in_loop(n):
    out = [1, 2, 3]
    total = 0
    for _ in range(n):
        total += out.pop(0)
    return total


def test_pops_outside_loops_are_python_pops():
    assert_matches_plain(pops_outside_loops, 5)
    assert_matches_plain(pops_outside_loops, ag.constant(5))
    assert "ag__.list_pop(out)" in ag.to_code(pops_outside_loops)


def test_pop_at_an_index_in_compiled_loop_is_refused():
    with pytest.raises(NotImplementedError, match=r"pop\(0\) of a list that a compiled loop "
                                                  r"carries: only the last element") as info:
        compiled(popped_at_front_in_loop)(ag.constant(2))
    assert f"line {line_of(popped_at_front_in_loop, 'out.pop(0)')}" in str(info.value)


def items_updated_in_loop(n):
    out = []
    for i in range(n):
        out.append(i)
        out[i] += 10
        out[-1] = out[-1] * 2
    return ag.stack(out)


def test_list_items_updated_in_compiled_loop():
    # `+=` and negative indices on a list the loop carries as a TensorArray.
    assert_matches_plain(items_updated_in_loop, ag.constant(4))


def test_tensor_array_item_reads():
    ta = ag.TensorArray(ag.int32, size=3).write(0, 4).write(1, 5).write(2, 6)
    assert int(ta[0]) == 4 and int(ta[-1]) == 6 and int(ta[ag.constant(1)]) == 5
    with pytest.raises(TypeError, match="an item is read with one integer index"):
        ta[0:2]
    with pytest.raises(ag.errors.InvalidArgumentError):
        ta[3]
    with pytest.raises(TypeError, match="a TensorArray is not iterable"):
        list(ta)


def pop_beside_other_reads(k):
    out = [1, 2, 3]
    first = out.pop() + len(out)                   # reads `out` too: stays in place
    second = k > 0 and out.pop()                   # may not run: stays in place
    return first, second, out


def test_pops_that_must_stay_in_place():
    assert "list_pop" not in ag.to_code(pop_beside_other_reads)
    assert_matches_plain(pop_beside_other_reads, 1)
    assert_matches_plain(pop_beside_other_reads, 0)
