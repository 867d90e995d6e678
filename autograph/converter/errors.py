"""Errors raised while converting a function's source.

Every conversion error points at the user's own file and line and quotes that
line, so the message alone tells the user what to change (API.md section 7).
"""
from __future__ import annotations

import linecache
from typing import Optional

__all__ = ["ConversionError", "SourceUnavailableError", "location_text"]


def location_text(filename: Optional[str], lineno: Optional[int],
                  function: Optional[str] = None) -> str:
    """A traceback-style description of a source line: `File "f", line N` plus the quoted line."""
    if not filename or not lineno:
        return "  (source location unknown)"
    where = f'  File "{filename}", line {lineno}'
    if function:
        where += f", in {function}"
    text = linecache.getline(filename, lineno).strip()
    if text:
        where += f"\n    {text}"
    return where


class ConversionError(NotImplementedError):
    """A construct that autograph cannot convert (e.g. `yield`, `match`, `async`).

    Subclasses NotImplementedError, as TensorFlow's UnsupportedLanguageElementError
    does, so callers catching that builtin keep working.
    """

    def __init__(self, message: str, filename: Optional[str] = None,
                 lineno: Optional[int] = None, function: Optional[str] = None):
        self.filename = filename
        self.lineno = lineno
        self.function = function
        self.reason = message
        super().__init__(f"{message}\n{location_text(filename, lineno, function)}")


class SourceUnavailableError(ValueError):
    """The source code of a function cannot be found (REPL, `exec`, builtins)."""
