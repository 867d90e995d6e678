"""Errors shared by every stage, and how they quote the user's source line."""
from __future__ import annotations

from typing import Optional

from .ir import Location

__all__ = ["InvalidArgumentError", "with_location"]


class InvalidArgumentError(ValueError):
    """Bad arguments at call time, or a fault inside compiled code.

    The message says what was expected and what was given and, for faults in
    compiled code, names the user's file and line.
    """


def with_location(exc: BaseException, loc: Optional[Location]) -> BaseException:
    """Return an exception of the same type whose message ends with `loc`.

    Used where an error is detected inside the library but caused by a user
    line: the message itself (not only the traceback) must point at that line.
    """
    if loc is None or getattr(exc, "_ag_located", False):
        return exc
    msg = str(exc.args[0]) if len(exc.args) == 1 else str(exc)
    try:
        new = type(exc)(f"{msg}\n{loc.describe()}")
    except Exception:  # exotic exception types keep their message
        return exc
    new._ag_located = True
    new.__cause__ = exc.__cause__
    return new
