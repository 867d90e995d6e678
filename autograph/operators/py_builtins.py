"""Overloads of the builtins `range` and `len` for converted code.

`converted_call` sends calls of the real builtins here (so a user's own
`len = my_len` still means theirs). With traced arguments they stage; with
Python values they are the builtins.
"""
from __future__ import annotations

import builtins
import operator

from . import _tracer

__all__ = ["RangeMarker", "range_", "len_", "slice_"]

slice_ = builtins.slice


class RangeMarker:
    """`range(start, limit, delta)` with a traced bound, never materialised.

    `for_stmt` lowers it to a compiled counter loop; `tensor()` builds the
    traced `range` op for other uses.
    """

    __slots__ = ("start", "limit", "delta")

    def __init__(self, start, limit, delta):
        self.start, self.limit, self.delta = start, limit, delta

    def tensor(self):
        """The values as a traced 1-D tensor (the tracer's `range` op)."""
        return _tracer.api().range(self.start, self.limit, self.delta)

    def __iter__(self):
        # `list(range(len(x)))` with x's length known at trace time: the bound
        # is a traced constant (len() stays traced so that `for` compiles), so
        # the range is known too and iterates as Python's would.
        bounds = [_tracer.static_value(b) for b in (self.start, self.limit, self.delta)]
        if all(b is not None and not hasattr(b, "shape") for b in bounds):
            return iter(builtins.range(*(_python_int(b) for b in bounds)))
        raise _tracer.located(TypeError(
            "range() with a traced tensor bound can only be iterated by a `for` loop in "
            "converted code (where it compiles to a loop); use ag.range(...) for a tensor"))

    def __repr__(self):
        return f"RangeMarker({self.start!r}, {self.limit!r}, {self.delta!r})"


def _python_int(v):
    """A Python int from an int-like value (Python int, NumPy int, eager tensor)."""
    try:
        return operator.index(v)
    except TypeError:
        return int(v)


def range_(*args):
    """`range(...)`: a RangeMarker if any argument is traced, else the builtin range."""
    if not 1 <= len(args) <= 3:
        raise TypeError(f"range expected 1 to 3 arguments, got {len(args)}")
    if any(_tracer.is_traced(a) for a in args):
        if len(args) == 1:
            start, limit, delta = 0, args[0], 1
        else:
            start, limit = args[0], args[1]
            delta = args[2] if len(args) == 3 else 1
        if not _tracer.is_traced(delta) and delta == 0:
            raise ValueError("range() arg 3 must not be zero")
        return RangeMarker(start, limit, delta)
    return builtins.range(*(a if isinstance(a, int) else _python_int(a) for a in args))


def len_(x):
    """`len(x)`: a traced int32 scalar for a traced tensor, else the builtin len."""
    if type(x).__name__ == "TensorArray" and hasattr(x, "size"):   # a list filled in a loop
        return x.size()
    if _tracer.is_traced(x):
        if getattr(x, "shape", None) is not None and len(x.shape) == 0:
            raise _tracer.located(TypeError(
                "len() of a scalar tensor: len requires a non-scalar tensor"))
        # dim() gives a constant for a static dimension; make it traced anyway so
        # that `for i in range(len(x))` compiles to a loop instead of unrolling.
        return _tracer.as_traced(_tracer.api().dim(x, 0))
    return builtins.len(x)
