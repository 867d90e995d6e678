"""NumPy's advanced ("fancy") integer-array indexing: `a[idx]`, `a[i, j]` with
index arrays, `a[np.ix_(r, c)]`, `a[np.triu_indices(n)]`, mixed with ints,
slices, `None` and `...`, and the functional updates `a[idx] = v`,
`a[idx] += v`.

NumPy's rules, followed exactly:

* every integer-array index (a tensor, array or list of ints of rank >= 1;
  a bool array inside a tuple counts as its `nonzero()` arrays) and every
  integer next to one is an *advanced* index; they broadcast together to a
  shape B;
* when the advanced indices are adjacent in the key, B replaces their
  dimensions in place; otherwise B comes first, then the other dimensions;
* negative indices count from the end; an index outside [-n, n) is an
  InvalidArgumentError "index 5 is out of bounds for axis 1 with size 3"
  (NumPy's IndexError wording), when the code runs if it is only known then.

`getitem` is the basic indexing of the other parts (one `strided_slice`),
then one `gather` along the advanced axes (flattened into one when there are
several, at the flat index sum(i_k * stride_k)). An update (`scatter_key`)
is one `scatter` along the advanced axes flattened the same way when they
are adjacent and the other parts are whole axes (`a[idx] = v`,
`a[i, idx] = v`, `a[:, r, c] = v`); for any other key it gathers the flat
positions the key selects from an iota shaped like `a` and scatters there.
Either way the values go in the row-major order of the selection: with a
repeated index `a[idx] = v` keeps the last value, as NumPy; `a[idx] += v`
reads all old values first, so a repeated index is incremented once, as
NumPy (`np.add.at`, mode "add", accumulates).
"""
from __future__ import annotations

import numbers
from typing import List, Optional, Tuple

import numpy as np

from .common import as_operand, holds_tensor, index_operand, is_tensor_like, rank_of
from ..core.types import DType, as_dtype, int64
from ..tracing.symbolic import bind

__all__ = ["has_advanced", "advanced_getitem", "advanced_setitem", "scatter", "scatter_key",
           "checked_index",
           "first_where", "OUT_OF_BOUNDS"]

OUT_OF_BOUNDS = "index {0} is out of bounds for axis {1} with size {2}"

_ARRAY, _BOOL, _INT = "array", "bool", "int"


def _dtype_of(x) -> Optional[DType]:
    d = getattr(x, "dtype", None)
    if d is None:
        return None
    return d if isinstance(d, DType) else as_dtype(d)


def _classify(part):
    """(kind, operand) of one key part: an int array, a bool array, an int
    (Python, NumPy or 0-d int tensor), or (None, part) for the basic parts."""
    if part is None or part is Ellipsis or isinstance(part, slice):
        return None, part
    if isinstance(part, (bool, np.bool_)):
        return None, part
    if isinstance(part, numbers.Integral):
        return _INT, part
    if isinstance(part, list) and holds_tensor(part):   # [i, j] of traced scalars
        part = as_operand("getitem", part)
    if isinstance(part, list):
        try:
            arr = np.asarray(part)
        except ValueError:
            return None, part
        if arr.ndim >= 1 and arr.size == 0:
            return _ARRAY, np.zeros(arr.shape, np.int64)   # NumPy reads [] as an int index
        if arr.ndim >= 1 and arr.dtype.kind in "iu":
            return _ARRAY, as_operand("getitem", part)
        if arr.ndim >= 1 and arr.dtype == bool:
            return _BOOL, arr
        return None, part
    if is_tensor_like(part) or isinstance(part, (np.ndarray, np.generic)):
        d = _dtype_of(part)
        shape = tuple(part.shape) if part.shape is not None else None
        if d is not None and d.is_integer:
            if shape == ():
                return _INT, part
            return _ARRAY, part if is_tensor_like(part) else np.asarray(part)
        if d is not None and d.is_bool and shape != ():
            return _BOOL, part if is_tensor_like(part) else np.asarray(part)
    return None, part


def has_advanced(key) -> bool:
    """True when `key` holds an integer-array index (or a bool array beside other parts)."""
    parts = key if isinstance(key, tuple) else (key,)
    kinds = [_classify(p)[0] for p in parts]
    return _ARRAY in kinds or (_BOOL in kinds and len(parts) > 1)


def checked_index(idx, axis: int, n):
    """`idx` (int operand) with negative entries wrapped into [0, n), as int64,
    after checking every entry is in [-n, n): InvalidArgumentError with NumPy's
    message naming the first bad entry (at trace time when the values are
    known, else when the code runs)."""
    from .elementwise import add, cast, greater_equal, less, logical_not, logical_or, where
    from .reduce import reduce_any
    idx = cast(index_operand(as_operand("getitem", idx)), int64)
    n64 = cast(n, int64) if not isinstance(n, int) else np.int64(n)
    if isinstance(idx, np.ndarray) and isinstance(n, int):
        bad = (idx < -n) | (idx >= n)
        if bad.any():
            from ..core.errors import InvalidArgumentError
            raise InvalidArgumentError(OUT_OF_BOUNDS.format(int(idx[bad].reshape(-1)[0]), axis, n))
        return np.where(idx < 0, idx + n, idx)
    bad = logical_or(less(idx, -n64), greater_equal(idx, n64))
    bind("check_values", logical_not(reduce_any(bad)), first_where(idx, bad), cast(axis, int64),
         n64, message=OUT_OF_BOUNDS)
    return where(less(idx, 0), add(idx, n64), idx)


def first_where(values, bad):
    """The first (row-major) entry of int64 `values` where `bad` is true (any
    value when none is): the index an error message quotes."""
    from .scans import argmax
    from .shaping import concat, gather, reshape
    if rank_of(values) == 0:
        return values
    flat_bad = concat([reshape(bad, [-1]), [True]], axis=0)   # never empty
    return gather(concat([reshape(values, [-1]), np.zeros(1, np.int64)], axis=0),
                  argmax(flat_bad, axis=0))


def _key_parts(x, key) -> List[Tuple[Optional[str], object]]:
    """The key's parts classified, `...` expanded into full slices, and bool
    arrays replaced by their nonzero() index arrays."""
    from .sorting import nonzero
    parts = [_classify(p) for p in (key if isinstance(key, tuple) else (key,))]
    consumed = sum(rank_of(as_operand("getitem", p)) if k == _BOOL else
                   (0 if p is None or p is Ellipsis else 1) for k, p in parts)
    rank = rank_of(x)
    if rank is None:
        raise ValueError("getitem: integer-array indexing needs a tensor of known rank")
    if consumed > rank:
        raise IndexError(f"getitem: too many indices for a tensor of rank {rank}: {consumed} "
                         f"were given")
    if sum(1 for _, p in parts if p is Ellipsis) > 1:
        raise IndexError("getitem: an index can only have a single ellipsis ('...')")
    out = []
    for k, p in parts:
        if p is Ellipsis:
            out.extend([(None, slice(None))] * (rank - consumed))
        elif k == _BOOL:
            out.extend((_ARRAY, i) for i in nonzero(p))
        else:
            out.append((k, p))
    if not any(p is Ellipsis for _, p in parts):
        out.extend([(None, slice(None))] * (rank - consumed))
    return out


def _flat_positions(x, parts):
    """(y, axis, flat index): `x[key]` is gather(y, index, axis) where y is x's
    basic indexing with its advanced axes (made adjacent) flattened into one."""
    from .numpy_functions import dims_of
    from .shaping import reshape, transpose
    from .slicing import getitem
    basic = tuple(slice(None) if k is not None else p for k, p in parts)
    trivial = all(isinstance(p, slice) and p == slice(None) for p in basic)
    y = x if trivial else getitem(x, basic)
    # y's axes: one per part, except ints that are basic (none here: with an
    # array present every int is advanced), so part j is y's axis j.
    adv = [j for j, (k, _) in enumerate(parts) if k is not None]
    x_axis = _x_axes(parts)
    adjacent = adv == list(range(adv[0], adv[-1] + 1))
    if not adjacent:
        rest = [j for j in range(len(parts)) if j not in adv]
        y = transpose(y, adv + rest)
        pos, order = 0, adv
    else:
        pos, order = adv[0], adv
    dims = dims_of(y)
    adv_dims = dims[pos:pos + len(adv)]
    if len(adv) == 1:        # gather checks and wraps a single index array itself
        return y, pos, index_operand(as_operand("getitem", parts[adv[0]][1]))
    idx, size = _combined_index([(parts[j][1], x_axis[j]) for j in order], adv_dims)
    lead = dims[:pos] if adjacent else []
    tail = dims[pos + len(adv):] if adjacent else dims[len(adv):]
    return reshape(y, lead + [size] + tail), pos, idx


def _x_axes(parts) -> dict:
    """The axis of x each part indexes (for error messages): None parts index none."""
    out, a = {}, 0
    for j, (_, p) in enumerate(parts):
        if p is not None:
            out[j] = a
            a += 1
    return out


def _combined_index(indices, dims):
    """(flat index, product of dims): the row-major position sum(i_k * stride_k)
    in the flattened dims of the (index, x axis) pairs `indices`, each checked
    against its dimension and wrapped; they broadcast together (NumPy's rule)."""
    from .elementwise import add, multiply
    _check_broadcast([i for i, _ in indices])
    idx, stride = None, 1
    for (part, axis), n in reversed(list(zip(indices, dims))):
        i = checked_index(part, axis, n)
        term = i if (isinstance(stride, int) and stride == 1) else multiply(i, stride)
        idx = term if idx is None else add(idx, term)
        stride = stride * n if isinstance(stride, int) and isinstance(n, int) else \
            multiply(_i64(stride), _i64(n))
    return idx, stride


def _check_broadcast(indices) -> None:
    """NumPy's IndexError for index arrays whose (static) shapes do not
    broadcast together (unknown dimensions are checked when the code runs)."""
    shapes = [tuple(np.shape(i)) if not is_tensor_like(i) else i.shape for i in indices]
    if any(s is None or None in s for s in shapes):
        return
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with "
                         "shapes " + " ".join(str(tuple(s)) for s in shapes)) from None


def _i64(v):
    from .elementwise import cast
    return np.int64(v) if isinstance(v, int) else cast(v, int64)


def advanced_getitem(x, key):
    """`x[key]` for a key with integer-array indices (see the module docstring)."""
    from .shaping import gather
    x = as_operand("getitem", x)
    parts = _key_parts(x, key)
    y, axis, idx = _flat_positions(x, parts)
    return gather(y, idx, axis=axis)


def scatter(x, indices, updates, axis: int = 0, mode: str = "set"):
    """The `scatter` op (tracer/ops/scatter.py): `updates` written or combined
    into the slices of `x` at `indices` along `axis`."""
    return bind("scatter", x, index_operand(as_operand("scatter", indices)), updates,
                mode=mode, axis=axis)


def _value_operand(x, value):
    from ..core.convert import is_python_number, is_weak, python_to_dtype
    from .common import holds_tensor, prepare
    if isinstance(value, (list, tuple)) and holds_tensor(value):
        value = as_operand("item assignment", value)     # [v] with v a tensor: packed
    if is_python_number(value) or isinstance(value, (list, tuple)):
        return python_to_dtype(value, _dtype_of(x), "item assignment")
    if is_weak(value):
        return prepare("item assignment", x, value)[1]
    value = as_operand("item assignment", value)
    if _dtype_of(value) is not _dtype_of(x):
        target = _dtype_of(x).name
        raise TypeError(f"item assignment: cannot assign a {_dtype_of(value).name} value to a "
                        f"{target} tensor; use ag.cast(value, ag.{target}) to convert it (NumPy "
                        f"would have cast it to {target} silently; autograph does not, "
                        f"TensorFlow's rule)")
    return value


def _broadcast_value(value, dims):
    """`value` broadcast to `dims` (NumPy's assignment rule: leading
    dimensions of size 1 may be dropped)."""
    from .numpy_functions import dims_of
    from .numpy_statistics import broadcast_to
    from .shaping import reshape
    r = rank_of(value)
    if r is not None and r > len(dims):
        extra = list(value.shape[:r - len(dims)])
        if any(d is not None and d != 1 for d in extra):
            raise ValueError(f"item assignment: cannot assign a value of shape "
                             f"{tuple(value.shape)} to the {len(dims)}-dimensional selection")
        value = reshape(value, dims_of(value)[r - len(dims):])
    try:
        return broadcast_to(value, dims)
    except ValueError:
        shown = tuple(d if isinstance(d, int) else None for d in dims)
        raise ValueError(f"item assignment: cannot assign a value of shape "
                         f"{tuple(value.shape)} to the selection of shape {shown}") from None


def advanced_setitem(x, key, value):
    """`x[key] = value` for a key with integer-array indices, as a functional
    update (see the module docstring)."""
    x = as_operand("item assignment", x)
    return scatter_key(x, key, _value_operand(x, value), "set")


def scatter_key(x, key, value, mode: str):
    """x with `value` (x's dtype, broadcast to x[key]'s shape) written
    (mode "set") or combined ("add", "mul", "max", "min") at the elements
    `key` selects, in the row-major order of the selection."""
    from .construct import range as ag_range
    from .numpy_functions import dims_of
    from .shaping import reshape
    from .slicing import getitem
    parts = _key_parts(x, key)
    adv = [j for j, (k, _) in enumerate(parts) if k is not None]
    rest = [p for j, (k, p) in enumerate(parts) if j not in adv]
    dims = dims_of(x)
    if adv and adv == list(range(adv[0], adv[-1] + 1)) and all(
            isinstance(p, slice) and p == slice(None) for p in rest):
        # x[i, idx] = v, x[:, idx] = v, ...: the advanced axes (adjacent, the
        # others whole) flattened into one and scattered along, in place when
        # x may be taken over, without the positions of the whole tensor
        pos, k = adv[0], len(adv)
        if k == 1:
            idx, y = index_operand(as_operand("item assignment", parts[pos][1])), x
        else:
            x_axis = _x_axes(parts)
            idx, size = _combined_index([(parts[j][1], x_axis[j]) for j in adv],
                                        dims[pos:pos + k])
            y = reshape(x, dims[:pos] + [size] + dims[pos + k:])
        region = dims[:pos] + dims_of(as_operand("item assignment", idx)) + dims[pos + k:]
        out = scatter(y, idx, _broadcast_value(value, region), axis=pos, mode=mode)
        return out if k == 1 else reshape(out, dims)
    # any other key: the flat positions it selects, from an iota shaped like x
    iota = reshape(ag_range(np.int64(0), _i64(_count(dims)), dtype=int64), dims)
    positions = getitem(iota, key)
    updates = _broadcast_value(value, dims_of(positions))
    flat = scatter(reshape(x, [-1]), reshape(positions, [-1]), reshape(updates, [-1]), mode=mode)
    return reshape(flat, dims)


def _count(dims):
    from .elementwise import multiply
    n = 1
    for d in dims:
        n = n * d if isinstance(n, int) and isinstance(d, int) else multiply(_i64(n), _i64(d))
    return n
