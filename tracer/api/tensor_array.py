"""`ag.TensorArray`: a list of same-shaped tensors that compiled loops can grow.

    ta = ag.TensorArray(ag.float64, size=0, dynamic_size=True)
    for i in range(len(x)):
        ta = ta.write(i, x[i] * 2)
    y = ta.stack()

A TensorArray is a value (like a tensor): `write` returns the updated array
and leaves the old one as it was. It is made of three tensors, which is how
compiled loops and branches carry it (it is registered as a composite with
`autograph.tracer.core.nest`):

* `data`: the elements, [capacity, *element_shape], zeros where unwritten;
* `written`: bool [capacity'], which slots hold a written value;
* `size`: int32 scalar, the number of elements.

Invariants: capacity' >= size, and capacity > i for every written slot i.
With `dynamic_size=True` a write past the end grows `data` and `written`
(the `grow` op: amortised doubling, in place in compiled code); with a
fixed size, writing or reading outside [0, size) raises InvalidArgumentError
naming the index and the size, as does reading a slot not written yet. The
element shape is `element_shape` when given, else that of the first value
written; until then `data` is a `PendingElements` placeholder, which a
compiled loop turns into an empty buffer of the shape the loop body gives
it. Compiled code writes in place: `set_item` on `data` and `written` takes
the old buffers over (see codegen/lowering/update.py).
"""
from __future__ import annotations

import numbers
from typing import Optional, Tuple

import numpy as np

from ..core import nest
from .common import as_operand, is_tensor_like, locate_errors, prepare
from ..tracing.control_flow import Undefined
from ..core.convert import is_python_number, is_weak, python_to_dtype
from ..tracing.symbolic import bind, constant_value, is_traced, wrap_eager
from ..core.types import DType, as_dtype, int32

__all__ = ["TensorArray", "PendingElements", "pop_last"]


class PendingElements(Undefined):
    """The `data` part of a TensorArray whose element shape is not known yet.

    An Undefined that may stay empty: a compiled loop whose body writes the
    array carries an empty buffer in its place, and a branch that does not
    write it yields an empty buffer, without the zero-iteration check a
    variable first assigned in a loop gets.
    """

    __slots__ = ()
    empty_ok = True

    def __init__(self):
        super().__init__("the elements of a TensorArray")

    def buffer_for(self, ta: "TensorArray", value):
        """The buffer the first write of `value` starts from: an empty one."""
        return ta._empty_like(value)

    def in_loop(self, take) -> "PendingElements":
        """What a compiled loop's body sees instead (see loop.py, `_Carry`)."""
        return _CarriedElements(take)


class _CarriedElements(PendingElements):
    """Pending elements of a TensorArray that a compiled loop carries: the
    first write in the body starts from the loop's buffer (empty on the first
    iteration, the previous iteration's after), of shape [None, *element]."""

    __slots__ = ("take",)

    def __init__(self, take):
        super().__init__()
        self.take = take

    def buffer_for(self, ta: "TensorArray", value):
        from ..core.types import TensorType
        shape = None if value.shape is None else (None,) + tuple(value.shape)
        if shape is None:
            raise ValueError("TensorArray.write: the value has an unknown rank")
        return self.take(TensorType(ta.dtype, shape))


_WRITE_RANGE = ("TensorArray.write: index {0} is out of range for a TensorArray of size {1} "
                "(dynamic_size=False)")
_WRITE_NEGATIVE = "TensorArray.write: index {0} is negative"
_READ_RANGE = "TensorArray.read: index {0} is out of range for a TensorArray of size {1}"
_READ_UNWRITTEN = ("TensorArray.read: index {0} has not been written yet (a TensorArray of "
                   "size {1}); write it before reading it")
_UNSTACK_SIZE = ("TensorArray.unstack: the value has {0} elements along its first dimension, "
                 "but the TensorArray has the fixed size {1}")


def _i32(x):
    """An integer scalar operand as int32 (TensorArray indices and sizes are int32)."""
    if is_python_number(x):
        return np.asarray(x, np.int32)
    d = x.dtype if isinstance(x.dtype, DType) else as_dtype(x.dtype)
    if d is int32:
        return x
    from .elementwise import cast
    return cast(x, int32)


def _index(method: str, index):
    """`index` (a Python int or an int scalar tensor) as an int32 operand."""
    if isinstance(index, (bool, np.bool_)):
        raise TypeError(f"TensorArray.{method}: expected an int index, got the bool {index!r}")
    if isinstance(index, numbers.Integral):
        if not np.iinfo(np.int32).min <= int(index) <= np.iinfo(np.int32).max:
            raise ValueError(f"TensorArray.{method}: index {index} does not fit in int32")
        return np.asarray(int(index), np.int32)
    if is_tensor_like(index) or isinstance(index, (np.ndarray, np.generic)):
        d = index.dtype if isinstance(index.dtype, DType) else as_dtype(index.dtype)
        if d.is_integer and tuple(index.shape) == ():
            return _i32(index)
        raise TypeError(f"TensorArray.{method}: expected an int scalar index, got a {d.name} "
                        f"tensor of shape {index.shape}")
    raise TypeError(f"TensorArray.{method}: expected an int index, got {type(index).__name__} "
                    f"{index!r}")


def _check(pred, message: str, *values) -> None:
    """Raise InvalidArgumentError(message) where `pred` is false, when the code runs."""
    bind("check_values", pred, *values, message=message)


def _shape_tuple(shape) -> Optional[Tuple[Optional[int], ...]]:
    if shape is None:
        return None
    dims = getattr(shape, "dims", shape)   # a TensorShape-like object
    if isinstance(dims, numbers.Integral):
        dims = (dims,)
    out = []
    for d in dims:
        if is_traced(d) and d.shape == () and d.dtype.is_integer:
            # `x.shape[1]` in converted code: a traced int32, constant when static
            value = constant_value(d.value)
            d = None if value is None else int(value)
        if d is None:
            out.append(None)
        elif isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0:
            out.append(int(d))
        else:
            raise TypeError(f"TensorArray: element_shape must be a tuple of non-negative ints "
                            f"or None, got {shape!r}")
    return tuple(out)


def _fmt(shape) -> str:
    return "<unknown>" if shape is None else str(tuple(shape))


class TensorArray:
    """A list of tensors of one dtype and shape (TensorFlow's `tf.TensorArray`).

    Works eagerly and inside `ag.function`, as a loop variable of compiled
    loops and as a branch output of compiled ifs. Methods: `write(i, v)`
    (returns the updated array; a slot may be written again), `read(i)`,
    `stack()`, `unstack(value)`, `size()`.

    Args:
        dtype: the elements' dtype (not `ag.string`).
        size: the number of elements: a Python int or an int scalar tensor.
        dynamic_size: let writes past the end grow the array.
        element_shape: the elements' shape, if known (checked on writes).
        clear_after_read, infer_shape, name: accepted for TensorFlow
            compatibility; they change nothing.

    Raises:
        TypeError: a string dtype, or a size that is not an integer.
        InvalidArgumentError: in compiled code and eagerly, a read before a
            write, or an index past a fixed size.

    Example:
        >>> ta = ag.TensorArray(ag.float32, size=2)
        >>> ta = ta.write(0, 1.5).write(1, 2.5)
        >>> print(ta.stack())
        ag.Tensor([1.5 2.5], shape=(2,), dtype=float32)
    """

    __slots__ = ("_dtype", "_dynamic", "_static_size", "_given_shape", "_presized",
                 "_data", "_written", "_size")

    @locate_errors
    def __init__(self, dtype, size=0, dynamic_size=False, element_shape=None,
                 clear_after_read=None, infer_shape=True, name=None):
        del clear_after_read, infer_shape, name    # TensorFlow options with no meaning here
        self._dtype = as_dtype(dtype)
        if self._dtype.name == "string":
            raise TypeError("TensorArray: string elements are not supported")
        self._dynamic = bool(dynamic_size)
        self._given_shape = _shape_tuple(element_shape)
        if is_traced(size) and constant_value(size.value) is not None:
            size = constant_value(size.value)   # e.g. len(x) of a static shape
        if is_tensor_like(size) and not is_traced(size) and tuple(size.shape) == ():
            size = np.asarray(size)               # an eager tensor: its value is known now
        if isinstance(size, np.ndarray) and size.shape == () and size.dtype.kind in "iu":
            size = int(size)
        if isinstance(size, numbers.Integral) and not isinstance(size, bool):
            if not 0 <= int(size) <= np.iinfo(np.int32).max:
                raise ValueError(f"TensorArray: size must be a non-negative int32, got {size}")
            self._static_size = int(size)
        else:
            self._static_size = None
        if self._static_size is None:
            size = _index("__init__", size)
            _check(bind("greater_equal", size, np.asarray(0, np.int32)),
                   "TensorArray: the size must not be negative, got {0}", size)
        else:
            size = wrap_eager(np.array(self._static_size, np.int32))
        self._size = size
        shape = self._given_shape
        known = shape is not None and all(d is not None for d in shape)
        # A fixed-size array with a known element shape gets its buffer now,
        # with exactly `size` rows, and never needs to grow.
        self._presized = known and not self._dynamic
        if known:
            self._data = self._rows(bind("fill", size, *[np.asarray(d, np.int32) for d in shape],
                                         np.zeros((), self._dtype.np_dtype)))
        else:
            self._data = PendingElements()
        self._written = self._rows(bind("fill", size, np.array(False)))

    def _rows(self, t):
        """A dynamic array's buffers get an unknown leading dimension, so that
        a compiled loop may carry them while they grow."""
        return bind("grow", t, np.asarray(0, np.int32)) if self._dynamic else t

    # ------------------------------------------------------------ structure

    @classmethod
    def _make(cls, aux, data, written, size) -> "TensorArray":
        ta = cls.__new__(cls)
        ta._dtype, ta._dynamic, ta._static_size, ta._given_shape, ta._presized = aux
        ta._data, ta._written, ta._size = data, written, size
        return ta

    def _aux(self):
        return (self._dtype, self._dynamic, self._static_size, self._given_shape, self._presized)

    def _replace(self, data=None, written=None, size=None) -> "TensorArray":
        return TensorArray._make(self._aux(), self._data if data is None else data,
                                 self._written if written is None else written,
                                 self._size if size is None else size)

    # ------------------------------------------------------------ properties

    @property
    def dtype(self) -> DType:
        """The dtype of the elements."""
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        """True when writes past the end grow the array."""
        return self._dynamic

    @property
    def element_shape(self) -> Optional[Tuple[Optional[int], ...]]:
        """The elements' shape (None dims unknown), or None before the first write."""
        if isinstance(self._data, PendingElements):
            return self._given_shape
        shape = self._data.shape
        return None if shape is None else tuple(shape[1:])

    def __repr__(self) -> str:
        size = self._static_size if self._static_size is not None and not self._dynamic else "?"
        return (f"TensorArray(dtype={self._dtype.name}, size={size}, "
                f"dynamic_size={self._dynamic}, element_shape={_fmt(self.element_shape)})")

    # ------------------------------------------------------------ methods

    def size(self):
        """The number of elements, an int32 scalar tensor."""
        return self._size

    @locate_errors
    def write(self, index, value) -> "TensorArray":
        """The array with element `index` set to `value` (this one is unchanged).

        `value` must have the array's dtype (Python numbers adopt it) and
        element shape. Indices start at 0; past a fixed size, or negative,
        is an InvalidArgumentError when the code runs.
        """
        i = _index("write", index)
        value = self._value(value)
        size = self._size
        one = np.asarray(1, np.int32)
        if self._dynamic:
            _check(bind("greater_equal", i, np.asarray(0, np.int32)), _WRITE_NEGATIVE, i)
            need = bind("add", i, one)
        else:
            ok = bind("logical_and", bind("greater_equal", i, np.asarray(0, np.int32)),
                      bind("less", i, size))
            _check(ok, _WRITE_RANGE, i, size)
            need = size
        data = self._data
        if isinstance(data, PendingElements):
            data = data.buffer_for(self, value)
        if not self._presized:
            data = bind("grow", self._adopt_shape(data, value), need)
        data = bind("set_item", data, value, i, spec=("i",))
        written = self._written
        if self._dynamic:
            written = bind("grow", written, need)
            size = bind("maximum", size, need)
        written = bind("set_item", written, np.array(True), i, spec=("i",))
        return self._replace(data, written, size)

    @locate_errors
    def read(self, index):
        """Element `index`; InvalidArgumentError (when the code runs) if it is
        out of range or has not been written."""
        i = _index("read", index)
        ok = bind("logical_and", bind("greater_equal", i, np.asarray(0, np.int32)),
                  bind("less", i, self._size))
        _check(ok, _READ_RANGE, i, self._size)
        # capacity(written) >= size, so the slot exists once the range check passed.
        _check(bind("strided_slice", self._written, i, spec=("i",)), _READ_UNWRITTEN, i, self._size)
        if isinstance(self._data, PendingElements):
            raise ValueError("TensorArray.read: nothing is written to this TensorArray at this "
                             "point, so its element shape is unknown; give ag.TensorArray an "
                             "element_shape, or write an element before reading")
        return bind("strided_slice", self._data, i, spec=("i",))

    @locate_errors
    def __getitem__(self, index):
        """`ta[i]`: `ta.read(i)`, a negative `i` counting from the end (as a
        Python list, which is what a list filled in a compiled loop is)."""
        if isinstance(index, slice) or not (is_traced(index) or is_tensor_like(index)
                                            or isinstance(index, (numbers.Integral, np.integer))):
            raise TypeError(f"TensorArray: an item is read with one integer index, got "
                            f"{index!r}; stack() it to slice it")
        if isinstance(index, (numbers.Integral, np.integer)) and not isinstance(index, bool):
            return self.read(int(index) + self._size if index < 0 else index)
        i = _index("__getitem__", index)
        return self.read(bind("where", bind("less", i, np.asarray(0, np.int32)),
                              bind("add", i, self._size), i))

    def __iter__(self):
        # Without this, `__getitem__` would make Python iterate by reading 0, 1,
        # 2, ... until an IndexError, which a traced read never raises.
        raise TypeError("a TensorArray is not iterable: stack() it, or read(i) in a loop "
                        "over range(ta.size())")

    @locate_errors
    def stack(self):
        """All elements as one tensor [size, *element_shape] (unwritten ones are zeros)."""
        data = self._data
        if isinstance(data, PendingElements):
            shape = self._given_shape
            if shape is None and self._static_size == 0:
                shape = ()                # as TensorFlow: an empty array of scalars
            if shape is None or any(d is None for d in shape):
                raise ValueError(
                    "TensorArray.stack: the element shape is unknown (no element is written "
                    "before this point); give ag.TensorArray an element_shape")
            return bind("fill", self._size, *[np.asarray(d, np.int32) for d in shape],
                        np.zeros((), self._dtype.np_dtype))
        if self._presized and self._static_size is not None:
            return data
        if not self._presized:
            data = bind("grow", data, self._size)
        # A prefix of the buffer: compiled code hands the buffer over when it is dead.
        return bind("strided_slice", data, self._size, spec=("s010",))

    @locate_errors
    def unstack(self, value) -> "TensorArray":
        """An array whose elements are `value[0]`, `value[1]`, ... (all written)."""
        value = self._value(value, whole=True)
        if value.shape is not None and len(value.shape) == 0:
            raise ValueError("TensorArray.unstack: expected a tensor of rank >= 1, got a scalar")
        from .construct import dim
        n = _i32(dim(value, 0))
        if not self._dynamic:
            _check(bind("equal", n, self._size), _UNSTACK_SIZE, n, self._size)
        data = self._rows(value) if not self._presized else value
        written = self._rows(bind("fill", n, np.array(True)))
        size = self._size if not self._dynamic else n
        return self._replace(data, written, size)

    # ------------------------------------------------------------ helpers

    def _value(self, value, whole: bool = False):
        """`value` as an operand of the array's dtype, its shape checked."""
        what = "TensorArray.unstack" if whole else "TensorArray.write"
        if is_python_number(value) or isinstance(value, (list, tuple)):
            value = python_to_dtype(value, self._dtype, what)
        elif is_weak(value):
            value = prepare(what, np.zeros((), self._dtype.np_dtype), value)[1]
        else:
            value = as_operand(what, value)
            d = value.dtype if isinstance(value.dtype, DType) else as_dtype(value.dtype)
            if d is not self._dtype:
                raise TypeError(f"{what}: the TensorArray holds {self._dtype.name} elements, got "
                                f"a {d.name} value; use ag.cast to convert it")
        shape = None if value.shape is None else tuple(value.shape)
        if whole and shape is not None:
            shape = shape[1:]
        expected = self.element_shape
        if not _fits(shape, expected):
            raise ValueError(f"{what}: the TensorArray's elements have shape {_fmt(expected)}, "
                             f"got a value of shape {_fmt(shape)}")
        return value

    def _adopt_shape(self, data, value):
        """`data`, or, when it has no rows yet, an empty buffer of `value`'s shape.

        A buffer whose element dims are unknown at trace time may be an empty
        placeholder (a compiled loop's start value, a branch that wrote
        nothing) whose element dims are 0: the first element written gives
        them. An empty buffer relabelled costs nothing (reshape takes it over).
        """
        dshape, vshape = data.shape, value.shape
        if dshape is None or vshape is None or len(dshape) != len(vshape) + 1:
            return data
        if all(d is not None for d in dshape[1:]):
            return data
        from .construct import dim
        cap = _i32(dim(data, 0))
        empty = bind("equal", cap, np.asarray(0, np.int32))
        dims = []
        for k, d in enumerate(dshape[1:]):
            if d is not None:
                dims.append(np.asarray(d, np.int32))
            else:
                dims.append(bind("where", empty, _i32(dim(value, k)), _i32(dim(data, k + 1))))
        return bind("reshape", data, cap, *dims)

    def _empty_like(self, value):
        """An empty buffer [0, *value.shape] for the first element written."""
        from .construct import dim
        shape = value.shape
        if shape is None:
            raise ValueError("TensorArray.write: the value has an unknown rank")
        dims = [np.asarray(d, np.int32) if d is not None else _i32(dim(value, k))
                for k, d in enumerate(shape)]
        return bind("fill", np.asarray(0, np.int32), *dims, np.zeros((), self._dtype.np_dtype))


@locate_errors
def pop_last(ta: TensorArray):
    """`(array without its last element, that element)`: Python's `lst.pop()`
    for a list that a compiled loop carries as a dynamic-size TensorArray
    (autograph/operators/lists.py). An empty array raises InvalidArgumentError
    ("pop from empty list", Python's words) when the code runs."""
    if not ta.dynamic_size:
        raise TypeError("pop: only a dynamic-size TensorArray (a list filled in a loop) can "
                        "shrink")
    _check(bind("greater", ta.size(), np.asarray(0, np.int32)), "pop from empty list")
    last = bind("subtract", ta.size(), np.asarray(1, np.int32))
    # The buffers keep their capacity; size bounds every read, stack and later write.
    return ta._replace(size=last), ta.read(last)


def _fits(shape, expected) -> bool:
    """A value of `shape` may be an element of shape `expected` (None: unknown)."""
    if shape is None or expected is None:
        return True
    if len(shape) != len(expected):
        return False
    return all(a is None or b is None or a == b for a, b in zip(shape, expected))


nest.register_composite(
    TensorArray,
    lambda ta: ((ta._data, ta._written, ta._size), ta._aux()),
    lambda aux, children: TensorArray._make(aux, *children),
    names=("data", "written", "size"))
