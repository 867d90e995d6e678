"""Reading the library's environment variables, strictly.

A misspelt setting (`AUTOGRAPH_VERBOSITY=loud`, `AUTOGRAPH_DISABLE_CACHE=maybe`)
is an `EnvironmentSettingError` naming the variable, the value and the
choices, never silently read as the default: a user who sets a variable
means something by it. Unset and empty are the default.

This module lives in the IR core (it imports nothing) so that every layer
reads its variables the same way.
"""
from __future__ import annotations

import os
from typing import Optional

__all__ = ["EnvironmentSettingError", "flag", "integer", "TRUE_WORDS", "FALSE_WORDS"]

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


class EnvironmentSettingError(ValueError):
    """An environment variable of the library has a value it does not accept."""


def _raw(name: str) -> Optional[str]:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return None
    return value


def _invalid(name: str, value: str, choices: str) -> EnvironmentSettingError:
    return EnvironmentSettingError(f"{name}={value!r} is not a valid setting: expected {choices} "
                                   f"(or leave {name} unset)")


def flag(name: str, default: bool = False) -> bool:
    """A yes/no variable: 1/true/yes/on or 0/false/no/off (any case); `default` when unset or empty."""
    value = _raw(name)
    if value is None:
        return default
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise _invalid(name, value, "one of " + ", ".join(TRUE_WORDS) + " (on) or "
                   + ", ".join(FALSE_WORDS) + " (off)")


def integer(name: str, default: int, lo: int, hi: Optional[int] = None) -> int:
    """An integer variable in `lo..hi` (no upper bound when `hi` is None); `default` when unset or empty."""
    value = _raw(name)
    if value is None:
        return default
    if hi is not None and hi - lo < 8:
        expected = "one of " + ", ".join(str(n) for n in range(lo, hi + 1))
    else:
        expected = f"an integer from {lo}" + ("" if hi is None else f" to {hi}")
    try:
        number = int(value.strip())
    except ValueError:
        raise _invalid(name, value, expected) from None
    if number < lo or (hi is not None and number > hi):
        raise _invalid(name, value, expected)
    return number
