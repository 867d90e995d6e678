"""Compiled loops: structures first assigned in a loop, one trace of the body
per trace of the function (even when a loop variable's dtype is inferred),
graph constants as conditions (never a hang), and error messages that name
the variable, show shapes as tuples and point at the user's line."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import autograph as ag
from autograph.operators import control_flow as cf_ops
from semantics import assert_same_as_python, compiled_outcome, line_of

THIS_FILE = __file__


# ------------------------------------------------- structures first made in a loop


def tuple_made_in_loop(n):
    i = 0
    while i < n:
        t = (i, i * 2)
        i += 1
    return t[1] + t[0]


def dict_made_in_loop(x):
    for i in range(len(x)):
        d = {"v": x[i], "twice": x[i] * 2.0}
    return d["twice"] - d["v"]


def list_made_in_for(x):
    for i in range(len(x)):
        pair = [x[i], i]
    return pair[0], pair[1]


def nested_structure_made_in_loop(n):
    i = 0
    while i < n:
        s = {"a": (i, i + 1), "b": [i * 3]}
        i += 1
    return s["a"][1] + s["b"][0]


@pytest.mark.parametrize("fn, arg", [
    (tuple_made_in_loop, ag.constant(3)),
    (dict_made_in_loop, ag.constant(np.arange(4.0))),
    (list_made_in_for, ag.constant(np.arange(3.0))),
    (nested_structure_made_in_loop, ag.constant(5)),
])
def test_a_structure_first_assigned_in_a_loop_is_usable_after_it(fn, arg):
    assert_same_as_python(fn, arg)


def test_a_structure_made_in_a_loop_that_ran_zero_times_names_the_variable():
    with pytest.raises(ag.errors.InvalidArgumentError,
                       match="loop must iterate at least once to initialize 't'"):
        ag.function(tuple_made_in_loop)(ag.constant(0))
    # Plain Python raises too (UnboundLocalError): the compiled code cannot
    # know before it runs.
    with pytest.raises(UnboundLocalError):
        tuple_made_in_loop(ag.constant(0))


# ------------------------------------------------- one trace of the body


def prints_in_body(x):
    acc = 0.0
    for i in range(len(x)):
        print("body")
        acc += x[i]
    return acc


def counter_and_float_sum(x):
    acc = 0.0
    n = 0
    for i in range(len(x)):
        print("step")
        acc = acc * 0.5 + x[i]
        n += 1
    return acc, n


def nested_loops(x):
    total = 0
    for i in range(len(x)):
        print("outer")
        for j in range(len(x)):
            print("inner")
            total += x[i] * x[j]
    return total


@pytest.mark.parametrize("fn, printed", [
    (prints_in_body, "body\n"),
    (counter_and_float_sum, "step\n"),
    (nested_loops, "outer\ninner\n"),
])
def test_a_loop_body_is_traced_once_when_dtypes_are_inferred(fn, printed):
    x = ag.constant(np.arange(1.0, 5.0))          # float64: the Python numbers adopt it
    got = compiled_outcome(fn, x)
    assert got.error is None
    assert got.printed == printed                  # once per trace, not per iteration
    want = assert_same_as_python(fn, x, printed=False)
    assert want.error is None


def test_list_append_in_a_body_runs_once_per_trace():
    seen = []

    def f(x):
        acc = 0
        i = 0
        while i < x:
            seen.append(i)
            acc += i
            i += 1
        return acc

    assert int(ag.function(f)(ag.constant(4))) == 6
    assert len(seen) == 1


def test_inferred_dtypes():
    @ag.function
    def f(x):
        acc = 0.0
        count = 0
        big = 0
        for i in range(len(x)):
            acc += x[i]
            count += 1
            big = big + ag.cast(x[i], ag.int64)
        return acc, count, big

    acc, count, big = f(np.arange(4.0))
    assert acc.dtype == ag.float64 and count.dtype == ag.int32 and big.dtype == ag.int64
    assert (float(acc), int(count), int(big)) == (6.0, 4, 6)


def test_the_retyped_body_is_what_a_tensor_start_would_trace():
    def weak(x):
        acc = 0.0
        for i in range(len(x)):
            acc = acc * 0.5 + x[i]
        return acc

    def strong(x):
        acc = ag.constant(0.0, ag.float64)
        for i in range(len(x)):
            acc = acc * 0.5 + x[i]
        return acc

    def loop_text(fn):
        text = str(ag.function(fn).get_concrete_function(ag.TensorSpec([None], ag.float64)).graph)
        return text[text.index("body("):]      # the loop body (the constant 0.0 sits elsewhere)

    assert loop_text(weak) == loop_text(strong)
    a, b = ag.function(weak), ag.function(strong)
    x = np.array([1.0, 0.1, 0.3])
    assert float(a(x)) == float(b(x)) == (1.0 * 0.5 + 0.1) * 0.5 + 0.3


def meets_two_dtypes(x, y):
    acc = 0.0
    for i in range(len(x)):
        z = acc * y[i]  # noqa: F841 like a Python number, acc adopts float32 here...
        acc = acc + x[i]        # ...but the loop makes it float64
    return acc


def test_a_python_number_loop_variable_never_mixes_two_dtypes():
    got = compiled_outcome(meets_two_dtypes, ag.constant(np.arange(3.0)),
                           ag.constant(np.arange(3.0, dtype=np.float32)))
    assert isinstance(got.error, TypeError)
    message = str(got.error)
    assert "float64" in message and "float32" in message
    assert "start it as a tensor of that dtype" in message
    assert f'File "{THIS_FILE}", line {line_of(meets_two_dtypes, "z = acc * y[i]")}' in message


# ------------------------------------------------- conditions that are graph constants


def constant_true_with_break(x):
    i = 0
    while ag.constant(True):
        i += 1
        if i >= x:
            break
    return i


def test_while_graph_constant_compiles_to_a_loop():
    f = ag.function(constant_true_with_break)
    assert "while(" in str(f.get_concrete_function(ag.TensorSpec([], ag.int32)).graph)
    assert int(f(ag.constant(5))) == 5


_HANG_PROGRAM = textwrap.dedent("""
    import autograph as ag

    @ag.function
    def f(x):
        i = 0
        while ag.constant(True):
            i += 1
            if i >= x:
                break
        return i

    print(int(f(ag.constant(3))))

    @ag.function
    def g(x):
        n = 0
        while ag.constant(True):     # traced: a compiled loop (it would never end at run time)
            n += 1
        return n

    g.get_concrete_function(ag.TensorSpec([], ag.int32))
    print("traced")
""")


def _run_program(tmp_path, source: str, timeout: float):
    path = tmp_path / "program.py"     # a file: conversion needs the source
    path.write_text(source)
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=timeout)


def test_while_constant_true_never_hangs_the_trace(tmp_path):
    # In a subprocess with a timeout: if tracing hung, this fails in seconds.
    done = _run_program(tmp_path, _HANG_PROGRAM, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3", "traced"]


EAGER_TRUE = ag.constant(True)


def loops_on_a_captured_eager_tensor(x):
    n = 0
    while EAGER_TRUE:
        n += 1
    return n + x


def test_a_python_loop_on_an_eager_tensor_has_an_iteration_limit(monkeypatch):
    monkeypatch.setattr(cf_ops, "ITERATION_LIMIT", 1000)
    got = compiled_outcome(loops_on_a_captured_eager_tensor, ag.constant(1))
    assert isinstance(got.error, ValueError)
    message = str(got.error)
    assert "iteration limit exceeded: this `while` loop ran 1000 times while tracing" in message
    assert f'File "{THIS_FILE}", line {line_of(loops_on_a_captured_eager_tensor, "while EAGER")}' \
        in message


_GUARD_PROGRAM = textwrap.dedent("""
    import autograph as ag
    FOREVER = ag.constant(True)

    @ag.function
    def f(x):
        n = 0
        while FOREVER:
            n += 1
        return n + x

    try:
        f(ag.constant(1))
    except ValueError as e:
        print("limit" if "iteration limit exceeded" in str(e) else e)
""")


def test_the_real_iteration_limit_is_reached_in_seconds(tmp_path):
    done = _run_program(tmp_path, _GUARD_PROGRAM, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "limit"


# ------------------------------------------------- error messages


def dtype_changes(n):
    i = 0
    x = ag.constant(1, ag.int32)
    while i < n:
        x = ag.cast(x, ag.float32)
        i += 1
    return x


def shape_changes(n):
    t = ag.constant([1])
    i = 0
    while i < n:
        t = ag.concat([t, t], 0)
        i += 1
    return t


def structure_changes(n):
    s = {"a": n}
    i = 0
    while i < n:
        s = n
        i += 1
    return s


def becomes_none(n):
    v = ag.constant(1)
    i = 0
    while i < n:
        v = None
        i += 1
    return v


def weak_becomes_a_vector(x):
    acc = 0.0
    for i in range(len(x)):
        acc = acc + x
    return acc


def branch_structures_differ(c):
    if c > 0:
        s = (c, c)
    else:
        s = c
    return s


@pytest.mark.parametrize("fn, arg, error, text, line", [
    (dtype_changes, 3, TypeError,
     "'x' has dtype int32 before the loop, but dtype float32 after one iteration", "while i < n"),
    (shape_changes, 3, ValueError,
     "'t' has shape (1,) before the loop, but shape (2,) after one iteration", "while i < n"),
    (structure_changes, 3, TypeError,
     "'s' does not have the same nested structure after one iteration: it is a dict with keys "
     "['a'] before the loop, but a int32 tensor of shape () after one iteration", "while i < n"),
    (becomes_none, 3, ValueError, "'v' is None at the end of the iteration", "while i < n"),
    (weak_becomes_a_vector, np.arange(3.0), ValueError,
     "'acc' has shape () before the loop, but shape (3,) after one iteration",
     "for i in range(len(x))"),
    (branch_structures_differ, 3, TypeError,
     "'s' must have the same nested structure in the main and else branches: it is a tuple of 2 "
     "elements in the main branch, but a int32 tensor of shape () in the else branch",
     "if c > 0"),
])
def test_loop_and_branch_errors_name_the_variable_and_the_line(fn, arg, error, text, line):
    got = compiled_outcome(fn, ag.constant(arg))
    assert isinstance(got.error, error), repr(got.error)
    message = str(got.error)
    assert text in message
    assert f'File "{THIS_FILE}", line {line_of(fn, line)}' in message


# ------------------------------------------------- Python-number variables, re-typed


def weak_in_both_branches(x):
    acc = 0.0
    for i in range(len(x)):
        if x[i] > 2:
            acc = acc * 2.0
        else:
            acc = acc + 1.0
        acc += x[i]
    return acc


def weak_reset_in_a_branch(x):
    acc = 0.0
    for i in range(len(x)):
        if x[i] > 2:
            acc = 0.0
        else:
            acc = acc + 1.0
        acc += x[i]
    return acc


def weak_int_becomes_float_in_a_branch(x):
    acc = 0
    for i in range(len(x)):
        if x[i] > 2:
            acc = 0.5
        acc += x[i]
    return acc


def weak_through_nested_loops(m):
    acc = 0.0
    for i in range(len(m)):
        row = 0.0
        for j in range(len(m)):
            row += m[i, j]
            acc += m[i, j] * 0.5
        acc = acc + row
    return acc


def weak_written_to_a_tensor_array(x):
    ta = ag.TensorArray(ag.float64, size=0, dynamic_size=True)
    acc = 0.0
    for i in range(len(x)):
        acc += x[i]
        ta = ta.write(i, acc)
    return ta.stack()


def weak_returned_from_the_loop(x):
    acc = 0.0
    for i in range(len(x)):
        acc += x[i]
        if acc > 3.0:
            return acc
    return -1.0


def weak_in_the_condition(x, limit):
    acc = 0.0
    n = 0
    while acc < limit:
        acc += x[n]
        n += 1
    return acc, n


def weak_with_where_and_unary(x):
    acc = 0.0
    for i in range(len(x)):
        acc = ag.where(x[i] > 2, -acc + abs(x[i]) ** 2, acc)
    return acc


X = np.arange(1.0, 5.0)


@pytest.mark.parametrize("fn, args", [
    (weak_in_both_branches, (X,)),
    (weak_reset_in_a_branch, (X,)),
    (weak_int_becomes_float_in_a_branch, (X,)),
    (weak_through_nested_loops, (np.arange(9.0).reshape(3, 3),)),
    (weak_written_to_a_tensor_array, (X,)),
    (weak_returned_from_the_loop, (X,)),
    (weak_returned_from_the_loop, (X * 0.1,)),
    (weak_in_the_condition, (X, 5.0)),
    (weak_with_where_and_unary, (X,)),
])
def test_python_number_variables_take_the_loops_dtype(fn, args):
    got = assert_same_as_python(fn, *[ag.constant(np.float64(a)) if np.ndim(a) == 0 else
                                      ag.constant(a) for a in args])
    leaves = got.value if isinstance(got.value, tuple) else (got.value,)
    assert leaves[0].dtype == np.float64
