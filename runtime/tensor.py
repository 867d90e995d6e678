"""The eager tensor (`ag.Tensor`) and conversions to it (`ag.constant`, `ag.convert_to_tensor`).

An eager tensor is an immutable wrapper around a read-only NumPy array of an
autograph dtype; NumPy gets a writable copy (`np.asarray(t)`, `t.numpy()`).
Every op applied outside a trace returns one (this module installs
`Tensor._from_array` as the tracer's eager wrapper at import).

Conversion rules (TensorFlow's): a Python int becomes int32 (int64 when it
does not fit), a float float32, a bool bool, a str bytes (dtype string);
lists follow the same rules; NumPy arrays and scalars keep their dtype. With
an explicit `dtype`, values must convert without loss of kind: a float for an
integer dtype, a number out of range, or a bool for a number dtype is a
TypeError; an `ag.Tensor` of another dtype is a ValueError (use `ag.cast`).
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import numpy as np

from autograph.tracer.tracing import symbolic as tracing
from autograph.tracer.core.convert import default_dtype_of_python, python_to_dtype
from autograph.tracer.tracing.tensor_ops import TensorOperators
from autograph.tracer.core.types import ALL_DTYPES, DType, as_dtype, string

from .signature import refuse_masked

__all__ = ["Tensor", "constant", "convert_to_tensor"]


class Tensor(TensorOperators):
    """An immutable eager tensor.

    `.dtype`, `.shape` (a tuple), `.ndim`, `.numpy()` (a read-only view;
    `np.array(t)` copies), the Python operators (`+ - * / // % ** @`,
    comparisons, `& | ^ ~` on bool/int, `<< >>` on ints), indexing (ints,
    slices, `...`, `None`, int arrays), `len()`, iteration over the first
    dimension, NumPy's array protocol, and `int()`, `float()`, `bool()` of a
    one-element tensor. `ag.constant` is the usual way to make one.

    Args:
        value: a tensor, array, NumPy scalar, Python number, string or nested
            list (copied).
        dtype: the dtype to convert `value` to (Python numbers must fit).

    Raises:
        TypeError: a value that has no autograph dtype, or does not fit `dtype`.

    Example:
        >>> t = ag.Tensor([1, 2, 3])
        >>> print(t.dtype, t.shape, t.ndim)
        int32 (3,) 1
        >>> print(t * 2)
        ag.Tensor([2 4 6], shape=(3,), dtype=int32)
    """

    __slots__ = ("_array",)

    def __init__(self, value, dtype=None):
        arr = _to_array("Tensor", value, dtype)
        arr.setflags(write=False)
        object.__setattr__(self, "_array", arr)

    @classmethod
    def _from_array(cls, arr: np.ndarray) -> "Tensor":
        """Wrap an op's result without copying it: the array is frozen in place.

        The caller hands the array over: nothing else may keep a writable
        reference to it (or to its base, for a view such as a buffer that
        native code allocated). Op references return fresh arrays for this
        reason; never pass a user's array here (use `constant`, which copies).
        """
        if arr.flags.writeable:
            arr.setflags(write=False)
        t = object.__new__(cls)
        object.__setattr__(t, "_array", arr)
        return t

    # -- immutability --------------------------------------------------------
    def __setattr__(self, name, value):
        raise AttributeError(f"ag.Tensor is immutable; cannot set {name!r}")

    def __setitem__(self, key, value):
        raise TypeError("ag.Tensor does not support item assignment: tensors are immutable "
                        "(inside an ag.function, `x[i] = v` rebinds x to an updated tensor)")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_rebuild, (np.array(self._array),))

    # -- properties ----------------------------------------------------------
    @property
    def dtype(self) -> DType:
        """The element type (an `ag` dtype)."""
        d = self._array.dtype
        return _DTYPES.get(d) or as_dtype(d)   # the dict: operators read .dtype a lot

    @property
    def shape(self) -> tuple:
        """The dimensions, a tuple of ints."""
        return self._array.shape

    @property
    def ndim(self) -> int:
        """The rank."""
        return self._array.ndim

    def numpy(self):
        """A NumPy copy of the value; a NumPy scalar (bytes for strings) when 0-d, as in TensorFlow."""
        a = self._array
        return a[()] if a.ndim == 0 else a.copy()

    def __array__(self, dtype=None, copy=None):
        """NumPy's array protocol: an array NumPy owns and may write.

        `np.asarray(t)` and `np.array(t)` give a writable copy, so code written
        for NumPy can update the result in place while the tensor stays as it
        was. Only `np.asarray(t, copy=False)` (NumPy 2) shares the tensor's
        memory, as a read-only view.
        """
        a = self._array
        if dtype is not None and np.dtype(dtype) != a.dtype:
            if copy is False:
                raise ValueError(f"converting a {self.dtype.name} tensor to {np.dtype(dtype)} "
                                 f"needs a copy, but copy=False was given")
            return a.astype(dtype)
        # The tensor's own array is read-only and may be a view of a buffer that
        # native code allocated (freed once, with its last view): never unfreeze it.
        return a if copy is False else a.copy()

    # -- Python scalar protocol ----------------------------------------------
    def _scalar(self, what: str):
        a = self._array
        if a.ndim != 0:
            raise TypeError(f"only scalar tensors can be converted to a Python {what}; "
                            f"got a tensor of shape {a.shape}")
        if a.dtype == object:
            raise TypeError(f"a string tensor cannot be converted to a Python {what}")
        return a[()]

    def __int__(self):
        return int(self._scalar("int"))

    def __float__(self):
        return float(self._scalar("float"))

    def __index__(self):
        if not self.dtype.is_integer:
            raise TypeError(f"only int32/int64 scalar tensors can be used as an index; "
                            f"got dtype {self.dtype.name}")
        return int(self._scalar("int"))

    def __bool__(self):
        a = self._array
        if a.size != 1 or a.ndim != 0:
            raise ValueError(f"the truth value of a tensor of shape {a.shape} is ambiguous; "
                             f"use ag.reduce_any or ag.reduce_all")
        return bool(a[()])

    def __len__(self):
        if self._array.ndim == 0:
            raise TypeError("len() of a scalar (0-d) tensor is not defined")
        return self._array.shape[0]

    def __iter__(self):
        a = self._array
        if a.ndim == 0:
            raise TypeError("iteration over a scalar (0-d) tensor is not possible")
        # Rows are read-only views of a read-only array, so they cannot change.
        # `a[i, ...]` (not `a[i]`): the row of a 1-d array must stay a 0-d
        # array, not become a NumPy scalar, for `np.asarray` and views to work.
        return (Tensor._from_array(a[i, ...]) for i in range(a.shape[0]))

    # -- text ----------------------------------------------------------------
    def __repr__(self) -> str:
        a = self._array
        value = np.array2string(a) if a.ndim == 0 else np.array_repr(a)
        return f"<ag.Tensor: shape={a.shape}, dtype={self.dtype.name}, numpy={value}>"

    def __str__(self) -> str:
        a = self._array
        return f"ag.Tensor({np.array2string(a)}, shape={a.shape}, dtype={self.dtype.name})"

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        if self._array.ndim == 0:
            return format(self._array[()], spec)
        raise TypeError(f"format spec {spec!r} needs a scalar tensor, got shape {self.shape}; "
                        f"format t.numpy() instead")


_DTYPES = {np.dtype(d.np_dtype): d for d in ALL_DTYPES}


def _rebuild(arr):
    return Tensor._from_array(arr)


# ---------------------------------------------------------------- conversion

def _bytes_array(arr: np.ndarray, op: str, value) -> np.ndarray:
    """An object array of str/bytes as bytes (strings are stored as bytes).

    NumPy makes an object array for anything it cannot type: say why the
    value is not a tensor (a huge int, None, a mix of strings and numbers).
    """
    out = np.empty(arr.shape, dtype=object)
    number = None
    for i, v in np.ndenumerate(arr):
        if isinstance(v, str):
            v = v.encode("utf-8")
        elif isinstance(v, np.bytes_):
            v = bytes(v)
        elif isinstance(v, bytes):
            pass
        elif isinstance(v, numbers.Integral) and not _INT64.min <= v <= _INT64.max:
            raise TypeError(f"{op}: the integer {v} does not fit in int64")
        elif isinstance(v, numbers.Number):
            number = v
            continue
        else:
            raise TypeError(f"{op}: cannot convert {value!r} to a tensor: expected numbers or "
                            f"strings, found {type(v).__name__} {v!r}")
        out[i] = v
    if number is not None:
        raise TypeError(f"{op}: cannot convert {value!r} to a tensor: it mixes strings and numbers")
    return out


_INT64 = np.iinfo(np.int64)


def _python_array(op: str, value) -> np.ndarray:
    try:
        with np.errstate(over="ignore"):
            arr = np.asarray(value)
    except ValueError as e:
        raise ValueError(f"{op}: cannot convert {value!r} to a tensor: nested lists must be "
                         f"rectangular ({e})") from None
    if arr.dtype.kind in "OUS":
        if arr.dtype.kind in "US":   # NumPy's fixed-width strings drop trailing NULs: keep the objects
            arr = np.array(value, dtype=object)
        return _bytes_array(arr, op, value)
    return arr


def _to_array(op: str, value, dtype=None) -> np.ndarray:
    """A fresh NumPy array of an autograph dtype holding `value` (see module docstring)."""
    dtype = None if dtype is None else as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtype:
            raise ValueError(f"{op}: requested dtype {dtype.name} for a tensor of dtype "
                             f"{value.dtype.name}; use ag.cast to convert it")
        return value._array
    if tracing.is_traced(value):
        raise TypeError(f"{op}: expected a Python or NumPy value, got a traced tensor; "
                        f"use it directly or ag.convert_to_tensor")
    if isinstance(value, (np.ndarray, list, tuple)):
        try:
            refuse_masked(value)   # np.asarray would drop the mask
        except TypeError as exc:
            raise TypeError(f"{op}: {exc}") from None
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if arr.dtype.kind in "OUS":
            arr = _bytes_array(arr, op, value)
    elif isinstance(value, (bool, int, float, complex, str, bytes, list, tuple)):
        arr = _python_array(op, value)
        if arr.size == 0 and dtype is not None and isinstance(value, (list, tuple)):
            # `[]`, `[[]]`, `[[], []]`: no element to convert, only a shape
            # (NumPy would call them float64).
            return np.zeros(arr.shape, dtype.np_dtype)
        if dtype is None:
            try:
                dtype = default_dtype_of_python(value) if arr.dtype != object else string
            except TypeError as e:   # an int past int64 that NumPy made uint64 or float64
                raise TypeError(f"{op}: {e}") from None
    else:
        raise TypeError(f"{op}: cannot convert {type(value).__name__} {value!r} to a tensor; "
                        f"expected a tensor, NumPy array, Python number, string or nested list")
    try:
        if dtype is None:
            d = as_dtype(arr.dtype)
            if d is not string and arr.dtype != d.np_dtype:
                return arr.astype(d.np_dtype)   # another byte order (`>f8`): native
            return np.array(arr, copy=True)
        if dtype is string:
            if arr.dtype != object:
                raise TypeError(f"cannot convert {value!r} to string")
            return np.array(arr, copy=True)
        if arr.dtype == object:
            raise TypeError(f"cannot convert {value!r} to {dtype.name}")
        with np.errstate(over="ignore"):
            python = not isinstance(value, (np.ndarray, np.generic))
            return np.array(python_to_dtype(value if python else arr, dtype), copy=True)
    except TypeError as e:
        raise TypeError(f"{op}: {e}") from None


def _static_shape(op: str, shape) -> tuple:
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    elif isinstance(shape, (Tensor, np.ndarray)):
        shape = tuple(np.asarray(shape).reshape(-1).tolist())
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise TypeError(f"{op}: shape must be a list of non-negative ints, got {shape!r}")
    return tuple(int(d) for d in shape)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: Optional[str] = None) -> "Tensor":
    """An eager tensor holding a copy of `value`.

    `dtype` converts the value (losslessly: see the module docstring);
    `shape` reshapes a value with as many elements, or fills the shape with a
    one-element value, as `tf.constant` does. Inside a trace the result is
    a traced `constant` of the graph (as `tf.constant` in a `tf.function`).
    A variable gives its current value.

    Args:
        value: a Python number, bool, str/bytes, (nested) list, NumPy array
            or scalar, tensor or variable.
        dtype: the element type of the result (an `ag` dtype, NumPy dtype or
            name); None infers it (Python int -> int32, float -> float32, as
            TensorFlow; NumPy values keep theirs).
        shape: a list of non-negative ints, or None to keep the value's shape.
        name: accepted for TensorFlow compatibility; unused.

    Returns:
        An `ag.Tensor` (a symbolic tensor inside a trace).

    Raises:
        TypeError: a value or dtype autograph cannot hold, a lossy dtype
            conversion, or a malformed `shape`.
        ValueError: `shape` does not fit the value's number of elements.

    Example:
        >>> import autograph as ag
        >>> ag.constant([[1, 2], [3, 4]], dtype=ag.float64).numpy()
        array([[1., 2.],
               [3., 4.]])
        >>> ag.constant(7, shape=[2]).numpy()
        array([7, 7], dtype=int32)
    """
    if getattr(value, "_ag_variable", False):
        value = value.read_value()
        if tracing.is_traced(value):
            if shape is not None:
                raise ValueError("constant: shape= cannot reshape a variable read inside a trace; "
                                 "use ag.reshape")
            return convert_to_tensor(value, dtype)
    arr = _to_array("constant", value, dtype)
    if shape is not None:
        shape = _static_shape("constant", shape)
        n = math.prod(shape)
        if arr.shape != shape:
            if arr.size == n:
                arr = arr.reshape(shape)
            elif arr.size == 1:
                arr = np.broadcast_to(arr.reshape(()), shape).copy()
            else:
                raise ValueError(f"constant: a value with {arr.size} elements cannot have shape "
                                 f"{shape}: expected {n} elements, or 1 to fill the shape")
    builder = tracing.current_builder()
    if builder is not None:
        # Inside a trace a constant is part of the graph, as `tf.constant` is
        # in a tf.function: `while ag.constant(True):` compiles to a loop
        # instead of running (forever) in Python at trace time (nor is it
        # a value the converter's `if` may know at trace time).
        return builder.wrap(_explicit_constant(builder, arr))
    if arr is getattr(value, "_array", None):
        return value
    return Tensor._from_array(arr)


def convert_to_tensor(value: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    """`value` as a tensor.

    Tensors (eager or traced) are returned as they are, a variable is read, a
    (nested) list holding tensors is stacked (as TensorFlow packs it), anything
    else is converted like `ag.constant`.

    Args:
        value: a tensor, variable, array, number, string or nested list.
        dtype: the dtype wanted (optional); values that are not tensors are
            converted to it.
        name: ignored (TensorFlow compatibility).

    Returns:
        An eager tensor, or a traced one inside a trace.

    Raises:
        ValueError: a tensor whose dtype differs from `dtype` (use ag.cast).
        TypeError: a value that does not convert.

    Example:
        >>> print(ag.convert_to_tensor([1.0, 2.0], dtype=ag.float64))
        ag.Tensor([1. 2.], shape=(2,), dtype=float64)
    """
    if tracing.is_traced(value) or isinstance(value, Tensor):
        if dtype is not None and value.dtype is not as_dtype(dtype):
            raise ValueError(f"convert_to_tensor: requested dtype {as_dtype(dtype).name} for a "
                             f"tensor of dtype {value.dtype.name}; use ag.cast to convert it")
        return value
    if isinstance(getattr(value, "dtype", None), DType) and callable(getattr(value, "read_value", None)):
        return convert_to_tensor(value.read_value(), dtype)   # a variable: its current value
    if isinstance(value, (list, tuple)):
        from autograph.tracer.api.common import holds_tensor, pack   # (the api is built on this module)
        if holds_tensor(value):
            # TensorFlow's auto-packing: `[i, 1]` with a tensor `i` is stack([i, 1]), of i's dtype.
            return convert_to_tensor(pack("convert_to_tensor", value), dtype)
    arr = _to_array("convert_to_tensor", value, dtype)
    builder = tracing.current_builder()
    if builder is not None:   # a constant of the graph inside a trace (see `constant`)
        return builder.wrap(_explicit_constant(builder, arr))
    return Tensor._from_array(arr)


tracing.set_eager_wrapper(Tensor._from_array)


def _explicit_constant(builder, arr):
    """A `constant` op of the trace for `arr`, recorded as the user's explicit
    constant (autograph.tracer.tracing.known_values)."""
    from autograph.tracer.tracing.known_values import mark_explicit
    value = builder.constant(arr)
    mark_explicit(builder, value)
    return value
