"""NumPy's index functions on tensors (API.md section 9): `np.take_along_axis`,
`np.put_along_axis`, `np.flatnonzero`, `np.ravel_multi_index`,
`np.unravel_index`, `np.ix_`, `np.bincount`, `np.triu_indices_from`,
`np.tril_indices_from`, `np.diag_indices_from`, `np.compress`,
`np.extract`, and the functional forms of NumPy's in-place updates
(`np.add.at` and the other ufuncs' `.at`, `np.put_along_axis`, `np.put`,
`np.fill_diagonal`, `np.copyto`, `np.putmask`) that the converter rewrites a statement
`np.add.at(a, idx, v)` to (`a = ag__.numpy_inplace(np.add.at, a, idx, v)`:
tensors are immutable, so the name is rebound to the updated tensor).

All are compositions of `gather`, `scatter` (tracer/ops/scatter.py) and
elementwise ops; results equal NumPy's exactly, with NumPy's dtypes (int64
for indices and counts, float64 for weighted counts).
"""
from __future__ import annotations

import numbers

import numpy as np

from .common import as_operand, index_operand, is_tensor_like, rank_of
from .numpy_functions import Unsupported, dims_of
from ..core.types import as_dtype, float64, int64

__all__ = ["FUNCTIONS", "INPLACE", "np_take_along_axis", "np_put_along_axis", "np_flatnonzero",
           "np_ravel_multi_index", "np_unravel_index", "np_ix_", "np_bincount", "ufunc_at",
           "np_fill_diagonal", "np_copyto", "np_putmask", "np_diag_indices_from", "np_compress",
           "np_extract", "take_mode_indices", "AT_ADVICE"]


def _axis(op: str, axis, rank: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{op}: axis must be an int or None, got {axis!r}")
    if not -rank <= axis < rank:
        raise np.exceptions.AxisError(f"{op}: axis {axis} is out of bounds for array of "
                                      f"dimension {rank}")
    return int(axis) % rank


def _along_axis_key(op: str, arr, indices, axis):
    """(arr, key): NumPy's `_make_along_axis_idx`: `indices` for `axis` and
    broadcastable aranges for the other axes, as a fancy-indexing key."""
    from .construct import range as ag_range
    from .shaping import reshape
    arr = as_operand(op, arr)
    indices = index_operand(as_operand(op, indices))
    d = indices.dtype if hasattr(indices.dtype, "is_integer") else as_dtype(indices.dtype)
    if not d.is_integer:
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if rank_of(indices) != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return reshape(arr, [-1]), (indices,)
    rank = rank_of(arr)
    if rank_of(indices) != rank:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    axis = _axis(op, axis, rank)
    dims = dims_of(arr)
    key = []
    for k in range(rank):
        if k == axis:
            key.append(indices)
        else:
            shape = [1] * rank
            shape[k] = -1
            key.append(reshape(ag_range(0, dims[k], dtype=int64), shape))
    return arr, tuple(key)


def take_mode_indices(x, indices, axis, mode: str):
    """`np.take`'s indices for mode "wrap" (modulo the axis length) or "clip"
    (into [0, n - 1]; negative indices clip to 0, as NumPy)."""
    from .elementwise import cast, maximum, minimum, mod, subtract
    x = as_operand("take", x)
    rank = rank_of(x)
    n = _i64(dims_of(x)[_axis("take", axis, rank)])
    idx = cast(index_operand(as_operand("take", indices)), int64)
    if mode == "wrap":
        return mod(idx, n)            # (the sign of n, as Python and NumPy)
    return minimum(maximum(idx, np.int64(0)), subtract(n, np.int64(1)))


def np_take_along_axis(arr, indices, axis=-1):
    """`np.take_along_axis`: arr's values at `indices` along `axis`."""
    from .fancy_indexing import advanced_getitem
    arr, key = _along_axis_key("take_along_axis", arr, indices, axis)
    return advanced_getitem(arr, key)


def np_put_along_axis(arr, indices, values, axis):
    """Functional `np.put_along_axis`: arr with `values` written at `indices`
    along `axis` (NumPy's mutates arr and returns None)."""
    from .fancy_indexing import advanced_setitem
    from .shaping import reshape
    flat, key = _along_axis_key("put_along_axis", arr, indices, axis)
    out = advanced_setitem(flat, key, values)
    return reshape(out, dims_of(as_operand("put_along_axis", arr))) if axis is None else out


def np_put(a, ind, v, mode="raise"):
    """Functional `np.put`: a with a.flat[ind] = v (v one value, or one per index)."""
    from .fancy_indexing import advanced_setitem, _value_operand
    from .shaping import reshape
    if mode != "raise":
        raise Unsupported(f"mode={mode!r}")
    a = as_operand("put", a)
    ind = reshape(index_operand(as_operand("put", ind)), [-1])
    v = reshape(_value_operand(a, v), [-1])
    n, k = v.shape[0], ind.shape[0]
    if n is not None and k is not None and n not in (1, k):   # NumPy cycles v: not supported
        raise Unsupported("a value count other than 1 or the number of indices")
    return reshape(advanced_setitem(reshape(a, [-1]), ind, v), dims_of(a))


def np_flatnonzero(a):
    """`np.flatnonzero`: the int64 positions of the nonzero elements of ravel(a)."""
    from .shaping import reshape
    from .sorting import nonzero
    return nonzero(reshape(as_operand("flatnonzero", a), [-1]))[0]


def _dims_list(op: str, dims):
    """A shape argument (ints, int scalar tensors, a tensor's .shape) as a list."""
    if isinstance(dims, numbers.Integral) or (is_tensor_like(dims) and rank_of(dims) == 0):
        return [dims]
    return list(dims)


def _i64(v):
    from .elementwise import cast
    if isinstance(v, numbers.Integral):
        return np.int64(v)
    return cast(v, int64)


def np_ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """`np.ravel_multi_index` (mode='raise', order='C'): flat int64 indices."""
    from .elementwise import add, multiply
    if mode != "raise":
        raise Unsupported(f"mode={mode!r}")
    if order != "C":
        raise Unsupported(f"order={order!r}")
    dims = _dims_list("ravel_multi_index", dims)
    multi_index = list(multi_index)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    out, stride = None, np.int64(1)
    for k in range(len(dims) - 1, -1, -1):
        i = _i64(index_operand(as_operand("ravel_multi_index", multi_index[k])))
        n = _i64(dims[k])
        _check_in_range(i, n)
        term = i if k == len(dims) - 1 else multiply(i, stride)
        out = term if out is None else add(out, term)
        stride = multiply(stride, n)
    return out


def _check_in_range(i, n):
    """NumPy's ravel_multi_index check: every entry of i in [0, n)."""
    from .elementwise import greater_equal, less, logical_and
    from .reduce import reduce_all
    from ..tracing.symbolic import bind
    ok = reduce_all(logical_and(greater_equal(i, 0), less(i, n)))
    bind("check_values", ok, message="invalid entry in coordinates array")


def np_unravel_index(indices, shape, order="C"):
    """`np.unravel_index` (order='C'): a tuple of int64 coordinate tensors."""
    from .elementwise import floordiv, greater_equal, less, logical_and, logical_not, mod
    from .fancy_indexing import first_where
    from .reduce import reduce_all
    from ..tracing.symbolic import bind
    if order != "C":
        raise Unsupported(f"order={order!r}")
    dims = [_i64(d) for d in _dims_list("unravel_index", shape)]
    idx = _i64(index_operand(as_operand("unravel_index", indices)))
    total = np.int64(1)
    from .elementwise import multiply
    for d in dims:
        total = multiply(total, d)
    good = logical_and(greater_equal(idx, 0), less(idx, total))
    bind("check_values", reduce_all(good), first_where(idx, logical_not(good)), total,
         message="index {0} is out of bounds for array with size {1}")
    out = []
    for d in reversed(dims):
        out.append(mod(idx, d))
        idx = floordiv(idx, d)
    return tuple(reversed(out))


def np_ix_(*args):
    """`np.ix_`: each 1-D sequence reshaped to broadcast along its own axis
    (bool sequences become their nonzero positions)."""
    from .shaping import reshape
    from .sorting import nonzero
    n = len(args)
    out = []
    for k, a in enumerate(args):
        a = as_operand("ix_", a)
        if rank_of(a) != 1:
            raise ValueError("Cross index must be 1 dimensional")
        d = a.dtype if hasattr(a.dtype, "is_bool") else as_dtype(a.dtype)
        if d.is_bool:
            a = nonzero(a)[0]
        shape = [1] * n
        shape[k] = -1
        out.append(reshape(a, shape))
    return tuple(out)


def np_bincount(x, weights=None, minlength=0):
    """`np.bincount`: the count (or weight sum, float64) of each value of the
    non-negative int vector x; length max(max(x) + 1, minlength), known only
    at run time unless x is."""
    from .construct import zeros
    from .elementwise import add, cast, greater_equal
    from .fancy_indexing import scatter
    from .reduce import reduce_all, reduce_max
    from .shaping import concat
    from ..tracing.symbolic import bind
    x = as_operand("bincount", x)
    d = x.dtype if hasattr(x.dtype, "is_integer") else as_dtype(x.dtype)
    if not d.is_integer or rank_of(x) != 1:
        raise TypeError("bincount: x must be a 1-D array of non-negative integers")
    if isinstance(minlength, bool) or not isinstance(minlength, numbers.Integral):
        raise Unsupported("a minlength that is not a Python int")
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    x = cast(x, int64)
    bind("check_values", reduce_all(greater_equal(x, 0)),
         message="'list' argument must have no negative elements")
    n = reduce_max(concat([add(x, np.int64(1)), np.array([minlength], np.int64)], axis=0))
    if weights is None:
        from .construct import ones_like
        return scatter(zeros([n], int64), x, ones_like(x), mode="add")
    w = as_operand("bincount", weights)
    if rank_of(w) != 1:
        raise ValueError("bincount: the weights and list don't have the same length.")
    w = cast(w, float64)        # NumPy sums weights in double
    return scatter(zeros([n], float64), x, w, mode="add")


_AT_MODES = {"add": "add", "multiply": "mul", "maximum": "max", "minimum": "min",
             "subtract": "add", "fmax": None, "fmin": None}


def ufunc_at(ufunc, a, indices, b=None):
    """Functional `ufunc.at(a, indices, b)`: a with `ufunc` applied at
    `indices` once per occurrence (repeated indices accumulate)."""
    from .fancy_indexing import _value_operand, scatter_key
    from .elementwise import negative
    mode = _AT_MODES.get(ufunc.__name__)
    if mode is None or b is None:
        raise Unsupported(f"np.{ufunc.__name__}.at")
    a = as_operand(f"np.{ufunc.__name__}.at", a)
    value = _value_operand(a, b)
    if ufunc.__name__ == "subtract":
        value = negative(value)
    return scatter_key(a, indices, value, mode)


def np_fill_diagonal(a, val, wrap=False):
    """Functional `np.fill_diagonal`: a with its main diagonal set to `val` (a
    scalar, or one value per diagonal element); NumPy's `a.flat[:end:step] =
    val` with step = 1 + the sum of the cumulative products of the leading
    dimensions (all equal for rank > 2), and for a tall matrix without `wrap`
    only the top square."""
    from .elementwise import add, multiply
    from .fancy_indexing import _value_operand
    from .shaping import reshape
    from .slicing import setitem
    a = as_operand("fill_diagonal", a)
    rank = rank_of(a)
    if rank is None or rank < 2:
        raise ValueError("array must be at least 2-d")
    dims = dims_of(a)
    if rank == 2:
        step = add(dims[1], 1) if not isinstance(dims[1], int) else dims[1] + 1
        end = None if wrap else (multiply(dims[1], dims[1]) if not isinstance(dims[1], int)
                                 else dims[1] * dims[1])
    else:
        if any(not isinstance(d, int) for d in dims) or len(set(dims)) != 1:
            if all(isinstance(d, int) for d in dims):
                raise ValueError("All dimensions of input must be of equal length")
            raise Unsupported("a rank > 2 array with dimensions unknown at trace time")
        step, end, acc = 1, None, 1
        for d in dims[:-1]:
            acc *= d
            step += acc
    value = _value_operand(a, val)
    if rank_of(value) not in (0, 1):
        raise Unsupported("a val of rank > 1")
    flat = setitem(reshape(a, [-1]), slice(None, end, step), value)
    return reshape(flat, dims)


def np_copyto(dst, src, casting="same_kind", where=True):
    """Functional `np.copyto`: dst with `src` (broadcast, cast to dst's dtype
    under NumPy's `casting` rule) where `where` is true."""
    from .elementwise import cast, where as ag_where
    from .numpy_statistics import broadcast_to
    from ..core.convert import is_python_number
    dst = as_operand("copyto", dst)
    dd = as_dtype(dst.dtype)
    if not is_python_number(src):
        src = as_operand("copyto", src)
        sd = as_dtype(src.dtype)
        if sd is not dd:
            if not np.can_cast(sd.np_dtype, dd.np_dtype, casting=casting):
                raise TypeError(f"Cannot cast array data from dtype('{sd.np_dtype}') to "
                                f"dtype('{dd.np_dtype}') according to the rule '{casting}'")
            src = cast(src, dd)
        src = broadcast_to(src, dims_of(dst))
    if where is True:
        return src if not is_python_number(src) else broadcast_to(
            np.asarray(src, dd.np_dtype), dims_of(dst))
    return ag_where(where, src, dst)


def np_putmask(a, mask, values):
    """Functional `np.putmask`: a with `values` where `mask` (values a scalar
    or shaped like a; NumPy's cycling of shorter values is not supported)."""
    from .elementwise import where
    from ..core.convert import is_python_number
    a = as_operand("putmask", a)
    if not is_python_number(values):
        values = as_operand("putmask", values)
        if rank_of(values) not in (0, rank_of(a)) or (
                rank_of(values) and list(values.shape) != list(a.shape)):
            raise Unsupported("values of another shape than a (NumPy repeats them)")
    return where(mask, values, a)


def _indices_from(op: str, arr, fn, k=0):
    """`np.triu_indices_from`/`tril_indices_from`: NumPy's own indices (int64
    constants) for a tensor whose 2-D shape is known at trace time."""
    arr = as_operand(op, arr)
    if rank_of(arr) != 2:
        raise ValueError("input array must be 2-d")
    if any(d is None for d in arr.shape):
        raise Unsupported("a matrix whose shape is unknown at trace time")
    return tuple(np.asarray(v, np.int64) for v in fn(arr.shape[-2], k=k, m=arr.shape[-1]))


def np_diag_indices_from(arr):
    """`np.diag_indices_from`: (range(n),) * ndim for an array of equal dimensions."""
    from .construct import range as ag_range
    arr = as_operand("diag_indices_from", arr)
    if rank_of(arr) is None or rank_of(arr) < 2:
        raise ValueError("input array must be at least 2-d")
    known = [d for d in arr.shape if d is not None]
    if len(set(known)) > 1:
        raise ValueError("All dimensions of input must be of equal length")
    dims = dims_of(arr)
    if len(known) < len(dims):      # unknown dimensions: checked when the code runs
        from .elementwise import equal, logical_and
        from ..tracing.symbolic import bind
        ok = True
        for d in dims[1:]:
            ok = logical_and(ok, equal(_i64(d), _i64(dims[0])))
        bind("check_values", ok, message="All dimensions of input must be of equal length")
    return (ag_range(0, dims[0], dtype=int64),) * rank_of(arr)


def np_compress(condition, a, axis=None, out=None):
    """`np.compress`: the slices of `a` along `axis` (flattened when None) where
    the 1-D `condition` is true; a run-time length."""
    from .shaping import gather, reshape
    from .sorting import nonzero
    if out is not None:
        raise Unsupported("the out= argument")
    a = as_operand("compress", a)
    cond = as_operand("compress", condition)
    if rank_of(cond) != 1:
        raise ValueError("condition must be a 1-d array")
    if axis is None:
        a, axis = reshape(a, [-1]), 0
    (positions,) = nonzero(cond)
    return gather(a, positions, axis=axis)


def np_extract(condition, arr):
    """`np.extract`: ravel(arr)[ravel(condition)] (condition non-zero)."""
    from .elementwise import not_equal
    from .masks import masked_getitem
    from .shaping import reshape
    cond = as_operand("extract", condition)
    if not as_dtype(cond.dtype).is_bool:
        cond = not_equal(cond, 0)
    return masked_getitem(reshape(as_operand("extract", arr), [-1]), reshape(cond, [-1]))


def _inplace_advice(name: str) -> str:
    return (f"an in-place update of a tensor (tensors are immutable): inside ag.function write "
            f"`{name}(a, ...)` as a statement on a local name `a`, which autograph rewrites "
            f"to a functional update; it")


AT_ADVICE = _inplace_advice("np.<ufunc>.at")


def _inplace_error(name: str):
    def refuse(*args, **kwargs):
        raise Unsupported(_inplace_advice(name))
    return refuse


# NumPy functions that mutate their first argument: the functional form the
# converter's `ag__.numpy_inplace` calls, by NumPy function.
INPLACE = {np.put_along_axis: np_put_along_axis, np.put: np_put, np.fill_diagonal: np_fill_diagonal,
           np.copyto: np_copyto, np.putmask: np_putmask}

FUNCTIONS = {
    "take_along_axis": np_take_along_axis, "flatnonzero": np_flatnonzero,
    "ravel_multi_index": np_ravel_multi_index, "unravel_index": np_unravel_index,
    "ix_": np_ix_, "bincount": np_bincount,
    "triu_indices_from": lambda arr, k=0: _indices_from("triu_indices_from", arr,
                                                         np.triu_indices, k),
    "tril_indices_from": lambda arr, k=0: _indices_from("tril_indices_from", arr,
                                                         np.tril_indices, k),
    "diag_indices_from": np_diag_indices_from, "compress": np_compress, "extract": np_extract,
    **{name: _inplace_error(f"np.{name}") for name in
       ("put_along_axis", "put", "fill_diagonal", "copyto", "putmask")},
}
