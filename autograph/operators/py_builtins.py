"""Overloads of the builtins `range`, `len`, `sorted` and `isinstance` for
converted code.

`converted_call` sends calls of the real builtins here (so a user's own
`len = my_len` still means theirs). With traced arguments they stage; with
Python values they are the builtins.
"""
from __future__ import annotations

import builtins
import operator

from .. import conversion_marks
from . import _tracer

__all__ = ["RangeMarker", "range_", "len_", "slice_", "sorted_", "isinstance_", "OVERLOADS"]

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
        if getattr(x, "shape", None) is None:
            # Unknown rank: the first entry of its run-time shape (a scalar
            # then fails at run time, with InvalidArgumentError, as in TensorFlow).
            return _tracer.api().shape(x)[0]
        # dim() gives a constant for a static dimension; make it traced anyway so
        # that `for i in range(len(x))` compiles to a loop instead of unrolling.
        return _tracer.as_traced(_tracer.api().dim(x, 0))
    return builtins.len(x)


def sorted_(iterable, *, key=None, reverse=False):
    """`sorted(t)` of a traced tensor: a tensor sorted along its first axis
    (as TensorFlow's AutoGraph: `ag.sort` for a 1-D tensor; with `key`, the
    rows ordered by `key(row)`, stably, through `ag.argsort` and `ag.gather`).
    Anything else is the builtin."""
    if not _tracer.is_traced(iterable):
        return builtins.sorted(iterable, key=key, reverse=reverse)
    api = _tracer.api()
    shape = iterable.shape
    direction = "DESCENDING" if reverse else "ASCENDING"
    if key is None:
        if shape is None or len(shape) != 1:
            raise _tracer.located(ValueError(
                f"sorted() of a traced tensor of shape {shape} without a key: only a 1-D tensor "
                f"sorts by value; pass key= giving one scalar per row, or use ag.sort(t, axis=...)"))
        return api.sort(iterable, direction=direction)
    n = None if shape is None or len(shape) == 0 else shape[0]
    if n is None:
        raise _tracer.located(NotImplementedError(
            f"sorted(key=...) of a traced tensor of shape {shape}: the key is applied to each "
            f"row, which needs the number of rows at trace time; compute the keys as one tensor "
            f"and use ag.gather(t, ag.argsort(keys))"))
    keys = [conversion_marks.converted_call(key, (iterable[i],)) for i in builtins.range(n)]
    if any(tuple(getattr(k, "shape", ()) or ()) != () for k in keys):
        raise _tracer.located(ValueError(
            "sorted(key=...) of a traced tensor: the key must give one scalar per row"))
    if n == 0:
        return iterable
    order = api.argsort(api.stack(keys), direction=direction, stable=True)
    return api.gather(iterable, order)


def _classes(classinfo):
    """The classes of an isinstance() classinfo (a class, a tuple of them, or `A | B`)."""
    if isinstance(classinfo, tuple):
        return [c for part in classinfo for c in _classes(part)]
    args = getattr(classinfo, "__args__", None)
    if args is not None and not isinstance(classinfo, type):   # types.UnionType
        return [c for part in args for c in _classes(part)]
    return [classinfo]


def isinstance_(obj, classinfo):
    """`isinstance(obj, cls)`: as the builtin, except that a traced tensor is
    an instance of `ag.Tensor` (as a graph tensor is a `tf.Tensor` inside
    `tf.function`), so code that checks for tensors behaves as it does eagerly."""
    if builtins.isinstance(obj, classinfo):
        return True
    if not _tracer.is_traced(obj):
        return False
    from autograph.tracer.tracing.tensor_ops import TensorOperators
    return any(isinstance(c, type) and issubclass(c, TensorOperators) for c in _classes(classinfo))


OVERLOADS = {builtins.sorted: sorted_, builtins.isinstance: isinstance_}
