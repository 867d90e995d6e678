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
import sys
import sysconfig
import threading
import types
import weakref

from .. import conversion_marks
from .py_builtins import len_, range_
from . import lists, numpy_calls, vectorize

__all__ = ["converted_call", "should_convert", "UnboundedRecursionError"]

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


def _decide(func: types.FunctionType) -> bool:
    if conversion_marks.is_converted(func) or conversion_marks.is_do_not_convert(func):
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


class _Active(threading.local):
    """Per thread: how many calls of each user function (by code object) are
    running in converted code, and, for those that called themselves, whether
    a recursive call got a traced argument."""

    def __init__(self):
        self.depth: dict = {}
        self.recursed: dict = {}
        self.total = 0   # converted calls running in this thread, all functions together


_ACTIVE = _Active()


@functools.lru_cache(maxsize=None)
def _max_nesting() -> int:
    """How many converted calls may nest in one thread before the C stack could
    overflow. Each takes about 1 KiB of C stack (a segfault near 7,000 levels with
    8 MiB); allow one per 4 KiB, for callees heavier than the measured one. Python's
    own recursion limit (1000 by default) stops recursion long before this; the cap
    matters when a user raises that limit (a crash otherwise)."""
    size = 8 << 20
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
        if 0 < soft != resource.RLIM_INFINITY:
            size = soft
    except (ImportError, OSError, ValueError):
        pass
    thread = threading.stack_size()   # set by the program for threads it starts later
    if thread:
        size = min(size, thread)
    return max(size // 4096, 256)


def _any_traced(args, kwargs) -> bool:
    from ._tracer import is_traced
    return any(is_traced(a) for a in args) or any(is_traced(v) for v in kwargs.values())


def _call_converted(func: types.FunctionType, converted, args, kwargs):
    """Call the converted `func`; a recursion that hits the limit becomes an error naming it.

    Recursion on Python values runs as in Python. A recursive call inside an
    `if` on a traced tensor traces both branches, and so recurses until the
    interpreter's limit; the RecursionError is replaced, where the recursion
    started (the outermost call, with stack to spare), by one naming `func`.
    """
    code = func.__code__
    depth = _ACTIVE.depth.get(code, 0)
    if _ACTIVE.total >= _max_nesting():
        raise _too_deep(func, _ACTIVE.recursed.get(code, False), stack=True)
    _ACTIVE.depth[code] = depth + 1
    _ACTIVE.total += 1
    if depth:
        _ACTIVE.recursed[code] = _ACTIVE.recursed.get(code, False) or _any_traced(args, kwargs)
    try:
        return converted(*args, **kwargs)
    except RecursionError as e:
        if depth or code not in _ACTIVE.recursed or isinstance(e, UnboundedRecursionError):
            raise
        raise _too_deep(func, _ACTIVE.recursed[code]) from None
    finally:
        _ACTIVE.total -= 1
        if depth:
            _ACTIVE.depth[code] = depth
        else:
            del _ACTIVE.depth[code]
            _ACTIVE.recursed.pop(code, None)


class UnboundedRecursionError(RecursionError):
    """A user function called itself until Python's recursion limit in converted code."""


def _too_deep(func, on_traced: bool, stack: bool = False) -> UnboundedRecursionError:
    from ._tracer import located
    name = getattr(func, "__qualname__", None) or func.__name__
    limit = sys.getrecursionlimit()
    if stack:
        text = (f"'{name}': converted calls nest {_max_nesting()} deep in this thread, the most "
                f"the C stack can hold safely (Python's recursion limit, {limit}, was raised past "
                f"it; going deeper would crash the process). "
                + ("It calls itself with traced tensor arguments, so the recursion never reaches "
                   "its base case: write it as a loop (`while`, or `for` over `ag.range(n)`)"
                   if on_traced else "Write the recursion as a loop"))
    elif on_traced:
        text = (f"'{name}' calls itself without end while tracing: it calls itself with "
                f"traced tensor arguments, and the recursion reached Python's recursion "
                f"limit ({limit}). Each call is traced once and inlined into the compiled "
                f"function: a recursive call inside an `if` on a traced tensor is traced "
                f"whatever the condition will be when the code runs, so the recursion never "
                f"reaches its base case. Recursion must stop on Python values; write a "
                f"recursion on tensor values as a loop (`while`, or `for` over `ag.range(n)`)")
    else:
        text = (f"'{name}' calls itself more deeply than Python's recursion limit ({limit}) "
                f"allows in converted code (a converted call takes several interpreter "
                f"frames). Write it as a loop, or raise the limit with "
                f"sys.setrecursionlimit")
    return located(UnboundedRecursionError(text))


@functools.lru_cache(maxsize=None)
def _ag_stack():
    from autograph.tracer.api import toplevel
    return toplevel.stack


def _overload(f):
    """The converted-code overload of builtin or `math` function `f`, or None.

    The overloads stage ag ops when an argument is traced and call `f`
    itself otherwise (numeric_builtins, math_functions, iteration, numpy_scalars).
    """
    try:
        return _overloads().get(f)
    except TypeError:   # an unhashable callable type
        return None


@functools.lru_cache(maxsize=None)
def _overloads() -> dict:
    from .iteration import OVERLOADS as iteration
    from .math_functions import OVERLOADS as math_functions
    from .numeric_builtins import OVERLOADS as numeric
    from .numpy_scalars import OVERLOADS as numpy_scalars
    from .py_builtins import OVERLOADS as py_builtins
    return {**iteration, **math_functions, **numeric, **numpy_scalars, **py_builtins}


def _numba_python_function(f):
    """The Python function of a Numba dispatcher (`@njit`, `@jit`, `@vectorize`d), or None."""
    if not type(f).__module__.startswith("numba"):
        return None
    py_func = getattr(f, "py_func", None)
    return py_func if isinstance(py_func, types.FunctionType) else None


def converted_call(f, args, kwargs=None):
    """Call `f(*args, **kwargs)` from converted code, converting `f` when it is user code."""
    if kwargs is None:
        kwargs = {}
    if f is builtins.range:
        return range_(*args, **kwargs)
    if f is builtins.len:
        return len_(*args, **kwargs)
    if id(f) in lists.STACKERS or f is _ag_stack():   # np.array(lst) of a list filled in a loop
        stacked = lists.stack_call(f, args, kwargs)
        if stacked is not None:
            return stacked
    if id(f) in numpy_calls.ROUTED:   # np.zeros(n), np.arange(n), ... with traced sizes
        return numpy_calls.call(f, args, kwargs)
    if isinstance(f, (types.BuiltinFunctionType, type)):
        overload = _overload(f)
        if overload is not None:
            return overload(*args, **kwargs)
    numba = sys.modules.get("numba")
    if numba is not None:
        if f is getattr(numba, "prange", None):   # Numba's parallel range: a range here
            return range_(*args, **kwargs)
        py_func = _numba_python_function(f)
        if py_func is not None:   # an @njit helper: convert the Python function it wraps
            return converted_call(py_func, args, kwargs)
    if isinstance(f, types.FunctionType):
        if should_convert(f):
            return _call_converted(f, conversion_marks.convert(f), args, kwargs)
        return f(*args, **kwargs)
    if isinstance(f, types.MethodType):
        func = f.__func__
        if isinstance(func, types.FunctionType) and should_convert(func):
            return _call_converted(func, conversion_marks.convert(func), (f.__self__,) + tuple(args),
                                   kwargs)
        return f(*args, **kwargs)
    if isinstance(f, functools.partial):
        return converted_call(f.func, tuple(f.args) + tuple(args), {**f.keywords, **kwargs})
    if vectorize.is_vectorized(f):   # np.vectorize(g)(x): g converted, in a compiled loop
        return vectorize.call_vectorized(f, args, kwargs, converted_call)
    if getattr(f, "_autograph_polymorphic", False) is True:
        inner = getattr(f, "python_function", None)
        if isinstance(inner, types.FunctionType):   # an ag.function calling itself
            return _call_converted(inner, f, args, kwargs)
        return f(*args, **kwargs)
    if isinstance(f, type):
        return f(*args, **kwargs)
    call = getattr(type(f), "__call__", None)
    if isinstance(call, types.FunctionType) and should_convert(call):
        # A callable object of a user class: convert its __call__.
        return conversion_marks.convert(call)(f, *args, **kwargs)
    return f(*args, **kwargs)


conversion_marks.install("converted_call", converted_call)
