"""Finding the user's source line for an op or an error.

Converted code is compiled with the user's file name and original line
numbers, so the first stack frame outside this library's own packages is the
user's line, with or without AutoGraph.
"""
from __future__ import annotations

import linecache
import os
import sys
from typing import Optional

from .ir import Location

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY_DIRS = tuple(os.path.join(_ROOT, p) + os.sep for p in ("tracer", "codegen", "runtime", "autograph"))


def is_library_file(filename: str) -> bool:
    """True for files inside this library's packages (not tests or examples)."""
    return filename.startswith(_LIBRARY_DIRS) or filename.startswith("<frozen")


def user_location(skip: int = 1) -> Optional[Location]:
    """The Location of the innermost stack frame that belongs to user code."""
    frame = sys._getframe(skip)
    while frame is not None:
        code = frame.f_code
        if not is_library_file(code.co_filename) and not code.co_filename.startswith("<ag"):
            line = frame.f_lineno
            src = linecache.getline(code.co_filename, line).strip() or None
            return Location(code.co_filename, line, 0, code.co_name, src)
        frame = frame.f_back
    return None
