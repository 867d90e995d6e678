"""NumPy's functions that make an edited copy of an array: `np.append`,
`np.insert`, `np.delete`, `np.resize`, `np.block` and `np.ediff1d`.

A tensor is immutable, and so are NumPy's results here (they are new
arrays in NumPy too). Positions (`obj`) and new shapes must be known when
tracing; the data's values and dtype are the tensor's. `insert`/`delete`
build one `gather` with an index vector computed at trace time, following
NumPy's rules for negative, repeated and unsorted positions; `resize`
repeats the flattened data cyclically; `block` concatenates innermost
lists along the last axis, the next ones along the axes before it.
Values given to `append`/`insert` take the array's dtype when they are
Python numbers; tensors of another dtype raise the §9 TypeError naming the
cast NumPy would have made (`numpy_promote`).
"""
from __future__ import annotations

import math
import numbers
from typing import List

import numpy as np

from .common import is_tensor_like, locate_errors, rank_of
from .elementwise import cast
from .numpy_functions import Unsupported, tensor_operand
from .numpy_promote import promote
from .shaping import concat, gather, reshape
from ..tracing.symbolic import is_traced

__all__ = ["FUNCTIONS"]


def _static_dims(op: str, t) -> List[int]:
    if t.shape is None or any(d is None for d in t.shape):
        raise Unsupported("a tensor whose shape is only known when the compiled code runs")
    return list(t.shape)


def _flat(t):
    return reshape(t, [-1])


def _axis(op: str, axis, rank: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"np.{op}: axis must be an int or None, got {axis!r}")
    if not -rank <= axis < rank:
        raise np.exceptions.AxisError(f"np.{op}: axis {int(axis)} is out of bounds for array of dimension {rank}")
    return int(axis) % rank


def _values_like(op: str, arr, values):
    """`values` as a tensor of `arr`'s dtype, as NumPy's `insert` casts them (unsafely: 2.7
    into an int array is 2)."""
    if is_traced(values) or is_tensor_like(values):
        v = tensor_operand(op, values)
    else:
        v = np.asarray(values)
        if v.dtype == object:
            raise TypeError(f"np.{op}: values must be numbers, got {values!r}")
        v = tensor_operand(op, v)
    return v if v.dtype == arr.dtype else cast(v, arr.dtype)


# ---------------------------------------------------------------- append

@locate_errors
def np_append(arr, values, axis=None):
    """NumPy's `append`: `values` after `arr` (both flattened when axis is None)."""
    # NumPy: concatenate((arr, asarray(values))), both strong: np.append(int32 array, 1.5) is float64
    v = values if (is_traced(values) or is_tensor_like(values)) else np.asarray(values)
    a, v = promote("append", arr, v)
    if axis is None:
        return concat([_flat(a), _flat(v)], axis=0)
    rank = rank_of(a)
    if rank_of(v) != rank:
        raise ValueError(f"np.append: all the input arrays must have the same number of dimensions, "
                         f"but the array has {rank} dimension(s) and the values {rank_of(v)}")
    return concat([a, v], axis=_axis("append", axis, rank))


# ---------------------------------------------------------------- insert, delete

def _positions(op: str, obj, n: int, allow_end: bool) -> np.ndarray:
    """`obj` (an int, a slice, a sequence of ints or bools known at trace time) as int64
    positions in [0, n] (`allow_end`) or [0, n)."""
    if isinstance(obj, slice):
        return np.arange(n, dtype=np.int64)[obj]
    if is_traced(obj) or is_tensor_like(obj):
        raise Unsupported(f"positions (obj) that are tensors; give {op} Python ints or a NumPy array")
    idx = np.asarray(obj)
    if idx.dtype == bool:
        if op == "insert":
            raise Unsupported("a boolean obj (NumPy 2 refuses it too)")
        if idx.shape != (n,):
            raise ValueError(f"np.{op}: boolean array argument obj to delete must be one dimensional "
                             f"and match the axis length of {n}")
        return np.flatnonzero(idx).astype(np.int64)
    if idx.size == 0:
        return np.zeros(0, np.int64)        # `[]`: NumPy reads it as no position
    if idx.dtype.kind not in "iu":
        raise IndexError(f"np.{op}: arrays used as indices must be of integer (or boolean) type")
    idx = idx.astype(np.int64)
    limit = n + 1 if allow_end else n
    bad = (idx < -n) | (idx >= limit)
    if bad.any():
        i = int(idx[bad].flat[0])
        raise IndexError(f"np.{op}: index {i} is out of bounds for axis with size {n}")
    return np.where(idx < 0, idx + n, idx)


def _flat_or_axis(op: str, a, axis):
    """(a, axis): the flattened tensor and 0 when axis is None."""
    if axis is None:
        return _flat(a), 0
    return a, _axis(op, axis, rank_of(a))


@locate_errors
def np_delete(arr, obj, axis=None):
    """NumPy's `delete`: `arr` without the positions `obj` along `axis` (flattened when None)."""
    a, ax = _flat_or_axis("delete", tensor_operand("delete", arr), axis)
    n = _static_dims("delete", a)[ax]
    drop = _positions("delete", obj, n, allow_end=False)
    keep = np.setdiff1d(np.arange(n, dtype=np.int64), drop)
    return gather(a, keep, axis=ax)


@locate_errors
def np_insert(arr, obj, values, axis=None):
    """NumPy's `insert`: `values` placed before the positions `obj` along `axis`."""
    a, ax = _flat_or_axis("insert", tensor_operand("insert", arr), axis)
    dims = _static_dims("insert", a)
    n = dims[ax]
    v = _values_like("insert", a, values)
    scalar_obj = isinstance(obj, numbers.Integral) and not isinstance(obj, bool)
    pos = _positions("insert", obj, n, allow_end=True)
    if scalar_obj:
        # NumPy: the values (at least a's rank, first axis moved to `ax`) go in as a block
        vdims = _static_dims("insert", v)
        if len(vdims) < len(dims):
            v = reshape(v, [1] * (len(dims) - len(vdims)) + vdims)
            vdims = [1] * (len(dims) - len(vdims)) + vdims
        if len(vdims) == len(dims) and ax != 0:
            order = list(range(len(dims)))
            order.insert(ax, order.pop(0))
            from .shaping import transpose
            v = transpose(v, order)
            vdims = [vdims[i] for i in order]
        count = vdims[ax]
        target = dims[:ax] + [count] + dims[ax + 1:]
        v = _broadcast(v, target)
        before = np.arange(int(pos), dtype=np.int64)
        after = np.arange(int(pos), n, dtype=np.int64)
        index = np.concatenate([before, n + np.arange(count, dtype=np.int64), after])
    else:
        count = len(pos)
        target = dims[:ax] + [count] + dims[ax + 1:]
        if rank_of(v) == 1 and len(dims) > 1:
            # a vector of values: one per inserted position, spread over the other axes
            shape = [1] * len(dims)
            shape[ax] = -1
            v = reshape(v, shape)
        v = _broadcast(v, target)
        order = np.argsort(pos, kind="stable")
        shifted = pos.copy()
        shifted[order] += np.arange(count, dtype=np.int64)
        index = np.full(n + count, -1, dtype=np.int64)
        index[shifted] = n + np.arange(count, dtype=np.int64)
        index[index < 0] = np.arange(n, dtype=np.int64)
    return gather(concat([a, v], axis=ax), index, axis=ax)


def _broadcast(v, target: List[int]):
    from .numpy_statistics import broadcast_to
    dims = _static_dims("insert", v)
    try:
        np.broadcast_shapes(tuple(dims), tuple(target))
    except ValueError:
        raise ValueError(f"np.insert: could not broadcast input array from shape {tuple(dims)} "
                         f"into shape {tuple(target)}") from None
    return broadcast_to(v, target)


# ---------------------------------------------------------------- resize

@locate_errors
def np_resize(a, new_shape):
    """NumPy's `resize`: the flattened data repeated cyclically to fill `new_shape`."""
    t = tensor_operand("resize", a)
    shape = [new_shape] if isinstance(new_shape, numbers.Integral) else list(new_shape)
    if any(isinstance(d, bool) or not isinstance(d, numbers.Integral) for d in shape):
        raise TypeError(f"np.resize: new_shape must be ints known when tracing, got {new_shape!r}")
    if any(d < 0 for d in shape):
        raise ValueError("np.resize: all elements of `new_shape` must be non-negative")
    size = math.prod(shape)
    n = math.prod(_static_dims("resize", t))
    if n == 0 or size == 0:
        from .construct import zeros
        return zeros(shape, t.dtype)
    index = np.arange(size, dtype=np.int64) % n
    return reshape(gather(_flat(t), index, axis=0), shape)


# ---------------------------------------------------------------- block

def _depth(x) -> int:
    if isinstance(x, list):
        if not x:
            raise ValueError("np.block: Lists cannot be empty")
        depths = {_depth(e) for e in x}
        if len(depths) != 1:
            raise ValueError("np.block: List depths are mismatched")
        return 1 + depths.pop()
    if isinstance(x, tuple):
        raise TypeError("np.block: tuples are not allowed as block elements, use a list")
    return 0


def _max_rank(x) -> int:
    if isinstance(x, list):
        return max(_max_rank(e) for e in x)
    return rank_of(tensor_operand("block", x)) or 0


def _assemble(x, depth: int, rank: int):
    if not isinstance(x, list):
        t = tensor_operand("block", x)
        r = rank_of(t)
        return t if r == rank else reshape(t, [1] * (rank - r) + _static_dims("block", t))
    parts = promote("block", *[_assemble(e, depth - 1, rank) for e in x])   # NumPy's result dtype
    return concat(parts, axis=rank - depth)


@locate_errors
def np_block(arrays):
    """NumPy's `block`: nested lists of arrays assembled, innermost along the last axis."""
    depth = _depth(arrays)
    if depth == 0:
        return tensor_operand("block", arrays)
    rank = max(depth, _max_rank(arrays))
    return _assemble(arrays, depth, rank)


# ---------------------------------------------------------------- ediff1d

@locate_errors
def np_ediff1d(ary, to_end=None, to_begin=None):
    """NumPy's `ediff1d`: the differences of the flattened array, with `to_begin`
    before and `to_end` after them (cast to the array's dtype, as NumPy casts them)."""
    x = _flat(tensor_operand("ediff1d", ary))
    parts = [x[1:] - x[:-1]]
    if to_begin is not None:
        parts.insert(0, _flat(_values_like("ediff1d", x, to_begin)))
    if to_end is not None:
        parts.append(_flat(_values_like("ediff1d", x, to_end)))
    return parts[0] if len(parts) == 1 else concat(parts, axis=0)


FUNCTIONS = {"append": np_append, "insert": np_insert, "delete": np_delete, "resize": np_resize,
             "block": np_block, "ediff1d": np_ediff1d}
