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
            where = _where()
            try:
                setattr(exc, _MARK, (self.construct, where))
            except (AttributeError, TypeError):   # exception types without a __dict__
                return False
            if _raised_by_user(tb):
                # The user's own `raise` fired while its branch was traced, whatever the
                # values: say so, or "too big" on a small input is a riddle.
                exc.add_note(f"(raised while tracing a compiled {self.construct}, {where}: its "
                             f"condition is a traced tensor, so every branch and loop body is traced "
                             f"whatever the values, and a `raise` in it fires at trace time, as in "
                             f"TensorFlow. To fail only when the compiled code takes that path, "
                             f"write `assert condition, message` or use ag.debugging.assert_*.)")
        return False


def _raised_by_user(tb) -> bool:
    """True when the innermost frame of `tb` is not the library's (a user's `raise`)."""
    import os
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    import sys
    # the package's folders (in a checkout, siblings of the user's tests and examples);
    # looked up, not imported: this room does not depend on codegen or runtime
    names = ("autograph", "autograph.codegen", "autograph.runtime", "autograph.tracer")
    folders = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                    for m in map(sys.modules.get, names) if getattr(m, "__file__", None))
    return not os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(folders)


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
