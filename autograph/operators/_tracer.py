"""The one place the operators reach into the autograph.tracer.

Imports are lazy so that converted code running on Python values never pays
for (or depends on) the tracer, and so the dependency `autograph -> tracer`
stays in one file.
"""
from __future__ import annotations

import functools

__all__ = ["api", "control_flow", "tracing", "is_traced", "tracing_active", "as_traced",
           "static_value", "known_value", "located", "condition_value", "bind"]


@functools.lru_cache(maxsize=None)
def api():
    """The `autograph.tracer.api` module."""
    from autograph.tracer import api as module
    return module


@functools.lru_cache(maxsize=None)
def control_flow():
    """The `autograph.tracer.tracing.control_flow` module."""
    from autograph.tracer.tracing import control_flow as module
    return module


@functools.lru_cache(maxsize=None)
def tracing():
    """The `autograph.tracer.tracing.symbolic` module."""
    from autograph.tracer.tracing import symbolic as module
    return module


def bind(name: str, *operands, **attrs):
    """Apply op `name` (record it while tracing): the tracer's `bind`."""
    return tracing().bind(name, *operands, **attrs)


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


def known_value(x):
    """The NumPy value of traced `x` when the trace can compute it from
    constants alone (autograph.tracer.tracing.known_values), else None."""
    from autograph.tracer.tracing.known_values import known_value as compute
    return compute(x.value)


def located(exc: BaseException) -> BaseException:
    """`exc` with the user's file, line and source text appended to its message.

    The user's line is the innermost frame outside the library: converted
    code runs under the user's filename and line numbers, so that is the
    statement whose operator raised.
    """
    try:
        from autograph.tracer.core.errors import with_location
        from autograph.tracer.core.location import user_location
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
