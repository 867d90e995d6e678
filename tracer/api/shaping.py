"""Public shape and construction functions: reshape, transpose, expand_dims,
squeeze, stack, concat, gather, eye, size, rank.

Axes and permutations must be known at trace time (Python ints); negative
values count from the end. New shapes (`reshape`) and sizes (`eye`) may be
traced scalars. `size` and `rank` give constants when the answer is known at
trace time, as TensorFlow does.
"""
from __future__ import annotations

import builtins
import numbers
from typing import List, Optional

import numpy as np

from .common import (as_operand, holds_tensor, index_operand, is_tensor_like, locate_errors,
    normalize_axis, prepare, rank_of)
from .public import implements
from .elementwise import cast
from .construct import _dim_operand, shape_operands
from ..tracing.symbolic import SymbolicTensor, bind, wrap_eager
from ..core.errors import InvalidArgumentError
from ..core.types import as_dtype, float32, int32, int64

__all__ = ["reshape", "transpose", "expand_dims", "squeeze", "stack", "concat", "gather", "eye",
           "size", "rank"]


def _int(op: str, what: str, v) -> int:
    """A trace-time Python int (NumPy ints and int scalar eager tensors too)."""
    if isinstance(v, SymbolicTensor):
        raise TypeError(f"{op}: {what} must be known at trace time (a Python int), got a traced tensor")
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {what} must be an int, got the bool {v!r}")
    if isinstance(v, numbers.Integral):
        return int(v)
    if is_tensor_like(v) or isinstance(v, np.ndarray):
        arr = np.asarray(v)
        if arr.dtype.kind in "iu" and arr.ndim == 0:
            return int(arr)
    raise TypeError(f"{op}: {what} must be an int, got {type(v).__name__} {v!r}")


def _one_axis(op: str, axis, rank: Optional[int], extra: int = 0) -> int:
    """Axis in [-(rank+extra), rank+extra) as a non-negative int (needs a known
    rank when negative)."""
    a = _int(op, "axis", axis)
    if rank is None:
        if a < 0:
            raise ValueError(f"{op}: negative axis {a} needs a tensor of known rank")
        return a
    n = rank + extra
    if not -n <= a < n:
        raise ValueError(f"{op}: axis {a} is out of range for a tensor of rank {rank} "
                         f"(expected {-n} <= axis < {n})")
    return a + n if a < 0 else a


@implements("reshape")
@locate_errors
def reshape(tensor, shape, name=None):
    """`tensor`'s elements in a new `shape`, in row-major order (as NumPy).

    Args:
        tensor: a tensor (array, number, nested list).
        shape: a list of Python ints or int scalar tensors, or a 1-D int tensor;
            one entry may be -1, inferred from the number of elements.
            Dimensions known at trace time are static in the result.
        name: ignored (TensorFlow compatibility).

    Returns:
        A tensor of `tensor`'s dtype and the new shape.

    Raises:
        InvalidArgumentError: the new shape has another number of elements (at
            trace time when both are known, else when the code runs), or more
            than one -1.

    Example:
        >>> print(ag.reshape(ag.range(6), [2, -1]))
        ag.Tensor([[0 1 2]
         [3 4 5]], shape=(2, 3), dtype=int32)
    """
    x = as_operand("reshape", tensor)
    return bind("reshape", x, *shape_operands("reshape", shape))


@implements("transpose")
@locate_errors
def transpose(a, perm=None, conjugate=False, name=None):
    """Permute the dimensions of `a`: dimension i of the result is `a`'s `perm[i]`.

    Args:
        a: a tensor (array, nested list).
        perm: a permutation of range(rank), or None to reverse the dimensions
            (a matrix transpose for rank 2).
        conjugate: conjugate complex elements too (the adjoint, as TensorFlow);
            no effect on real tensors.
        name: ignored (TensorFlow compatibility).

    Returns:
        A tensor of `a`'s dtype with permuted dimensions.

    Raises:
        ValueError: `perm` is not a permutation of the dimensions.

    Example:
        >>> print(ag.transpose([[1, 2, 3], [4, 5, 6]]))
        ag.Tensor([[1 4]
         [2 5]
         [3 6]], shape=(3, 2), dtype=int32)
    """
    x = as_operand("transpose", a)
    rank = rank_of(x)
    if perm is None:
        if rank is None:
            raise ValueError("transpose: perm=None needs a tensor of known rank")
        p = tuple(builtins.range(rank - 1, -1, -1))
    else:
        if isinstance(perm, SymbolicTensor):
            raise TypeError("transpose: perm must be known at trace time, got a traced tensor")
        items = list(np.asarray(perm).reshape(-1)) if not isinstance(perm, (list, tuple)) else list(perm)
        p = tuple(_int("transpose", "perm", v) for v in items)
        if rank is not None:
            if len(p) != rank:
                raise ValueError(f"transpose: perm {tuple(p)} has {len(p)} entries for a tensor of "
                                 f"rank {rank}")
            p = tuple(v + rank if v < 0 else v for v in p)
    out = bind("transpose", x, perm=p)
    if conjugate and getattr(out.dtype, "is_complex", False):
        out = bind("conj", out)   # TensorFlow's conjugate=True: the adjoint of a complex matrix
    return out


@implements("expand_dims")
@locate_errors
def expand_dims(input, axis, name=None):
    """`input` with a dimension of size 1 inserted at `axis`.

    Args:
        input: a tensor (array, number, nested list).
        axis: a Python int in [-rank-1, rank].
        name: ignored (TensorFlow compatibility).

    Returns:
        A tensor of rank + 1 with `input`'s elements and dtype.

    Raises:
        ValueError: `axis` out of range.

    Example:
        >>> print(ag.expand_dims([1, 2], 0))
        ag.Tensor([[1 2]], shape=(1, 2), dtype=int32)
    """
    x = as_operand("expand_dims", input)
    return bind("expand_dims", x, axis=_one_axis("expand_dims", axis, rank_of(x), extra=1))


@implements("squeeze")
@locate_errors
def squeeze(input, axis=None, name=None):
    """`input` without dimensions of size 1.

    Args:
        input: a tensor (array, number, nested list).
        axis: None removes every dimension known to be 1 at trace time (a
            dimension unknown then is an error: pass `axis` to say whether to
            remove it); an int or a list removes exactly those dimensions, each
            of which must be 1 (checked when the code runs for unknown ones).
        name: ignored (TensorFlow compatibility).

    Returns:
        A tensor of `input`'s dtype and elements.

    Raises:
        ValueError: an axis out of range, a named dimension that is not 1, or
            `axis=None` on a dimension unknown at trace time.
        InvalidArgumentError: a named dimension that turns out not to be 1.

    Example:
        >>> print(ag.squeeze(np.zeros((1, 3, 1))))
        ag.Tensor([0. 0. 0.], shape=(3,), dtype=float64)
    """
    x = as_operand("squeeze", input)
    rank = rank_of(x)
    if axis is None:
        if rank is None:
            raise ValueError("squeeze: axis=None needs a tensor of known rank")
        unknown = [k for k, d in enumerate(x.shape) if d is None]
        if unknown:
            raise ValueError(f"squeeze: dimension {unknown[0]} of shape "
                             f"{tuple(x.shape)} is unknown at trace time, so axis=None cannot "
                             f"tell whether to remove it; pass axis=[...] explicitly")
        axes = tuple(k for k, d in enumerate(x.shape) if d == 1)
    else:
        axes = normalize_axis("squeeze", axis, rank)
    return bind("squeeze", x, axis=axes)


def _parts(op: str, values) -> List:
    if isinstance(values, (SymbolicTensor, np.ndarray)) or hasattr(values, "_array"):
        # A tensor is a sequence of its slices along axis 0.
        values = list(values)
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{op}: expected a list of tensors, got {type(values).__name__}")
    if not values:
        raise ValueError(f"{op}: expected a non-empty list of tensors")
    return prepare(op, *values)


@implements("stack")
@locate_errors
def stack(values, axis=0, name=None):
    """Stack tensors of one shape and dtype along a new dimension `axis`.

    Args:
        values: a list or tuple of tensors (arrays, nested lists).
        axis: a Python int in [-(rank+1), rank] for parts of rank `rank`.
        name: ignored (TensorFlow compatibility).

    Returns:
        A tensor of rank + 1 whose `axis` dimension is the number of parts.

    Raises:
        TypeError: parts of different dtypes.
        ValueError: parts of different ranks, or `axis` out of range.
        InvalidArgumentError: parts of different shapes.

    Example:
        >>> print(ag.stack([[1, 2], [3, 4]], axis=1))
        ag.Tensor([[1 3]
         [2 4]], shape=(2, 2), dtype=int32)
    """
    parts = _parts("stack", values)
    ranks = [rank_of(p) for p in parts if rank_of(p) is not None]
    rank = ranks[0] if ranks else None
    return bind("stack", *parts, axis=_one_axis("stack", axis, rank, extra=1))


@implements("concat")
@locate_errors
def concat(values, axis, name=None):
    """Join tensors of one dtype and rank along their existing dimension `axis`.

    Args:
        values: a list or tuple of tensors (arrays, nested lists); their
            dimensions other than `axis` must match.
        axis: a Python int in [-rank, rank).
        name: ignored (TensorFlow compatibility).

    Returns:
        A tensor of the parts' dtype and rank whose `axis` dimension is the sum
        of theirs.

    Raises:
        TypeError: parts of different dtypes.
        ValueError: scalars (use `ag.stack`), parts of different ranks, or an
            axis out of range.
        InvalidArgumentError: other dimensions that differ (at trace time when
            known, else when the code runs).

    Example:
        >>> print(ag.concat([[1, 2], [3]], axis=0))
        ag.Tensor([1 2 3], shape=(3,), dtype=int32)
    """
    parts = _parts("concat", values)
    ranks = [rank_of(p) for p in parts if rank_of(p) is not None]
    rank = ranks[0] if ranks else None
    if rank == 0:
        raise ValueError("concat: cannot concatenate scalars; use ag.stack")
    return bind("concat", *parts, axis=_one_axis("concat", axis, rank))


@implements("gather")
@locate_errors
def gather(params, indices, axis=0, batch_dims=0, name=None):
    """Pick slices of `params` along `axis` at `indices`.

    The result has shape `params.shape[:axis] + indices.shape +
    params.shape[axis+1:]`. Negative indices count from the end (as NumPy's
    `take`).

    Args:
        params: the tensor to pick from.
        indices: an int tensor (array, list) of any shape.
        axis: a Python int, the dimension indexed.
        batch_dims: must be 0.
        name: ignored (TensorFlow compatibility).

    Returns:
        A tensor of `params`' dtype.

    Raises:
        InvalidArgumentError: an index outside [-size, size), naming the index,
            the axis and its size (in compiled code when bounds checks are on).
        TypeError: `indices` are not integers.
        ValueError: `axis` out of range, or `batch_dims` other than 0.

    Example:
        >>> print(ag.gather([10, 20, 30], [2, 0, -1]))
        ag.Tensor([30 10 30], shape=(3,), dtype=int32)
    """
    if batch_dims != 0:
        raise ValueError(f"gather: batch_dims={batch_dims!r} is not supported (only 0)")
    x = as_operand("gather", params)
    if rank_of(x) == 0:
        raise ValueError("gather: params must have rank >= 1, got a scalar")
    idx = index_operand(as_operand("gather", indices))
    axis = 0 if axis is None else axis
    return bind("gather", x, idx, axis=_one_axis("gather", axis, rank_of(x)))


@implements("eye")
@locate_errors
def eye(num_rows, num_columns=None, batch_shape=None, dtype=float32, name=None):
    """A matrix with ones on the diagonal and zeros elsewhere.

    Args:
        num_rows: the number of rows: a Python int or a traced int scalar.
        num_columns: the number of columns (default: square).
        batch_shape: not supported (must be None).
        dtype: the element dtype (float32 by default).
        name: ignored (TensorFlow compatibility).

    Returns:
        A `num_rows` x `num_columns` tensor of `dtype`.

    Raises:
        ValueError: a `batch_shape` was given.
        InvalidArgumentError: a negative size.

    Example:
        >>> print(ag.eye(2, dtype=ag.int32))
        ag.Tensor([[1 0]
         [0 1]], shape=(2, 2), dtype=int32)
    """
    if batch_shape is not None:
        raise ValueError("eye: batch_shape is not supported")
    rows = _dim_operand("eye", 0, num_rows)
    cols = rows if num_columns is None else _dim_operand("eye", 1, num_columns)
    return bind("eye", rows, cols, dtype=as_dtype(dtype))


def _scalar_result(op: str, out_type, static: Optional[int], x):
    out_type = as_dtype(out_type)
    if out_type not in (int32, int64):
        raise TypeError(f"{op}: out_type must be int32 or int64, got {out_type.name}")
    if static is not None:
        if static > np.iinfo(out_type.np_dtype).max:
            raise InvalidArgumentError(f"{op}: the value {static} does not fit in {out_type.name}; "
                                       f"use out_type=ag.int64")
        return wrap_eager(np.array(static, dtype=out_type.np_dtype))
    if op == "size" and out_type is int64:
        # counted in int64 from the dimensions: the int32 `size` op would refuse past 2**31 - 1
        return bind("reduce_prod", bind("shape", x, dtype=int64), axis=(0,), keepdims=False)
    r = bind(op, x)
    return r if out_type is int32 else cast(r, out_type)


@implements("size")
@locate_errors
def size(input, out_type=int32, name=None):
    """The number of elements of `input`.

    Args:
        input: a tensor (array, number, nested list).
        out_type: `ag.int32` (the default, as TensorFlow) or `ag.int64`.
        name: ignored (TensorFlow compatibility).

    Returns:
        A scalar tensor of `out_type`: a constant when the shape is known at
        trace time.

    Raises:
        TypeError: `out_type` is neither int32 nor int64.
        InvalidArgumentError: more than 2**31 - 1 elements with int32 (it never
            wraps).

    Example:
        >>> print(ag.size(np.zeros((2, 3))))
        ag.Tensor(6, shape=(), dtype=int32)
    """
    (x,) = prepare("size", input)
    static = None
    if x.shape is not None and all(d is not None for d in x.shape):
        static = int(np.prod(x.shape, dtype=np.int64))
    return _scalar_result("size", out_type, static, x)


@implements("rank")
@locate_errors
def rank(input, name=None):
    """The number of dimensions of `input`.

    Args:
        input: a tensor (array, number, nested list).
        name: ignored (TensorFlow compatibility).

    Returns:
        An int32 scalar tensor: a constant when the rank is known at trace time.

    Raises:
        TypeError: `input` does not convert to a tensor.

    Example:
        >>> print(ag.rank(np.zeros((2, 3))))
        ag.Tensor(2, shape=(), dtype=int32)
    """
    (x,) = prepare("rank", input)
    return _scalar_result("rank", int32, rank_of(x), x)


def _int_index_array(part):
    """`part` as a gather index operand when it is an integer array index
    (a tensor or array of rank >= 1, or a list of ints), else None."""
    if isinstance(part, list):
        if holds_tensor(part):         # [i, j] of traced scalars: one int tensor
            part = as_operand("getitem", part)
            return part if part.dtype.is_integer and (rank_of(part) or 0) >= 1 else None
        try:
            arr = np.asarray(part)
        except ValueError:
            return None
        if arr.size == 0 and arr.ndim >= 1:
            return np.zeros(arr.shape, np.int32)     # NumPy reads empty lists as integer indices
        if arr.dtype.kind not in "iu" or arr.ndim == 0:
            return None
        return as_operand("getitem", part)
    if is_tensor_like(part) or isinstance(part, np.ndarray):
        d = getattr(part, "dtype", None)
        kind = np.dtype(d.np_dtype if hasattr(d, "np_dtype") else d).kind
        if kind in "iu" and part.shape is not None and len(part.shape) >= 1:
            return part if is_tensor_like(part) else np.asarray(part)
    return None


def gather_index(x, key):
    """`x[key]` as a `gather` when `key` is an integer array index (alone, or
    in a tuple whose other parts are `:` or one `...`), else None.

    `x[idx]` picks slices along axis 0, `x[:, idx]` along axis 1, `x[..., idx]`
    along the last axis; negative indices count from the end.
    """
    parts = key if isinstance(key, tuple) else (key,)
    found = [(k, _int_index_array(p)) for k, p in enumerate(parts)]
    found = [(k, idx) for k, idx in found if idx is not None]
    if len(found) != 1:
        return None
    pos, idx = found[0]
    rest = [p for k, p in enumerate(parts) if k != pos]
    full = all(p is Ellipsis or (isinstance(p, slice) and p.start is None and p.stop is None
                                 and p.step is None) for p in rest)
    if not full or sum(1 for p in rest if p is Ellipsis) > 1:
        return None
    x = as_operand("getitem", x)
    axis = pos
    if any(p is Ellipsis for p in parts[:pos]):
        # `...` before the index: count the axis from the end.
        rank = rank_of(x)
        if rank is None:
            return None
        axis = rank - (len(parts) - pos)
    return gather(x, idx, axis=axis)
