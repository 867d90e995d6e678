"""NumPy's set routines of 1-D arrays on tensors: `np.union1d`,
`np.intersect1d`, `np.setdiff1d`, `np.setxor1d`, as compositions of
`np.unique` (numpy_setops.py), sorting and boolean masks.

Each result is sorted and unique, of a length known only when the compiled
code runs, and takes NumPy's result dtype of the two inputs (both are
flattened first, as NumPy does). `assume_unique=True` skips the `unique` of
the inputs, as in NumPy; `intersect1d(..., return_indices=True)` is refused
with a clear error.
"""
from __future__ import annotations

from .common import locate_errors
from .construct import range as arange
from .elementwise import equal, logical_and, logical_or, not_equal
from .numpy_elementwise import np_isin
from .numpy_functions import Unsupported, dims_of
from .numpy_promote import promote
from .numpy_setops import np_unique
from .shaping import concat, reshape
from .slicing import getitem
from .sorting import sort

__all__ = ["FUNCTIONS"]


def _flat_pair(op: str, ar1, ar2):
    a, b = promote(op, ar1, ar2)
    return reshape(a, [-1]), reshape(b, [-1])


def _unique(x, assume_unique: bool):
    return x if assume_unique else np_unique(x)


@locate_errors
def np_union1d(ar1, ar2):
    """NumPy's `union1d`: the sorted distinct values in either input."""
    a, b = _flat_pair("union1d", ar1, ar2)
    return np_unique(concat([a, b], axis=0))


@locate_errors
def np_intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """NumPy's `intersect1d`: the sorted distinct values in both inputs."""
    if return_indices:
        raise Unsupported("the return_indices= argument")
    a, b = _flat_pair("intersect1d", ar1, ar2)
    # In the sorted concatenation of two unique arrays a value present in both
    # appears twice, next to itself.
    s = sort(concat([_unique(a, assume_unique), _unique(b, assume_unique)], axis=0), axis=0)
    return getitem(s[:-1], equal(s[1:], s[:-1]))


@locate_errors
def np_setdiff1d(ar1, ar2, assume_unique=False):
    """NumPy's `setdiff1d`: the sorted distinct values of `ar1` not in `ar2`
    (with `assume_unique`, `ar1`'s values in their order)."""
    a, b = _flat_pair("setdiff1d", ar1, ar2)
    a = _unique(a, assume_unique)
    return getitem(a, np_isin(a, b, invert=True))


@locate_errors
def np_setxor1d(ar1, ar2, assume_unique=False):
    """NumPy's `setxor1d`: the sorted values in exactly one of the inputs."""
    a, b = _flat_pair("setxor1d", ar1, ar2)
    s = sort(concat([_unique(a, assume_unique), _unique(b, assume_unique)], axis=0), axis=0)
    n = dims_of(s)[0]
    i = arange(n)
    # a value is kept when it differs from both neighbours (the ends count as different);
    # prev/next have s's length for every n, 0 included (as np_unique's prev)
    prev = concat([s[:1], s[:-1]], axis=0)
    after = concat([s[1:], s[-1:]], axis=0)
    first = logical_or(not_equal(s, prev), equal(i, 0))
    last = logical_or(not_equal(s, after), equal(i, n - 1))
    return getitem(s, logical_and(first, last))


FUNCTIONS = {"union1d": np_union1d, "intersect1d": np_intersect1d,
             "setdiff1d": np_setdiff1d, "setxor1d": np_setxor1d}
