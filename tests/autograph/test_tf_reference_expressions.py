"""Ports of TensorFlow's AutoGraph reference tests of conditional and logical
expressions (`basic_ifexp_test.py`, `logical_expression_test.py`), for `ag`.

`a if c else b`, `and`/`or`/`not` and chained comparisons run compiled
(`ag.function`) and plainly must agree, with Python values (evaluated at
trace time, as Python) and with tensors (compiled `cond`/`logical_*`).
"""
from __future__ import annotations

import itertools

import pytest

import autograph as ag
from tf_reference_support import assert_matches_plain, compiled, line_of


def _product(*choices):
    return list(itertools.product(*choices))


# --------------------------------------------------------- conditional expressions

def two_ifs_of_ifexps(v):
    if v > 0:
        v = -v if v < 5 else v
    else:
        v = -2 * v if v < 5 else 1
    if v > 0:
        v = -v if v < 5 else v
    else:
        v = (3 * v) if v < 5 else v
    return v


def ifexps_giving_three_names(v):
    if v > 0:
        v = -v if v < 5 else v
        w = 2 * v if v < 5 else v
        u = -w if w < 5 else w
    else:
        v = 2 * v if v < 5 else v
        w = -v if v < 5 else v
        u = -w if w < 5 else w
    return v, w, u


def ifexp_of_two_structures(t):
    # (TensorFlow's test tests `tf.size(t) > 0`; a size known at trace time is
    # folded to a Python bool here, so the condition reads the data instead)
    pieces = ag.unstack(t) if ag.reduce_sum(t) > 0 else []
    return t * 2 + 1, pieces


_IFEXP_INPUTS = [-1, 1, 5, "t-1", "t1", "t5"]


def _value(spec):
    return ag.constant(int(spec[1:])) if isinstance(spec, str) else spec


@pytest.mark.parametrize("fn,spec", _product(
    (two_ifs_of_ifexps, ifexps_giving_three_names), _IFEXP_INPUTS))
def test_conditional_expressions(fn, spec):
    assert_matches_plain(fn, _value(spec))


def test_conditional_expression_of_two_structures_raises():
    # A list of tensors on one side and an empty list on the other cannot be
    # one compiled value: an error naming the structures and the user's line.
    # (TensorFlow raises ValueError; ours raises TypeError for every structure
    # mismatch of compiled control flow, as tests/autograph/test_semantics_loops.py pins.)
    with pytest.raises(TypeError, match="must have the same nested structure in the main and "
                                        "else branches: it is a list of 1 element in the main "
                                        "branch, but a list of 0 elements") as info:
        compiled(ifexp_of_two_structures)(ag.constant([1.0]))
    assert f"line {line_of(ifexp_of_two_structures, 'pieces =')}" in str(info.value)


# --------------------------------------------------------- logical expressions

def chained_or_with_call(a, b, c):
    get_c = lambda: c  # noqa: E731 - a lambda on purpose (the case under test)
    return a or b or get_c()


def chained_or(a, b, c):
    return a or b or c


def chained_and(a, b, c):
    return a and b and c


def or_and_mixed(a, b, c):
    return a or b or c and b and c


def equal(a, b):
    return a == b


def not_equal(a, b):
    return a != b


def chained_equal(a, b, c):
    return a == b == c


def ordered(a, b, c):
    return a < b and b < c


_BOOL_CASES = [
    (chained_or, (False, True, False)), (chained_or, (False, False, False)),
    (chained_and, (True, True, True)), (chained_and, (True, False, True)),
    (or_and_mixed, (False, True, True)),
    (chained_or_with_call, (False, True, False)),
    (chained_or_with_call, (False, False, True)),
    (chained_or_with_call, (False, False, False)),
] + [(ordered, p) for p in itertools.permutations((1, 2, 3))]

_EQUALITY_CASES = [
    (equal, (1, 1)), (equal, (1, 2)), (not_equal, (1, 1)), (not_equal, (1, 2)),
    (chained_equal, (1, 1, 2)), (chained_equal, (1, 1, 1)),
]


@pytest.mark.parametrize("fn,args", _BOOL_CASES + _EQUALITY_CASES)
def test_logical_python_values(fn, args):
    assert_matches_plain(fn, *args)


@pytest.mark.parametrize("fn,args", _BOOL_CASES + _EQUALITY_CASES)
def test_logical_tensors(fn, args):
    assert_matches_plain(fn, *(ag.constant(a) for a in args))
