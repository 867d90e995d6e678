"""Exceptions that leave compiled control flow must not be caught at trace time.

While a branch or loop body on a traced condition is traced, a Python
exception it raises is raised at trace time whatever values the compiled
code will see; Python would raise it only on the runs that take that path.
A `try`/`except` around it would silently take the handler on every run. So
the operators mark an exception leaving a compiled `if`/`while`/`for`
(`staged`), and the converted `except` handlers call `caught`, which turns a
marked exception into a NotImplementedError naming both statements. An
exception that is not caught reaches the caller unchanged.
"""
from __future__ import annotations

__all__ = ["staged", "caught"]

_MARK = "_ag_raised_in_compiled"


def _where() -> str:
    """`line N of FILE` of the user's statement being converted, if known."""
    from autograph.tracer.core.location import user_location
    loc = user_location(1)
    return f"line {loc.line} of {loc.file}" if loc is not None else "an unknown line"


class staged:
    """`with staged("`if`"):` around tracing compiled control flow: an exception
    leaving it is marked with the construct and the user's line of the
    statement. (A class, not a generator: the frames that find the user's
    line must all be the library's own.)"""

    __slots__ = ("construct",)

    def __init__(self, construct: str):
        self.construct = construct

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is not None and isinstance(exc, Exception) and getattr(exc, _MARK, None) is None:
            try:
                setattr(exc, _MARK, (self.construct, _where()))
            except (AttributeError, TypeError):   # exception types without a __dict__
                pass
        return False


def caught(exc: BaseException) -> None:
    """Called first in every converted `except` handler with what it caught:
    refuse an exception raised inside compiled control flow."""
    mark = getattr(exc, _MARK, None)
    if mark is None:
        return
    from ._tracer import located
    construct, where = mark
    raise located(NotImplementedError(
        f"{type(exc).__name__}: {exc}\n-- was raised while tracing a compiled {construct} "
        f"(its condition is a traced tensor; {where}) and is caught here by `try`/`except` at "
        f"trace time. Whether it is raised depends on values known only when the compiled "
        f"code runs, so it cannot be caught at trace time: put the `try` inside the branch "
        f"or loop body, or check the condition with a Python value")) from exc
