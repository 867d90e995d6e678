"""The truth of a condition in converted `if`, `while`, `not` and `a if c else b`.

NumPy kernels test numbers directly: `if (crc & 1) ^ (byte & 1):` (npbench's
crc16), `while n:`. Python takes a number's truth as `x != 0`, and so does
NumPy for its scalars. `ag.cond` and `ag.while_loop` (TensorFlow's API)
require a bool predicate; the converted statements give a traced number
scalar (integer or float) Python's truth, `x != 0`, first. Anything else
(a bool, a Python value, a tensor that is not a scalar, a complex number)
is passed on unchanged, so the existing checks and their errors apply.

An `if` (or `a if c else b`) whose condition the trace can already compute
from constants (`if x.shape[0] != y.shape[0]: raise ValueError(...)` with
static shapes) runs as a Python `if`: see `truth(..., static=True)`.
"""
from __future__ import annotations

from . import _tracer

__all__ = ["truth"]


def truth(x, static: bool = False):
    """`x` as the condition of a converted statement: a variable's traced value
    (`_tracer.condition_value`), and `x != 0` for a traced int or float scalar.

    With `static=True` (an `if` or a conditional expression), a traced bool
    scalar whose value the trace already knows (computed from constants,
    such as `x.shape[0] != y.shape[0]` for static shapes) is that Python
    bool, so only the branch taken is traced, as TensorFlow does for its
    static shapes. Loops never take this path: `while i < n` with a static
    `n` must stay one compiled loop, not unroll."""
    x = _tracer.condition_value(x)
    if _tracer.is_traced(x) and x.shape == () and (x.dtype.is_integer or x.dtype.is_floating):
        x = _tracer.api().not_equal(x, 0)
    if static and _tracer.is_traced(x) and x.shape == () and x.dtype.is_bool:
        known = _tracer.known_value(x)
        if known is not None:
            return bool(known)
    return x

