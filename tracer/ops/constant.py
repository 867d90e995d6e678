"""The `constant` op: a value known at trace time, held as a read-only array."""
from __future__ import annotations

from ..core.registry import declare
from ..core.types import TensorType, as_dtype


def _constant_type(types, attrs, consts):
    value = attrs["value"]
    return [TensorType(as_dtype(value.dtype), value.shape)]


def _constant_reference(*, value):
    return value


declare("constant", _constant_type, _constant_reference,
        doc="constant[value=array]() -> the array; emitted for every non-traced operand")
