"""NumPy's `np.unwrap`, `np.lexsort` and `np.choose` on tensors.

* `unwrap(p, discont=None, axis=-1, period=2*pi)`: NumPy's steps: the
  differences along the axis, brought into [-period/2, period/2) by `mod`,
  the correction zeroed where the jump is below `discont`, and its running
  sum added to p[1:]. Float inputs (integers are computed in float64).
* `lexsort(keys)`: the stable sort by the last key, then the one before...:
  one stable `argsort` per key, from the first to the last, each applied to
  the order the previous ones made (1-D keys of one length).
* `choose(a, choices, mode="raise")`: out = choices[a] elementwise, the
  choices and `a` broadcast together; "raise" reports an index out of range
  (InvalidArgumentError naming the index, as `take_along_axis` does), "wrap"
  takes it modulo the number of choices, "clip" clips it.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .common import locate_errors, rank_of
from .clipping import clip_by_value
from .elementwise import (abs as ag_abs, add, cast, equal, greater, less, logical_and, mod, subtract,
                          where)
from .numpy_functions import Unsupported, np_diff, tensor_operand
from .numpy_indexing import np_take_along_axis
from .numpy_promote import promote
from .scans import cumsum
from .shaping import concat, expand_dims, gather, reshape, squeeze, stack
from .slicing import getitem
from .sorting import argsort
from ..core.types import float64, int64

__all__ = ["FUNCTIONS"]


@locate_errors
def np_unwrap(p, discont=None, axis=-1, *, period=2 * math.pi):
    """NumPy's `unwrap`: p with its jumps larger than `discont` replaced by their
    complement modulo `period`."""
    t = tensor_operand("unwrap", p)
    rank = rank_of(t)
    if rank is None or rank == 0:
        raise ValueError("np.unwrap: expected an array of at least one dimension")
    if not t.dtype.is_floating:
        t = cast(t, float64)
    if not isinstance(period, numbers.Real) or (discont is not None and not isinstance(discont, numbers.Real)):
        raise Unsupported("a period or discont that is not a Python number")
    ax = axis % rank if isinstance(axis, numbers.Integral) else None
    if ax is None:
        raise TypeError(f"np.unwrap: axis must be an int, got {axis!r}")
    dd = np_diff(t, axis=ax)
    if discont is None:
        discont = period / 2
    high = period / 2
    low = -high
    ddmod = add(mod(subtract(dd, low), period), low)
    ddmod = where(logical_and(equal(ddmod, low), greater(dd, 0)), high, ddmod)
    correct = where(less(ag_abs(dd), discont), 0.0, subtract(ddmod, dd))
    tail = (slice(None),) * ax + (slice(1, None),)
    head = (slice(None),) * ax + (slice(0, 1),)
    return concat([getitem(t, head), add(getitem(t, tail), cumsum(correct, axis=ax))], axis=ax)


@locate_errors
def np_lexsort(keys, axis=-1):
    """NumPy's `lexsort`: indices sorting by the last key, ties broken by the earlier ones."""
    if axis not in (-1, 0):
        raise Unsupported("axis other than the keys' only axis")
    if isinstance(keys, (list, tuple)):
        ks = [tensor_operand("lexsort", k) for k in keys]
    else:
        stacked = tensor_operand("lexsort", keys)
        if rank_of(stacked) != 2 or stacked.shape[0] is None:
            raise Unsupported("keys that are not a sequence of 1-D arrays or a 2-D array of known rows")
        ks = [getitem(stacked, i) for i in range(stacked.shape[0])]
    if not ks:
        raise TypeError("np.lexsort: need sequence of keys with len > 0 in lexsort")
    if any(rank_of(k) != 1 for k in ks):
        raise Unsupported("keys of more than one dimension")
    order = argsort(ks[0])
    for k in ks[1:]:
        order = gather(order, argsort(gather(k, order)))
    return order if order.dtype == int64 else cast(order, int64)


@locate_errors
def np_choose(a, choices, out=None, mode="raise"):
    """NumPy's `choose`: choices[a[i]][i] elementwise, all broadcast together."""
    if out is not None:
        raise Unsupported("the out= argument")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"np.choose: clipmode not understood (got {mode!r}); use 'raise', 'wrap' or 'clip'")
    idx = tensor_operand("choose", a)
    if not idx.dtype.is_integer:
        raise TypeError(f"np.choose: the index array must be of integer type, got {idx.dtype.name}")
    if isinstance(choices, (list, tuple)):
        # NumPy makes an array of each choice: a Python number is a strong 0-d array
        given = [c if hasattr(c, "dtype") else np.asarray(c) for c in choices]
    else:
        whole = tensor_operand("choose", choices)
        if rank_of(whole) is None or rank_of(whole) == 0 or whole.shape[0] is None:
            raise Unsupported("choices that are not a sequence or an array of known length")
        given = [getitem(whole, i) for i in range(whole.shape[0])]
    cs = [tensor_operand("choose", c) for c in promote("choose", *given)]
    n = len(cs)
    if n == 0:
        raise ValueError("np.choose: choices must not be empty")
    shapes = [tuple(x.shape) for x in [idx, *cs]]
    if any(d is None for s in shapes for d in s):
        raise Unsupported("shapes only known when the compiled code runs")
    shape = list(np.broadcast_shapes(*shapes))
    from .numpy_statistics import broadcast_to
    big = stack([broadcast_to(c, shape) for c in cs], axis=0)
    idx = cast(idx, int64) if idx.dtype != int64 else idx
    if mode == "wrap":
        idx = mod(idx, n)
    elif mode == "clip":
        idx = clip_by_value(idx, 0, n - 1)
    idx = broadcast_to(idx, shape)
    picked = np_take_along_axis(big, expand_dims(idx, 0), axis=0)
    return reshape(squeeze(picked, axis=[0]), shape) if shape else squeeze(picked, axis=[0])


FUNCTIONS = {"unwrap": np_unwrap, "lexsort": np_lexsort, "choose": np_choose}
