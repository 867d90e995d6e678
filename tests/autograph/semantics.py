"""Running one program as plain Python and compiled, and comparing them.

`outcome(fn, *args)` runs `fn` and records what happened: its value (nested
structures of NumPy arrays), what it printed, and the exception it raised
(type and message). `compiled_outcome` does the same for `ag.function(fn)`.
`assert_same_as_python(fn, *args)` requires both to agree: equal values,
equal printed output, the same exception type. Inputs are passed as eager
tensors to both (plain Python then computes on eager tensors, as
TensorFlow's eager mode does).
"""
from __future__ import annotations

import contextlib
import io
from typing import Any, NamedTuple, Optional

import numpy as np

import autograph as ag


class Outcome(NamedTuple):
    value: Any
    printed: str
    error: Optional[BaseException]


def _plain(x):
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):   # a namedtuple
        return type(x)(*(_plain(v) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    if hasattr(x, "numpy") or isinstance(x, (np.ndarray, np.generic, int, float, bool)):
        return np.asarray(x)
    return x


def _run(fn, args) -> Outcome:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            value = fn(*args)
        except Exception as e:   # noqa: BLE001 - the outcome records it
            return Outcome(None, out.getvalue(), e)
    return Outcome(_plain(value), out.getvalue(), None)


def outcome(fn, *args) -> Outcome:
    """What plain Python does with `fn(*args)`."""
    return _run(fn, args)


def compiled_outcome(fn, *args, **options) -> Outcome:
    """What `ag.function(fn, **options)(*args)` does (a fresh trace)."""
    return _run(ag.function(fn, **options), args)


def _equal(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, type(a)) and len(a) == len(b) and all(map(_equal, a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and np.allclose(a, b, equal_nan=True)
    return a == b


def assert_same_as_python(fn, *args, printed=True, **options) -> Outcome:
    """Run `fn(*args)` plainly and compiled; require the same value, output
    (unless `printed=False`) and exception type. Returns the compiled outcome."""
    want = outcome(fn, *args)
    got = compiled_outcome(fn, *args, **options)
    if want.error is not None or got.error is not None:
        assert type(got.error) is type(want.error), (
            f"Python: {want.error!r}\ncompiled: {got.error!r}")
    else:
        assert _equal(want.value, got.value), f"Python: {want.value!r}\ncompiled: {got.value!r}"
    if printed:
        assert got.printed == want.printed, f"Python printed {want.printed!r}, compiled {got.printed!r}"
    return got


def line_of(fn, text: str) -> int:
    """The absolute line number of the first line of `fn`'s source containing `text`."""
    import inspect
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(f"{text!r} not in the source of {fn.__name__}")
