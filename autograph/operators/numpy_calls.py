"""NumPy's array creation functions called from converted code.

`np.zeros(n)`, `np.empty_like(x)`, `np.arange(n)`, `np.asarray(x)`, ... inside a decorated
function must give tensors when `n` is traced, but NumPy only dispatches to
a tensor when an array argument is one (`np.zeros(n)` has none). So
`converted_call` sends calls of these callables here: while a trace is being
built they become the tracer's NumPy-style creation functions
(`autograph.tracer.api.numpy_creation.ROUTES`); otherwise they stay NumPy's.
"""
from __future__ import annotations

import numpy as np

from . import _tracer

__all__ = ["ROUTED", "call"]

# The id()s of the routed NumPy callables (module-level objects that live as
# long as NumPy): a set lookup per call keeps other calls as fast as before.
ROUTED = frozenset(id(f) for f in (
    np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like, np.empty_like,
    np.full_like, np.arange, np.linspace, np.eye, np.asarray, np.array, np.ascontiguousarray,
    np.ndarray))


def call(f, args, kwargs):
    """Call NumPy creation function `f`: the tensor form while tracing, else NumPy's.

    Args:
        f: one of the callables of ROUTED (`np.zeros`, ...).
        args, kwargs: the call's arguments.

    Returns:
        A tensor while a trace is active, else what NumPy returns.

    Example: converted code's `np.zeros((n, n))` with a traced `n`.
    """
    if _tracer.tracing_active():
        return _tracer.api().numpy_creation.ROUTES[f](*args, **kwargs)
    return f(*args, **kwargs)

