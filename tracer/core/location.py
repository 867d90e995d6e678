"""Finding the user's source line for an op or an error.

Converted code is compiled with the user's file name and original line
numbers, so the first stack frame outside this library's own packages is the
user's line, with or without AutoGraph.
"""
from __future__ import annotations

import contextlib
import functools
import importlib.util
import linecache
import os
import sys
import threading
from typing import Optional, Tuple

from .ir import Location

# The library's packages. In a source checkout they are four folders side by
# side; installed, three of them sit inside the first: so their folders are
# looked up by name, never derived from this file's place.
_PACKAGES = ("autograph", "autograph.tracer", "autograph.codegen", "autograph.runtime")


@functools.lru_cache(maxsize=None)
def _library_dirs() -> Tuple[str, ...]:
    dirs = []
    for name in _PACKAGES:
        spec = importlib.util.find_spec(name)
        dirs.extend(os.path.abspath(d) + os.sep for d in (spec.submodule_search_locations or ()))
    return tuple(dirs)


def is_library_file(filename: str) -> bool:
    """True for files inside this library's packages (not tests or examples)."""
    return filename.startswith(_library_dirs()) or filename.startswith("<frozen")


_forced = threading.local()


@contextlib.contextmanager
def at_location(loc: Optional[Location]):
    """Within the block, `user_location()` is `loc`.

    Used when the library re-emits ops of an earlier trace without running
    the user's code again (a loop body re-typed by
    `autograph.tracer.tracing.retype`): the new ops and their errors keep the
    user's line of the op they stand for.
    """
    previous = getattr(_forced, "loc", None)
    _forced.loc = loc
    try:
        yield
    finally:
        _forced.loc = previous


def user_location(skip: int = 1) -> Optional[Location]:
    """The Location of the innermost stack frame that belongs to user code."""
    forced = getattr(_forced, "loc", None)
    if forced is not None:
        return forced
    frame = sys._getframe(skip)
    while frame is not None:
        code = frame.f_code
        if not is_library_file(code.co_filename) and not code.co_filename.startswith("<ag"):
            line = frame.f_lineno
            src = linecache.getline(code.co_filename, line).strip() or None
            return Location(code.co_filename, line, 0, code.co_name, src)
        frame = frame.f_back
    return None
