"""`assert_stmt`: Python's assert, or a run-time check for a traced condition."""
from __future__ import annotations

from . import _tracer

__all__ = ["assert_stmt"]


def assert_stmt(test_fn, msg_fn=None) -> None:
    """`assert test, msg` (both as thunks; nothing runs under `python -O`).

    A Python (or eager) condition behaves as Python's assert. A traced one
    becomes a `check` in the compiled code: when it is false at run time the
    call raises `ag.errors.InvalidArgumentError` with "assertion failed", the
    message and the user's line (a traced scalar message is quoted with its
    run-time value).
    """
    if not __debug__:
        return
    test = _tracer.condition_value(test_fn())
    if not _tracer.is_traced(test):
        if not test:
            raise AssertionError(msg_fn()) if msg_fn is not None else AssertionError()
        return
    api = _tracer.api()
    if test.shape != ():
        raise _tracer.located(ValueError(
            f"assert: the condition is a tensor of shape "
            f"{tuple(test.shape) if test.shape is not None else '<unknown>'}, "
            f"whose truth value is ambiguous; use ag.reduce_all or ag.reduce_any"))
    if not test.dtype.is_bool:
        test = api.not_equal(test, 0)   # Python's truth of a number
    message = msg_fn() if msg_fn is not None else None
    if message is None:
        _tracer.bind("check", test, message="assertion failed")
    elif _tracer.is_traced(message) and message.shape == () and message.dtype.is_numeric:
        _tracer.bind("check_values", test, message, message="assertion failed: {0}")
    else:
        _tracer.bind("check", test, message=f"assertion failed: {message}")
