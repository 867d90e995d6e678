"""Diagonals of tensors of any rank: `np.diagonal` and `np.trace` with any
`axis1`/`axis2`, and the repeated indices of `np.einsum` (`"ii"`,
`"ii->i"`, `"bii->bi"`, `"ij,jj->i"`).

The two axes are moved last and flattened together, and the diagonal is one
`gather` of the flat positions i*m + i + offset (a trace-time constant), so
it is NumPy's values exactly; as NumPy's, the diagonal becomes the last axis.
The lengths of the two axes must be known when tracing (a 2-D `np.diagonal`
or `np.trace` of the first two axes also works with lengths known only at run
time: tracer/api/numpy_linalg.py).
"""
from __future__ import annotations

import numbers

import numpy as np

from .common import rank_of
from .numpy_functions import Unsupported, dims_of
from .shaping import gather, reshape, transpose

__all__ = ["diagonal", "diagonal_terms"]


def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1, op: str = "diagonal"):
    """The `offset`-th diagonal of `x` over axes `axis1`, `axis2`, as x's other axes plus
    the diagonal last (NumPy's `diagonal`)."""
    rank = rank_of(x)
    if rank is None or rank < 2:
        raise ValueError(f"np.{op}: diag requires an array of at least two dimensions")
    if isinstance(offset, bool) or not isinstance(offset, numbers.Integral):
        raise TypeError(f"np.{op}: offset must be an int known at trace time, got {offset!r}")
    a1, a2 = (int(a) % rank if -rank <= int(a) < rank else None for a in (axis1, axis2))
    if a1 is None or a2 is None:
        raise np.exceptions.AxisError(f"np.{op}: axis out of bounds for array of dimension {rank}")
    if a1 == a2:
        raise ValueError(f"np.{op}: axis1 and axis2 cannot be the same")
    n, m = x.shape[a1], x.shape[a2]
    if n is None or m is None:
        raise Unsupported("diagonal axes whose lengths are only known when the compiled code runs")
    rest = [i for i in range(rank) if i not in (a1, a2)]
    moved = x if rest + [a1, a2] == list(range(rank)) else transpose(x, rest + [a1, a2])
    dims = dims_of(moved)
    k = int(offset)
    length = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
    i = np.arange(length, dtype=np.int64)
    flat = (i * m + i + k) if k >= 0 else ((i - k) * m + i)
    return gather(reshape(moved, dims[:-2] + [n * m]), flat, axis=rank - 2)


def diagonal_terms(term: str, x):
    """(term, x) with every index repeated in `term` reduced to its diagonal, once: the
    einsum operand `x` of subscripts `term` as NumPy reads "ii" (a diagonal)."""
    while len(set(term)) != len(term):
        c = next(c for c in term if term.count(c) > 1)
        p = term.index(c)
        q = term.index(c, p + 1)
        if x.shape[p] is not None and x.shape[q] is not None and x.shape[p] != x.shape[q]:
            raise ValueError(f"np.einsum: dimensions in operand for collapsing index '{c}' don't "
                             f"match ({x.shape[p]} != {x.shape[q]})")
        x = diagonal(x, 0, p, q, op="einsum")
        term = "".join(t for j, t in enumerate(term) if j not in (p, q)) + c
    return term, x
