"""NumPy's `np.lib.stride_tricks.sliding_window_view` on tensors.

NumPy returns a read-only strided view; a tensor is immutable, so the same
values as a new tensor are as good: for each windowed axis of length n and
window w, a `gather` along it with the (n - w + 1, w) index matrix
i + j (a trace-time constant), the window's dimension then moved to the
end, as NumPy lays it out. The data's shape on the windowed axes must be
known when tracing. `subok` and `writeable` are NumPy view options: `writeable=True`
is refused (a tensor is never written through a view).
"""
from __future__ import annotations

import numbers
from typing import List

import numpy as np

from .common import locate_errors, normalize_axis, rank_of
from .numpy_functions import Unsupported, tensor_operand
from .shaping import gather, transpose

__all__ = ["np_sliding_window_view", "BY_FUNCTION"]


def _window_shape(window_shape) -> List[int]:
    shape = [window_shape] if isinstance(window_shape, numbers.Integral) else list(window_shape)
    for w in shape:
        if isinstance(w, bool) or not isinstance(w, numbers.Integral):
            raise TypeError(f"sliding_window_view: window_shape must be ints, got {window_shape!r}")
        if w < 0:
            raise ValueError("sliding_window_view: `window_shape` cannot contain negative values")
    return [int(w) for w in shape]


@locate_errors
def np_sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """NumPy's `lib.stride_tricks.sliding_window_view`: every window of `window_shape`
    over `axis` (all axes when None), the window's dimensions last."""
    if writeable:
        raise Unsupported("writeable=True (a tensor is never written through a view)")
    t = tensor_operand("sliding_window_view", x)
    rank = rank_of(t)
    if rank is None:
        raise Unsupported("a tensor of unknown rank")
    windows = _window_shape(window_shape)
    if axis is None:
        if len(windows) != rank:
            raise ValueError(f"sliding_window_view: Since axis is `None`, must provide window_shape for "
                             f"all dimensions of `x`; got {len(windows)} window_shape elements and "
                             f"`x.ndim` is {rank}.")
        axes = list(range(rank))
    else:
        given = [axis] if isinstance(axis, numbers.Integral) else list(axis)
        # one at a time: the order given is the order of the window's dimensions
        axes = [normalize_axis("sliding_window_view", a, rank)[0] for a in given]
        if len(axes) != len(windows):
            raise ValueError(f"sliding_window_view: Must provide matching length window_shape and axis; "
                             f"got {len(windows)} window_shape elements and {len(axes)} axes elements.")
    out = t
    for ax, w in zip(axes, windows):
        n = t.shape[ax]
        if n is None:
            raise Unsupported("a windowed axis whose length is only known when the compiled code runs")
        if w > n:
            raise ValueError("sliding_window_view: window shape cannot be larger than input array shape")
        index = np.arange(n - w + 1, dtype=np.int64)[:, None] + np.arange(w, dtype=np.int64)[None, :]
        out = gather(out, index, axis=ax)     # (..., n - w + 1, w, ...): the window after the axis
        r = rank_of(out)
        perm = [i for i in range(r) if i != ax + 1] + [ax + 1]
        out = transpose(out, perm)           # the window's dimension last, in the order given
    return out


BY_FUNCTION = {np.lib.stride_tricks.sliding_window_view: np_sliding_window_view}
