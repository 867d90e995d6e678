"""The `print` op: writes its operands' current values to `sys.stdout`.

    print[format=(part, ...), sep=str, end=str](v_0, ..., v_{n-1})   -> no results

`format` has one entry per printed item: a str is text fixed at trace time
(a Python value, already formatted), `None` stands for the next operand.
Tensors are formatted as NumPy's `str` does; items are joined with `sep` and
followed by `end`. The op is stateful: it runs on every execution and is never
folded or removed. `sys.stdout` is looked up when the op runs, so redirections
(pytest's capsys, contextlib.redirect_stdout) see the output.
"""
from __future__ import annotations

import sys
from typing import Sequence

import numpy as np

from ..core.registry import declare


def format_value(arr: np.ndarray) -> str:
    """A tensor's text: NumPy's `str` of the array (a 0-d array prints as its scalar)."""
    arr = np.asarray(arr)
    if arr.dtype == object:   # string tensors: bytes shown as text where they decode
        arr = np.vectorize(_text, otypes=[object])(arr) if arr.size else arr
    return str(arr)


def _text(v):
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return v
    return v


def render(fmt: Sequence, values: Sequence[np.ndarray], sep: str, end: str) -> str:
    """The text one execution prints."""
    it = iter(values)
    items = [format_value(next(it)) if part is None else part for part in fmt]
    return sep.join(items) + end


def write(text: str) -> None:
    """Write to the *current* sys.stdout (so redirections see it)."""
    out = sys.stdout
    if out is not None:     # None under pythonw: print nothing, as print() does
        out.write(text)


def check_attrs(attrs, n_operands: int) -> None:
    fmt = attrs.get("format")
    if not isinstance(fmt, tuple) or not all(p is None or isinstance(p, str) for p in fmt):
        raise ValueError(f"print: the format attribute must be a tuple of str and None, got {fmt!r}")
    holes = sum(1 for p in fmt if p is None)
    if holes != n_operands:
        raise ValueError(f"print: the format has {holes} placeholders for {n_operands} operands")
    for k in ("sep", "end"):
        if not isinstance(attrs.get(k), str):
            raise ValueError(f"print: the {k} attribute must be a str, got {attrs.get(k)!r}")


def _print_rule(types, attrs, consts):
    check_attrs(attrs, len(types))
    return []


def _print_reference(*values, format, sep, end):
    write(render(format, values, sep, end))
    return ()


declare("print", _print_rule, _print_reference, stateful=True,
        doc="print[format, sep, end](values...) -> (): writes the values to sys.stdout",
        public=("print",))
