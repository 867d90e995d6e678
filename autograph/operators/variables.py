"""Placeholders for variables without a value, and reading them.

`Undefined` is the tracer's class (the tracer accepts it as a loop variable
first assigned inside a compiled loop). `UndefinedReturnValue` marks "this
function has not returned yet".
"""
from __future__ import annotations

__all__ = ["Undefined", "UndefinedReturnValue", "ld", "retval", "undefined_name",
           "RETURN_VALUE_NAME"]

try:
    from autograph.tracer.tracing.control_flow import Undefined
except ImportError:  # pragma: no cover - only while the tracer is being written
    class Undefined:  # type: ignore[no-redef]
        """Stand-in used only when the tracer is not importable."""

        __slots__ = ("name",)

        def __init__(self, name):
            self.name = name

        def __repr__(self):
            return f"Undefined({self.name!r})"

RETURN_VALUE_NAME = "the function return value"


class UndefinedReturnValue(Undefined):
    """The value of `retval_` until a `return` statement runs.

    A compiled loop or branch may carry zeros in its place without checking
    that it was set (`empty_ok`): the flag `do_return` says whether it is read.
    """

    empty_ok = True

    def __init__(self, name: str = RETURN_VALUE_NAME):
        super().__init__(name)


def undefined_name(value) -> str:
    """The variable name an Undefined placeholder stands for."""
    for attr in ("name", "symbol_name", "_name"):
        name = getattr(value, attr, None)
        if isinstance(name, str):
            return name
    return "?"


def ld(value):
    """Read a variable that may be unbound: raise UnboundLocalError as Python would."""
    if isinstance(value, Undefined):
        from ._tracer import located
        raise located(UnboundLocalError(f"'{undefined_name(value)}' is used before assignment"))
    return value


def retval(value, did_return):
    """The function's return value at its end (None when nothing was returned)."""
    from ._tracer import is_traced, located
    if is_traced(did_return):
        raise located(ValueError(
            "this function returns from inside compiled control flow (an `if` or loop "
            "on a traced tensor), but can also reach its end without a return "
            "statement: every path must return a value; add a return at the end "
            "of the function (the else branch must also have a return statement)"))
    if not did_return or isinstance(value, Undefined):
        return None
    return value
