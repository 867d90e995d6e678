"""Argument normalisation shared by the public op functions of `autograph.tracer.api`.

Every public function turns what users pass (tensors, traced tensors, NumPy
arrays and scalars, Python numbers and nested lists) into operands `bind`
accepts, with TensorFlow's dtype rules: weak Python numbers adopt the dtype
of the tensors they meet (`autograph.tracer.tracing.weak.unify_operands`); everything else
keeps its dtype; axes are normalised to the sorted non-negative tuple the
reduction ops take.
"""
from __future__ import annotations

import functools
import numbers
from typing import List, Optional, Tuple

import numpy as np

from ..core.convert import is_python_number, to_numpy
from ..core.errors import with_location
from ..core.location import user_location
from ..tracing.symbolic import SymbolicTensor, bind, current_builder
from ..tracing.weak import unify_operands
from ..core.types import DType, as_dtype

__all__ = ["is_tensor_like", "prepare", "as_operand", "holds_tensor", "pack", "rank_of",
           "normalize_axis", "python_int_operand", "locate_errors"]


def locate_errors(fn):
    """Decorate a public op function so that, while tracing, its argument errors
    quote the user's source line in their message (as `bind` does for type rules)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except OverflowError as e:
            # A size or value computed in Python past int64 (np.tile(x, 2**61)): NumPy's
            # "Python int too large to convert to C long" names neither the op nor the line.
            from ..core.errors import InvalidArgumentError
            name = getattr(fn, "__qualname__", fn.__name__).replace(".__init__", "")
            err = InvalidArgumentError(f"{name}: a size or value does not fit in int64 ({e})")
            loc = user_location() if current_builder() is not None else None
            raise (with_location(err, loc) if loc is not None else err) from None
        except (TypeError, ValueError, IndexError) as e:
            if current_builder() is None or getattr(e, "_ag_located", False):
                raise
            loc = user_location()
            if loc is None or loc.describe() in str(e):
                raise
            raise with_location(e, loc) from None
    return wrapper


def is_tensor_like(x) -> bool:
    """True for eager tensors, traced tensors and variables: a DType-valued `.dtype`."""
    return isinstance(getattr(x, "dtype", None), DType)


_CONVERTIBLE = (np.ndarray, np.generic, bool, int, float, list, tuple, str, bytes)


def as_operand(op: str, x):
    """`x` unchanged when tensor-like, else as a NumPy array of an autograph dtype.

    Raises TypeError naming `op` for values that are not tensors, arrays,
    numbers or (nested) lists of numbers.
    """
    if is_tensor_like(x):
        return x
    if isinstance(x, (list, tuple)) and holds_tensor(x):
        return pack(op, x)     # (before NumPy conversion, which would lose a tensor's dtype)
    if not isinstance(x, _CONVERTIBLE):
        raise TypeError(f"{op}: expected a tensor, array or Python number, got "
                        f"{type(x).__name__} {x!r}")
    try:
        arr = to_numpy(x)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{op}: cannot convert {_describe(x)} to a tensor: {e}") from None
    if arr.dtype == object and not all(isinstance(v, (str, bytes)) for v in arr.flat):
        raise TypeError(f"{op}: cannot convert {_describe(x)} to a tensor: expected numbers or strings")
    return arr


def _describe(x) -> str:
    """`x` for an error message: arrays by type, dtype and shape (their repr can
    run over many lines), other values by a repr cut to one short line."""
    if isinstance(x, np.ndarray):
        return f"a {type(x).__name__} of dtype {x.dtype} and shape {x.shape}"
    text = repr(x)
    return text if len(text) <= 80 and "\n" not in text else text.splitlines()[0][:77] + "..."


def holds_tensor(x) -> bool:
    """True when the (nested) list or tuple `x` holds a tensor (eager or traced)."""
    return any(holds_tensor(v) if isinstance(v, (list, tuple)) else is_tensor_like(v) for v in x)


def pack(op: str, x):
    """A (nested) list holding tensors as one tensor, as TensorFlow's
    auto-packing does (`concat((v, [i]), 0)` with a traced `i`): the items are
    stacked along a new first axis, keeping the tensors' dtype (Python numbers
    among them adopt it); the items must share one shape."""
    if not x:
        raise ValueError(f"{op}: cannot pack an empty list holding no tensor")
    items = prepare(op, *[pack(op, v) if isinstance(v, (list, tuple)) and holds_tensor(v) else v
                          for v in x])
    shapes = [None if p.shape is None else tuple(p.shape) for p in items]
    known = [s for s in shapes if s is not None]
    if any(len(s) != len(known[0]) or any(a is not None and b is not None and a != b
                                           for a, b in zip(s, known[0])) for s in known):
        # (said here: the user wrote a list, not a stack)
        raise ValueError(f"{op}: a list holding tensors becomes one tensor, so its items must have "
                         f"one shape; got shapes {', '.join(map(_shape_text, shapes))}")
    return bind("stack", *items, axis=0)


def _shape_text(shape) -> str:
    return "<unknown rank>" if shape is None else str(shape)


def prepare(op: str, *operands) -> List:
    """Unify the dtypes of `operands` for op `op` and convert non-tensors to arrays.

    Python numbers are weak (they take the dtype of the tensors present);
    tensors and arrays of different dtypes raise TypeError naming both.
    """
    checked = [o if is_python_number(o) else as_operand(op, o) for o in operands]
    try:
        unified = unify_operands(op, checked)
    except TypeError as e:
        msg = str(e)
        raise TypeError(msg if msg.startswith(op + ":") else f"{op}: {msg}") from None
    return unified


def rank_of(x) -> Optional[int]:
    """The rank of a prepared operand (None when unknown)."""
    shape = x.shape
    return None if shape is None else len(shape)


def _axis_ints(op: str, axis) -> List[int]:
    if isinstance(axis, SymbolicTensor):
        raise TypeError(f"{op}: axis must be known at trace time (a Python int or tuple of ints), "
                        f"got a traced tensor")
    if is_tensor_like(axis) or isinstance(axis, np.ndarray):
        axis = np.asarray(axis)
        if axis.dtype.kind not in "iu" or axis.ndim > 1:
            raise TypeError(f"{op}: axis must be an int or a 1-D list of ints, got {axis!r}")
        return [int(a) for a in axis.reshape(-1)]
    if isinstance(axis, (list, tuple)):
        items = list(axis)
    else:
        items = [axis]
    for a in items:
        if isinstance(a, bool) or not isinstance(a, numbers.Integral):
            raise TypeError(f"{op}: axis must be None, an int or a tuple of ints, got {axis!r}")
    return [int(a) for a in items]


def normalize_axis(op: str, axis, rank: Optional[int]) -> Optional[Tuple[int, ...]]:
    """None, an int, or a list/tuple of ints -> None or a sorted tuple of distinct
    non-negative axes, checked against `rank` (negative axes need a known rank)."""
    if axis is None:
        return None
    items = _axis_ints(op, axis)
    out = []
    for a in items:
        if rank is None:
            if a < 0:
                raise ValueError(f"{op}: negative axis {a} needs a tensor of known rank")
        elif not -rank <= a < rank:
            lo = -rank if rank else 0
            raise ValueError(f"{op}: axis {a} is out of range for a tensor of rank {rank} "
                             f"(expected {lo} <= axis < {rank})")
        elif a < 0:
            a += rank
        out.append(a)
    if len(set(out)) != len(out):
        raise ValueError(f"{op}: axis {axis!r} names the same axis twice")
    return tuple(sorted(out))


_INT32 = np.iinfo(np.int32)


def python_int_operand(i: int) -> np.ndarray:
    """A Python int as an int32 scalar array, or int64 when it does not fit in int32."""
    i = int(i)
    if _INT32.min <= i <= _INT32.max:
        return np.array(i, dtype=np.int32)
    return np.array(i, dtype=np.int64)


def index_operand(x):
    """An integer index operand as int32 or int64: other integer dtypes (int8,
    uint16, ...) are cast to int64 first, so compiled code reads an unsigned
    index as unsigned (indices and sizes are i64 there). Other values pass."""
    d = getattr(x, "dtype", None)
    try:
        d = None if d is None else as_dtype(d)
    except TypeError:
        return x
    if d is None or not d.is_integer or d.name in ("int32", "int64"):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x).astype(np.int64)
    return bind("cast", x, dtype=as_dtype("int64"))
