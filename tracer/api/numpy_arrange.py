"""NumPy's functions that rearrange, split, pad or mask an array on tensors:
`np.triu`, `np.tril`, `np.flip`, `np.fliplr`, `np.flipud`, `np.rot90`,
`np.moveaxis`, `np.split`, `np.array_split`, `np.hsplit`, `np.vsplit`,
`np.dsplit`, `np.diag`, `np.diagflat`, `np.pad`, `np.partition`,
`np.argpartition`.

Each moves or masks elements without arithmetic, so results equal NumPy's
exactly, in the input's dtype. Arguments that decide the shape of the result
(k, axes, sections, pad widths, kth) must be known at trace time (Python
ints, or values computed from static shapes: `numpy_static.known`); the
data's dimensions may be unknown at trace time except where a
function needs them to decide the result's shape (`split` into a number of
equal sections, which says so).

`np.partition`/`np.argpartition` return a full (stable) sort: NumPy only
guarantees that the kth element is in its sorted place with no larger
element before it and no smaller one after it, and a sort is one such
arrangement (not necessarily the one NumPy's introselect picks: compare the
kth element and the sides, not the whole array).

The NumPy protocol dispatches the names here (`NUMPY_ONLY` of
`autograph.tracer.api.numpy_protocol`).
"""
from __future__ import annotations

import builtins
import numbers
from typing import List

import numpy as np

from .common import locate_errors, normalize_axis, rank_of
from .construct import fill, range as ag_range, zeros_like
from .elementwise import (add, greater_equal, less_equal, maximum, minimum, mod, multiply,
                          subtract, where)
from .numpy_functions import Unsupported, dims_of, tensor_operand
from .numpy_static import known
from .shaping import concat, gather, reshape, transpose
from .slicing import getitem
from .sorting import argsort, sort

__all__ = ["np_triu", "np_tril", "np_flip", "np_fliplr", "np_flipud", "np_rot90", "np_moveaxis",
           "np_split", "np_array_split", "np_hsplit", "np_vsplit", "np_dsplit", "np_diag",
           "np_diagflat", "np_pad", "np_partition", "np_argpartition", "FUNCTIONS"]


def _int(op: str, what: str, v) -> int:
    v = known(v)
    if hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic)):
        raise Unsupported(f"a {what} that is a tensor ({what} must be known at trace time)")
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
        raise TypeError(f"np.{op}: {what} must be an int, got {v!r}")
    return int(v)


def _rank(op: str, x, least: int) -> int:
    rank = rank_of(x)
    if rank is None:
        raise ValueError(f"np.{op}: expected a tensor of known rank")
    if rank < least:
        raise ValueError(f"np.{op}: Input must be >= {least}-d, got a tensor of rank {rank}")
    return rank


# ----------------------------------------------------------- triangles

def _triangle(op: str, m, k, upper: bool):
    x = tensor_operand(op, m)
    k = _int(op, "k", k)
    rank = _rank(op, x, 1)
    if rank == 1:   # NumPy: the vector repeated as the rows of a square matrix
        from .numpy_statistics import broadcast_to
        n = dims_of(x)[0]
        x = broadcast_to(reshape(x, [1, -1]), [n, n])
    n, m_ = dims_of(x)[-2:]
    rows = reshape(ag_range(0, n, 1), [-1, 1])
    cols = reshape(ag_range(0, m_, 1), [1, -1])
    # where (not a product with a 0/1 mask): inf and NaN outside stay out
    keep = greater_equal(cols, add(rows, k)) if upper else less_equal(cols, add(rows, k))
    return where(keep, x, zeros_like(x))


@locate_errors
def np_triu(m, k=0):
    """NumPy's `triu`: the elements on and above the k-th diagonal of the
    last two axes, zeros elsewhere (a 1-D input is repeated as rows first)."""
    return _triangle("triu", m, k, True)


@locate_errors
def np_tril(m, k=0):
    """NumPy's `tril`: the elements on and below the k-th diagonal of the
    last two axes, zeros elsewhere (a 1-D input is repeated as rows first)."""
    return _triangle("tril", m, k, False)


# ----------------------------------------------------------- flips and axes

def _flip_axes(x, axes):
    rank = rank_of(x)
    key = tuple(builtins.slice(None, None, -1) if a in axes else builtins.slice(None)
                for a in builtins.range(rank))
    return getitem(x, key) if axes else x


@locate_errors
def np_flip(m, axis=None):
    """NumPy's `flip`: the order of the elements reversed along `axis` (all
    axes when None; an int or a tuple of ints)."""
    x = tensor_operand("flip", m)
    rank = _rank("flip", x, 0)
    axes = normalize_axis("flip", known(axis), rank)
    return _flip_axes(x, builtins.range(rank) if axes is None else axes)


@locate_errors
def np_fliplr(m):
    """NumPy's `fliplr`: axis 1 reversed (rank >= 2)."""
    x = tensor_operand("fliplr", m)
    _rank("fliplr", x, 2)
    return _flip_axes(x, (1,))


@locate_errors
def np_flipud(m):
    """NumPy's `flipud`: axis 0 reversed (rank >= 1)."""
    x = tensor_operand("flipud", m)
    _rank("flipud", x, 1)
    return _flip_axes(x, (0,))


@locate_errors
def np_rot90(m, k=1, axes=(0, 1)):
    """NumPy's `rot90`: `m` rotated by 90 degrees `k` times in the plane of
    `axes`, from the first axis towards the second (NumPy's own steps)."""
    x = tensor_operand("rot90", m)
    axes = tuple(known(axes))
    if len(axes) != 2:
        raise ValueError("np.rot90: len(axes) must be 2.")
    rank = _rank("rot90", x, 2)
    a0, a1 = (_int("rot90", "axes", a) for a in axes)
    if a0 == a1 or builtins.abs(a0 - a1) == rank:
        raise ValueError("np.rot90: Axes must be different.")
    if not (-rank <= a0 < rank and -rank <= a1 < rank):
        raise ValueError(f"np.rot90: Axes={axes} out of range for array of ndim={rank}.")
    a0, a1 = a0 % rank, a1 % rank
    k = _int("rot90", "k", k) % 4
    if k == 0:
        return x
    if k == 2:
        return _flip_axes(x, (a0, a1))
    perm = list(builtins.range(rank))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return transpose(_flip_axes(x, (a1,)), perm)
    return _flip_axes(transpose(x, perm), (a1,))


def _axes_in_order(op: str, what: str, axes, rank: int) -> List[int]:
    """`axes` (an int or a sequence) in range, in their given order."""
    items = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    out = []
    for a in items:
        a = _int(op, what, a)
        if not -rank <= a < rank:
            raise ValueError(f"np.{op}: {what} {a} is out of bounds for array of dimension "
                             f"{rank}")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"np.{op}: repeated axis in `{what}` argument")
    return out


@locate_errors
def np_moveaxis(a, source, destination):
    """NumPy's `moveaxis`: the axes `source` moved to positions `destination`
    (ints or sequences of ints), the others keeping their order."""
    x = tensor_operand("moveaxis", a)
    rank = _rank("moveaxis", x, 0)
    src = _axes_in_order("moveaxis", "source", source, rank)
    dst = _axes_in_order("moveaxis", "destination", destination, rank)
    if len(src) != len(dst):
        raise ValueError("np.moveaxis: `source` and `destination` arguments must have the same "
                         "number of elements")
    order = [n for n in builtins.range(rank) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x if order == list(builtins.range(rank)) else transpose(x, order)


# ----------------------------------------------------------- splits

def _split_at(x, axis: int, bounds: List[int]) -> list:
    """x cut along `axis` between consecutive `bounds` (Python slice bounds:
    negative ones count from the end, as NumPy's)."""
    lead = (builtins.slice(None),) * axis
    return [getitem(x, lead + (builtins.slice(lo, hi),)) for lo, hi in zip(bounds, bounds[1:])]


def _split(op: str, ary, indices_or_sections, axis, equal: bool) -> list:
    x = tensor_operand(op, ary)
    rank = _rank(op, x, 1)
    (ax,) = normalize_axis(op, axis, rank)
    sections = known(indices_or_sections)
    if isinstance(sections, numbers.Integral) and not isinstance(sections, bool):
        n = x.shape[ax]
        if n is None:
            raise Unsupported("a number of sections along an axis whose length is only known at "
                              "run time (pass the split indices instead)")
        count = int(sections)
        if count <= 0:
            raise ValueError(f"np.{op}: number sections must be larger than 0.")
        each, extra = divmod(n, count)
        if equal and extra:
            raise ValueError(f"np.{op}: array split does not result in an equal division")
        sizes = [each + 1] * extra + [each] * (count - extra)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
        return _split_at(x, ax, bounds)
    if hasattr(sections, "dtype") and not isinstance(sections, np.ndarray):
        raise Unsupported("split indices that are a tensor (they must be known at trace time)")
    items = sections if isinstance(sections, (list, tuple)) else \
        np.asarray(sections).reshape(-1).tolist()
    idx = [_int(op, "split index", i) for i in items]
    return _split_at(x, ax, [0] + idx + [None])


@locate_errors
def np_split(ary, indices_or_sections, axis=0):
    """NumPy's `split`: a list of sub-tensors, `indices_or_sections` equal
    parts (an int; the axis length must be known at trace time and divide
    evenly) or cut before each index of a list."""
    return _split("split", ary, indices_or_sections, axis, True)


@locate_errors
def np_array_split(ary, indices_or_sections, axis=0):
    """NumPy's `array_split`: as `split`, an int giving parts whose sizes
    differ by at most one (the first ones longer)."""
    return _split("array_split", ary, indices_or_sections, axis, False)


def _directional(op: str, least: int, axis_of):
    def fn(ary, indices_or_sections):
        x = tensor_operand(op, ary)
        rank = rank_of(x)
        if rank is None or rank < least:
            raise ValueError(f"np.{op} only works on arrays of {least} or more dimensions")
        return _split("split", x, indices_or_sections, axis_of(rank), True)
    fn.__name__ = f"np_{op}"
    fn.__doc__ = f"NumPy's `{op}`: `split` along axis {axis_of(3)}" + \
        (" (axis 0 of a 1-D tensor)." if op == "hsplit" else ".")
    return locate_errors(fn)


np_hsplit = _directional("hsplit", 1, lambda rank: 1 if rank > 1 else 0)
np_vsplit = _directional("vsplit", 2, lambda rank: 0)
np_dsplit = _directional("dsplit", 3, lambda rank: 2)


# ----------------------------------------------------------- diagonals

@locate_errors
def np_diag(v, k=0):
    """NumPy's `diag`: of a 1-D tensor, the square matrix with it on the k-th
    diagonal; of a 2-D tensor, its k-th diagonal (dimensions may be unknown
    at trace time in both cases)."""
    x = tensor_operand("diag", v)
    k = _int("diag", "k", k)
    rank = rank_of(x)
    if rank == 2:
        return _diagonal_of(x, k)
    if rank != 1:
        raise ValueError("np.diag: Input must be 1- or 2-d.")
    # the vector followed by |k| zeros: row i (k >= 0) or column j (k < 0)
    # of the result reads element i (j) of it on the diagonal
    zero = np.zeros((), x.dtype.np_dtype)
    ext = x if k == 0 else concat([x, fill([builtins.abs(k)], zero)], 0)
    size = dims_of(ext)[0]
    rows = reshape(ag_range(0, size, 1), [-1, 1])
    cols = reshape(ag_range(0, size, 1), [1, -1])
    on = (subtract(cols, rows) == k)
    values = reshape(ext, [-1, 1]) if k >= 0 else reshape(ext, [1, -1])
    return where(on, values, fill([size, size], zero))


def _diagonal_of(x, k: int):
    """The k-th diagonal of a matrix, gathered from the flattened matrix:
    element i is x[i, i + k] (flat i * (m + 1) + k) for k >= 0, x[i - k, i]
    (flat i * (m + 1) - k * m) for k < 0; dimensions may be unknown."""
    n, m = dims_of(x)
    if isinstance(n, int) and isinstance(m, int):
        length = builtins.max(0, builtins.min(n, m - k) if k >= 0 else builtins.min(n + k, m))
        start = k if k >= 0 else -k * m
        index = np.arange(length, dtype=np.int64) * (m + 1) + start
        return gather(reshape(x, [-1]), index, axis=0)
    length = maximum(minimum(n, subtract(m, k)) if k >= 0 else minimum(add(n, k), m), 0)
    start = k if k >= 0 else multiply(m, -k)
    index = add(multiply(ag_range(0, length, 1), add(m, 1)), start)
    return gather(reshape(x, [-1]), index, axis=0)


@locate_errors
def np_diagflat(v, k=0):
    """NumPy's `diagflat`: `diag` of the flattened input."""
    return np_diag(reshape(tensor_operand("diagflat", v), [-1]), k)


# ----------------------------------------------------------- pad

def _as_pairs(op: str, value, rank: int, what: str, index: bool) -> np.ndarray:
    """NumPy's `_as_pairs`: one (before, after) pair per axis."""
    value = known(value)
    if hasattr(value, "dtype") and not isinstance(value, (np.ndarray, np.generic)):
        raise Unsupported(f"a {what} that is a tensor (it must be known at trace time)")
    arr = np.asarray(value)
    if index and arr.dtype.kind not in "iu":
        raise TypeError(f"np.{op}: `pad_width` must be of integral type.")
    if arr.size == 1:
        arr = arr.reshape(-1)[[0, 0]]
    elif arr.size == 2 and arr.shape != (2, 1):
        arr = arr.reshape(-1)
    try:
        pairs = np.broadcast_to(arr, (rank, 2))
    except ValueError:
        raise ValueError(f"np.{op}: {what} {value!r} does not fit an array of rank {rank} "
                         f"(one int, a (before, after) pair, or one pair per axis)") from None
    if index and (pairs < 0).any():
        raise ValueError(f"np.{op}: index can't contain negative values")
    return pairs


def _pad_constant(x, axis: int, before: int, after: int, values):
    parts = []
    for n, v in ((before, values[0]), (after, values[1])):
        if n:
            block = dims_of(x)
            block[axis] = n
            parts.append(fill(block, np.asarray(v).astype(x.dtype.np_dtype)))
        else:
            parts.append(None)
    return concat([p for p in (parts[0], x, parts[1]) if p is not None], axis)


def _pad_index(mode: str, n, before: int, after: int):
    """The source index along the axis of each padded position."""
    if isinstance(n, int):    # NumPy's own answer on the indices
        return np.pad(np.arange(n, dtype=np.int64), (before, after), mode=mode)
    i = ag_range(-before, add(n, after), 1)
    last = subtract(n, 1)
    if mode == "edge":
        return minimum(maximum(i, 0), last)
    if mode == "wrap":
        return mod(i, n)
    if mode == "reflect":       # period 2(n - 1); a single element reflects onto itself
        period = maximum(add(last, last), 1)
        j = mod(i, period)
        return where(j < n, j, subtract(period, j))
    period = add(n, n)          # symmetric: period 2n, the edges repeated
    j = mod(i, period)
    return where(j < n, j, subtract(subtract(period, 1), j))


_INDEX_MODES = ("edge", "reflect", "symmetric", "wrap")


@locate_errors
def np_pad(array, pad_width, mode="constant", **kwargs):
    """NumPy's `pad` in the modes "constant" (with `constant_values`, one
    value, a pair or a pair per axis), "edge", "reflect", "symmetric" and
    "wrap" (even reflections); widths known at trace time."""
    x = tensor_operand("pad", array)
    rank = _rank("pad", x, 0)
    widths = _as_pairs("pad", pad_width, rank, "pad_width", True)
    if callable(mode) or mode not in ("constant",) + _INDEX_MODES:
        raise Unsupported(f"mode={mode!r} (constant, edge, reflect, symmetric and wrap are)")
    allowed = {"constant": {"constant_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}}.get(mode, set())
    extra = set(kwargs) - allowed
    if extra:
        raise ValueError(f"np.pad: unsupported keyword arguments for mode '{mode}': {extra}")
    if kwargs.get("reflect_type", "even") != "even":
        raise Unsupported(f"reflect_type={kwargs['reflect_type']!r} (only 'even')")
    if mode == "constant":
        values = _as_pairs("pad", kwargs.get("constant_values", 0), rank, "constant_values",
                           False)
    for axis in builtins.range(rank):
        before, after = (int(w) for w in widths[axis])
        if before == 0 and after == 0:
            continue
        if mode == "constant":
            x = _pad_constant(x, axis, before, after, values[axis])
            continue
        n = x.shape[axis]
        if n == 0:
            raise ValueError(f"np.pad: can't extend empty axis {axis} using modes other than "
                             f"'constant' or 'empty'")
        x = gather(x, _pad_index(mode, n if n is not None else dims_of(x)[axis], before, after),
                   axis=axis)
    return x


# ----------------------------------------------------------- partition

def _kth(op: str, kth, n) -> None:
    for k in np.asarray(kth).reshape(-1).tolist() if not isinstance(kth, numbers.Integral) \
            else [kth]:
        k = _int(op, "kth", k)
        if n is not None and not -n <= k < n:
            raise ValueError(f"np.{op}: kth(={k}) out of bounds ({n})")


def _partition(op: str, a, kth, axis, kind, order, fn):
    if order is not None:
        raise Unsupported("the order= argument")
    kth = known(kth)
    if hasattr(kth, "dtype") and not isinstance(kth, (np.ndarray, np.generic)):
        raise Unsupported("a kth that is a tensor (it must be known at trace time)")
    x = tensor_operand(op, a)
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    rank = _rank(op, x, 1)
    (ax,) = normalize_axis(op, axis, rank)
    _kth(op, kth, x.shape[ax])
    return fn(x, axis=ax)


@locate_errors
def np_partition(a, kth, axis=-1, kind="introselect", order=None):
    """NumPy's `partition`, as a full sort along `axis` (a valid partition for
    every kth: see the module docstring); `axis=None` sorts the flattened
    tensor."""
    return _partition("partition", a, kth, axis, kind, order, sort)


@locate_errors
def np_argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """NumPy's `argpartition`, as a stable argsort along `axis` (int64
    indices; a valid partition for every kth, see the module docstring)."""
    return _partition("argpartition", a, kth, axis, kind, order, argsort)


FUNCTIONS = {
    "triu": np_triu, "tril": np_tril, "flip": np_flip, "fliplr": np_fliplr, "flipud": np_flipud,
    "rot90": np_rot90, "moveaxis": np_moveaxis, "split": np_split, "array_split": np_array_split,
    "hsplit": np_hsplit, "vsplit": np_vsplit, "dsplit": np_dsplit, "diag": np_diag,
    "diagflat": np_diagflat, "pad": np_pad, "partition": np_partition,
    "argpartition": np_argpartition,
}
