"""Weak values: Python numbers, and the placeholders that stand in for them
while a loop body is traced to learn its types.

Inside an op a weak value adopts the dtype of the tensors it meets
(TensorFlow's rule): `x_f32 * 2` multiplies by a float32 2. A Python number
becomes a NumPy scalar of that dtype; a weak placeholder (a traced tensor,
`WeakSymbolicTensor`) is cast to it with the `cast` op. The public op
functions (`autograph.tracer.api.common.prepare`), `cond`/`while_loop` and
variables' assigns all unify through here.
"""
from __future__ import annotations

from typing import List, Sequence

import numpy as np

from ..core.convert import dtype_of, is_python_number, is_weak, python_to_dtype
from ..core.types import DType, bool_, complex128, float32, int32, int64
from ..ops._common import mixed_dtypes_message
from .symbolic import bind

__all__ = ["unify_operands", "adopt_dtype"]

_INT32 = np.iinfo(np.int32)


def unify_operands(op: str, operands: Sequence) -> List:
    """Give weak values (see `autograph.tracer.core.convert.is_weak`) the dtype
    of the tensors they meet.

    All non-weak operands must share one dtype (TypeError naming the op and
    both dtypes otherwise). Python numbers become NumPy 0-d arrays of that
    dtype; when every operand is weak, the usual defaults apply (float32 if
    any is a float, else int32, or bool when all are bools; int64 for a Python
    int beyond int32). Weak placeholders adopt the dtype by a cast.
    """
    strong = [dtype_of(o) for o in operands if not is_weak(o)]
    if strong:
        first = strong[0]
        for d in strong[1:]:
            if d is not first:
                raise TypeError(mixed_dtypes_message(op, first, d))
        target = first
    else:
        weak = [o for o in operands if is_weak(o)]
        kinds = [_weak_kind(o) for o in weak]
        if "complex" in kinds:
            target = complex128
        elif "float" in kinds:
            target = float32
        elif all(k == "bool" for k in kinds):
            target = bool_
        else:
            target = int32
            if any(is_python_number(o) and not (_INT32.min <= int(o) <= _INT32.max) for o in weak):
                target = int64
    return [adopt_dtype(o, target, op) if is_weak(o) else o for o in operands]


def _weak_kind(x) -> str:
    if is_python_number(x):
        if isinstance(x, bool):
            return "bool"
        return {float: "float", complex: "complex"}.get(type(x), "int")
    d = x.dtype
    if d.is_bool:
        return "bool"
    return "float" if d.is_floating else ("complex" if d.is_complex else "int")


def adopt_dtype(x, target: DType, op: str):
    """The weak value `x` as a value of dtype `target`: a NumPy scalar for a
    Python number (TypeError when it does not fit), the `cast` of a weak
    placeholder (TypeError when its kind cannot take that dtype: a float
    value for an int tensor, a number for a bool one)."""
    if is_python_number(x):
        return python_to_dtype(x, target, op)
    kind = _weak_kind(x)
    if x.dtype is target:
        return x
    if (target.is_integer and kind != "int" or target.is_bool
            or (target.is_floating and kind in ("bool", "complex"))
            or (target.is_complex and kind == "bool")):
        article = "an" if target.name[0] in "aeiou" else "a"
        promoted = _numpy_promotion(kind, target)
        advice = (f"NumPy would have promoted to {promoted}, autograph does not promote "
                  f"(TensorFlow's rule): use ag.cast(x, ag.{promoted})" if promoted
                  else "use ag.cast to convert one of them")
        raise TypeError(f"{op}: cannot use a Python {kind} value with {article} {target.name} tensor; "
                        f"{advice}")
    cast = bind("cast", x, dtype=target)
    # Recorded so that a loop re-typing its body (retype.py) can tell this
    # cast from one the user wrote.
    x.builder.note_weak(cast.value, ("adopt", x))
    return cast


def _numpy_promotion(kind: str, target) -> str:
    """The dtype NumPy (2.x, NEP 50) gives a Python `kind` value combined with a `target`
    array, when it is not `target` itself; "" when NumPy keeps `target`."""
    if kind == "float" and (target.is_integer or target.is_bool):
        return "float64"
    if kind == "int" and target.is_bool:
        return "int64"
    if kind == "complex" and not target.is_complex:
        return "complex64" if target.name == "float32" else "complex128"
    return ""
