"""Turning Python and NumPy values into typed arrays, with TensorFlow's rules.

A Python `int` alone becomes int32 (int64 if it does not fit), a `float`
float32, a `complex` complex128 (TensorFlow's default), a `bool` bool; lists
follow the same rules; NumPy arrays and NumPy scalars keep their dtype. Inside an
op, a Python number is *weak*: it adopts
the dtype of the tensor it meets (`autograph.tracer.tracing.weak.unify_operands`:
adopting is a cast for the traced placeholders that stand in for numbers, so it
lives above the IR core).
"""
from __future__ import annotations

import sys

import numpy as np

from .types import DType, as_dtype, bool_, complex128, float32, int32, int64, string

_INT32 = np.iinfo(np.int32)
_INT64 = np.iinfo(np.int64)


def is_python_number(x) -> bool:
    """True for Python bool/int/float/complex (not NumPy scalars): the weak values."""
    return type(x) in (bool, int, float, complex)


def default_dtype_of_python(value) -> DType:
    """The dtype a Python value gets on its own (int32/float32/bool/string)."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        if not _INT64.min <= value <= _INT64.max:
            raise TypeError(f"the integer {value} does not fit in int64")
        return int32 if _INT32.min <= value <= _INT32.max else int64
    if isinstance(value, float):
        return float32
    if isinstance(value, complex):
        return complex128
    if isinstance(value, (str, bytes)):
        return string
    try:
        arr = np.asarray(value)
    except OverflowError:
        arr = np.asarray(value, dtype=object)
    if arr.dtype.kind in "fuO" and isinstance(value, (list, tuple)):
        # NumPy turns ints past int64 into uint64, float64 or objects: refuse
        # them rather than wrap or round (`[2**63, -1]` is not a float tensor).
        _refuse_big_ints(value)
    return _default_dtype_of_array(arr)


def _refuse_big_ints(value) -> None:
    """TypeError for the first Python int of the nest `value` outside int64."""
    for v in value:
        if isinstance(v, (list, tuple)):
            _refuse_big_ints(v)
        elif type(v) is int and not _INT64.min <= v <= _INT64.max:
            raise TypeError(f"the integer {v} does not fit in int64")


def _default_dtype_of_array(arr: np.ndarray) -> DType:
    kind = arr.dtype.kind
    if kind == "b":
        return bool_
    if kind in "iu":
        if arr.size == 0 or (arr.min() >= _INT32.min and arr.max() <= _INT32.max):
            return int32
        return int64
    if kind == "f":
        return float32
    if kind == "c":
        return complex128
    if kind in "USO":
        return string
    raise TypeError(f"cannot convert a value of NumPy kind {arr.dtype} to a tensor")


def to_numpy(value, dtype: DType = None) -> np.ndarray:
    """`value` (eager tensor, array, NumPy scalar, Python value or nest of
    numbers) as a NumPy array of an autograph dtype.

    With `dtype`, the value is converted to it; a Python number that does not
    fit (or a float for an integer dtype) raises TypeError.
    """
    if value is None:   # NumPy would make an object array of it, read as a string tensor
        raise TypeError(f"expected a tensor{'' if dtype is None else ' of dtype ' + dtype.name}, got None")
    arr = getattr(value, "_array", None)
    if arr is None:
        if isinstance(value, np.ndarray):
            if type(value) is not np.ndarray:
                refuse_masked(value)   # np.asarray would drop the mask
            arr = value
        elif isinstance(value, np.generic):
            arr = np.asarray(value)
        elif is_python_number(value) or isinstance(value, (list, tuple, str, bytes)):
            if dtype is not None:
                return python_to_dtype(value, dtype)
            d = default_dtype_of_python(value)
            if d is string:   # object elements: NumPy's fixed-width strings drop trailing NULs
                return _string_array(np.array(value, dtype=object))
            return np.asarray(value).astype(d.np_dtype)
        else:
            arr = np.asarray(value)
    d = as_dtype(arr.dtype)
    if dtype is not None and d is not dtype:
        raise TypeError(f"expected a tensor of dtype {dtype.name}, got {d.name}; use ag.cast to convert it")
    if d is string and arr.dtype != object:
        arr = _string_array(arr)
    elif arr.dtype != d.np_dtype:
        arr = arr.astype(d.np_dtype)   # another byte order (`>f8`): the same values, native
    return arr


def _string_array(arr: np.ndarray) -> np.ndarray:
    """An object array of `bytes` (str elements UTF-8 encoded): strings are
    stored as bytes, as in TensorFlow, also in traced constants."""
    out = arr.astype(object)
    for i, v in np.ndenumerate(out):
        if isinstance(v, str):
            out[i] = v.encode("utf-8")
    return out


def python_to_dtype(value, dtype: DType, op: str = None) -> np.ndarray:
    """Convert a Python number (or nest of numbers) to `dtype`, refusing lossy casts."""
    where = f"{op}: " if op else ""
    if dtype is string:
        out = _string_array(np.array(value, dtype=object))
        for v in out.flat:
            if not isinstance(v, bytes):
                raise TypeError(f"{where}cannot use the {type(v).__name__} {v!r} with a tensor of "
                                f"dtype string")
        return out
    arr = np.asarray(value)
    kind = arr.dtype.kind
    if dtype.is_bool and kind != "b":
        raise TypeError(f"{where}expected a bool value, got {value!r}")
    if kind == "c" and not dtype.is_complex:
        to = dtype.complex_dtype.name if dtype.is_floating else "complex128"
        raise TypeError(f"{where}cannot use the complex {value!r} with a tensor of dtype {dtype.name}; "
                        f"use ag.cast(x, ag.{to}) to convert the tensor first")
    if dtype.is_integer:
        if kind == "f":
            raise TypeError(f"{where}cannot use the float {value!r} with a tensor of dtype {dtype.name}; "
                            f"use ag.cast(x, ag.float64) to convert the tensor to a float dtype "
                            f"first (NumPy would have promoted to float64; autograph does not "
                            f"promote, TensorFlow's rule)")
        if kind == "b":
            raise TypeError(f"{where}cannot use the bool {value!r} with a tensor of dtype {dtype.name}")
        info = np.iinfo(dtype.np_dtype)
        if arr.size and (arr.min() < info.min or arr.max() > info.max):
            raise TypeError(f"{where}the value {value!r} does not fit in {dtype.name}")
    if (dtype.is_floating or dtype.is_complex) and kind == "b":
        raise TypeError(f"{where}cannot use the bool {value!r} with a tensor of dtype {dtype.name}")
    if kind in "USO":
        raise TypeError(f"{where}cannot convert {value!r} to {dtype.name}")
    return arr.astype(dtype.np_dtype)


def dtype_of(x) -> DType:
    """The dtype of a tensor-like operand (not of a weak Python number)."""
    d = getattr(x, "dtype", None)
    if isinstance(d, DType):
        return d
    if d is not None:
        return as_dtype(d)
    return default_dtype_of_python(x)


def is_weak(x) -> bool:
    """True for values whose dtype yields to the tensors they meet: Python
    numbers, and the placeholders that stand in for them while a loop body is
    traced to learn its types (`_ag_weak`)."""
    return is_python_number(x) or getattr(x, "_ag_weak", False)


def refuse_masked(value, name: str = "") -> None:
    """TypeError if `value` is, or nests (in lists, tuples, dicts), a NumPy masked array.

    Compiled code reads an array's data; a masked array's mask would be
    silently ignored, so masked arrays are refused with a way out.
    """
    masked = sys.modules.get("numpy.ma")   # not imported: no masked array can exist
    path = None if masked is None else _find_masked(value, masked.MaskedArray, name)
    if path is not None:
        where = f"argument '{path}'" if name else f"the value{path}"
        raise TypeError(f"{where} is a NumPy masked array (numpy.ma.MaskedArray); autograph does "
                        "not support masks, and its data would be used with the mask ignored. Pass "
                        "`a.filled(value)` to replace the masked elements, or the data and the mask "
                        "(`a.data`, `np.ma.getmaskarray(a)`) as two arrays")


def _find_masked(value, masked_type, path: str):
    """The path (`name[1]['b']`) of the first masked array in `value`, or None."""
    if isinstance(value, np.ndarray):
        return path if isinstance(value, masked_type) else None
    if isinstance(value, (list, tuple)):
        items = enumerate(value)
    elif isinstance(value, dict):
        items = value.items()
    else:
        return None
    for k, v in items:
        found = _find_masked(v, masked_type, f"{path}[{k!r}]")
        if found is not None:
            return found
    return None
