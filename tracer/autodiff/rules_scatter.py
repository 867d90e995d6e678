"""The gradient rule of `scatter` (tracer/ops/scatter.py): `a[idx] = v` with
index arrays and `np.add.at`. Same rule form as `rules_shape`."""
from __future__ import annotations

import numpy as np

from .. import api as A
from ..core.registry import REGISTRY, set_grad
from ..core.types import int64
from ..tracing.symbolic import bind

__all__ = ["scatter_grad"]


def scatter_grad(inputs, outputs, attrs, grads):
    """Mode "add": x's gradient passes through, the updates' is gather(g).
    Mode "set": x's gradient is g with the written slices zeroed; an update's
    is gather(g) where it is the last write to its index (the one that
    stays), zero where a later one overwrote it. Products and extrema have
    no rule yet."""
    mode, axis = attrs["mode"], attrs["axis"]
    if mode not in ("add", "set"):
        raise NotImplementedError(
            f"the gradient of scatter mode {mode!r} (np.multiply.at, np.maximum.at, "
            f"np.minimum.at) is not implemented")
    x, idx = inputs[0], inputs[1]
    g = grads[0]
    picked = A.gather(g, idx, axis=axis)
    if mode == "add":
        return [g, None, picked]
    zero = A.zeros_like(picked)
    gx = bind("scatter", g, idx, zero, mode="set", axis=axis)
    # which position last wrote each index: scatter the positions themselves
    flat = A.reshape(A.cast(idx, int64), [-1])
    n = A.shape(x, out_type=int64)[axis]
    order = A.range(A.size(flat, out_type=int64), dtype=int64)
    last = bind("scatter", A.fill([n], np.int64(-1)), flat, order, mode="set", axis=0)
    won = A.equal(A.gather(last, flat), order)
    rank = len(x.shape)
    shape = [1] * axis + [-1] + [1] * (rank - axis - 1)
    if len(idx.shape) != 1:
        won = A.reshape(won, A.shape(idx, out_type=int64))
        shape = [1] * axis + [A.shape(idx, out_type=int64)[k] for k in range(len(idx.shape))] \
            + [1] * (rank - axis - 1)
    won = A.reshape(won, shape)
    return [gx, None, A.where(won, picked, zero)]


if "scatter" in REGISTRY and REGISTRY["scatter"].grad is None:
    set_grad("scatter", scatter_grad)
