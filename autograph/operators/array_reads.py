"""`get_item`: `x[key]` where a NumPy array may be indexed by traced values.

The converter turns a read `x[key]` with a computed key into
`ag__.get_item(x, key)`. A NumPy array indexed with traced tensors in the
key (`TABLE[i]`, `W[idx]` with `TABLE`, `W` captured NumPy arrays) is
indexed as a tensor constant: NumPy cannot see a traced index's value,
the compiled code can. Every other read is Python's `x[key]`.
"""
from __future__ import annotations

from . import _tracer

__all__ = ["get_item"]


def _holds_traced(key) -> bool:
    if isinstance(key, (tuple, list)):
        return any(_holds_traced(k) for k in key)
    if isinstance(key, slice):
        return any(_holds_traced(k) for k in (key.start, key.stop, key.step))
    return _tracer.is_traced(key)


def get_item(x, key):
    """`x[key]`, with a NumPy array indexed by traced values as a tensor."""
    if type(x).__module__ == "numpy" and _holds_traced(key):
        import numpy as np
        if type(x) is np.ndarray and x.dtype.kind in "biufc":
            return _tracer.api().getitem(x, key)   # (the array becomes a constant operand)
    return x[key]
