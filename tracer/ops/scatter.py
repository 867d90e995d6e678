"""`scatter`: write (or combine) slices into a tensor at integer indices.

    scatter[mode, axis=k](x, indices, updates) -> x with, for every position p
        of `indices` in row-major order, the slice x[..., indices[p], ...]
        (along axis k) replaced by (mode "set") or combined with (modes
        "add", "mul", "max", "min") the slice updates[..., p, ...].

It is the adjoint of `gather`: `updates` has exactly gather's result shape,
`x.shape[:k] + indices.shape + x.shape[k+1:]` (callers broadcast first).
Positions are visited in order, so with repeated indices "set" keeps the
last write (as NumPy's `a[idx] = v` does) and the combining modes apply
every update (NumPy's `np.add.at`, `np.multiply.at`, `np.maximum.at`,
`np.minimum.at`). Negative indices count from the end; an index outside
[-size, size) is an InvalidArgumentError "index 5 is out of bounds for axis
0 with size 3" (NumPy's wording), and nothing is written out of bounds. "max"
and "min" propagate NaN as `np.maximum`/`np.minimum`; on bools "add" and
"max" are `or`, "mul" and "min" are `and` (NumPy's bool ufuncs). Complex
tensors take mode "set" only.

The result has x's type; x itself is unchanged (the compiled code writes in
place when nothing else sees x, as `set_item`). Its gradient rule is in
tracer/autodiff/rules_scatter.py.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.registry import declare
from ..core.types import TensorType
from ._common import check_kind, fmt_shape

__all__ = ["MODES", "SCATTER_MSG"]

MODES = ("set", "add", "mul", "max", "min")

# NumPy's wording for an index out of range (the compiled code gives the same).
SCATTER_MSG = "index {0} is out of bounds for axis {1} with size {2}"


def _scatter_rule(types, attrs, consts):
    if len(types) != 3:
        raise ValueError(f"scatter: expected 3 operands (x, indices, updates), got {len(types)}")
    x, indices, updates = types
    mode = attrs.get("mode")
    if mode not in MODES:
        raise ValueError(f"scatter: mode must be one of {MODES}, got {mode!r}")
    check_kind("scatter", "int", indices.dtype, "the indices")
    if updates.dtype is not x.dtype:
        raise TypeError(f"scatter: the updates have dtype {updates.dtype.name} but the tensor "
                        f"has {x.dtype.name}; use ag.cast to convert them")
    if x.dtype.name == "string":
        raise TypeError("scatter: string tensors are not supported")
    if mode != "set" and not (x.dtype.is_numeric or x.dtype.is_bool):
        raise TypeError(f"scatter: mode {mode!r} needs a real number or bool tensor, got "
                        f"{x.dtype.name}")
    if x.shape == ():
        raise ValueError("scatter: the tensor must have rank >= 1, got a scalar")
    axis = attrs.get("axis")
    if type(axis) is not int or axis < 0 or (x.shape is not None and axis >= len(x.shape)):
        raise ValueError(f"scatter: axis {axis!r} is out of range for a tensor of shape "
                         f"{fmt_shape(x.shape)}")
    if x.shape is not None and indices.shape is not None and updates.shape is not None:
        want = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
        if len(want) != len(updates.shape) or any(
                a is not None and b is not None and a != b for a, b in zip(want, updates.shape)):
            raise ValueError(f"scatter: updates of shape {fmt_shape(updates.shape)} do not match "
                             f"the indexed slices' shape {fmt_shape(want)}")
        size = x.shape[axis]
        if consts[1] is not None and size is not None:
            _check_indices(consts[1], axis, size)
    return [TensorType(x.dtype, x.shape)]


def _check_indices(idx, axis: int, size: int) -> None:
    idx = np.asarray(idx)
    bad = (idx < -size) | (idx >= size)
    if np.any(bad):
        first = int(idx[bad].reshape(-1)[0])
        raise InvalidArgumentError(SCATTER_MSG.format(first, axis, size))


_UFUNC = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _scatter_reference(x, indices, updates, *, mode, axis):
    size = x.shape[axis]
    _check_indices(indices, axis, size)
    idx = np.asarray(indices).astype(np.int64).reshape(-1)
    m = idx.size
    out = np.array(x, copy=True)
    # [outer, size, inner] and [outer, m, inner] views, visited index by index
    view = out.reshape(int(np.prod(x.shape[:axis], dtype=np.int64)), size, -1) if out.size else None
    if view is None or m == 0:
        return out
    upd = np.asarray(updates).reshape(view.shape[0], m, view.shape[2])
    with np.errstate(all="ignore"):
        if mode == "set":
            for j in range(m):          # in order: the last write of a repeated index wins
                view[:, idx[j], :] = upd[:, j, :]
        else:
            ufunc = _UFUNC[mode]
            if x.dtype == np.bool_:
                ufunc = {"add": np.logical_or, "mul": np.logical_and, "max": np.logical_or,
                         "min": np.logical_and}[mode]
            ufunc.at(view, (slice(None), idx), upd)
    return out


declare("scatter", _scatter_rule, _scatter_reference,
        doc="scatter[mode, axis=k](x, indices, updates) -> x with updates written (mode 'set') or "
            "combined ('add', 'mul', 'max', 'min') into the slices at indices along axis k")
