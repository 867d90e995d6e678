"""NumPy functions of numeric kernels built from existing ops: var, std,
average, diff, roll, tile, repeat, outer, vdot, dot (NumPy's semantics).

Each is written with NumPy's signature (`np_var(a, axis=None, ..., ddof=0,
keepdims=False)`), so the NumPy protocol (`np.var(x)` on a tensor) and the
array methods (`x.var()`) call it as NumPy would; TensorFlow's names for the
same computations (`ag.math.reduce_variance`, `ag.roll`, `ag.tile`,
`ag.repeat`) are registered as public functions. Axes, shifts and repeat
counts must be known at trace time (Python ints); sizes may be traced.

dtypes: `var`, `std` and `average` of integer or bool tensors compute in
float64, as NumPy does (their result is a float whatever the input);
everything else keeps the input's dtype. Arguments NumPy has and autograph
cannot honour (`out=`, `dtype=`, `where=`) raise `Unsupported`, which the
NumPy protocol turns into a TypeError naming the function and the argument.
"""
from __future__ import annotations

import builtins
import math
import numbers
from typing import List, Optional, Sequence

import numpy as np

from .common import locate_errors, normalize_axis, prepare, rank_of
from .construct import dim, ones
from .elementwise import (cast, divide, logical_or, matmul, mod, multiply, not_equal, sqrt,
    subtract)
from .empty_reductions import refuse_empty
from .public import public
from .reduce import reduce_mean, reduce_sum
from .shaping import concat, expand_dims, gather, reshape, transpose
from .slicing import getitem
from ..core.types import DType, float64
from ..tracing.symbolic import SymbolicTensor, wrap_eager

__all__ = ["Unsupported", "NO", "reject", "as_float", "count", "dims_of", "np_var", "np_std",
           "np_average", "np_diff", "np_roll", "np_tile", "np_repeat", "np_outer", "np_vdot",
           "np_dot", "bool_as_number", "numpy_reduction", "tensor_operand", "reduce_variance",
           "reduce_std", "roll", "tile", "repeat", "broadcast_dims"]


class Unsupported(Exception):
    """An argument or form NumPy has and autograph cannot honour (message: which).

    Not a TypeError on purpose: `locate_errors` lets it through unchanged, and
    the NumPy protocol or the array methods turn it into a TypeError naming
    the function (with the user's line)."""


NO = object()   # "not given"


def reject(op: str, **given) -> None:
    """Raise Unsupported for the first of `given` that is not None / not given."""
    for k, v in given.items():
        if v is not NO and v is not None:
            raise Unsupported(f"the {k}= argument")


def _operand(op: str, a):
    """`a` as a tensor (eager when it was an array or Python value)."""
    (x,) = prepare(op, a)
    return wrap_eager(x) if isinstance(x, np.ndarray) else x


tensor_operand = _operand


# NumPy counts bools: their sum, product and running sum are int64, their mean float64.
_BOOL_AS = {"reduce_sum": "int64", "reduce_prod": "int64", "cumsum": "int64",
            "reduce_mean": "float64"}


def bool_as_number(op: str, a):
    """`a` cast as NumPy computes `op` on bools (`np.sum(mask)` counts), else `a`."""
    target = _BOOL_AS.get(op)
    d = getattr(a, "dtype", None)
    if target is not None and isinstance(d, DType) and d.is_bool:
        return cast(a, target)
    return a


def numpy_reduction(fn, a, axis, keepdims, empty_ok=False):
    """Reduction `fn` (reduce_sum, ..., reduce_any) applied as NumPy applies
    it: bools are counted (`bool_as_number`), their max/min are any/all, and
    any/all of numbers test them against zero; max/min of no elements raise
    as NumPy's do, unless `empty_ok` (an `initial=` was given)."""
    name = fn.__name__
    d = getattr(a, "dtype", None)
    if isinstance(d, DType):
        if not empty_ok:
            refuse_empty(name, a, axis)
        if d.is_bool and name in ("reduce_max", "reduce_min"):
            from .reduce import reduce_all, reduce_any
            fn = reduce_any if name == "reduce_max" else reduce_all
        elif not d.is_bool and name in ("reduce_any", "reduce_all"):
            a = not_equal(a, 0)
        a = bool_as_number(name, a)
    return fn(a, axis=axis, keepdims=bool(keepdims))


def as_float(op: str, x):
    """`x` itself when floating or complex, else cast to float64 (NumPy's
    computation type for var/std/average/norm of integers and bools)."""
    d = x.dtype
    return x if d.is_floating or getattr(d, "is_complex", False) else cast(x, float64)


def dims_of(x) -> List:
    """x's dimensions: Python ints where static, traced int32 scalars where not."""
    if x.shape is None:
        raise ValueError("expected a tensor of known rank, got one of unknown rank")
    return [d if d is not None else dim(x, i) for i, d in enumerate(x.shape)]


def count(x, axes: Optional[Sequence[int]]):
    """The number of elements of `x` over `axes` (all when None): a Python int
    when the dimensions are static, else a traced int32 scalar."""
    dims = dims_of(x)
    picked = dims if axes is None else [dims[a] for a in axes]
    if all(isinstance(d, int) for d in picked):
        return math.prod(picked)
    n = 1
    for d in picked:
        n = n * d if isinstance(n, int) and isinstance(d, int) else multiply(n, d)
    return n


def _scalar_in(n, dtype: DType):
    """A count as an operand of `dtype`: a Python number stays weak."""
    return n if isinstance(n, (int, float)) else cast(n, dtype)


def _variance(op: str, a, axis, ddof, keepdims):
    x = as_float(op, _operand(op, a))
    axes = normalize_axis(op, axis, rank_of(x))
    if isinstance(ddof, bool) or not isinstance(ddof, numbers.Real):
        raise TypeError(f"{op}: ddof must be a number known at trace time, got {ddof!r}")
    if getattr(x.dtype, "is_complex", False):
        raise TypeError(f"{op}: the variance of a complex tensor is not supported; take it of "
                        f"its real and imaginary parts")
    centred = subtract(x, reduce_mean(x, axis=axes, keepdims=True))
    sq = multiply(centred, centred)
    total = reduce_sum(sq, axis=axes, keepdims=bool(keepdims))
    n = count(x, axes)
    denom = n - ddof if isinstance(n, int) else subtract(cast(n, x.dtype), float(ddof))
    if isinstance(denom, int) and denom <= 0:
        # NumPy warns and gives inf/nan; so does a division by zero here.
        denom = float(denom)
    return divide(total, _scalar_in(denom, x.dtype))


@locate_errors
def np_var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=NO, mean=NO,
           correction=NO):
    """NumPy's `var`: the mean squared deviation from the mean over `axis`,
    divided by `N - ddof`. Integers and bools compute in float64.

    Example: `np.var(x, axis=0, ddof=1)` or `x.var(ddof=1)` on a tensor.
    """
    reject("var", dtype=dtype, out=out, where=where, mean=mean)
    if correction is not NO:
        ddof = correction
    return _variance("var", a, axis, ddof, keepdims)


@locate_errors
def np_std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=NO, mean=NO,
           correction=NO):
    """NumPy's `std`: the square root of `var` (same arguments)."""
    reject("std", dtype=dtype, out=out, where=where, mean=mean)
    if correction is not NO:
        ddof = correction
    return sqrt(_variance("std", a, axis, ddof, keepdims))


@public("math.reduce_variance")
@locate_errors
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance of `input_tensor`'s elements over `axis` (all when None).

    Args:
        input_tensor: a tensor, array or nested list; integers compute in float64.
        axis: None, an int or a tuple of ints known at trace time.
        keepdims: keep the reduced axes with size 1.
        name: unused (TensorFlow compatibility).

    Returns:
        A floating tensor: mean((x - mean(x))**2).

    Raises:
        ValueError: an axis out of range.

    Example:
        >>> print(ag.math.reduce_variance([1.0, 2.0, 3.0, 4.0]))
        ag.Tensor(1.25, shape=(), dtype=float32)
    """
    return _variance("reduce_variance", input_tensor, axis, 0, keepdims)


@public("math.reduce_std")
@locate_errors
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation of `input_tensor`'s elements over `axis` (all
    when None): sqrt(reduce_variance(...)).

    Args:
        input_tensor: a tensor, array or nested list; integers compute in float64.
        axis: None, an int or a tuple of ints known at trace time.
        keepdims: keep the reduced axes with size 1.
        name: unused (TensorFlow compatibility).

    Returns:
        A floating tensor.

    Raises:
        ValueError: an axis out of range.

    Example:
        >>> print(ag.math.reduce_std([1.0, 3.0]))
        ag.Tensor(1., shape=(), dtype=float32)
    """
    return sqrt(_variance("reduce_std", input_tensor, axis, 0, keepdims))


def broadcast_dims(w, x, axes) -> object:
    """`w` (1-D, along the single axis `axes[0]` of `x`) reshaped to broadcast against x."""
    rank = rank_of(x)
    shape = [1] * rank
    shape[axes[0]] = -1
    return reshape(w, shape)


@locate_errors
def np_average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """NumPy's `average`: the mean over `axis`, weighted by `weights` when given
    (same shape as `a`, or 1-D along a single `axis`). Integers compute in
    float64. `returned=True` also gives the sum of the weights.
    """
    x = as_float("average", _operand("average", a))
    axes = normalize_axis("average", axis, rank_of(x))
    if weights is None:
        avg = reduce_mean(x, axis=axes, keepdims=bool(keepdims))
        if not returned:
            return avg
        n = count(x, axes)
        return avg, multiply(avg, 0) + _scalar_in(n, x.dtype)
    w = _operand("average", weights)
    w = w if w.dtype is x.dtype else cast(w, x.dtype)
    if rank_of(w) != rank_of(x):
        if axes is None or len(axes) != 1 or rank_of(w) != 1:
            raise ValueError("average: weights of another shape than `a` must be 1-D, along one "
                             "given axis")
        w = broadcast_dims(w, x, axes)
    total_w = reduce_sum(multiply(w, ones(dims_of(x), x.dtype)), axis=axes,
                         keepdims=bool(keepdims))
    avg = divide(reduce_sum(multiply(x, w), axis=axes, keepdims=bool(keepdims)), total_w)
    return (avg, total_w) if returned else avg


def _axis_slice(rank: int, axis: int, part: slice) -> tuple:
    return (builtins.slice(None),) * axis + (part,)


def _one_axis(op: str, axis, rank) -> int:
    if rank == 0:
        raise ValueError(f"{op}: expected a tensor of rank >= 1, got a scalar")
    (a,) = normalize_axis(op, axis, rank)
    return a


@locate_errors
def np_diff(a, n=1, axis=-1, prepend=NO, append=NO):
    """NumPy's `diff`: the n-th discrete difference `a[i+1] - a[i]` along `axis`
    (for bools, `a[i+1] != a[i]`). `n` must be a non-negative Python int;
    `prepend`/`append` are joined along `axis` first (a scalar as one slice)."""
    from .numpy_statistics import diff_edges   # it builds on this module
    x = _operand("diff", a)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"diff: order n must be a non-negative int, got {n!r}")
    ax = _one_axis("diff", axis, rank_of(x))
    rank = rank_of(x)
    x = diff_edges(x, ax, prepend, append)
    for _ in builtins.range(int(n)):
        hi = getitem(x, _axis_slice(rank, ax, builtins.slice(1, None)))
        lo = getitem(x, _axis_slice(rank, ax, builtins.slice(None, -1)))
        x = not_equal(hi, lo) if x.dtype.is_bool else subtract(hi, lo)
    return x


def _ints(op: str, what: str, v) -> List[int]:
    items = list(v) if isinstance(v, (list, tuple)) else [v]
    for i in items:
        if isinstance(i, bool) or not isinstance(i, numbers.Integral):
            raise TypeError(f"{op}: {what} must be an int or a tuple of ints known at trace time, "
                            f"got {v!r}")
    return [int(i) for i in items]


def _roll_axis(x, shift, axis: int):
    n = x.shape[axis]
    if n is not None:
        if n == 0:
            return x
        k = shift % n
        if k == 0:
            return x
        rank = rank_of(x)
        return concat([getitem(x, _axis_slice(rank, axis, builtins.slice(n - k, None))),
                       getitem(x, _axis_slice(rank, axis, builtins.slice(None, n - k)))], axis)
    # A run-time length: element i comes from (i - shift) mod n.
    size = dim(x, axis)
    from .construct import range as ag_range
    index = mod(subtract(ag_range(0, size, 1), shift), size)
    return gather(x, index, axis=axis)


@locate_errors
def np_roll(a, shift, axis=None):
    """NumPy's `roll`: elements shifted by `shift` along `axis`, wrapping
    around; `axis=None` rolls the flattened array and restores the shape.
    `shift` and `axis` may be tuples (rolled in turn)."""
    x = _operand("roll", a)
    if axis is None:
        (s,) = _ints("roll", "shift", shift) if not isinstance(shift, (list, tuple)) else \
            [builtins.sum(_ints("roll", "shift", shift))]
        dims = dims_of(x)
        return reshape(_roll_axis(reshape(x, [-1]), s, 0), dims)
    shifts = _ints("roll", "shift", shift)
    axes = _ints("roll", "axis", axis)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: shift {shift!r} and axis {axis!r} must have the same length")
    rank = rank_of(x)
    for s, ax in zip(shifts, axes):
        (ax,) = normalize_axis("roll", ax, rank)
        x = _roll_axis(x, s, ax)
    return x


@public("roll")
@locate_errors
def roll(input, shift, axis, name=None):
    """Roll `input`'s elements by `shift` along `axis`, wrapping around, as
    `tf.roll` and `np.roll` do.

    Args:
        input: a tensor, array or nested list.
        shift: an int, or a tuple of ints (one per axis), known at trace time.
        axis: an int or a tuple of ints known at trace time.
        name: unused (TensorFlow compatibility).

    Returns:
        A tensor of `input`'s shape and dtype.

    Raises:
        ValueError: an axis out of range, or `shift` and `axis` of different lengths.
        TypeError: a shift or axis that is not an int known at trace time.

    Example:
        >>> print(ag.roll([1, 2, 3, 4], 1, 0))
        ag.Tensor([4 1 2 3], shape=(4,), dtype=int32)
    """
    return np_roll(input, shift, axis)


def _broadcast_new_axis(x, axis: int, reps):
    """x with a new axis of size `reps` inserted at `axis` (copies along it)."""
    e = expand_dims(x, axis)
    shape = dims_of(e)
    shape[axis] = reps
    if x.dtype.is_bool:
        from .construct import zeros
        return logical_or(e, zeros(shape, x.dtype))
    # multiply by one keeps every value (-0.0, NaN and inf included)
    return multiply(e, ones(shape, x.dtype))


def _merge(x, axis: int):
    """Merge axes `axis` and `axis + 1` of x into one (row-major)."""
    dims = dims_of(x)
    a, b = dims[axis], dims[axis + 1]
    merged = a * b if isinstance(a, int) and isinstance(b, int) else multiply(a, b)
    return reshape(x, dims[:axis] + [merged] + dims[axis + 2:])


@locate_errors
def np_tile(A, reps):
    """NumPy's `tile`: `A` repeated `reps` times along each axis (`reps` an int
    or a tuple of ints known at trace time; ranks are padded with 1s in front)."""
    x = _operand("tile", A)
    reps = _ints("tile", "reps", reps)
    if builtins.any(r < 0 for r in reps):
        raise ValueError(f"tile: reps must be non-negative, got {reps}")
    rank = rank_of(x)
    if rank is None:
        raise ValueError("tile: expected a tensor of known rank")
    d = builtins.max(rank, len(reps))
    if rank < d:
        x = reshape(x, [1] * (d - rank) + dims_of(x))
    reps = [1] * (d - len(reps)) + reps
    for ax, r in enumerate(reps):
        if r != 1:
            x = _merge(_broadcast_new_axis(x, ax, r), ax)
    return x


@public("tile")
@locate_errors
def tile(input, multiples, name=None):
    """`input` repeated `multiples[i]` times along axis i, as `tf.tile`.

    Args:
        input: a tensor, array or nested list.
        multiples: one non-negative int per axis, known at trace time.
        name: unused (TensorFlow compatibility).

    Returns:
        A tensor of `input`'s dtype whose axis i is `multiples[i]` times longer.

    Raises:
        ValueError: a negative multiple, or not one multiple per axis.
        TypeError: a multiple that is not an int known at trace time.

    Example:
        >>> print(ag.tile([1, 2], [2]))
        ag.Tensor([1 2 1 2], shape=(4,), dtype=int32)
    """
    x = _operand("tile", input)
    reps = _ints("tile", "multiples", multiples)
    if rank_of(x) is not None and len(reps) != rank_of(x):
        raise ValueError(f"tile: expected one multiple per axis ({rank_of(x)}), got {reps}")
    return np_tile(x, reps)


@locate_errors
def np_repeat(a, repeats, axis=None):
    """NumPy's `repeat`: each element repeated `repeats` times along `axis`
    (the flattened array when None). `repeats` is an int, or a list/array of
    ints known at trace time with one count per element along the axis."""
    x = _operand("repeat", a)
    if axis is None:
        x, ax = reshape(x, [-1]), 0
    else:
        ax = _one_axis("repeat", axis, rank_of(x))
    if isinstance(repeats, numbers.Integral) and not isinstance(repeats, bool):
        if repeats < 0:
            raise ValueError(f"repeat: repeats must be non-negative, got {repeats}")
        return _merge(_broadcast_new_axis(x, ax + 1, int(repeats)), ax)
    if isinstance(repeats, SymbolicTensor):
        raise TypeError("repeat: repeats must be known at trace time (an int or a list of ints), "
                        "got a traced tensor")
    counts = np.asarray(repeats).reshape(-1)
    if counts.dtype.kind not in "iu":
        raise TypeError(f"repeat: repeats must be ints, got {repeats!r}")
    if counts.size == 1:
        return np_repeat(x, int(counts[0]), ax)
    n = x.shape[ax]
    if n is not None and n != counts.size:
        raise ValueError(f"repeat: {counts.size} repeat counts for an axis of length {n}")
    if (counts < 0).any():
        raise ValueError("repeat: repeats must be non-negative")
    index = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    return gather(x, index, axis=ax)


@public("repeat")
@locate_errors
def repeat(input, repeats, axis=None, name=None):
    """Each element of `input` repeated `repeats` times along `axis` (the
    flattened tensor when None), as `tf.repeat` and `np.repeat` do.

    Args:
        input: a tensor, array or nested list.
        repeats: a non-negative int, or one count per element along `axis`,
            known at trace time.
        axis: None or an int known at trace time.
        name: unused (TensorFlow compatibility).

    Returns:
        A tensor of `input`'s dtype.

    Raises:
        ValueError: a negative count, or as many counts as the axis is long.
        TypeError: counts that are traced tensors or not ints.

    Example:
        >>> print(ag.repeat([1, 2], 2))
        ag.Tensor([1 1 2 2], shape=(4,), dtype=int32)
    """
    return np_repeat(input, repeats, axis)


@locate_errors
def np_outer(a, b, out=None):
    """NumPy's `outer`: `a.ravel()[:, None] * b.ravel()[None, :]`."""
    reject("outer", out=out)
    a, b = prepare("outer", a, b)
    return multiply(reshape(a, [-1, 1]), reshape(b, [1, -1]))


def outer_operands(a, b):
    """(a, b) shaped for a ufunc's `outer` method: `a` gets one trailing axis
    of size 1 per dimension of `b`, so the ufunc broadcasts to
    `a.shape + b.shape` (NumPy's `np.add.outer`, `np.multiply.outer`, ...)."""
    a, b = prepare("outer", a, b)
    rb = rank_of(b)
    if rank_of(a) is None or rb is None:
        raise ValueError("outer: a ufunc's outer method needs operands of known rank")
    return (reshape(a, dims_of(a) + [1] * rb) if rb else a), b


@locate_errors
def np_vdot(a, b):
    """NumPy's `vdot`: the dot product of the flattened arguments (the first
    conjugated when complex)."""
    a, b = prepare("vdot", a, b)
    if getattr(a.dtype, "is_complex", False):
        from . import elementwise
        a = elementwise.conj(a)
    return reduce_sum(multiply(reshape(a, [-1]), reshape(b, [-1])))


@locate_errors
def np_dot(a, b, out=None):
    """NumPy's `dot`: a product for scalars, the inner product of vectors, the
    matrix product of matrices, and for N-D a sum over the last axis of `a`
    and the second-to-last of `b` (the last when `b` is 1-D)."""
    reject("dot", out=out)
    a, b = prepare("dot", a, b)
    ra, rb = rank_of(a), rank_of(b)
    if ra is None or rb is None:
        raise ValueError("dot: expected tensors of known rank")
    if ra == 0 or rb == 0:
        return multiply(a, b)
    if ra <= 2 and rb <= 2:
        return matmul(a, b)
    da, db = dims_of(a), dims_of(b)
    a2 = reshape(a, [-1, da[-1]])
    if rb == 1:
        return reshape(matmul(a2, b), da[:-1])
    # move b's contracted axis (rb - 2) to the front, then flatten the rest
    perm = [rb - 2] + [i for i in builtins.range(rb) if i != rb - 2]
    b2 = reshape(transpose(b, perm), [db[-2], -1])
    return reshape(matmul(a2, b2), da[:-1] + db[:-2] + db[-1:])


