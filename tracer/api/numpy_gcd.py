"""NumPy's `np.gcd` and `np.lcm` on tensors.

The greatest common divisor is Euclid's algorithm run on every element at
once: one compiled `while_loop` whose state is the pair of tensors (a, b),
stepping (a, b) -> (b, a mod b) where b is not yet 0, until no element has
b != 0. The loop runs as many times as the slowest element needs (at most
about 92 steps for 64-bit integers, Fibonacci numbers being the worst
case), each step a fused elementwise pass. Operands broadcast and promote as
NumPy's ufuncs (`numpy_promote.ufunc_operands`); results are non-negative,
as NumPy's, except where NumPy's own `abs` wraps (the most negative
integer). `lcm(a, b)` is |a // gcd(a, b) * b|, and 0 where either is 0.
"""
from __future__ import annotations

import numpy as np

from .common import locate_errors
from .elementwise import abs as ag_abs, floordiv, mod, multiply, not_equal, where
from .numpy_functions import Unsupported, tensor_operand
from .numpy_promote import ufunc_operands
from .numpy_statistics import broadcast_to
from .reduce import reduce_any
from ..tracing.loop import while_loop

__all__ = ["FUNCTIONS"]


def _broadcast_pair(a, b):
    shape = list(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
    return broadcast_to(a, shape), broadcast_to(b, shape)


def _operands(name: str, ufunc, x1, x2):
    (a, b), dt = ufunc_operands(ufunc, name, x1, x2)
    if dt.kind not in "iu":
        raise TypeError(f"np.{name}: ufunc '{name}' is only defined for integers, got {dt}")
    # a Python number stays weak in ufunc_operands: it takes the computed dtype here
    a, b = (tensor_operand(name, v if hasattr(v, "dtype") else np.asarray(v, dt)) for v in (a, b))
    if a.shape is None or b.shape is None or None in a.shape or None in b.shape:
        raise Unsupported("operands whose shape is only known when the compiled code runs")
    return _broadcast_pair(a, b)


def _gcd(a, b):
    a, b = ag_abs(a), ag_abs(b)

    def more(a, b):
        return reduce_any(not_equal(b, 0))

    def step(a, b):
        live = not_equal(b, 0)
        safe = where(live, b, 1)              # (a mod 0 is never computed)
        return where(live, b, a), where(live, mod(a, safe), b)

    g, _ = while_loop(more, step, [a, b])
    return g


@locate_errors
def np_gcd(x1, x2, /, **kwargs):
    """NumPy's `gcd`: the greatest common divisor elementwise (non-negative)."""
    if kwargs:
        raise Unsupported(f"the {next(iter(kwargs))}= argument")
    a, b = _operands("gcd", np.gcd, x1, x2)
    return _gcd(a, b)


@locate_errors
def np_lcm(x1, x2, /, **kwargs):
    """NumPy's `lcm`: the least common multiple elementwise (non-negative; 0 with a 0)."""
    if kwargs:
        raise Unsupported(f"the {next(iter(kwargs))}= argument")
    a, b = _operands("lcm", np.lcm, x1, x2)
    g = _gcd(a, b)
    nonzero = not_equal(g, 0)
    return ag_abs(where(nonzero, multiply(floordiv(a, where(nonzero, g, 1)), b), 0))


FUNCTIONS = {"gcd": np_gcd, "lcm": np_lcm}
