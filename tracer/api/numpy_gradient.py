"""NumPy's `np.gradient` on tensors: central differences inside, one-sided
differences of first or second order (`edge_order`) at the two ends, with
unit spacing, one spacing per axis, or sample coordinates per axis.

NumPy's arithmetic is followed step by step, so results equal NumPy's to
the last bit: `(f[2:] - f[:-2]) / (2. * h)` inside for a uniform spacing,
`a*f[:-2] + b*f[1:-1] + c*f[2:]` with NumPy's coefficients for coordinates,
and NumPy's one-sided formulas at the ends. Coordinates that turn out evenly
spaced are treated as NumPy treats them (as the uniform spacing `x[1] - x[0]`):
traced coordinates compute both forms and pick by `all(diff == diff[0])`
when the compiled code runs. Integers and bools are differentiated in
float64, floats in their own dtype. The axis's length must be known when
tracing (it decides the edges' formulas); one axis gives a tensor, several
a tuple, as NumPy 2.
"""
from __future__ import annotations

import builtins
import numbers
from typing import List

import numpy as np

from .common import is_tensor_like, locate_errors, normalize_axis, rank_of
from .elementwise import add, cast, divide, equal, multiply, negative, subtract, where
from .numpy_functions import Unsupported, tensor_operand
from .reduce import reduce_all
from .shaping import concat, reshape
from .slicing import getitem
from ..core.types import float64

__all__ = ["np_gradient", "FUNCTIONS"]


def _along(t, axis: int, part):
    """t[..., part, ...] with `part` (a slice or an int kept as a length-1 slice) on `axis`."""
    if isinstance(part, int):
        part = builtins.slice(part, part + 1 if part != -1 else None)
    return getitem(t, (builtins.slice(None),) * axis + (part,))


def _shaped(d, rank: int, axis: int):
    """A 1-D tensor of per-position values laid along `axis` of a rank-`rank` tensor."""
    if rank == 1:
        return d
    shape = [1] * rank
    shape[axis] = -1
    return reshape(d, shape)


class _Spacing:
    """One axis's spacing: a scalar `h` (uniform) or the differences of coordinates `dx`."""

    def __init__(self, h=None, dx=None):
        self.h, self.dx = h, dx


def _spacing(value, n: int) -> _Spacing:
    if is_tensor_like(value) or isinstance(value, (np.ndarray, np.generic, list, tuple)):
        x = tensor_operand("gradient", value)
        if rank_of(x) == 0:
            return _Spacing(h=x if x.dtype.is_floating else cast(x, float64))
        if rank_of(x) != 1:
            raise ValueError("np.gradient: distances must be either scalars or 1d")
        if x.shape[0] is not None and x.shape[0] != n:
            raise ValueError("np.gradient: when 1d, distances must match the length of the "
                             "corresponding dimension")
        if not (x.dtype.is_floating):
            x = cast(x, float64)
        dx = subtract(getitem(x, builtins.slice(1, None)), getitem(x, builtins.slice(None, -1)))
        return _Spacing(dx=dx)
    if isinstance(value, bool) or not isinstance(value, numbers.Number):
        raise TypeError(f"np.gradient: a spacing must be a number or an array, got {value!r}")
    return _Spacing(h=value)


def _times(a, h):
    """a * h, in Python when both are Python numbers (as NumPy computes `2. * h`)."""
    return a * h if isinstance(h, numbers.Number) else multiply(a, h)


def _over(a, h):
    """a / h, in Python when both are Python numbers (as NumPy computes `-1.5 / h`)."""
    return a / h if isinstance(h, numbers.Number) else divide(a, h)


def _uniform(f, axis: int, n: int, h, edge_order: int):
    inner = divide(subtract(_along(f, axis, builtins.slice(2, None)), _along(f, axis, builtins.slice(None, -2))),
                   _times(2.0, h))
    if edge_order == 1:
        first = divide(subtract(_along(f, axis, 1), _along(f, axis, 0)), h)
        last = divide(subtract(_along(f, axis, -1), _along(f, axis, -2)), h)
    else:
        a, b, c = _over(-1.5, h), _over(2.0, h), _over(-0.5, h)
        first = add(add(multiply(a, _along(f, axis, 0)), multiply(b, _along(f, axis, 1))),
                    multiply(c, _along(f, axis, 2)))
        a, b, c = _over(0.5, h), _over(-2.0, h), _over(1.5, h)
        last = add(add(multiply(a, _along(f, axis, -3)), multiply(b, _along(f, axis, -2))),
                   multiply(c, _along(f, axis, -1)))
    return concat([first, inner, last], axis=axis) if n > 2 else concat([first, last], axis=axis)


def _coordinates(f, axis: int, n: int, dx, edge_order: int):
    rank = rank_of(f)
    at = lambda i: getitem(dx, builtins.slice(i, None if i == -1 else i + 1))   # noqa: E731 (dx[i:i+1])
    parts = []
    if edge_order == 1:
        parts.append(divide(subtract(_along(f, axis, 1), _along(f, axis, 0)), _shaped(at(0), rank, axis)))
    else:
        dx1, dx2 = at(0), at(1)
        a = negative(divide(add(multiply(2.0, dx1), dx2), multiply(dx1, add(dx1, dx2))))
        b = divide(add(dx1, dx2), multiply(dx1, dx2))
        c = negative(divide(dx1, multiply(dx2, add(dx1, dx2))))
        parts.append(_three(f, axis, (0, 1, 2), (a, b, c), rank))
    if n > 2:
        dx1 = getitem(dx, builtins.slice(None, -1))
        dx2 = getitem(dx, builtins.slice(1, None))
        a = divide(negative(dx2), multiply(dx1, add(dx1, dx2)))
        b = divide(subtract(dx2, dx1), multiply(dx1, dx2))
        c = divide(dx1, multiply(dx2, add(dx1, dx2)))
        parts.append(add(add(multiply(_shaped(a, rank, axis), _along(f, axis, builtins.slice(None, -2))),
                             multiply(_shaped(b, rank, axis), _along(f, axis, builtins.slice(1, -1)))),
                         multiply(_shaped(c, rank, axis), _along(f, axis, builtins.slice(2, None)))))
    if edge_order == 1:
        parts.append(divide(subtract(_along(f, axis, -1), _along(f, axis, -2)), _shaped(at(-1), rank, axis)))
    else:
        dx1, dx2 = at(-2), at(-1)
        a = divide(dx2, multiply(dx1, add(dx1, dx2)))
        b = negative(divide(add(dx2, dx1), multiply(dx1, dx2)))
        c = divide(add(multiply(2.0, dx2), dx1), multiply(dx2, add(dx1, dx2)))
        parts.append(_three(f, axis, (-3, -2, -1), (a, b, c), rank))
    return concat(parts, axis=axis)


def _three(f, axis: int, where_, coefficients, rank: int):
    (i, j, k), (a, b, c) = where_, coefficients
    return add(add(multiply(_shaped(a, rank, axis), _along(f, axis, i)),
                   multiply(_shaped(b, rank, axis), _along(f, axis, j))),
               multiply(_shaped(c, rank, axis), _along(f, axis, k)))


def _one_axis(f, axis: int, spacing: _Spacing, edge_order: int):
    n = f.shape[axis]
    if n is None:
        raise Unsupported("an axis whose length is only known when the compiled code runs")
    if n < edge_order + 1:
        raise ValueError("np.gradient: Shape of array too small to calculate a numerical gradient, "
                         f"at least (edge_order + 1) = {edge_order + 1} elements are required.")
    step = spacing.h if spacing.h is not None else spacing.dx
    out_dtype = f.dtype
    if is_tensor_like(step) and step.dtype != f.dtype:
        # NumPy computes with the float64 spacing, then stores into f's dtype
        f = cast(f, float64)
        step = step if step.dtype == float64 else cast(step, float64)
    if spacing.h is not None:
        out = _uniform(f, axis, n, step, edge_order)
    else:
        # NumPy: evenly spaced coordinates are the uniform spacing dx[0] (bit-exact results)
        first = getitem(step, 0)
        even = reduce_all(equal(step, first))
        out = where(even, _uniform(f, axis, n, first, edge_order), _coordinates(f, axis, n, step, edge_order))
    return out if out.dtype == out_dtype else cast(out, out_dtype)


@locate_errors
def np_gradient(f, *varargs, axis=None, edge_order=1):
    """NumPy's `gradient`: the derivative estimate of `f` along each axis (see the module doc)."""
    t = tensor_operand("gradient", f)
    rank = rank_of(t)
    if rank is None:
        raise Unsupported("a tensor of unknown rank")
    if rank == 0:
        raise ValueError("np.gradient: the array must have at least one dimension")
    if edge_order not in (1, 2):
        raise ValueError("np.gradient: 'edge_order' greater than 2 not supported")
    axes: List[int] = list(range(rank)) if axis is None else list(normalize_axis("gradient", axis, rank))
    if len(set(axes)) != len(axes):
        raise ValueError("np.gradient: repeated axis")
    if not t.dtype.is_floating:
        if t.dtype.is_complex:
            raise Unsupported("complex tensors")
        t = cast(t, float64)
    if len(varargs) == 0:
        spacings = [_Spacing(h=1.0)] * len(axes)
    elif len(varargs) == 1 and not _is_array(varargs[0]):
        spacings = [_spacing(varargs[0], 0)] * len(axes)
    elif len(varargs) == len(axes):
        spacings = [_spacing(v, t.shape[a]) for v, a in zip(varargs, axes)]
    else:
        spacings = None
    if spacings is None:
        raise TypeError("np.gradient: invalid number of arguments")
    out = [_one_axis(t, a, s, edge_order) for a, s in zip(axes, spacings)]
    return out[0] if len(out) == 1 else tuple(out)


def _is_array(v) -> bool:
    if is_tensor_like(v):
        return v.shape != ()
    return isinstance(v, (np.ndarray, list, tuple)) and np.ndim(v) > 0


FUNCTIONS = {"gradient": np_gradient}
