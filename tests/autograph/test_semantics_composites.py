"""Composite names (`x['b']`, `x[0]`, `o.attr`, `x['a']['b']`) through compiled
`if`s and loops: written in a branch or a loop body, they are carried like
plain variables (TensorFlow's composite_names_in_control_flow_test), never
"last write wins"."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from semantics import assert_same_as_python, compiled_outcome, line_of

THIS_FILE = __file__


def dict_item_in_both_branches(c):
    x = {"a": 0, "b": 0}
    if c > 0:
        x["b"] = 1
    else:
        x["b"] = -1
    return x["a"], x["b"]


def list_item_in_both_branches(c):
    x = [10, 20]
    if c > 0:
        x[1] = 1
    else:
        x[1] = -1
    return x[0], x[1]


class Box:
    def __init__(self):
        self.v = 0
        self.inner = {"k": 5}


def attribute_in_both_branches(c):
    o = Box()
    if c > 0:
        o.v = c * 2
    else:
        o.v = c - 1
    return o.v


def nested_item_in_both_branches(c):
    x = {"a": {"b": 0}}
    if c > 0:
        x["a"]["b"] = 1
    else:
        x["a"]["b"] = 2
    return x["a"]["b"]


def attribute_item(c):
    o = Box()
    if c > 0:
        o.inner["k"] = 7
    return o.inner["k"]


def only_one_branch_keeps_the_old_value(c):
    x = {"b": 3}
    if c > 0:
        x["b"] = 4
    return x["b"]


@pytest.mark.parametrize("fn", [dict_item_in_both_branches, list_item_in_both_branches,
                                attribute_in_both_branches, nested_item_in_both_branches,
                                attribute_item, only_one_branch_keeps_the_old_value])
@pytest.mark.parametrize("c", [5, -5])
def test_composite_written_in_a_compiled_if(fn, c):
    assert_same_as_python(fn, ag.constant(c))


def test_the_compiled_if_carries_the_item_as_an_output():
    cf = ag.function(dict_item_in_both_branches).get_concrete_function(ag.TensorSpec([], ag.int32))
    text = str(cf.graph)
    assert "cond(" in text
    assert cf(ag.constant(1))[1].numpy() == 1 and cf(ag.constant(-1))[1].numpy() == -1


def set_in_one_branch_only(c):
    x = {"a": 0}
    if c > 0:
        x["b"] = 1
    return x["a"]


def set_in_else_only(c):
    x = {}
    if c > 0:
        pass
    else:
        x["b"] = 1
    return 0


def nested_set_in_one_branch(c):
    x = {"a": {}}
    if c > 0:
        x["a"]["b"] = 1
    return 0


@pytest.mark.parametrize("fn, branch, name, text", [
    (set_in_one_branch_only, "else", "x['b']", 'x["b"] = 1'),
    (set_in_else_only, "main", "x['b']", 'x["b"] = 1'),
    (nested_set_in_one_branch, "else", "x['a']['b']", 'x["a"]["b"] = 1'),
])
def test_composite_set_in_one_branch_only_is_an_error_naming_it(fn, branch, name, text):
    # Python accepts it (the key exists only on one path); a compiled if must
    # produce the item on both paths, as TensorFlow requires.
    assert compiled_outcome(fn, 1).error is None      # a Python condition: plain Python
    got = compiled_outcome(fn, ag.constant(1))
    assert isinstance(got.error, ValueError)
    message = str(got.error)
    assert f"'{name}' must also be initialized in the {branch} branch" in message
    assert f'File "{THIS_FILE}", line {line_of(fn, "if c > 0")}' in message


def missing_parent_key(c):
    x = {}
    if c > 0:
        x["b"]["a"] = 1
    else:
        x["b"]["a"] = 2
    return 0


@pytest.mark.parametrize("c", [1, ag.constant(1)])
def test_writing_below_a_missing_key_raises_key_error_in_both_modes(c):
    got = assert_same_as_python(missing_parent_key, c)
    assert isinstance(got.error, KeyError) and "'b'" in str(got.error)


def dict_item_in_while(n):
    y = {"a": 0}
    i = 0
    while i < n:
        y["a"] += 1
        i += 1
    return y["a"]


def list_item_in_for(n):
    y = [0, 100]
    for i in range(n):
        y[0] += i
        y[1] -= 1
    return y[0], y[1]


def attribute_in_for(x):
    o = Box()
    for i in range(len(x)):
        o.v = o.v + x[i]
    return o.v


def state_only_loop(n):
    s = {"total": 0.0}
    i = 0
    while i < n:
        s["total"] = s["total"] + 1.5
        i += 1
    return s["total"]


@pytest.mark.parametrize("fn, arg", [
    (dict_item_in_while, ag.constant(4)),
    (dict_item_in_while, ag.constant(0)),
    (list_item_in_for, ag.constant(5)),
    (attribute_in_for, ag.constant(np.arange(5.0))),
    (state_only_loop, ag.constant(3)),
])
def test_composite_carried_by_a_compiled_loop(fn, arg):
    assert_same_as_python(fn, arg)


def test_the_loop_carries_the_item_not_a_leaked_value():
    cf = ag.function(dict_item_in_while).get_concrete_function(ag.TensorSpec([], ag.int32))
    assert "while(" in str(cf.graph)
    assert int(cf(ag.constant(7))) == 7 and int(cf(ag.constant(0))) == 0


def key_created_in_loop(n):
    y = {}
    i = 0
    while i < n:
        y["a"] = i * 2
        i += 1
    return y["a"]


def test_key_first_created_in_a_compiled_loop():
    f = ag.function(key_created_in_loop)
    assert int(f(ag.constant(3))) == 4
    with pytest.raises(ag.errors.InvalidArgumentError,
                       match=r"loop must iterate at least once to initialize 'y\['a'\]'"):
        f(ag.constant(0))


def tensor_item_updates(c):
    x = ag.zeros([3], ag.int32)
    if c > 0:
        x[0] = 5
    else:
        x[1] = 7
    return x


@pytest.mark.parametrize("c, expected", [(1, [5, 0, 0]), (-1, [0, 7, 0])])
def test_items_of_a_tensor_are_updated_through_its_name(c, expected):
    # `x[i] = v` on a tensor rebinds x (a plain variable; plain Python cannot
    # assign to a tensor's items); its items are not carried separately.
    np.testing.assert_array_equal(ag.function(tensor_item_updates)(ag.constant(c)), expected)


def rebinds_a_container_whose_items_change(n):
    y = {"a": 0}
    i = 0
    while i < n:
        y["a"] = i
        y = {"a": 1}
        i += 1
    return y["a"]


def test_rebinding_a_container_whose_items_a_loop_carries_is_an_error():
    got = compiled_outcome(rebinds_a_container_whose_items_change, ag.constant(2))
    assert isinstance(got.error, TypeError)
    assert "'y' holds a Python dict that changes inside a compiled loop" in str(got.error)


def python_condition_composites(flag):
    x = {"a": 1}
    if flag:
        x["b"] = 2
    return sorted(x)


def test_python_conditions_keep_python_semantics():
    assert ag.function(python_condition_composites)(True) is not None
    assert_same_as_python(python_condition_composites, True)
    assert_same_as_python(python_condition_composites, False)


def test_converted_source_reads_and_writes_composites():
    source = ag.to_code(dict_item_in_both_branches)
    assert "ag__.ld_composite(lambda: x, 'b', False, \"x['b']\")" in source
    assert "ag__.store_composite(lambda: x, 'b', False" in source
