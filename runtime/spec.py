"""`TensorSpec`: the dtype and (partial) shape a tensor argument must have."""
from __future__ import annotations

from autograph.tracer.core.types import (DType, TensorType, as_dtype, float32, shape_compatible)

__all__ = ["TensorSpec"]


class TensorSpec:
    """Describes a tensor argument: `TensorSpec(shape=None, dtype=ag.float32, name=None)`.

    Used in `ag.function(input_signature=[...])` and
    `get_concrete_function(...)` to trace for a family of tensors instead of
    one argument's exact shape.

    Args:
        shape: None for an unknown rank, or a sequence with an int or None
            (unknown size) per dimension: `[None, 3]` is a matrix of 3 columns,
            `[]` a scalar.
        dtype: an `ag` dtype, a NumPy dtype or a dtype name (default float32).
        name: an optional name, kept for display and equality only.

    Raises:
        TypeError: `shape` is not None or a sequence of ints/None; or an
            unknown `dtype`.
        ValueError: a negative dimension.

    Example:
        >>> import autograph as ag
        >>> spec = ag.TensorSpec([None, 3], ag.float64)
        >>> spec.is_compatible_with(ag.constant([[1.0, 2.0, 3.0]], ag.float64))
        True
        >>> spec
        TensorSpec(shape=(None, 3), dtype=ag.float64, name=None)
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape=None, dtype=float32, name=None):
        if shape is not None:
            try:
                if isinstance(shape, (str, bytes)) or any(
                        d is not None and (isinstance(d, bool) or int(d) != d) for d in shape):
                    raise TypeError   # "abc", [2.5], [True]: not dimensions (int() would accept them)
                shape = tuple(None if d is None else int(d) for d in shape)
            except (TypeError, ValueError):
                raise TypeError(f"TensorSpec shape must be None or a sequence of ints/None, got {shape!r}") from None
            if any(d is not None and d < 0 for d in shape):
                raise ValueError(f"TensorSpec shape has a negative dimension: {shape}")
        self.shape = shape
        self.dtype: DType = as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, t, name=None) -> "TensorSpec":
        """The exact spec of a tensor or array `t` (its full shape and dtype),
        named `name`.

        >>> import numpy as np, autograph as ag
        >>> ag.TensorSpec.from_tensor(np.zeros((2, 3), np.int32))
        TensorSpec(shape=(2, 3), dtype=ag.int32, name=None)
        """
        return cls(tuple(t.shape), as_dtype(t.dtype), name)

    @property
    def type(self) -> TensorType:
        """The IR tensor type (dtype and partial shape) this spec stands for."""
        return TensorType(self.dtype, self.shape)

    def is_compatible_with(self, other) -> bool:
        """True when `other` (a tensor, array or spec: anything with `dtype`
        and `shape`) fits this spec: the same dtype, and a shape that agrees
        with every known dimension (an unknown rank fits any shape).

        Raises:
            TypeError: `other.dtype` is not a dtype autograph knows.
        """
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
