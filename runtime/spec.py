"""`TensorSpec`: the dtype and (partial) shape a tensor argument must have."""
from __future__ import annotations

from autograph.tracer.core.types import (DType, TensorType, as_dtype, float32, format_shape,
    shape_compatible)

__all__ = ["TensorSpec"]


class TensorSpec:
    """Describes a tensor argument: `TensorSpec(shape=None, dtype=ag.float32, name=None)`.

    `shape=None` is unknown rank; `[None, 3]` is a partly known shape.
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape=None, dtype=float32, name=None):
        if shape is not None:
            try:
                shape = tuple(None if d is None else int(d) for d in shape)
            except TypeError:
                raise TypeError(f"TensorSpec shape must be None or a sequence of ints/None, got {shape!r}") from None
            if any(d is not None and d < 0 for d in shape):
                raise ValueError(f"TensorSpec shape has a negative dimension: {shape}")
        self.shape = shape
        self.dtype: DType = as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, t, name=None) -> "TensorSpec":
        """The exact spec of a tensor or array."""
        return cls(tuple(t.shape), as_dtype(t.dtype), name)

    @property
    def type(self) -> TensorType:
        return TensorType(self.dtype, self.shape)

    def is_compatible_with(self, other) -> bool:
        """True when a tensor/spec `other` fits this spec (dtype equal, shape compatible)."""
        dtype = as_dtype(other.dtype)
        shape = None if other.shape is None else tuple(other.shape)
        return dtype is self.dtype and shape_compatible(shape, self.shape)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype is other.dtype and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype.name, self.name))

    def __repr__(self):
        shape = "None" if self.shape is None else ("(" + ", ".join(
            "None" if d is None else str(d) for d in self.shape) + ("," if len(self.shape) == 1 else "") + ")")
        return f"TensorSpec(shape={shape}, dtype=ag.{self.dtype.name}, name={self.name!r})"
