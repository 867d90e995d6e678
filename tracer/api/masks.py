"""Boolean-mask indexing, as NumPy does it: `a[mask]` and `a[mask] = v`.

`a[mask]`, with `mask` a bool tensor whose shape is the leading dimensions of
`a`, picks the elements (or sub-arrays) where the mask is true, in row-major
order: a tensor whose first dimension, the number of true elements, is known
only at run time. It is `gather` of `a` (its masked dimensions flattened) at
the flat positions of the true elements (`nonzero`).

`a[mask] = v` is a functional update (API.md section 2) where `v` is a
scalar, or broadcasts to `a`: `where(mask, v, a)`. NumPy also takes a `v`
with one value per true element (`a[m] = a[m] ** -1.5`): that is a `scatter`
of `v` at the flat positions of the true elements (`nonzero`), `v`
broadcast to `(count,) + a.shape[k:]`; a `v` whose length is not the number
of true elements raises `InvalidArgumentError` when the code runs.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .common import as_operand, is_tensor_like, rank_of
from ..core.convert import python_to_dtype
from ..core.types import DType, as_dtype, int64

__all__ = ["mask_of", "masked_getitem", "masked_setitem"]


def mask_of(key) -> Optional[object]:
    """`key` as a bool mask operand when it is one (a bool tensor or array, or a
    list of Python bools), else None."""
    if isinstance(key, (list, tuple)) and key and all(isinstance(k, (bool, np.bool_)) for k in key):
        return np.asarray(key, dtype=bool)
    if is_tensor_like(key) or isinstance(key, np.ndarray):
        d = key.dtype if isinstance(key.dtype, DType) else as_dtype(key.dtype)
        if d.is_bool and tuple(key.shape or ()) != ():
            return key if is_tensor_like(key) else np.asarray(key)
    return None


def _check_shape(op: str, x, mask) -> int:
    """The mask's rank, after checking that its shape is x's leading dimensions."""
    k, n = rank_of(mask), rank_of(x)
    if k is None or n is None:
        raise ValueError(f"{op}: a boolean mask needs the ranks of the mask and the tensor known "
                         f"at trace time")
    if k > n:
        raise IndexError(f"{op}: too many indices: the tensor has rank {n} but the boolean mask "
                         f"has rank {k}")
    for axis, (m, d) in enumerate(zip(mask.shape, x.shape)):
        if m is not None and d is not None and m != d:
            raise IndexError(f"{op}: boolean index did not match the indexed tensor along axis "
                             f"{axis}; size of axis is {d} but size of corresponding boolean axis "
                             f"is {m}")
        if m is None or d is None:
            # Known only when the code runs: a shorter mask would silently pick from the
            # wrong rows (and a mask of another shape with as many elements would too).
            from .construct import dim
            from .elementwise import equal
            from ..tracing.symbolic import bind
            mn = m if m is not None else dim(mask, axis)
            dn = d if d is not None else dim(x, axis)
            bind("check_values", equal(mn, dn), dn, mn,
                 message=f"{op}: boolean index did not match the indexed tensor along axis {axis}; "
                         "size of axis is {0} but size of corresponding boolean axis is {1}")
    return k


def _flat(x, k: int, lead):
    """`x` with its first `k` dimensions flattened into one of size `lead` (given,
    not -1: with a 0 among the other dimensions a -1 would be ambiguous)."""
    from .shaping import reshape
    rest = list(x.shape[k:])
    if any(d is None for d in rest):
        from .construct import dim
        rest = [dim(x, i) for i in range(k, len(x.shape))]
    return reshape(x, [lead] + rest)


def masked_getitem(x, mask):
    """`x[mask]` for a bool `mask` over x's leading dimensions (see the module docstring)."""
    from .sorting import nonzero
    from .shaping import gather
    x = as_operand("getitem", x)
    mask = as_operand("getitem", mask)
    k = _check_shape("getitem", x, mask)
    if k == 1:
        (positions,) = nonzero(mask)
        return gather(x, positions, axis=0)
    from .shaping import reshape, size
    n = size(mask)   # the elements the mask covers: x's first k dimensions flattened
    (positions,) = nonzero(reshape(mask, [-1]))
    return gather(_flat(x, k, n), positions, axis=0)


def masked_setitem(x, mask, value):
    """`x[mask] = value` for a bool `mask` over x's leading dimensions and a
    `value` that broadcasts to `x`; returns the updated tensor."""
    from .elementwise import where
    x = as_operand("item assignment", x)
    mask = as_operand("item assignment", mask)
    k = _check_shape("item assignment", x, mask)
    if isinstance(value, (list, tuple)):   # Python numbers adopt x's dtype, tensors keep theirs
        from .fancy_indexing import _value_operand
        value = _value_operand(x, value)
    if is_tensor_like(value) or isinstance(value, np.ndarray):
        vr = rank_of(as_operand("item assignment", value))
        if vr is not None and vr > 0 and tuple(value.shape) != tuple(x.shape):
            # one value (or sub-array) per true element, NumPy's other form
            if rank_of(x) is not None and vr > rank_of(x) - k:
                return _scatter_per_true(x, mask, k, value)
    extra = rank_of(x) - k
    m = mask[(Ellipsis,) + (None,) * extra] if extra else mask   # whole sub-arrays per true element
    if isinstance(value, (bool, int, float, complex)):
        dtype = x.dtype if isinstance(x.dtype, DType) else as_dtype(x.dtype)
        value = python_to_dtype(value, dtype, "item assignment")
    return where(m, value, x)


def _scatter_per_true(x, mask, k: int, value):
    """`x[mask] = value` with one value (or sub-array) per true element: a
    scatter into x (its masked dimensions flattened) at the true positions."""
    from .construct import dim
    from .fancy_indexing import _broadcast_value, _value_operand, scatter
    from .numpy_functions import dims_of
    from .shaping import reshape, size
    from .sorting import nonzero
    dims = dims_of(x)
    n = size(mask) if k > 1 else dims[0]
    (positions,) = nonzero(reshape(mask, [-1]) if k > 1 else mask)
    value = _value_operand(x, value)
    count = dim(positions, 0)
    if rank_of(value) == len(dims) - k + 1 and value.shape[0] != 1:
        # NumPy raises for a length other than the number of true elements
        from .debugging import _check
        from .elementwise import cast, equal
        _check(equal(cast(dim(value, 0), int64), cast(count, int64)),
               "item assignment: a[mask] = values needs one value per true element of the "
               "mask (or a single value); the lengths differ", None)
    region = [count] + dims[k:]
    updates = _broadcast_value(value, region)
    out = scatter(_flat(x, k, n), positions, updates, axis=0, mode="set")
    return reshape(out, dims) if k > 1 else out
