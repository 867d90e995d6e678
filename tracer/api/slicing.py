"""`getitem`: `x[key]` with NumPy basic indexing, as one `strided_slice` op;
`setitem`: the functional update `x[key] = value`, as one `set_item` op.

A key is an int, an int scalar tensor (traced or eager), a slice whose parts
are ints / int scalar tensors / None, `None` (newaxis), `...`, or a tuple of
these. Boolean masks (masks.py) and integer-array ("fancy") indices
(fancy_indexing.py) are NumPy's advanced indexing, handled on top of this.
"""
from __future__ import annotations

import numbers
from typing import List, Tuple

import numpy as np

from .common import (as_operand, index_operand, is_tensor_like, locate_errors, prepare,
    python_int_operand)
from ..core.convert import is_python_number, is_weak, python_to_dtype
from ..tracing.symbolic import bind
from ..core.types import DType, as_dtype
from .masks import mask_of, masked_getitem, masked_setitem
from .fancy_indexing import advanced_getitem, advanced_setitem, has_advanced

__all__ = ["getitem", "setitem", "index_spec"]

_INT64 = np.iinfo(np.int64)
_NOT_SUPPORTED = ("getitem: indexing with {what} is not supported yet; index with ints, slices, "
                  "None and ...{hint}")


def _index_operand(part, where: str):
    """An int-like index part as an operand, or raise TypeError."""
    if isinstance(part, (bool, np.bool_)):
        raise TypeError(_NOT_SUPPORTED.format(what=f"the bool {part!r}",
                                              hint=" (a bool index would be a mask)"))
    if isinstance(part, numbers.Integral):
        if isinstance(part, np.integer):
            return index_operand(np.asarray(part))   # int32/int64 NumPy scalars keep their dtype
        if not _INT64.min <= part <= _INT64.max:
            if where:   # a slice bound: Python clamps it to the axis, and so does int64's range
                return python_int_operand(min(max(part, _INT64.min), _INT64.max))
            from ..core.errors import InvalidArgumentError
            raise InvalidArgumentError(f"getitem: index {part} is out of bounds (it does not fit in "
                                       f"int64, and no axis is that long)")
        return python_int_operand(part)
    if is_tensor_like(part) or isinstance(part, np.ndarray):
        d = part.dtype if isinstance(part.dtype, DType) else as_dtype(part.dtype)
        if d.is_integer and part.shape == ():
            return index_operand(part if is_tensor_like(part) else np.asarray(part))
        if d.is_bool:
            what = "a bool tensor (mask)"
            hint = "; use ag.where for masked selection"
        else:
            what = f"a {d.name} tensor of shape {part.shape}"
            hint = "; use ag.gather to pick elements by index" if d.is_integer else ""
        raise TypeError(_NOT_SUPPORTED.format(what=what + where, hint=hint))
    if isinstance(part, (list, tuple)):
        raise TypeError(_NOT_SUPPORTED.format(
            what=f"a list{where} ({part!r})", hint="; use ag.gather to pick elements by index"))
    raise TypeError(f"getitem: expected an int, slice, None, ... or int scalar tensor as an "
                    f"index{where}, got {type(part).__name__} {part!r}")


def index_spec(key) -> Tuple[Tuple[str, ...], List]:
    """The `strided_slice` spec and index operands for an indexing key."""
    parts = key if isinstance(key, tuple) else (key,)
    spec, operands = [], []
    for part in parts:
        if part is None:
            spec.append("n")
        elif part is Ellipsis:
            if "e" in spec:
                raise IndexError("getitem: an index can only have a single ellipsis ('...')")
            spec.append("e")
        elif isinstance(part, slice):
            flags = "s"
            for name, v in (("start", part.start), ("stop", part.stop), ("step", part.step)):
                if v is None:
                    flags += "0"
                else:
                    operands.append(_index_operand(v, f" as the slice {name}"))
                    flags += "1"
            spec.append(flags)
        else:
            operands.append(_index_operand(part, ""))
            spec.append("i")
    return tuple(spec), operands


@locate_errors
def getitem(x, key):
    """`x[key]` with NumPy basic indexing (see the module docstring).

    Negative indices count from the end; slices clamp as in Python; an
    integer index out of range raises InvalidArgumentError ("index 5 is out
    of bounds for axis 0 with size 3") — at trace time when the index and
    dimension are both known, else when the code runs.
    """
    from .shaping import gather_index   # integer array indices: x[idx], x[:, idx]
    mask = mask_of(key)
    if mask is not None:                # x[x > 0]: NumPy's boolean-mask selection
        return masked_getitem(x, mask)
    gathered = gather_index(x, key)
    if gathered is not None:
        return gathered
    if has_advanced(key):               # x[i, j], x[np.ix_(r, c)], x[1:, idx], ...
        return advanced_getitem(x, key)
    x = as_operand("getitem", x)
    spec, operands = index_spec(key)
    return bind("strided_slice", x, *operands, spec=spec)


@locate_errors
def setitem(x, key, value):
    """`x[key] = value` as a functional update: returns the updated tensor.

    `key` is indexed as in `getitem`; `value` is broadcast to the indexed
    region. Python numbers and lists take x's dtype (an error if they do not
    fit); a tensor of another dtype is a TypeError. `x` itself is never
    changed (the compiled code updates in place when nothing else sees it).
    """
    mask = mask_of(key)
    if mask is not None:                # x[x > 0] = v: where(mask, v, x)
        return masked_setitem(x, mask, value)
    if has_advanced(key):               # x[idx] = v: a scatter (fancy_indexing.py)
        return advanced_setitem(x, key, value)
    x = as_operand("item assignment", x)
    try:
        spec, operands = index_spec(key)
    except (TypeError, IndexError) as e:
        raise type(e)(str(e).replace("getitem:", "item assignment:", 1)) from None
    if is_python_number(value) or isinstance(value, (list, tuple)):
        dtype = x.dtype if isinstance(x.dtype, DType) else as_dtype(x.dtype)
        value = python_to_dtype(value, dtype, "item assignment")
    elif is_weak(value):
        value = prepare("item assignment", x, value)[1]
    else:
        value = as_operand("item assignment", value)
    return bind("set_item", x, value, *operands, spec=spec)
