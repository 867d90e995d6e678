"""`converted_call`: how converted code calls anything.

Decides, per callee, whether to convert it first (user functions, lambdas,
methods and callable objects defined in user code) or call it as it is
(builtins, classes, NumPy, the standard library, autograph's own packages,
`ag.function` objects, functions marked `do_not_convert`, code that is
already converted). `range` and `len` go to their overloads.
"""
from __future__ import annotations

import builtins
import functools
import inspect
import linecache
import os
import sysconfig
import types
import weakref

from .py_builtins import len_, range_

__all__ = ["converted_call", "should_convert"]

# Top-level packages whose functions are never converted (besides everything
# installed in the standard library or site-packages directories).
_NEVER_CONVERT = frozenset({
    "autograph", "numpy", "gast", "llvmlite", "scipy",
    "pytest", "_pytest", "pluggy", "hypothesis",
})

_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR

# The standard library and installed packages: not user code. Decided by file
# location, not module name, so a user's own `test.py` or `code.py` converts.
_LIBRARY_DIRS = tuple(sorted({os.path.join(p, "") for p in (
    sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")) if p}))

# function -> bool; weak so user functions can die.
_DECISIONS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _impl():
    from .. import impl
    return impl


def _decide(func: types.FunctionType) -> bool:
    impl = _impl()
    if impl.is_converted(func) or impl.is_do_not_convert(func):
        return False
    if getattr(func, "_autograph_polymorphic", False) is True:
        return False
    module = (getattr(func, "__module__", None) or "").split(".")[0]
    if module in _NEVER_CONVERT:
        return False
    code = func.__code__
    if code.co_flags & _GENERATOR_FLAGS:
        return False  # generators/coroutines run as Python (TF does the same)
    filename = code.co_filename
    if _LIBRARY_DIRS and filename.startswith(_LIBRARY_DIRS):
        return False  # the standard library and installed packages are not user code
    if filename.startswith("<") and not linecache.getlines(filename):
        return False  # no source (exec, REPL): nothing to convert
    return True


def should_convert(func) -> bool:
    """Whether converted code should convert plain function `func` before calling it."""
    try:
        return _DECISIONS[func]
    except (KeyError, TypeError):
        pass
    decision = _decide(func)
    try:
        _DECISIONS[func] = decision
    except TypeError:
        pass
    return decision


def converted_call(f, args, kwargs=None):
    """Call `f(*args, **kwargs)` from converted code, converting `f` when it is user code."""
    if kwargs is None:
        kwargs = {}
    if f is builtins.range:
        return range_(*args, **kwargs)
    if f is builtins.len:
        return len_(*args, **kwargs)
    if isinstance(f, types.FunctionType):
        if should_convert(f):
            f = _impl().convert(f)
        return f(*args, **kwargs)
    if isinstance(f, types.MethodType):
        func = f.__func__
        if isinstance(func, types.FunctionType) and should_convert(func):
            return _impl().convert(func)(f.__self__, *args, **kwargs)
        return f(*args, **kwargs)
    if isinstance(f, functools.partial):
        return converted_call(f.func, tuple(f.args) + tuple(args), {**f.keywords, **kwargs})
    if isinstance(f, type) or getattr(f, "_autograph_polymorphic", False) is True:
        return f(*args, **kwargs)
    call = getattr(type(f), "__call__", None)
    if isinstance(call, types.FunctionType) and should_convert(call):
        # A callable object of a user class: convert its __call__.
        return _impl().convert(call)(f, *args, **kwargs)
    return f(*args, **kwargs)
