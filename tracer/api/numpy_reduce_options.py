"""The `dtype=`, `initial=` and `where=` arguments of NumPy's reductions
(`np.sum prod max amax min amin mean`) on tensors.

* `dtype=`: the elements are cast to it first, as NumPy computes in it
  (`np.sum(int8 array, dtype=np.int64)` does not wrap).
* `where=`: a boolean mask broadcasting against the array; elements it
  leaves out count as the reduction's identity (0 for sums, 1 for
  products), and `mean` divides by the number of elements left in. `max`
  and `min` have no identity: NumPy asks for `initial=`, and so do we.
* `initial=`: a Python number the reduction starts from (for `max`/`min`
  it is compared with the result; for sums and products added or
  multiplied once: the same value, possibly in another rounding order than
  NumPy's for floats).
"""
from __future__ import annotations

import numbers

from .elementwise import add, cast, divide, maximum, minimum, multiply, where as ag_where
from .numpy_functions import NO, Unsupported, bool_as_number, numpy_reduction, tensor_operand
from ..core.types import as_dtype, bool_, float64

__all__ = ["reduce_with_options"]

_IDENTITY = {"reduce_sum": 0, "reduce_prod": 1}
_NUMPY_NAME = {"reduce_sum": "add", "reduce_prod": "multiply", "reduce_max": "maximum",
               "reduce_min": "minimum"}


def _mask(where, x):
    m = tensor_operand("where", where)
    if m.dtype != bool_:
        raise TypeError(f"where= must be a boolean mask, got a tensor of dtype {m.dtype.name}")
    from .numpy_statistics import broadcast_to
    shape = [d for d in x.shape]
    return broadcast_to(m, shape)


def reduce_with_options(fn, a, axis, keepdims, dtype=None, initial=NO, where=NO):
    """NumPy's reduction `fn` (reduce_sum, reduce_prod, reduce_max, reduce_min, reduce_mean)
    of `a` with its `dtype=`, `initial=` and `where=` arguments (see the module doc)."""
    name = fn.__name__
    x = tensor_operand(name, a)
    if dtype is not None:
        target = as_dtype(dtype)
        if x.dtype != target:
            x = cast(x, target)
    if initial is not NO and initial is not None:
        if isinstance(initial, bool) or not isinstance(initial, numbers.Number):
            raise Unsupported("an initial= that is not a Python number")
        if name == "reduce_mean":
            raise TypeError("np.mean: got an unexpected keyword argument 'initial'")
    if where is not NO and where is not True:
        if x.shape is None or any(d is None for d in x.shape):
            raise Unsupported("where= on a tensor whose shape is only known when the compiled code runs")
        mask = _mask(where, x)
        if name == "reduce_mean":
            if not (x.dtype.is_floating or x.dtype.is_complex):
                x = cast(x, float64)              # NumPy's mean of integers is float64
            total = numpy_reduction(_sum(), ag_where(mask, x, 0), axis, keepdims)
            count = numpy_reduction(_sum(), cast(mask, x.dtype), axis, keepdims)
            return divide(total, count)
        x = bool_as_number(name, x)
        fill = _IDENTITY.get(name)
        if fill is None:
            if initial is NO or initial is None:
                raise ValueError(f"reduction operation '{_NUMPY_NAME.get(name, name)}' does not have an "
                                 f"identity, so to use a where mask one has to specify 'initial'")
            fill = initial
        x = ag_where(mask, x, fill)
    out = numpy_reduction(fn, x, axis, keepdims, empty_ok=initial is not NO and initial is not None)
    if initial is NO or initial is None:
        return out
    combine = {"reduce_sum": add, "reduce_prod": multiply, "reduce_max": maximum,
               "reduce_min": minimum}.get(name)
    if combine is None:
        raise Unsupported(f"initial= with {name}")
    return combine(out, initial)


def _sum():
    from .reduce import reduce_sum
    return reduce_sum
