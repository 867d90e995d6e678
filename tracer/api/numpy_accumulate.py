"""`ufunc.accumulate` of the exact ufuncs: `np.maximum.accumulate` (a running
maximum, the vectorised way to write a cumulative max or a drawdown),
`np.minimum.accumulate`, `fmax`/`fmin`, `logical_and`/`logical_or` and the
bitwise `and`/`or`/`xor`. (`np.add.accumulate` and `np.multiply.accumulate`
are `cumsum` and `cumprod`, ops of their own.)

The running result along the axis is built by doubling (Hillis and Steele's
scan): after the step of width k every element combines the k before it,
so ceil(log2(n)) elementwise passes give the prefix results. Each of these
ufuncs is associative and exact (no rounding), so the order of combining
does not change a single bit and NaN propagates as NumPy's loop propagates
it. The axis length must be known when tracing (the number of passes
depends on it).
"""
from __future__ import annotations

from . import elementwise
from .common import locate_errors
from .numpy_functions import Unsupported, tensor_operand
from .shaping import concat
from .slicing import getitem

__all__ = ["FUNCTIONS"]

# NumPy ufunc name -> the ag op combining two elements (all exact and associative).
_COMBINE = {"maximum": "maximum", "minimum": "minimum", "fmax": "fmax", "fmin": "fmin",
            "logical_and": "logical_and", "logical_or": "logical_or",
            "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
            "bitwise_xor": "bitwise_xor"}


def _along(axis: int, rank: int, part: slice):
    """The index taking `part` along `axis` of a tensor of `rank`."""
    return tuple(part if d == axis else slice(None) for d in range(rank))


def _accumulate(name: str):
    combine = getattr(elementwise, _COMBINE[name], None)

    @locate_errors
    def accumulate(array, axis=0, dtype=None, out=None):
        if dtype is not None:
            raise Unsupported("the dtype= argument")
        if out is not None:
            raise Unsupported("the out= argument")
        if combine is None:
            raise Unsupported("it")
        x = tensor_operand(f"{name}.accumulate", array)
        rank = len(x.shape)
        if rank == 0:
            raise TypeError(f"np.{name}.accumulate: cannot accumulate a 0-d tensor (as NumPy)")
        if not isinstance(axis, int) or not -rank <= axis < rank:
            raise ValueError(f"np.{name}.accumulate: axis {axis!r} is out of bounds for a "
                             f"tensor of rank {rank}")
        axis %= rank
        n = x.shape[axis]
        if n is None:
            raise Unsupported("an axis whose length is only known when the compiled code runs")
        y = x
        k = 1
        while k < n:
            # every element from k on combines with the one k before it
            head = getitem(y, _along(axis, rank, slice(0, k)))
            tail = combine(getitem(y, _along(axis, rank, slice(k, None))),
                           getitem(y, _along(axis, rank, slice(0, n - k))))
            y = concat([head, tail], axis)
            k *= 2
        return y

    accumulate.__name__ = f"{name}_accumulate"
    accumulate.__doc__ = (f"NumPy's `np.{name}.accumulate(array, axis=0)`: the running "
                          f"{name} along `axis`, bit-exact.")
    return accumulate


FUNCTIONS = {f"{name}.accumulate": _accumulate(name) for name in _COMBINE}
