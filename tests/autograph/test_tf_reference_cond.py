"""Port of TensorFlow's AutoGraph reference test of basic conditionals
(`cond_basic_test.py`), written for `ag`.

Each function is run compiled (`ag.function`) and plainly, with the
condition a Python value (the `if` runs at trace time) or a tensor (the
`if` compiles to a `cond`), and the two must agree. The illegal programs
(a name defined on one path of a compiled `if` only, a branch giving None,
a return on one path only) must raise errors naming the variable.
"""
from __future__ import annotations

import itertools

import pytest

import autograph as ag
from tf_reference_support import assert_matches_plain, compiled, line_of


def _product(*choices):
    return list(itertools.product(*choices))


def _bool(c):
    return bool(c)


def _tensor(c):
    return ag.constant(c)


# --------------------------------------------------------------- programs

def set_var_if(c, v):
    v.assign(0)
    if c:
        v.assign_add(1)
    return v.read_value()


def set_var_if_else(c, v):
    v.assign(0)
    if c:
        v.assign_add(1)
    else:
        v.assign_add(2)
    return v.read_value()


def one_name_if(n):
    k = 0
    if k < n:
        k += 1
    return k


def one_name_if_else(n):
    k = 0
    if k < n:
        k += 1
    else:
        k += 2
    return k


def two_names_if(n):
    k = 0
    m = 1
    if k < n:
        k += 1
        m *= 10
    return k, m


def two_names_if_else(n):
    k = 0
    m = 1
    if k < n:
        k += 1
        m *= 10
    else:
        k += 2
        m *= 20
    return k, m


def defined_in_if(c):
    if c:
        r = 1
    return r


def defined_in_both(c):
    if c:
        r = 1
    else:
        r = 2
    return r


def defined_in_else(c):
    if c:
        pass
    else:
        r = 2
    return r


def deleted_in_if(c):
    r = 1
    if c:
        del r
    return r


def deleted_in_both(c):
    r = 1
    if c:
        del r
    else:
        del r
    return r


def deleted_in_else(c):
    r = 2
    if c:
        pass
    else:
        del r
    return r


def none_in_if(c):
    a = 0
    b = 1
    if c:
        a = None
        b = 2
    return a, b


def none_in_both(c):
    if c:
        a = None
        b = 1
    else:
        a = None
        b = 2
    return a, b


def none_in_else(c):
    a = 1
    b = 1
    if c:
        pass
    else:
        a = None
        b = 2
    return a, b


def branch_local_if(c):
    r = 0
    if c:
        tmp = 1
        r = tmp + 1
    return r


def branch_local_if_else(c):
    r = 0
    if c:
        tmp = 1
    else:
        tmp = 2
        r = tmp + 1
    return r


def modified_in_branch(c):
    r = 0
    tmp = 2
    if c:
        tmp = tmp + 1
        r = tmp + 1
    return r


def two_ifs_in_a_row(n1, n2):
    acc = 0
    k = 0
    if k < n1:
        acc = acc * 10 + k
        k += 1
    k = 0
    if k < n2:
        acc = acc * 10 + k
        k += 1
    return acc


def two_if_elses_in_a_row(n1, n2):
    acc = 0
    k = 0
    if k < n1:
        acc = acc * 10 + k
        k += 1
    else:
        acc = acc * 11 + k
        k += 2
    k = 0
    if k < n2:
        acc = acc * 10 + k
        k += 1
    else:
        acc = acc * 11 + k
        k += 2
    return acc


def if_inside_if(n1, n2):
    k = 0
    out = 0
    if k < n1:
        m = 0
        acc = 0
        if m < n2:
            acc = acc * 10 + k * m
            m += 1
        out = out * 1000 + acc
        k += 1
    return out


def if_else_inside_if_else(n1, n2):
    k = 0
    out = 0
    if k < n1:
        m = 0
        acc = 0
        if m < n2:
            acc = acc * 10 + k * m
            m += 1
        else:
            acc = acc * 11 + k * m
            m += 2
        out = out * 1000 + acc
        k += 1
    else:
        m = 0
        acc = 0
        if m < n2:
            acc = acc * 12 + k * m
            m += 3
        else:
            acc = acc * 13 + k * m
            m += 4
        out = out * 2000 + acc
        k += 1
    return out


def return_in_inner_if(c1, c2):
    if c1:
        if c2:
            return 1
    return 2


# --------------------------------------------------------------- tests

@pytest.mark.parametrize("fn,c,make", _product(
    (set_var_if, set_var_if_else), (True, False), (_bool, _tensor)))
def test_no_local_names(fn, c, make):
    # The variable is made anew for each run: fn changes it.
    assert_matches_plain(fn, fresh_args=lambda: (make(c), ag.Variable(0)))


@pytest.mark.parametrize("fn,n,make", _product(
    (one_name_if, one_name_if_else, two_names_if, two_names_if_else), (0, 1),
    (int, _tensor)))
def test_names_changed_in_branches(fn, n, make):
    assert_matches_plain(fn, make(n))


@pytest.mark.parametrize("fn,c", [(defined_in_if, True), (defined_in_else, False),
                                  (deleted_in_if, False), (deleted_in_else, True)])
def test_unbalanced_lifetime_with_python_condition(fn, c):
    assert_matches_plain(fn, c)


@pytest.mark.parametrize("c,make", _product((True, False), (int, _tensor)))
def test_defined_in_both_branches(c, make):
    assert_matches_plain(defined_in_both, make(c))


def test_deleted_in_both_branches_python_condition():
    for c in (0, 1):
        with pytest.raises(UnboundLocalError, match="'r' is used before assignment"):
            compiled(deleted_in_both)(c)


@pytest.mark.parametrize("c", (True, False))
def test_deleted_in_both_branches_tensor_condition(c):
    # TensorFlow raises ValueError ("must also be initialized"); the name is
    # unbound on every path here, so ours is Python's error, at the user's line.
    with pytest.raises(UnboundLocalError, match="'r' is used before assignment") as info:
        compiled(deleted_in_both)(ag.constant(c))
    assert f"line {line_of(deleted_in_both, 'return r')}" in str(info.value)


@pytest.mark.parametrize("fn,c", [(defined_in_if, False), (defined_in_else, True)])
def test_unbalanced_definition_python_condition_raises(fn, c):
    # As in Python: the name was never assigned on the path taken.
    with pytest.raises(UnboundLocalError, match="'r' is used before assignment") as info:
        compiled(fn)(c)
    assert f"line {line_of(fn, 'return r')}" in str(info.value)


@pytest.mark.parametrize("fn,c,branch", [
    (defined_in_if, True, "else"), (defined_in_if, False, "else"),
    (defined_in_else, True, "main"), (defined_in_else, False, "main")])
def test_unbalanced_definition_tensor_condition_raises(fn, c, branch):
    with pytest.raises(ValueError, match=f"'r' must also be initialized in the {branch} branch") \
            as info:
        compiled(fn)(ag.constant(c))
    assert f"line {line_of(fn, 'if c:')}" in str(info.value)


@pytest.mark.parametrize("fn,c", [(none_in_if, True), (none_in_both, False),
                                  (none_in_else, False)])
def test_none_with_python_condition(fn, c):
    assert_matches_plain(fn, c)


@pytest.mark.parametrize("fn,c", _product(
    (none_in_if, none_in_else), (True, False)))
def test_none_on_one_path_tensor_condition_raises(fn, c):
    with pytest.raises(ValueError, match="'a' is None at the end of the") as info:
        compiled(fn)(ag.constant(c))
    assert f"line {line_of(fn, 'if c:')}" in str(info.value)


@pytest.mark.parametrize("c", (True, False))
def test_none_on_both_paths_tensor_condition(c):
    # Both branches give None: nothing has to be merged, plain Python agrees.
    assert_matches_plain(none_in_both, ag.constant(c))


@pytest.mark.parametrize("fn,c,make", _product(
    (branch_local_if, branch_local_if_else, modified_in_branch), (True, False),
    (_bool, _tensor)))
def test_names_local_to_a_branch(fn, c, make):
    assert_matches_plain(fn, make(c))


@pytest.mark.parametrize("c1,c2", _product((True, False), (True, False)))
def test_return_in_inner_if_python_conditions(c1, c2):
    assert_matches_plain(return_in_inner_if, c1, c2)


@pytest.mark.parametrize("c1,c2", _product((True, False), (True, False)))
def test_return_in_inner_if_tensor_conditions(c1, c2):
    # TensorFlow refuses this ("must also have a return"); the contract makes
    # an early return in a compiled branch legal, so it must agree with Python.
    assert_matches_plain(return_in_inner_if, ag.constant(c1), ag.constant(c2))


@pytest.mark.parametrize("fn,n1,make1,n2,make2", _product(
    (two_ifs_in_a_row, two_if_elses_in_a_row, if_inside_if, if_else_inside_if_else),
    (0, 1), (_bool, _tensor), (0, 1), (_bool, _tensor)))
def test_composition(fn, n1, make1, n2, make2):
    assert_matches_plain(fn, make1(n1), make2(n2))
