"""Issue 11: conversions that failed while tracing.

* an early `return` of a structure (tuple, nested tuple, dict, namedtuple)
  from inside a compiled loop, with loop variables that start as Python
  numbers: the path that has not returned carries a dummy of the same
  structure (`autograph.operators.control_flow._dummy_like`);
* a function that calls itself by name (the converted code looked its own
  name up as a closure cell that did not exist: `KeyError`); recursion on
  Python values runs as in Python, and a recursion on traced values, which
  cannot stop at trace time, is an error naming the function
  (`autograph.operators.calls.UnboundedRecursionError`, a RecursionError).

Every program is run as plain Python and compiled, and the two compared.
"""
from __future__ import annotations

import collections
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import autograph as ag
from semantics import assert_same_as_python

# ------------------------------------------- early return of a structure from a loop


def tuploop(n):
    a, b = 0, 1
    for i in ag.range(n):
        a, b = b, a + b
        if a > 10:
            return a, b
    return a, b


def nested_tuple_from_loop(n):
    a, b = 0, 1
    for i in ag.range(n):
        a, b = b, a + b
        if a > 10:
            return a, (b, a + b)
    return a, (b, 0)


def dict_from_loop(n):
    a, b = 0, 1
    for i in ag.range(n):
        a, b = b, a + b
        if a > 10:
            return {"a": a, "b": b, "i": i}
    return {"a": a, "b": b, "i": n}


def constant_in_returned_tuple(n):
    total = 0
    for i in ag.range(n):
        total += i
        if total > 6:
            return total, 1
    return total, 0


def tuple_from_while(n):
    i, s = 0, 0.0
    while i < n:
        s = s + 1.5
        i += 1
        if s > 4.0:
            return i, s
    return i, s


def tuple_from_loop_over_tensor(x):
    acc, count = 0.0, 0
    for v in x:
        acc = acc + v
        count += 1
        if acc > 5.0:
            return (count, acc), {"last": v}
    return (count, acc), {"last": acc * 0.0}


def tuple_from_nested_loops(n):
    s = 0
    for i in ag.range(n):
        for j in ag.range(i):
            s += i * j
            if s > 20:
                return s, (i, j)
    return s, (n, n)


Pair = collections.namedtuple("Pair", "first second")


def namedtuple_from_loop(n):
    a, b = 0, 1
    for i in ag.range(n):
        a, b = b, a + b
        if a > 10:
            return Pair(a, b)
    return Pair(a, b)


@pytest.mark.parametrize("fn", [tuploop, nested_tuple_from_loop, dict_from_loop,
                                constant_in_returned_tuple, tuple_from_while,
                                tuple_from_nested_loops, namedtuple_from_loop])
@pytest.mark.parametrize("n", [0, 1, 3, 6, 7, 20])
def test_a_structure_returned_early_from_a_compiled_loop(fn, n):
    assert_same_as_python(fn, ag.constant(n))


@pytest.mark.parametrize("values", [[], [1.0], [1.0, 2.0], [1.0, 2.0, 3.0, 4.0], [9.0, 1.0]])
def test_a_structure_returned_early_from_a_loop_over_a_tensor(values):
    assert_same_as_python(tuple_from_loop_over_tensor,
                          ag.constant(np.array(values, dtype=np.float32).reshape(-1)))


def test_the_reported_program_returns_python_s_values():
    assert tuple(int(v) for v in ag.function(tuploop)(ag.constant(20))) == (13, 21)


# ------------------------------------------------------------------- recursion


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def usefib(x):
    return x * fib(10)


def power(x, k):
    # Traced x, Python k: the recursion stops on k.
    if k == 0:
        return x * 0.0 + 1.0
    return x * power(x, k - 1)


def use_power(x):
    return power(x, 5) - power(x, 2)


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def mutual_recursion(x):
    return x + (1 if is_even(7) else 2)


def tree_sum(t):
    if isinstance(t, (list, tuple)):
        total = 0.0
        for item in t:
            total = total + tree_sum(item)
        return total
    return t


def recursion_over_a_python_structure(x):
    return tree_sum([x, (x * 2.0, [x * 3.0]), 1.0])


def recursion_in_a_nested_function(x):
    def down(n):
        if n <= 0:
            return x
        return down(n - 1) + 1.0
    return down(4)


class Counter:
    def count(self, n):
        return 0 if n == 0 else 1 + self.count(n - 1)


def recursion_in_a_method(x):
    return x * Counter().count(6)


def recursion_with_a_traced_branch(x, n):
    # The branch is on a traced value, the recursion on a Python one: it stops.
    def go(k):
        if k == 0:
            return x
        if x > 0.0:
            return go(k - 1) * 2.0
        return go(k - 1) - 1.0
    return go(n)


@pytest.mark.parametrize("fn, args", [
    (usefib, (ag.constant(3),)),
    (use_power, (ag.constant(1.5),)),
    (mutual_recursion, (ag.constant(4),)),
    (recursion_over_a_python_structure, (ag.constant(2.0),)),
    (recursion_in_a_nested_function, (ag.constant(0.5),)),
    (recursion_in_a_method, (ag.constant(7),)),
    (recursion_with_a_traced_branch, (ag.constant(2.0), 3)),
    (recursion_with_a_traced_branch, (ag.constant(-2.0), 3)),
])
def test_recursion_on_python_values_runs_as_in_python(fn, args):
    assert_same_as_python(fn, *args)


@ag.function
def countdown(n, k):
    # An ag.function calling itself: the recursion stops on the Python k.
    if k == 0:
        return n * 2
    return countdown(n + 1, k - 1)


@pytest.mark.parametrize("k", [0, 1, 4])
def test_an_ag_function_may_call_itself_on_python_values(k):
    assert int(countdown(ag.constant(5), k)) == (5 + k) * 2   # as in Python


def test_the_reported_recursive_helper_converts():
    assert int(ag.function(usefib)(ag.constant(2))) == 110


def test_converted_code_keeps_the_function_s_own_name():
    from autograph import impl
    converted = impl.convert(fib)
    assert converted.__code__.co_name == "fib"
    assert converted.__code__.co_qualname == fib.__code__.co_qualname
    assert converted(10) == 55


_RECURSION_SCRIPT = textwrap.dedent("""
    import autograph as ag

    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)

    def sum_to(n):
        if n == 0:
            return 0
        return n + sum_to(n - 1)

    @ag.function
    def traced_recursion(x):
        return fib(x)

    @ag.function
    def deep_python_recursion(x):
        return x + sum_to(5000)

    @ag.function
    def self_recursive_function(n):
        if n < 2:
            return n
        return self_recursive_function(n - 1) + self_recursive_function(n - 2)

    for f in (traced_recursion, deep_python_recursion, self_recursive_function):
        try:
            f(ag.constant(3))
        except RecursionError as e:
            print(type(e).__name__ + ": " + str(e).replace("\\n", " | "))
        else:
            print("no error")
""")


def _run_recursion_script(tmp_path):
    script = tmp_path / "recursion.py"     # a file: autograph converts from source
    script.write_text(_RECURSION_SCRIPT)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 3, proc.stdout
    return lines


def test_recursion_on_traced_values_is_an_error_naming_the_function(tmp_path):
    # In a subprocess: a recursion that reaches the interpreter's limit must
    # not take the test session down if it ever overflows the C stack.
    traced, deep, itself = _run_recursion_script(tmp_path)
    assert traced.startswith("UnboundedRecursionError: 'fib' calls itself without end while "
                             "tracing"), traced
    assert "traced tensor arguments" in traced and "ag.range" in traced
    assert "return fib(x)" in traced      # the user's line of the first call
    assert deep.startswith("UnboundedRecursionError: 'sum_to' calls itself more deeply than "
                           "Python's recursion limit"), deep
    assert "sys.setrecursionlimit" in deep
    assert itself.startswith("UnboundedRecursionError: 'self_recursive_function' calls itself "
                             "without end while tracing"), itself
