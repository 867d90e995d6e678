"""The one place the operators reach into the tracer.

Imports are lazy so that converted code running on Python values never pays
for (or depends on) the tracer, and so the dependency `autograph -> tracer`
stays in one file.
"""
from __future__ import annotations

import functools

__all__ = ["api", "control_flow", "tracing", "is_traced", "tracing_active", "as_traced",
           "static_value", "located", "condition_value"]


@functools.lru_cache(maxsize=None)
def api():
    """The `tracer.api` module."""
    import tracer.api
    return tracer.api


@functools.lru_cache(maxsize=None)
def control_flow():
    """The `tracer.control_flow` module."""
    import tracer.control_flow
    return tracer.control_flow


@functools.lru_cache(maxsize=None)
def tracing():
    """The `tracer.tracing` module."""
    import tracer.tracing
    return tracer.tracing


def tracing_active() -> bool:
    """True while a trace is being built (a GraphBuilder is active)."""
    try:
        return tracing().current_builder() is not None
    except ImportError:
        return False


def as_traced(x):
    """`x` as a traced tensor of the active trace (a constant if it is not traced yet)."""
    if is_traced(x):
        return x
    import numpy as np
    builder = tracing().current_builder()
    return builder.wrap(builder.constant(np.asarray(x)))


def static_value(x):
    """The Python value of `x` when it is known at trace time, else None."""
    if not is_traced(x):
        return x
    value = tracing().constant_value(x.value)
    return None if value is None else value.item() if value.ndim == 0 else value


def located(exc: BaseException) -> BaseException:
    """`exc` with the user's file, line and source text appended to its message.

    The user's line is the innermost frame outside the library: converted
    code runs under the user's filename and line numbers, so that is the
    statement whose operator raised.
    """
    try:
        from tracer.errors import with_location
        from tracer.location import user_location
    except ImportError:
        return exc
    return with_location(exc, user_location(2))


def condition_value(x):
    """A condition as the operators test it: a variable read while tracing
    is its traced value (so `if v:` compiles), anything else unchanged."""
    if getattr(x, "_ag_variable", False) and tracing_active():
        return x.read_value()
    return x


def is_traced(x) -> bool:
    """True for a symbolic tensor of the trace being built."""
    try:
        return api().is_traced(x)
    except ImportError:  # no tracer: nothing can be traced
        return False
