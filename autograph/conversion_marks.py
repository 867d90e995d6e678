"""What the operators need to know of conversion, apart from `impl.py`.

Converted code calls the operators (`autograph/operators/`), and the
operators convert the functions it calls (`converted_call`): a loop of
calls at run time. Here is the part both sides share, so that the operators
never import `impl.py`:

* `CONVERTED_CODES`: every code object conversion made (`impl.py` fills it);
  functions made from them are already converted and are called as they are.
  The tracer reads it too, by module name (it sits below `autograph`).
* `is_converted`, `is_do_not_convert`: the two marks `converted_call` tests.
* `convert`, `converted_call`: the converter and the call operator, installed
  by `impl.py` and `operators/calls.py` when they are imported (both are
  imported by `import autograph`, before any converted code runs).
"""
from __future__ import annotations

import types
import weakref
from typing import Any, Callable

__all__ = ["CONVERTED_CODES", "DO_NOT_CONVERT_ATTR", "is_converted", "is_do_not_convert",
           "install", "convert", "converted_call"]

# Keyed by id: code objects compare by value, and a converted function that
# needed no rewrite has code *equal* to the original's.
CONVERTED_CODES: "weakref.WeakValueDictionary[int, types.CodeType]" = weakref.WeakValueDictionary()
DO_NOT_CONVERT_ATTR = "__autograph_do_not_convert__"
_INSTALLED: dict = {}


def is_do_not_convert(fn: Any) -> bool:
    """Whether `fn` was marked with `do_not_convert`."""
    target = getattr(fn, "__func__", fn)
    try:
        return bool(getattr(target, DO_NOT_CONVERT_ATTR, False))
    except Exception:  # exotic __getattr__: treat as unmarked
        return False


def is_converted(fn: Any) -> bool:
    """Whether `fn` runs converted code (made by `convert` or nested in converted code)."""
    target = getattr(fn, "__func__", fn)
    code = getattr(target, "__code__", None)
    return isinstance(code, types.CodeType) and CONVERTED_CODES.get(id(code)) is code


def install(name: str, function: Callable) -> None:
    """Called once by `impl.py` ("convert") and `operators/calls.py` ("converted_call")."""
    _INSTALLED[name] = function


def convert(fn: Callable) -> Callable:
    """`impl.convert(fn)`: the converted function."""
    return _INSTALLED["convert"](fn)


def converted_call(fn: Callable, args: tuple, kwargs: dict = None) -> Any:
    """`operators.calls.converted_call(fn, args, kwargs)`: call `fn` converted where it should be."""
    return _INSTALLED["converted_call"](fn, args, kwargs)
