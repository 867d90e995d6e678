"""`np.vectorize(f)(x, ...)` on traced tensors in converted code.

NumPy's `vectorize` calls a scalar Python function once per element. Here
the function is converted like any user function and called on each
element inside one compiled loop (the body traced once): the arguments are
broadcast and flattened, element 0 is traced first to learn the result's
dtype (or `otypes[0]` gives it), the loop writes every element's result,
and the result takes the broadcast shape. One output only; `signature=`,
`excluded=` and functions returning tuples raise a clear TypeError. With no
traced argument the vectorized function runs as NumPy's.
"""
from __future__ import annotations

import numpy as np

from . import _tracer

__all__ = ["is_vectorized", "call_vectorized"]


def is_vectorized(f) -> bool:
    """Whether `f` is a `np.vectorize` object."""
    return isinstance(f, np.vectorize)


def _refuse(what: str) -> TypeError:
    return _tracer.located(TypeError(
        f"np.vectorize: {what} is not supported on traced tensors; write the loop, or call "
        f"the function on whole tensors"))


def call_vectorized(vf, args, kwargs, call):
    """`vf(*args, **kwargs)`; `call(f, args)` calls a user function converted."""
    if kwargs or not any(_tracer.is_traced(a) for a in args):
        return vf(*args, **kwargs)
    if vf.signature is not None:
        raise _refuse("signature=")
    if vf.excluded:
        raise _refuse("excluded=")
    api = _tracer.api()
    xs = [_tracer.as_traced(a) for a in args]
    if any(x.shape is None or None in x.shape for x in xs):
        raise _refuse("an argument whose shape is only known when the compiled code runs")
    shape = np.broadcast_shapes(*[tuple(x.shape) for x in xs])
    n = int(np.prod(shape, dtype=np.int64))
    flats = [api.reshape(np.broadcast_to(x, shape), [-1]) for x in xs]
    otypes = vf.otypes or ""
    if n == 0:
        if not otypes:
            raise _refuse("a size-0 input without otypes=")
        return api.zeros(list(shape), np.dtype(otypes[0]))
    first = call(vf.pyfunc, [f[0] for f in flats])
    if isinstance(first, (tuple, list)):
        raise _refuse("a function returning several values")
    dtype = np.dtype(otypes[0]) if otypes else np.dtype(_tracer.as_traced(first).dtype)

    def one(i):
        v = _tracer.as_traced(call(vf.pyfunc, [f[i] for f in flats]))
        return v if np.dtype(v.dtype) == dtype else api.cast(v, dtype)

    out = api.zeros([n], dtype)
    out = api.setitem(out, 0, one(0))

    def body(i, out):
        return i + 1, api.setitem(out, i, one(i))
    start = _tracer.as_traced(np.int64(1))
    _, out = _tracer.control_flow().while_loop(lambda i, out: i < n, body, (start, out))
    return api.reshape(out, list(shape))
