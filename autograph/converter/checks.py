"""Rejects language constructs that autograph does not convert.

Raising here, before any rewrite, gives an error that names the construct and
the user's line instead of a confusing failure later (no silent fallback).
"""
from __future__ import annotations

import gast

from .errors import ConversionError

__all__ = ["check_supported"]

_UNSUPPORTED = {
    gast.Yield: "generators are not supported: `yield`",
    gast.YieldFrom: "generators are not supported: `yield from`",
    gast.Await: "async functions are not supported: `await`",
    gast.AsyncFunctionDef: "async functions are not supported: `async def`",
    gast.AsyncFor: "async functions are not supported: `async for`",
    gast.AsyncWith: "async functions are not supported: `async with`",
    gast.Match: "`match` statements are not supported",
    gast.TryStar: "`try`/`except*` statements are not supported",
}


def check_supported(node: gast.AST, filename: str, function: str) -> None:
    """Raise ConversionError for the first unsupported construct under `node`.

    Class bodies nested in the function are skipped: they are left as plain
    Python and never converted.
    """
    stack = [node]
    while stack:
        n = stack.pop()
        for kind, message in _UNSUPPORTED.items():
            if isinstance(n, kind):
                raise ConversionError(
                    f"autograph cannot convert {function}: {message}",
                    filename, getattr(n, "lineno", None), function)
        if isinstance(n, gast.ClassDef):
            continue
        stack.extend(gast.iter_child_nodes(n))
