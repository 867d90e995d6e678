"""`strided_slice`: NumPy basic indexing (ints, slices, newaxis, ellipsis) as one op.

Operands: x, then one int32/int64 scalar per index part that needs one. The
`spec` attribute has one string per index part:

    "i"     an integer index (one operand); negative wraps; out of range is an
            InvalidArgumentError "index 5 is out of bounds for axis 0 with size 3"
    "n"     newaxis (inserts a dimension of 1)
    "e"     ellipsis (at most one; missing trailing parts act as one)
    "sABC"  a slice; A, B, C in {0, 1} say whether start, stop and step
            operands are present (consumed in that order); absent parts are
            Python's defaults; bounds clamp as in Python; step 0 is an error
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.registry import declare
from ..core.types import TensorType
from ._common import fmt_shape


def spec_operand_count(spec: Sequence[str]) -> int:
    """How many index operands `spec` consumes."""
    return sum(1 if p == "i" else p.count("1") if p[:1] == "s" else 0 for p in spec)


def check_spec(spec) -> None:
    """ValueError unless `spec` is a well-formed tuple of index parts."""
    if not isinstance(spec, tuple):
        raise ValueError(f"strided_slice: the spec attribute must be a tuple of str, got {spec!r}")
    for p in spec:
        ok = p in ("i", "n", "e") or (
            isinstance(p, str) and len(p) == 4 and p[0] == "s" and set(p[1:]) <= {"0", "1"})
        if not ok:
            raise ValueError(f"strided_slice: bad index part {p!r} in spec {spec!r}; expected "
                             f"'i', 'n', 'e' or 's' followed by three 0/1 flags")
    if spec.count("e") > 1:
        raise ValueError("strided_slice: an index can only have a single ellipsis ('...')")


def _consumed(spec) -> int:
    return sum(1 for p in spec if p == "i" or p[0] == "s")


def out_of_bounds(index: int, axis: int, size: int) -> InvalidArgumentError:
    """The error for an integer index outside [-size, size)."""
    return InvalidArgumentError(f"index {index} is out of bounds for axis {axis} with size {size}")


def _slice_parts(part: str, values: List, pos: int) -> Tuple[list, int]:
    """Start, stop, step (None where absent) and the next operand position."""
    out = []
    for flag in part[1:]:
        if flag == "1":
            out.append(values[pos])
            pos += 1
        else:
            out.append(None)
    return out, pos


def _strided_slice_rule(types, attrs, consts):
    spec = attrs.get("spec")
    check_spec(spec)
    x, idx = types[0], types[1:]
    if len(idx) != spec_operand_count(spec):
        raise ValueError(f"strided_slice: spec {spec!r} needs {spec_operand_count(spec)} index "
                         f"operands, got {len(idx)}")
    for t in idx:
        if not (t.dtype.is_integer and t.shape in ((), None)):
            raise TypeError(f"strided_slice: expected int32 or int64 scalar indices, got {t}")
    if x.shape is None:
        return [TensorType(x.dtype, None)]
    rank, consumed = len(x.shape), _consumed(spec)
    if consumed > rank:
        raise ValueError(f"strided_slice: too many indices for a tensor of shape "
                         f"{fmt_shape(x.shape)}: {consumed} were given")
    values = [None if c is None else int(c) for c in consts[1:]]
    out: List[Optional[int]] = []
    axis = pos = 0
    for p in spec:
        if p == "e":
            n = rank - consumed
            out.extend(x.shape[axis:axis + n])
            axis += n
        elif p == "n":
            out.append(1)
        elif p == "i":
            i, size = values[pos], x.shape[axis]
            pos += 1
            if i is not None and size is not None and not -size <= i < size:
                raise out_of_bounds(i, axis, size)
            axis += 1
        else:
            (start, stop, step), pos2 = _slice_parts(p, values, pos)
            known = all(v is not None for v, f in zip((start, stop, step), p[1:]) if f == "1")
            if step == 0 and p[3] == "1":
                raise InvalidArgumentError("strided_slice: slice step cannot be zero")
            size = x.shape[axis]
            out.append(len(range(*slice(start, stop, step).indices(size)))
                       if known and size is not None else None)
            pos, axis = pos2, axis + 1
    out.extend(x.shape[axis:])
    return [TensorType(x.dtype, tuple(out))]


def numpy_key(x: np.ndarray, idx: Sequence, spec, op: str = "strided_slice") -> tuple:
    """The NumPy basic-indexing key for `spec` and index values `idx` on `x`.

    Raises InvalidArgumentError (naming `op`) like the compiled code does:
    integer index out of range, zero slice step, too many indices.
    """
    values = [int(v) for v in idx]
    consumed = _consumed(spec)
    if consumed > x.ndim:
        raise InvalidArgumentError(f"{op}: too many indices for a tensor of shape "
                                   f"{x.shape}: {consumed} were given")
    key, axis, pos = [], 0, 0
    for p in spec:
        if p == "e":
            key.append(Ellipsis)
            axis += x.ndim - consumed
        elif p == "n":
            key.append(None)
        elif p == "i":
            i, size = values[pos], x.shape[axis]
            pos += 1
            if not -size <= i < size:
                raise out_of_bounds(i, axis, size)
            key.append(i)
            axis += 1
        else:
            (start, stop, step), pos = _slice_parts(p, values, pos)
            if step == 0:
                raise InvalidArgumentError(f"{op}: slice step cannot be zero")
            key.append(slice(start, stop, step))
            axis += 1
    return tuple(key)


def _strided_slice_reference(x, *idx, spec):
    # A copy: basic indexing gives a view, and references must return fresh arrays.
    # (dtype=x.dtype: an element of a string tensor is a bytes object, which
    # np.array alone would make a fixed-width 'S' array, dropping trailing NULs)
    return np.array(x[numpy_key(x, idx, spec)], dtype=x.dtype, copy=True)


declare("strided_slice", _strided_slice_rule, _strided_slice_reference,
        doc="strided_slice[spec=(part, ...)](x, indices...) -> NumPy basic indexing of x")
