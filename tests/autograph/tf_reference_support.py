"""Compare a function run compiled with the same function run plainly.

Support for the ports of TensorFlow's AutoGraph reference tests
(`test_tf_reference_*.py`). TensorFlow's harness runs `tf.function(f)(*args)`
and `f(*args)` (eagerly) and requires the same results, the same printed
output and, when one raises, the same exception type. Here the compiled side
is `ag.function(f)` and the plain side is `f` itself: ag ops work eagerly on
tensors, arrays and Python numbers, so `f` run directly is the reference.

`compiled(f)` keeps one `PolymorphicFunction` per Python function, so every
case of a function shares its traces (a new Python value still retraces, as
the contract's cache keys say; a tensor of a seen dtype and shape does not).
"""
from __future__ import annotations

import contextlib
import io
import warnings
from typing import Any, Callable, NamedTuple, Optional

import numpy as np

import autograph as ag
from autograph.tracer.core.logs import RetracingWarning

_COMPILED: dict = {}


class Run(NamedTuple):
    """What one call did: its result, what it printed, what it raised."""
    value: Any
    printed: str
    error: Optional[BaseException]


def compiled(fn: Callable) -> Callable:
    """`ag.function(fn)`, made once per function and reused."""
    key = id(fn)
    if key not in _COMPILED:
        _COMPILED[key] = (fn, ag.function(fn))   # keep fn alive: ids stay unique
    return _COMPILED[key][1]


def run_captured(fn: Callable, *args) -> Run:
    """Call `fn(*args)` with stdout captured; an exception is recorded, not raised."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        # Python values are part of the cache key, so the cases retrace on
        # purpose (as TensorFlow's do).
        warnings.simplefilter("ignore", RetracingWarning)
        try:
            value = fn(*args)
        except Exception as e:   # noqa: BLE001 - the Run records it
            return Run(None, out.getvalue(), e)
    return Run(value, out.getvalue(), None)


def _is_tensor(x) -> bool:
    return isinstance(x, (ag.Tensor, ag.Variable))


def deep_equal(left, right) -> bool:
    """Nested structures equal: tensors by value (and dtype when both are
    tensors), containers by kind, keys and items, anything else by `==`."""
    if _is_tensor(left) or _is_tensor(right) or isinstance(left, np.ndarray) \
            or isinstance(right, np.ndarray):
        if _is_tensor(left) and _is_tensor(right) and left.dtype != right.dtype:
            return False
        a, b = np.asarray(left), np.asarray(right)
        return a.shape == b.shape and bool(np.array_equal(a, b))
    if isinstance(left, dict) or isinstance(right, dict):
        return (isinstance(left, dict) and isinstance(right, dict)
                and left.keys() == right.keys()
                and all(deep_equal(left[k], right[k]) for k in left))
    if hasattr(left, "_fields") and hasattr(right, "_fields"):
        # Named tuples: a class made inside the function is a new class on
        # each run, so compare its name and fields rather than its identity.
        return (type(left).__name__ == type(right).__name__
                and left._fields == right._fields
                and all(deep_equal(a, b) for a, b in zip(left, right)))
    if isinstance(left, (list, tuple)) or isinstance(right, (list, tuple)):
        return (type(left) is type(right) and len(left) == len(right)
                and all(deep_equal(a, b) for a, b in zip(left, right)))
    if left is None or right is None:
        return left is right
    return bool(left == right)


def assert_matches_plain(fn: Callable, *args, fresh_args: Callable = None) -> Run:
    """Run `fn` compiled and plainly; require equal results and output.

    The compiled run must not raise (as TensorFlow's harness requires by
    default). `fresh_args`, when given, makes a new argument tuple for each
    run (for stateful inputs such as variables, which `fn` changes).
    Returns the compiled run.
    """
    got = run_captured(compiled(fn), *(fresh_args() if fresh_args else args))
    if got.error is not None:
        raise AssertionError(f"compiled {fn.__name__} raised {got.error!r}") from got.error
    want = run_captured(fn, *(fresh_args() if fresh_args else args))
    if want.error is not None:
        raise AssertionError(f"plain {fn.__name__} raised {want.error!r}") from want.error
    assert deep_equal(got.value, want.value), (
        f"{fn.__name__}{args!r}: compiled {got.value!r}, plain {want.value!r}")
    assert got.printed == want.printed, (
        f"{fn.__name__}: compiled printed {got.printed!r}, plain {want.printed!r}")
    return got


def line_of(fn: Callable, text: str) -> int:
    """The absolute line number of the first line of `fn`'s source holding `text`."""
    import inspect
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(f"{text!r} not in the source of {fn.__name__}")


def const(value, dtype=None):
    """`ag.constant(value, dtype)`: a case's argument as a tensor."""
    return ag.constant(value, dtype=dtype)


def as_list(x):
    """A result as nested Python lists (a tensor's or an array's values)."""
    return np.asarray(x).tolist()


def matches_with_values_and_tensors(fn: Callable, *args) -> None:
    """The plain run equals the compiled run with the Python values, and again with
    each Python number, bool or list argument made a tensor."""
    assert_matches_plain(fn, *args)
    assert_matches_plain(fn, *(const(a) if isinstance(a, (int, float, bool, list)) else a for a in args))
