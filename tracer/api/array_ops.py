"""Public array functions TensorFlow programs use that compose existing ops:
identity, unstack, pad.

They work eagerly and while tracing, as every public function does: each is
written with the public ops (`strided_slice`, `fill`, `concat`), so the
compiled code is what those ops lower to.
"""
from __future__ import annotations

import builtins
import numbers

import numpy as np

from .common import as_operand, locate_errors, rank_of
from .construct import fill, shape
from .public import public
from .shaping import concat
from ..tracing.symbolic import SymbolicTensor, wrap_eager
from ..core.types import as_dtype

__all__ = ["identity", "unstack", "pad"]


@public("identity")
@locate_errors
def identity(input, name=None):
    """`input` as a tensor with the same dtype, shape and values (a NumPy
    array or Python number becomes a tensor)."""
    x = as_operand("identity", input)
    # A traced tensor is returned as is: the graph needs no copy op.
    return x if isinstance(x, SymbolicTensor) or hasattr(x, "_array") else _eager(x)


def _eager(arr):
    return wrap_eager(np.asarray(arr))


def _axis(op: str, axis, rank: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{op}: axis must be a Python int, got {type(axis).__name__} {axis!r}")
    a = int(axis)
    if not -rank <= a < rank:
        raise ValueError(f"{op}: axis {a} is out of range for a tensor of rank {rank} "
                         f"(expected {-rank} <= axis < {rank})")
    return a + rank if a < 0 else a


@public("unstack")
@locate_errors
def unstack(value, num=None, axis=0, name=None):
    """The list of slices of `value` along `axis` (each of rank one less).

    The number of slices is `value.shape[axis]`, which must be known at trace
    time, or given as `num` (as in TensorFlow; a `num` that disagrees with a
    known size is a ValueError).
    """
    x = as_operand("unstack", value)
    rank = rank_of(x)
    if rank is None:
        raise ValueError("unstack: needs a tensor of known rank")
    if rank == 0:
        raise ValueError("unstack: expected a tensor of rank >= 1, got a scalar")
    a = _axis("unstack", axis, rank)
    n = x.shape[a]
    if num is not None:
        if isinstance(num, bool) or not isinstance(num, numbers.Integral) or num < 0:
            raise TypeError(f"unstack: num must be a non-negative Python int, got {num!r}")
        if n is not None and n != num:
            raise ValueError(f"unstack: num={num} but dimension {a} of shape {tuple(x.shape)} "
                             f"has size {n}")
        n = int(num)
    if n is None:
        raise ValueError(f"unstack: dimension {a} of shape {tuple(x.shape)} is unknown at trace "
                         f"time; pass num= (the number of slices)")
    key = (slice(None),) * a
    return [x[key + (i,)] for i in builtins.range(n)]


def _paddings(value, rank: int):
    """`value` as `rank` pairs of non-negative Python ints."""
    if isinstance(value, SymbolicTensor):
        raise TypeError("pad: paddings must be known at trace time (a list of [before, after] "
                        "pairs of ints), got a traced tensor")
    arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if arr.dtype.kind not in "iu" or arr.shape != (rank, 2):
        raise ValueError(f"pad: paddings must be an int array of shape ({rank}, 2) for a tensor "
                         f"of rank {rank}, got {value!r}")
    if (arr < 0).any():
        raise ValueError(f"pad: paddings must be non-negative, got {arr.tolist()}")
    return [(int(b), int(e)) for b, e in arr]


@public("pad")
@locate_errors
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """`tensor` with `paddings[d][0]` elements before and `paddings[d][1]`
    after its data in each dimension d, all equal to `constant_values`.

    Only `mode="CONSTANT"` is supported (REFLECT and SYMMETRIC raise).
    Paddings must be known at trace time; dimensions of `tensor` may be
    unknown (the padding blocks then take their size when the code runs).
    """
    if not isinstance(mode, str) or mode.upper() != "CONSTANT":
        raise ValueError(f"pad: only mode='CONSTANT' is supported, got {mode!r}")
    x = as_operand("pad", tensor)
    rank = rank_of(x)
    if rank is None:
        raise ValueError("pad: needs a tensor of known rank")
    pads = _paddings(paddings, rank)
    (fill_value,) = _value_operand(x, constant_values)
    traced_shape = None
    for d, (before, after) in enumerate(pads):
        if before == 0 and after == 0:
            continue
        dims = list(x.shape)
        if any(v is None for v in dims):
            traced_shape = shape(x)
            dims = [v if v is not None else traced_shape[k] for k, v in enumerate(dims)]
        parts = []
        for n in (before, after):
            if n:
                block = list(dims)
                block[d] = n
                parts.append(fill(block, fill_value))
            else:
                parts.append(None)
        x = concat([p for p in (parts[0], x, parts[1]) if p is not None], d)
    return x if (isinstance(x, SymbolicTensor) or hasattr(x, "_array")) else _eager(x)


def _value_operand(x, value):
    """The padding value as a scalar of `x`'s dtype (a Python number adopts
    it; a tensor must have it)."""
    dt = as_dtype(x.dtype)
    if isinstance(value, SymbolicTensor) or hasattr(value, "_array"):
        if value.dtype is not dt or tuple(value.shape or ()) != ():
            raise TypeError(f"pad: constant_values must be a scalar of the tensor's dtype "
                            f"{dt.name}, got {value!r}")
        return (value,)
    if isinstance(value, (bool, numbers.Number, np.generic)):
        if isinstance(value, float) and not dt.is_floating:
            raise TypeError(f"pad: constant_values {value!r} is a float but the tensor is "
                            f"{dt.name}; pass an int or use ag.cast")
        return (np.array(value, dtype=dt.np_dtype),)
    raise TypeError(f"pad: constant_values must be a scalar, got {type(value).__name__} {value!r}")
