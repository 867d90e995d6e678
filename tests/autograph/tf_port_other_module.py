"""Helpers that live in a module of their own, for the ports of TensorFlow's
`api_test.py` (tests/autograph/test_tf_port_api.py): a converted function
must convert what it calls in other modules too, and leave alone what is
marked `do_not_convert` there.
"""
from __future__ import annotations

import autograph as ag


def magnitude(x):
    """|x| written with a branch, so the branch must be converted to work on a tensor."""
    if x < 0:
        return -x
    return x


def halve_until_below(x, limit):
    """Halve every element until their sum is at most `limit` (a tensor loop)."""
    while ag.reduce_sum(x) > limit:
        x //= 2
    return x


@ag.do_not_convert
def python_branch(x):
    """A Python `if` that stays Python: a tensor condition must fail here."""
    if x > 0:
        return x
    return -x


class Counter:
    """A class defined elsewhere whose method holds a tensor branch."""

    def __init__(self, step):
        self.step = step

    def advance(self, x):
        """x + step when x is even, else x - step."""
        if x % 2 == 0:
            return x + self.step
        return x - self.step
