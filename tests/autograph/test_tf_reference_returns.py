"""Port of TensorFlow's AutoGraph reference test of early returns
(`early_return_test.py`), for `ag`.

Several `return`s, some inside conditionals, context managers and
`try`/`finally`, run compiled (`ag.function`) and plainly must give the
same results and print the same lines (`ag.print` inside a returning branch
prints on every call where the branch is taken).
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

def early_return_then_default(v):
    if v > 0:
        ag.print("v", v)
        return v
    return v * v


def return_before_local_changes(c):
    t = ag.constant(1)
    if c:
        return t
    t = ag.stack([t, t])
    return ag.reduce_sum(t)


def may_fall_off_the_end(v):
    if v > 0:
        if v < 5:
            return v
    else:
        return v * v * v


def returns_in_nested_ifs(v):
    if v > 0:
        if v < 5:
            return v
        else:
            return v * v
    else:
        return v * v * v


def return_before_a_loop(c1, c2, n):
    if c1:
        if c2:
            return 1
    for _ in range(n):
        pass
    return 2


def returns_in_scopes(v):
    with ag.name_scope(""):
        if v > 0:
            if v < 5:
                with ag.name_scope(""):
                    return v
            else:
                return v * v
        else:
            return v * v * v


def return_after_all_paths_returned(v):
    with ag.name_scope(""):
        if v > 0:
            if v < 5:
                with ag.name_scope(""):
                    return v
            else:
                return v * v
        else:
            return v * v * v
    return v * v * v * v


def default_return_in_scope(v):
    with ag.name_scope(""):
        if v > 0:
            return 1
        return 0


def returns_in_try_with_finally(v):
    try:
        if v > 0:
            return 1
        else:
            return 0
    finally:
        v = v + 1


def default_return_in_try_with_finally(v):
    try:
        if v > 0:
            return 1
        return 0
    finally:
        v = v + 1


def returns_in_finally(v):
    try:
        return 2
    finally:
        if v > 0:
            return 1  # noqa: B012 - the finally's return wins, on purpose
        else:
            return 0  # noqa: B012


def default_return_in_finally(v):
    try:
        return 2
    finally:
        if v > 0:
            return 1  # noqa: B012
        return 0  # noqa: B012


def finally_return_over_try_return(v):
    try:
        if v > 0:
            return 0
    finally:
        return 1  # noqa: B012


def _always_raises():
    raise ValueError()


def raising_return_caught():
    try:
        return _always_raises()
    except ValueError:
        pass
    return 1


def raising_return_caught_after_branch(c):
    if c:
        return 2
    try:
        return _always_raises()
    except ValueError:
        pass
    return 1


# --------------------------------------------------------------- tests

@pytest.mark.parametrize("v,make", _product((0, 1), (int, _tensor)))
def test_early_return_then_default(v, make):
    assert_matches_plain(early_return_then_default, make(v))


@pytest.mark.parametrize("c,make", _product((True, False), (int, _tensor)))
def test_return_before_local_changes(c, make):
    assert_matches_plain(return_before_local_changes, make(c))


@pytest.mark.parametrize("v", (0, 3, 5))
def test_may_fall_off_the_end_python_value(v):
    assert_matches_plain(may_fall_off_the_end, v)


@pytest.mark.parametrize("v", (0, 3, 5))
def test_may_fall_off_the_end_tensor_raises(v):
    # One path returns a tensor, another returns None: no compiled value can
    # stand for both. The error says which branch lacks the return.
    with pytest.raises(ValueError, match="else branch must also have a return") as info:
        compiled(may_fall_off_the_end)(ag.constant(v))
    assert f"line {line_of(may_fall_off_the_end, 'if v > 0')}" in str(info.value)


@pytest.mark.parametrize("v,make", _product((-1, 3, 6), (int, _tensor)))
def test_returns_in_nested_ifs(v, make):
    assert_matches_plain(returns_in_nested_ifs, make(v))


@pytest.mark.parametrize("c1,c2,n", _product((True, False), (True, False), (0, 1, 2)))
def test_return_before_a_loop(c1, c2, n):
    assert_matches_plain(return_before_a_loop, c1, c2, n)


@pytest.mark.parametrize("fn,v,make", _product(
    (returns_in_scopes, return_after_all_paths_returned), (0, 3, 5), (int, _tensor)))
def test_returns_in_context_managers(fn, v, make):
    assert_matches_plain(fn, make(v))


@pytest.mark.parametrize("fn,v,make", _product(
    (default_return_in_scope, returns_in_try_with_finally,
     default_return_in_try_with_finally, returns_in_finally, default_return_in_finally,
     finally_return_over_try_return),
    (0, 1), (int, _tensor)))
def test_returns_in_scopes_and_try_finally(fn, v, make):
    assert_matches_plain(fn, make(v))


def test_raising_return_caught():
    assert_matches_plain(raising_return_caught)


@pytest.mark.parametrize("c,make", _product((True, False), (int, _tensor)))
def test_raising_return_caught_after_branch(c, make):
    assert_matches_plain(raising_return_caught_after_branch, make(c))
