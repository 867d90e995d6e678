"""Ports of the user-visible behaviour checked by TensorFlow's AutoGraph
converter tests (`tensorflow/python/autograph/converters/*_test.py`), for `ag`.

TensorFlow converts one function with one converter and runs the result;
here the whole function goes through `ag.function` (all converters) and
must agree with the plain Python run, on Python values and on tensors:
asserts, break/continue/return, call trees, conditional expressions,
control flow (also with composite state: object attributes, tuples),
directives (`set_loop_options`), functions and lambdas, lists, logical
expressions (chained comparisons too), slices and `del`.

Differences kept on purpose (API.md wins):
* `set_element_type` (a list directive for TensorFlow's tensor lists) does
  not exist: a list filled in a compiled loop takes the dtype of what is
  appended.
* A function returning from a tensor branch must return on every path
  (ValueError at trace time); TensorFlow returns None on the other path
  only where the structures allow it.
"""
from __future__ import annotations

import collections

import pytest

from tf_reference_support import assert_matches_plain, compiled, const as _c, line_of
from tf_reference_support import matches_with_values_and_tensors as _both

pytestmark = pytest.mark.filterwarnings("ignore::autograph.tracer.core.logs.RetracingWarning")


# ------------------------------------------------------ break_statements_test

def break_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 == 0:
            break
        s += x
    return s, x


def break_in_for(x):
    s = 0
    for v in x:
        if v > 3:
            break
        s += v
    return s


def break_in_nested(m):
    s = 0
    for row in m:
        for v in row:
            if v < 0:
                break
            s += v
        s *= 2
    return s


def break_with_else(n):
    s = 0
    for i in range(n):
        if i * i > 10:
            break
        s += i
    else:
        s = -s
    return s


def while_with_else(n):
    i = 0
    while i < n:
        if i == 5:
            break
        i += 1
    else:
        i = i * 100
    return i


@pytest.mark.parametrize("fn,args", [
    (break_in_while, (5,)), (break_in_while, (0,)), (break_in_for, ([1, 2, 5, 1],)),
    (break_in_nested, ([[1, 2, -1, 5], [3, -4, 1, 1]],)), (break_with_else, (3,)),
    (break_with_else, (10,)), (while_with_else, (3,)), (while_with_else, (9,)),
])
def test_break(fn, args):
    _both(fn, *args)


# --------------------------------------------------- continue_statements_test

def continue_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 == 0:
            continue
        s += x
    return s


def several_continues(x):
    s = 0
    for v in x:
        if v % 2 == 0:
            continue
        if v % 3 == 0:
            continue
        s += v
    return s


def continue_in_nested(m):
    s = 0
    for row in m:
        for v in row:
            if v < 0:
                continue
            s += v
        if s > 100:
            continue
        s += 1
    return s


def continue_with_inner_function(x):
    s = 0
    for v in x:
        def double(u):
            return u * 2
        if v < 2:
            continue
        s += double(v)
    return s


@pytest.mark.parametrize("fn,args", [
    (continue_in_while, (6,)), (several_continues, ([1, 2, 3, 5, 7, 9],)),
    (continue_in_nested, ([[1, -2, 3], [-1, 5, 6]],)), (continue_with_inner_function, ([1, 2, 3],)),
])
def test_continue(fn, args):
    _both(fn, *args)


# ---------------------------------------------------- return_statements_test

def return_in_branches(x):
    if x > 0:
        return x
    else:
        return -x


def return_in_one_branch_then_end(x):
    if x > 0:
        return x * 2
    x = x - 1
    return x


def return_in_while(x):
    i = 0
    while i < 10:
        if i * i > x:
            return i
        i += 1
    return -1


def return_in_nested_loops(m):
    for row in m:
        for v in row:
            if v < 0:
                return v
    return 0


def return_in_nested_function(x):
    def inner(v):
        if v > 2:
            return v
        return v * 10
    return inner(x) + 1


def return_without_value(x, out):
    if x:
        out.append(1)
        return
    out.append(2)


def calls_return_without_value(x):
    out = []
    return_without_value(x, out)
    return out


@pytest.mark.parametrize("fn,args", [
    (return_in_branches, (3,)), (return_in_branches, (-3,)), (return_in_one_branch_then_end, (2,)),
    (return_in_one_branch_then_end, (-2,)), (return_in_while, (20,)), (return_in_while, (1000,)),
    (return_in_nested_loops, ([[1, 2], [3, -4]],)), (return_in_nested_loops, ([[1, 2], [3, 4]],)),
    (return_in_nested_function, (1,)), (return_in_nested_function, (5,)),
])
def test_return(fn, args):
    _both(fn, *args)


def test_return_without_value_python_condition():
    assert_matches_plain(calls_return_without_value, True)
    assert_matches_plain(calls_return_without_value, False)


def return_on_one_path_only(x):
    if x > 0:
        return x


def test_return_on_one_tensor_path_only_is_refused():
    with pytest.raises(ValueError, match="every path must return a value") as info:
        compiled(return_on_one_path_only)(_c(1))
    assert str(line_of(return_on_one_path_only, "if x > 0")) in str(info.value)


# ------------------------------------------------------------ call_trees_test

def _add(a, b=1, *rest, scale=1, **extra):
    total = a + b
    for r in rest:
        total = total + r
    for k in sorted(extra):
        total = total + extra[k]
    if total > 100:
        total = total - 100
    return total * scale


def call_variants(x):
    args = (x, 2)
    kwargs = {"scale": 3}
    return (_add(x), _add(x, 5), _add(*args), _add(x, **kwargs), _add(*args, 7, 8, **kwargs),
            _add(a=x, b=x), _add(x, 1, k1=x, k2=4), _add(_add(x), _add(x, x)))


def call_through_containers(x):
    fns = {"double": lambda v: v * 2, "neg": lambda v: -v}
    table = [fns["double"], fns["neg"]]

    def factory():
        return _add
    return fns["double"](x), table[1](x), factory()(x, 3), fns.get("neg")(x)


def call_constructor_and_methods(x):
    point = collections.namedtuple("Point", "a b")(x, x + 1)
    d = dict(a=x)
    d.update(b=x * 2)
    return point.a + point.b, d["a"] + d["b"], sorted([3, 1, 2])


@pytest.mark.parametrize("fn", [call_variants, call_through_containers, call_constructor_and_methods])
@pytest.mark.parametrize("x", [1, 60])
def test_call_trees(fn, x):
    _both(fn, x)


def forward_everything(f, a, *args, **kwargs):
    return f(a, *args, **kwargs) + 5


def forward_with_keyword(f, a, b, **kwargs):
    return f(a, b=b, **kwargs) + 5


def test_compiled_function_with_star_parameters():
    # The compiled function itself takes *args and **kwargs, and forwards them.
    got = compiled(forward_everything)(_add, _c(1), _c(2), _c(3), scale=_c(2), k=_c(4))
    assert int(got) == (1 + 2 + 3 + 4) * 2 + 5
    assert int(compiled(forward_with_keyword)(_add, _c(1), _c(2), k=_c(3))) == 11
    assert_matches_plain(forward_everything, _add, _c(1), _c(2), _c(3))


# ------------------------------------------- conditional_expressions_test

def nested_conditional_expressions(x):
    return 1 if x > 0 else (2 if x > -5 else 3)


def conditional_expression_in_lambda(x):
    f = lambda v: v if v > 0 else -v  # noqa: E731
    return f(x) + (lambda v: v * 2 if v > 1 else v)(x)


@pytest.mark.parametrize("x", [1, -1, -10])
@pytest.mark.parametrize("fn", [nested_conditional_expressions, conditional_expression_in_lambda])
def test_conditional_expressions(fn, x):
    _both(fn, x)
