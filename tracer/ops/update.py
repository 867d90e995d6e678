"""Functional buffer updates: `set_item`, `grow`, and `check_values`.

    set_item[spec=(part, ...)](x, value, indices...) -> x with x[key] = value
        The index spec and operands are those of `strided_slice` (see
        indexing.py). The result has x's type; `value` (x's dtype) is
        broadcast to the indexed region's shape (extra leading dimensions of
        size 1 are dropped, as NumPy does). Integer indices out of range raise
        InvalidArgumentError "index 5 is out of bounds for axis 0 with size 3".
        It is a *functional* update: x itself is unchanged. The compiled code
        writes into x's buffer in place when nothing else sees the old value.

    grow(x, n) -> x with at least n rows
        x has rank >= 1. When n <= x.shape[0] the result equals x; otherwise
        it has max(n, 2 * x.shape[0]) rows (amortised doubling), the old rows
        first and zeros after. The leading dimension of the result is always
        unknown (None), so a loop can carry a growing buffer.

    check_values[message](pred, v0, v1, ...)  (no results)
        Like `check`, but the message may quote up to six run-time scalar
        values as {0}, {1}, ...: raises InvalidArgumentError(message
        formatted with the values) when pred is false.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.registry import declare
from ..core.types import TensorType, bool_
from ._common import expect_scalar, fmt_shape
from .slicing import _strided_slice_rule, check_spec, numpy_key

__all__ = ["assign_shape_error", "grown_rows", "BROADCAST_MSG", "LEADING_MSG", "MAX_CHECK_VALUES"]

MAX_CHECK_VALUES = 6


# ------------------------------------------------------------------ set_item


def _renamed(e: Exception) -> Exception:
    """An error of the strided_slice rule, re-worded for set_item."""
    msg = str(e).replace("strided_slice:", "set_item:")
    return type(e)(msg)


def _a(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def assign_shape_error(value_shape, region_shape) -> str:
    """The message for a value that does not broadcast to the indexed region."""
    return (f"set_item: cannot assign a value of shape {fmt_shape(value_shape)} to the indexed "
            f"region of shape {fmt_shape(region_shape)}")


def _check_assignable(value_shape, region_shape) -> None:
    """ValueError unless a value of `value_shape` broadcasts to `region_shape`
    (unknown dims are checked when the code runs)."""
    if value_shape is None or region_shape is None:
        return
    extra = len(value_shape) - len(region_shape)
    lead, tail = value_shape[:max(extra, 0)], value_shape[max(extra, 0):]
    if any(d is not None and d != 1 for d in lead):
        raise ValueError(assign_shape_error(value_shape, region_shape))
    for v, r in zip(reversed(tail), reversed(region_shape)):
        if v is None or r is None or v == 1 or v == r:
            continue
        raise ValueError(assign_shape_error(value_shape, region_shape))


def _set_item_rule(types, attrs, consts):
    spec = attrs.get("spec")
    try:
        check_spec(spec)
    except ValueError as e:
        raise _renamed(e) from None
    if len(types) < 2:
        raise ValueError(f"set_item: expected x, value and index operands, got {len(types)} operands")
    x, value, idx = types[0], types[1], list(types[2:])
    try:
        (region,) = _strided_slice_rule([x] + idx, attrs, [consts[0]] + list(consts[2:]))
    except (TypeError, ValueError) as e:
        raise _renamed(e) from None
    if value.dtype is not x.dtype:
        raise TypeError(f"set_item: cannot assign {_a(value.dtype.name)} value to "
                        f"{_a(x.dtype.name)} tensor; use ag.cast(value, ag.{x.dtype.name}) to "
                        f"convert it (NumPy would have cast it to {x.dtype.name} silently; "
                        f"autograph does not, TensorFlow's rule)")
    _check_assignable(value.shape, region.shape)
    return [x]


# Run-time messages (the compiled code gives the same ones; "{op}" is the op name).
BROADCAST_MSG = ("{op}: cannot assign a value whose dimension {0} has size {1} to an indexed "
                 "region whose dimension {0} has size {2}")
LEADING_MSG = ("{op}: cannot assign a value with a leading dimension of size {0} to an indexed "
               "region of rank {1}")


def _run_time_assign_error(value_shape, region_shape) -> Optional[str]:
    """The compiled code's message for a value that does not broadcast, or None."""
    extra = len(value_shape) - len(region_shape)
    for d in value_shape[:max(extra, 0)]:
        if d != 1:
            return LEADING_MSG.replace("{op}", "set_item").format(d, len(region_shape))
    tail = value_shape[max(extra, 0):]
    offset = len(region_shape) - len(tail)
    for a, d in enumerate(tail):
        r = region_shape[a + offset]
        if d != 1 and d != r:
            return BROADCAST_MSG.replace("{op}", "set_item").format(a + offset, d, r)
    return None


def _set_item_reference(x, value, *idx, spec):
    key = numpy_key(x, idx, spec, "set_item")
    out = np.array(x, copy=True)
    v = np.asarray(value)
    region_shape = out[key].shape
    msg = _run_time_assign_error(v.shape, region_shape)
    if msg is not None:
        raise InvalidArgumentError(msg)
    extra = v.ndim - len(region_shape)
    out[key] = v.reshape(v.shape[extra:]) if extra > 0 else v   # drop leading 1s
    return out


declare("set_item", _set_item_rule, _set_item_reference,
        doc="set_item[spec=(part, ...)](x, value, indices...) -> x with x[key] = value")


# ---------------------------------------------------------------------- grow


def _grow_rule(types, attrs, consts):
    if len(types) != 2:
        raise ValueError(f"grow: expected 2 operands (x, n), got {len(types)}")
    x, n = types
    if x.shape is not None and len(x.shape) == 0:
        raise ValueError("grow: expected a tensor of rank >= 1, got a scalar")
    if not n.dtype.is_integer:
        raise TypeError(f"grow: expected an int32 or int64 row count, got {n.dtype.name}")
    expect_scalar("grow", n, "the row count")
    shape = None if x.shape is None else (None,) + tuple(x.shape[1:])
    return [TensorType(x.dtype, shape)]


def grown_rows(cap: int, n: int) -> int:
    """The number of rows `grow` gives a buffer of `cap` rows asked for `n`."""
    return cap if n <= cap else max(n, 2 * cap)


def _grow_reference(x, n):
    cap = x.shape[0]
    rows = grown_rows(cap, int(n))
    out = np.zeros((rows,) + x.shape[1:], x.dtype)
    out[:cap] = x
    return out


declare("grow", _grow_rule, _grow_reference,
        doc="grow(x, n) -> x with at least n rows (doubling; new rows are zeros)")


# -------------------------------------------------------------- check_values


def _check_values_rule(types, attrs, consts):
    message = attrs.get("message")
    if not isinstance(message, str):
        raise ValueError("check_values: needs a string 'message' attribute")
    if not types:
        raise ValueError("check_values: expected a predicate operand")
    pred, values = types[0], types[1:]
    if pred.dtype is not bool_ or pred.shape not in ((), None):
        raise TypeError(f"check_values: the predicate must be a bool scalar, got {pred}")
    if len(values) > MAX_CHECK_VALUES:
        raise ValueError(f"check_values: at most {MAX_CHECK_VALUES} values, got {len(values)}")
    for t in values:
        if not (t.dtype.is_numeric and t.shape in ((), None)):
            raise TypeError(f"check_values: the values must be int or float scalars, got {t}")
    return []


def _check_values_reference(pred, *values, message):
    if not bool(pred):
        raise InvalidArgumentError(message.format(*(v[()] for v in map(np.asarray, values))))
    return ()


declare("check_values", _check_values_rule, _check_values_reference, stateful=True,
        doc="check_values[message](pred, values...): InvalidArgumentError quoting the values "
            "when pred is false")
