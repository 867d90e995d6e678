"""DTypes and tensor types: the type system shared by every stage.

A `DType` is a singleton per element type; `TensorType` pairs a dtype with a
shape, where a shape is a tuple of ints and `None`s (unknown dimensions) or
`None` itself (unknown rank).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np

__all__ = [
    "DType", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128", "string",
    "ALL_DTYPES", "as_dtype", "TensorType", "Shape", "format_shape",
    "shape_compatible", "most_specific_common_shape",
]


class DType:
    """An element type; each dtype exists once (`ag.float32`, `ag.int64`, ...).

    A dtype is equal to, and hashes like, its NumPy dtype: `ag.float64 ==
    np.float64`, `ag.float64 == np.dtype('float64')`, `ag.float64 == 'float64'`
    and `np.dtype(ag.float64)` work as with NumPy's own dtypes (`ag.string` is
    NumPy's `object`). The library itself compares dtypes with `is`. Users do
    not construct dtypes: use the `ag` names or `ag.as_dtype`.

    Args:
        name: the dtype's name.
        np_dtype: the NumPy dtype it stands for.
        short: the short name used in compact IR text.

    Example:
        >>> ag.float64 == np.float64, np.dtype(ag.int32)
        (True, dtype('int32'))
        >>> ag.float32.is_floating, ag.int32.is_integer
        (True, True)
    """

    __slots__ = ("name", "np_dtype", "short", "_hash")

    def __init__(self, name: str, np_dtype, short: str):
        self.name = name
        self.np_dtype = np.dtype(np_dtype)
        self.short = short
        self._hash = hash(self.np_dtype)

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype (NumPy reads this attribute: `np.dtype(ag.float64)`)."""
        return self.np_dtype

    def __eq__(self, other):
        if other is self:
            return True
        if isinstance(other, DType):
            return False
        # Only what NumPy reads as a dtype spelling: not None (NumPy's float64) and
        # not arbitrary objects with a `.dtype` (a tensor is not equal to its dtype).
        if isinstance(other, str):
            named = _BY_NAME.get(other)
            if named is not None:
                return named is self
        elif not isinstance(other, (type, np.dtype)):
            return NotImplemented
        try:
            return self.np_dtype == np.dtype(other)
        except (TypeError, ValueError):
            return False

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return self._hash

    @property
    def is_floating(self) -> bool:
        """True for the real floating dtypes (float32, float64)."""
        return self.np_dtype.kind == "f"

    @property
    def is_integer(self) -> bool:
        """True for every integer dtype, signed or unsigned (not bool)."""
        return self.np_dtype.kind in "iu"

    @property
    def is_unsigned(self) -> bool:
        """True for uint8, uint16, uint32, uint64."""
        return self.np_dtype.kind == "u"

    @property
    def is_signed(self) -> bool:
        """True for the signed integer dtypes int8 ... int64."""
        return self.np_dtype.kind == "i"

    @property
    def is_complex(self) -> bool:
        """True for complex64 and complex128."""
        return self.np_dtype.kind == "c"

    @property
    def is_bool(self) -> bool:
        return self.name == "bool"

    @property
    def is_numeric(self) -> bool:
        """Integers and real floats: the dtypes with an order (complex is not numeric here)."""
        return self.is_floating or self.is_integer

    @property
    def bits(self) -> int:
        """Width in bits of one element (complex: both parts; bool: 8, as stored)."""
        return 8 * self.np_dtype.itemsize

    @property
    def real_dtype(self) -> "DType":
        """The dtype of the real part: float32 for complex64, float64 for
        complex128, the dtype itself otherwise."""
        if self.is_complex:
            return float32 if self.name == "complex64" else float64
        return self

    @property
    def complex_dtype(self) -> "DType":
        """The complex dtype with this float dtype's parts (complex128 for
        float64, complex64 for float32); the dtype itself when complex."""
        if self.is_complex:
            return self
        if self.name == "float32":
            return complex64
        if self.name == "float64":
            return complex128
        raise TypeError(f"{self.name} has no complex counterpart")

    @property
    def itemsize(self) -> int:
        return self.np_dtype.itemsize

    @property
    def min(self):
        return np.iinfo(self.np_dtype).min if self.is_integer else -np.inf

    @property
    def max(self):
        return np.iinfo(self.np_dtype).max if self.is_integer else np.inf

    def __repr__(self) -> str:
        return f"ag.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self):
        return (as_dtype, (self.name,))


bool_ = DType("bool", np.bool_, "b")
int8 = DType("int8", np.int8, "i8")
int16 = DType("int16", np.int16, "i16")
int32 = DType("int32", np.int32, "i32")
int64 = DType("int64", np.int64, "i64")
uint8 = DType("uint8", np.uint8, "u8")
uint16 = DType("uint16", np.uint16, "u16")
uint32 = DType("uint32", np.uint32, "u32")
uint64 = DType("uint64", np.uint64, "u64")
float32 = DType("float32", np.float32, "f32")
float64 = DType("float64", np.float64, "f64")
complex64 = DType("complex64", np.complex64, "c64")
complex128 = DType("complex128", np.complex128, "c128")
string = DType("string", np.object_, "str")

ALL_DTYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64,
              complex64, complex128, string)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME["bool_"] = bool_
_BY_NUMPY = {d.np_dtype: d for d in ALL_DTYPES if d is not string}


def as_dtype(value: Any) -> DType:
    """Convert a DType, dtype name, NumPy dtype or Python type to a `DType`.

    Args:
        value: an `ag` dtype, a name ("float32"), a NumPy dtype or scalar type
            (`np.int64`), or a Python type (`bool`; `int` gives int32 and
            `float` float32, TensorFlow's defaults).

    Returns:
        The `DType`.

    Raises:
        TypeError: `value` has no autograph dtype (the message lists them).

    Example:
        >>> print(ag.as_dtype("int64"), ag.as_dtype(np.float32), ag.as_dtype(bool))
        int64 float32 bool
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError(f"unknown dtype name {value!r}; expected one of "
                        f"{', '.join(d.name for d in ALL_DTYPES)}")
    if value is bool:
        return bool_
    if value is int:
        return int32
    if value is float:
        return float32
    if value is complex:
        return complex128
    if value is str or value is bytes:
        return string
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError(f"cannot interpret {value!r} as an autograph dtype") from None
    if npd.kind in ("U", "S", "O"):
        return string
    if npd in _BY_NUMPY:
        return _BY_NUMPY[npd]
    if not npd.isnative and npd.newbyteorder("=") in _BY_NUMPY:
        # Another byte order (arrays read from files, `>f8`): the same values, converted to
        # the native order where they become a tensor's buffer.
        return _BY_NUMPY[npd.newbyteorder("=")]
    raise TypeError(f"NumPy dtype {npd} is not supported; expected one of "
                    f"{', '.join(d.name for d in ALL_DTYPES)}")


Shape = Optional[Tuple[Optional[int], ...]]


def format_shape(shape: Shape) -> str:
    """`[None, 3]`-style text, `[*]` for unknown rank, `[]` for a scalar."""
    if shape is None:
        return "[*]"
    return "[" + ",".join("None" if d is None else str(d) for d in shape) + "]"


def shape_compatible(actual: Shape, expected: Shape) -> bool:
    """True when a concrete-or-partial `actual` shape fits the `expected` one."""
    if expected is None:
        return True
    if actual is None:
        return False
    if len(actual) != len(expected):
        return False
    return all(e is None or a == e for a, e in zip(actual, expected))


def most_specific_common_shape(a: Shape, b: Shape) -> Shape:
    """The most specific shape covering both: `None` where dims differ."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


@dataclass(frozen=True, slots=True)
class TensorType:
    """The type of an IR value: a dtype and a (possibly partial) shape."""

    dtype: DType
    shape: Shape = ()

    def __post_init__(self):
        if self.shape is not None:
            object.__setattr__(self, "shape", tuple(None if d is None else int(d) for d in self.shape))

    @property
    def rank(self) -> Optional[int]:
        return None if self.shape is None else len(self.shape)

    @property
    def is_scalar(self) -> bool:
        return self.shape == ()

    @property
    def is_fully_static(self) -> bool:
        return self.shape is not None and all(d is not None for d in self.shape)

    def __str__(self) -> str:
        return f"{self.dtype.name}{format_shape(self.shape)}"

    def __repr__(self) -> str:
        return f"TensorType({self})"


def parse_tensor_type(text: str) -> TensorType:
    """Read `float32[None,3]`, `int64[]` or `bool[*]` back into a `TensorType`."""
    text = text.strip()
    if not text.endswith("]") or "[" not in text:
        raise ValueError(f"expected a tensor type like 'float32[None,3]', got {text!r}")
    name, dims = text[:-1].split("[", 1)
    dtype = as_dtype(name.strip())
    dims = dims.strip()
    if dims == "*":
        return TensorType(dtype, None)
    if not dims:
        return TensorType(dtype, ())
    shape = []
    for d in dims.split(","):
        d = d.strip()
        if d in ("None", "?"):
            shape.append(None)
        else:
            try:
                shape.append(int(d))
            except ValueError:
                raise ValueError(f"bad dimension {d!r} in tensor type {text!r}") from None
            if shape[-1] < 0:
                raise ValueError(f"negative dimension {d} in tensor type {text!r}")
    return TensorType(dtype, tuple(shape))
