"""Port of TensorFlow's AutoGraph reference test of composite names in
control flow (`composite_names_in_control_flow_test.py`), for `ag`.

Items of dicts and lists (`d["k"]`, `xs[0]`) assigned inside `if`, `while`
and `for` behave as plain names: compiled (`ag.function`) and plain runs
agree, and an item set on one path of a compiled branch only (or only inside
a loop that may not run) is an error naming the item.
"""
from __future__ import annotations

import itertools

import pytest

import autograph as ag
from tf_reference_support import assert_matches_plain, compiled, line_of


def _product(*choices):
    return list(itertools.product(*choices))


def _tensor(v):
    return ag.constant(v)


# --------------------------------------------------------------- programs

def dict_item_set_in_both(v):
    d = {"a": v}
    if d["a"] > 0:
        d["b"] = 1
    else:
        d["b"] = -1
    return d


def list_item_set_in_both(v):
    xs = [v, 0]
    if xs[0] > 0:
        xs[1] = 1
    else:
        xs[1] = -1
    return xs


def dict_item_set_in_if(v):
    d = {"a": v}
    if d["a"] > 0:
        d["b"] = 1
    return d


def dict_item_set_in_else(v):
    d = {"a": v}
    if d["a"] > 0:
        pass
    else:
        d["b"] = 1
    return d


def nested_item_set_in_if(v):
    d = {"a": {"a": v}}
    if d["a"]["a"] > 0:
        d["a"]["b"] = 1
    return d


def nested_item_set_in_else(v):
    d = {"a": {"a": v}}
    if d["a"]["a"] > 0:
        pass
    else:
        d["a"]["b"] = 1
    return d


def missing_key_in_both(v):
    # Wrong on purpose: d["b"] does not exist.
    d = {"a": {"a": v}}
    if d["a"]["a"] > 0:
        d["b"]["a"] = 1
    else:
        d["b"]["a"] = -1
    return d


def missing_key_in_if(v):
    # Wrong on purpose: d["b"] does not exist.
    d = {"a": {"a": v}}
    if d["a"]["a"] > 0:
        d["b"]["a"] = 1
    return d


def while_dict_item(n, a, b):
    d = {"a": a, "b": b}
    while n > 0:
        n -= 1
        d["a"] += 1
    return d


def while_list_item(n, a, b):
    xs = [a, b]
    while n > 0:
        n -= 1
        xs[0] += 1
    return xs


def while_on_dict_items(a, b):
    d = {"a": a, "b": b}
    while d["b"] <= 10:
        d["a"] += 1
        d["b"] *= 2
    return d


def while_on_list_items(a, b):
    xs = [a, b]
    while xs[1] <= 10:
        xs[0] += 1
        xs[1] *= 2
    return xs


def while_sets_new_item(b):
    d = {"b": b}
    while d["b"] <= 10:
        d["a"] = d["b"] + 1
        d["b"] *= 2
    return d


def for_dict_item(n, x, a, b):
    d = {"a": a, "b": b}
    for i in range(n):
        x -= 1
        d["a"] += i
    return d


def for_list_item(n, x, a, b):
    xs = [a, b]
    for i in range(n):
        x -= 1
        xs[0] += i
    return xs


def for_on_dict_item(n, a, b):
    d = {"a": a, "b": b}
    for _ in range(n):
        d["a"] += 1
    return d


def for_on_list_item(n, a, b):
    xs = [a, b]
    for _ in range(n):
        xs[0] += 1
    return xs


def for_sets_new_item(n, x):
    d = {}
    for i in range(n):
        x -= i
        d["a"] = x
    return d


# --------------------------------------------------------------- tests

@pytest.mark.parametrize("fn,v,make", _product(
    (dict_item_set_in_both, list_item_set_in_both), (0, 1), (bool, _tensor)))
def test_item_set_in_both_branches(fn, v, make):
    assert_matches_plain(fn, make(v))


@pytest.mark.parametrize("fn,v", _product(
    (dict_item_set_in_if, dict_item_set_in_else, nested_item_set_in_if,
     nested_item_set_in_else), (0, 1)))
def test_item_set_on_one_path_python_condition(fn, v):
    assert_matches_plain(fn, v)


@pytest.mark.parametrize("fn,v,item,branch", [
    (dict_item_set_in_if, 0, "d['b']", "else"),
    (dict_item_set_in_if, 1, "d['b']", "else"),
    (dict_item_set_in_else, 0, "d['b']", "main"),
    (dict_item_set_in_else, 1, "d['b']", "main"),
    (nested_item_set_in_if, 0, "d['a']['b']", "else"),
    (nested_item_set_in_if, 1, "d['a']['b']", "else"),
    (nested_item_set_in_else, 0, "d['a']['b']", "main"),
    (nested_item_set_in_else, 1, "d['a']['b']", "main"),
])
def test_item_set_on_one_path_tensor_condition_raises(fn, v, item, branch):
    with pytest.raises(ValueError) as info:
        compiled(fn)(ag.constant(v))
    message = str(info.value)
    assert f"'{item}' must also be initialized in the {branch} branch" in message
    assert f"line {line_of(fn, 'if d[')}" in message


@pytest.mark.parametrize("fn,v", [
    (missing_key_in_both, 1), (missing_key_in_both, ag.constant(1)),
    (missing_key_in_both, ag.constant(0)),
    (missing_key_in_if, 1), (missing_key_in_if, ag.constant(1)),
    (missing_key_in_if, ag.constant(0))])
def test_missing_key_raises_key_error(fn, v):
    with pytest.raises(KeyError, match="'b'"):
        compiled(fn)(v)


@pytest.mark.parametrize("fn,n,make,a", _product(
    (while_dict_item, while_list_item), (0, 1, 2), (bool, _tensor), (3, 7)))
def test_while_over_items(fn, n, make, a):
    assert_matches_plain(fn, make(n), a, 0)


@pytest.mark.parametrize("fn,make,b", _product(
    (while_on_dict_items, while_on_list_items), (bool, _tensor), (3, 4, 5, 6)))
def test_while_condition_on_items(fn, make, b):
    assert_matches_plain(fn, 0, make(b))


# (11 as a tensor: the compiled loop runs zero times, tested as an error below)
@pytest.mark.parametrize("b,make", [c for c in _product((5, 10, 11), (int, _tensor))
                                    if c != (11, _tensor)])
def test_while_sets_new_item(b, make):
    assert_matches_plain(while_sets_new_item, make(b))


def test_while_sets_new_item_zero_iterations_raises():
    with pytest.raises(ag.errors.InvalidArgumentError) as info:
        compiled(while_sets_new_item)(ag.constant(11))
    message = str(info.value)
    assert "the loop must iterate at least once to initialize 'd['a']'" in message
    assert f"line {line_of(while_sets_new_item, 'while d[')}" in message


@pytest.mark.parametrize("fn,n,make", _product(
    (for_dict_item, for_list_item), (0, 1, 2), (bool, _tensor)))
def test_for_over_items(fn, n, make):
    assert_matches_plain(fn, make(n), 1, 1, 1)


@pytest.mark.parametrize("fn,n,make", _product(
    (for_on_dict_item, for_on_list_item), (0, 1, 2), (bool, _tensor)))
def test_for_on_items(fn, n, make):
    assert_matches_plain(fn, make(n), 1, 1)


# (0 as a tensor: the compiled loop runs zero times, tested as an error below)
@pytest.mark.parametrize("n,make", [c for c in _product((0, 1, 2), (int, _tensor))
                                    if c != (0, _tensor)])
def test_for_sets_new_item(n, make):
    assert_matches_plain(for_sets_new_item, make(n), 0)


def test_for_sets_new_item_zero_iterations_raises():
    with pytest.raises(ag.errors.InvalidArgumentError) as info:
        compiled(for_sets_new_item)(ag.constant(0), 0)
    message = str(info.value)
    assert "the loop must iterate at least once to initialize 'd['a']'" in message
    assert f"line {line_of(for_sets_new_item, 'for i in')}" in message
