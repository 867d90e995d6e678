"""Advice for a traced tensor used as a Python value inside converted code.

The tracer's message for `bool(t)`/`int(t)` on a traced tensor suggests
`autograph=True`; inside converted code autograph is already on, so this
module (installed into the tracer when the operators load) gives advice that
fits: the construct that needs a Python value runs in Python, so use the ag
op that computes it on tensors, or a statement that compiles.
"""
from __future__ import annotations

import sys
from typing import Optional

from ..conversion_marks import CONVERTED_CODES

__all__ = ["install", "advice"]


def _in_converted_code() -> bool:
    from autograph.tracer.core.location import is_library_file
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if not is_library_file(code.co_filename):
            return CONVERTED_CODES.get(id(code)) is code
        frame = frame.f_back
    return False


def advice(what: str) -> Optional[str]:
    """The advice for a traced tensor used as a Python `what` in converted code, else None."""
    try:
        if not _in_converted_code():
            return None
    except Exception:   # never let advice hide the error itself
        return None
    if what == "bool":
        return ("autograph is on, but this construct runs in Python and needs a Python bool "
                "(e.g. a condition inside a comprehension or a lambda, a NumPy function, or a "
                "library call): use ag.where(c, a, b) or ag.cond for a choice, ag.reduce_any / "
                "ag.reduce_all to combine conditions, or write it as an `if`/`while` statement "
                "or a compiled loop (`for i in range(len(x))`), which compile.")
    if what in ("int", "float"):
        return (f"use ag.cast(t, ag.{'int64' if what == 'int' else 'float64'}) for a tensor of "
                f"that dtype ({what}(t) itself compiles to it when written in the decorated "
                f"function or a function it calls).")
    return ("a Python int is needed here (an index of a Python list or a Python range's bound "
            "where a tensor is not accepted): index tensors instead, iterate with ag.range / a "
            "compiled loop, or keep this value a Python int.")


def install() -> None:
    """Install `advice` into the tracer (idempotent)."""
    from autograph.tracer.tracing import symbolic
    symbolic.conversion_advice = advice
