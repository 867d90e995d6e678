"""The library's logging: the `autograph` logger and `AUTOGRAPH_VERBOSITY`.

Everything the library reports goes through Python's `logging`, to the
logger named ``autograph`` (or a child such as ``autograph.cache``).
`AUTOGRAPH_VERBOSITY` picks how much is emitted:

    0  warnings only (the default)
    1  + every retrace, with the reason (which argument changed),    INFO
         and each compile with the time of its stages
    2  + conversion, tracing and compilation, with timings           DEBUG
    3  + the converted source and the typed IR                       SOURCE (5)

This module lives in `tracer` (the bottom layer) so that the converter,
the code generator and the runtime can all use the same level constants.
It is configured once, when first imported: the `autograph` logger gets the
level of the verbosity and, only when the verbosity is above 0, one
`StreamHandler` on stderr. The root logger is never touched, and records
still propagate to it, so an application's own logging setup (or pytest's
`caplog`) sees them as well. A value other than 0..3 (or unset) is an
`EnvironmentSettingError` when the library is imported.
"""
from __future__ import annotations

import logging
import os
import sys
from typing import Optional

from .env import EnvironmentSettingError

__all__ = ["logger", "RETRACE", "DETAIL", "SOURCE", "LEVELS", "RetracingWarning", "verbosity",
           "set_verbosity", "configure"]

RETRACE = logging.INFO       # verbosity 1: retraces and their reason
DETAIL = logging.DEBUG       # verbosity 2: conversion, tracing, compilation, with timings
SOURCE = 5                   # verbosity 3: converted source and IR text
LEVELS = (logging.WARNING, RETRACE, DETAIL, SOURCE)
logging.addLevelName(SOURCE, "SOURCE")

logger = logging.getLogger("autograph")


class RetracingWarning(UserWarning):
    """Issued when a function traces on many of its recent calls (see autograph.runtime.polymorphic)."""


_HANDLER_MARK = "_autograph_handler"
_configured = False
_verbosity = 0


def _parse(text: Optional[str]) -> int:
    """The verbosity AUTOGRAPH_VERBOSITY=`text` asks for: 0..3, 0 when unset or empty.

    Anything else is an `EnvironmentSettingError` naming the variable and the
    choices (a misspelt verbosity would otherwise silently log nothing).
    """
    if text is None or not text.strip():
        return 0
    try:
        level = int(text.strip())
    except ValueError:
        level = -1
    if not 0 <= level <= 3:
        raise EnvironmentSettingError(
            f"AUTOGRAPH_VERBOSITY={text!r} is not a valid setting: expected one of 0, 1, 2, 3 "
            f"(0 warnings only, 1 retraces and compile timings, 2 details, 3 source and IR; "
            f"or leave AUTOGRAPH_VERBOSITY unset)")
    return level


def verbosity() -> int:
    """The current verbosity, 0..3."""
    return _verbosity


def set_verbosity(level: int, handler: bool = True) -> None:
    """Set the verbosity (0..3) of the `autograph` logger.

    With `handler` (the default) a stderr handler is added the first time
    the verbosity goes above 0, so the messages show without any logging
    setup in the application. There is never more than one such handler.
    """
    global _verbosity
    _verbosity = max(0, min(3, int(level)))
    logger.setLevel(LEVELS[_verbosity])
    if _verbosity > 0 and handler and not any(getattr(h, _HANDLER_MARK, False) for h in logger.handlers):
        h = logging.StreamHandler(sys.stderr)
        h.setFormatter(logging.Formatter("autograph %(levelname)s: %(message)s"))
        setattr(h, _HANDLER_MARK, True)
        logger.addHandler(h)


def configure() -> None:
    """Apply AUTOGRAPH_VERBOSITY once per process (called when this module is imported).

    When the variable is unset and the application already gave the
    `autograph` logger a level, that level is left alone.
    """
    global _configured, _verbosity
    if _configured:
        return
    _configured = True
    env = os.environ.get("AUTOGRAPH_VERBOSITY")
    if env is None and logger.level != logging.NOTSET:
        return
    set_verbosity(_parse(env))


configure()
