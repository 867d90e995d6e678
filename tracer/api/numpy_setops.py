"""`np.unique` and `np.einsum` on tensors, as compositions of existing ops.

`np.unique(a)`: the sorted distinct values of `a` flattened, a 1-D tensor
whose length is known only at run time. It sorts (stably), keeps each value
that differs from the one before it (NaNs count as equal, NumPy's default
`equal_nan=True`), and selects those with a boolean mask (nonzero + gather).
`return_index` (the first occurrence of each value in the flattened input),
`return_inverse` (each input element's position in the result, in the
input's shape as NumPy 2 gives it) and `return_counts` are supported;
`axis` is refused with a clear error.

`np.einsum(subscripts, *operands)`: explicit (`"ij,jk->ik"`) and implicit
(`"ij,jk"`, output = the indices seen once, sorted) forms, with `...` for
leading broadcast dimensions. Each operand is transposed and reshaped onto
one common order of all indices, the operands are multiplied with
broadcasting, and the indices absent from the output are summed. A
contraction of two operands that is a matrix product is sent to `matmul`
instead, so it runs at BLAS speed and never builds the full
product. An index repeated within one operand (`"ii"`, `"ii->i"`) first
takes that operand's diagonal (`numpy_diagonal.diagonal_terms`);
`optimize=` is accepted and ignored (the order is the one above).
"""
from __future__ import annotations

import builtins
import string
from typing import Dict, List, Sequence, Tuple

import numpy as np

from .common import locate_errors, rank_of
from .construct import range as arange
from .elementwise import (equal, isnan, logical_and, logical_not, logical_or, matmul, multiply,
                          not_equal)
from .numpy_functions import Unsupported, dims_of, tensor_operand
from .reduce import reduce_sum
from .construct import shape as shape_of
from .elementwise import cast
from .scans import cumsum
from .shaping import concat, gather, reshape, transpose
from .sorting import argsort, nonzero
from ..core.types import int64

__all__ = ["np_unique", "np_einsum", "FUNCTIONS"]


@locate_errors
def np_unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
              *, equal_nan=True, sorted=True):
    """NumPy's `unique` of the flattened input (see the module docstring)."""
    if axis is not None:
        raise Unsupported("the axis= argument")
    source = tensor_operand("unique", ar)
    x = reshape(source, [-1])
    order = argsort(x, axis=0, stable=True)
    s = gather(x, order, axis=0)
    n = dims_of(s)[0]
    # prev[i] = s[i - 1], prev[0] = s[0]: lengths agree for every n, 0 included
    prev = concat([s[:1], s[:-1]], axis=0)
    first = not_equal(s, prev)
    if s.dtype.is_floating and equal_nan:
        first = logical_and(first, logical_not(logical_and(isnan(s), isnan(prev))))
    first = logical_or(first, equal(arange(n), 0))
    (pos,) = nonzero(first)
    out = [gather(s, pos, axis=0)]
    if return_index:
        out.append(gather(order, pos, axis=0))
    if return_inverse:
        # the sorted element i belongs to unique value cumsum(first)[i] - 1; the
        # inverse permutation of `order` puts those ids back in input order
        ids = cumsum(cast(first, int64), axis=0) - 1
        inverse = gather(ids, argsort(order, axis=0, stable=True), axis=0)
        out.append(reshape(inverse, shape_of(source, out_type=int64)))   # NumPy 2: a's shape
    if return_counts:
        ends = concat([pos[1:], reshape(_as_int64(n), [1])], axis=0)
        out.append(ends - pos)
    return out[0] if len(out) == 1 else tuple(out)


def _as_int64(n):
    from .elementwise import cast
    return np.int64(n) if isinstance(n, int) else cast(n, int64)


# ---------------------------------------------------------------- einsum

def _parse(subscripts: str, ranks: Sequence[int]) -> Tuple[List[str], str]:
    """(input index strings, output index string), with `...` expanded to
    upper-case letters that stand for the broadcast dimensions."""
    if not isinstance(subscripts, str):
        raise Unsupported("subscripts given as operand/sublist pairs")
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ranks):
        raise ValueError(f"np.einsum: {len(terms)} operand subscripts for {len(ranks)} operands")
    nell = 0
    for t, r in zip(terms, ranks):
        if "..." in t:
            nell = builtins.max(nell, r - len(t.replace("...", "")))
    ell = string.ascii_uppercase[:nell]
    expanded = []
    for t, r in zip(terms, ranks):
        if "..." in t:
            k = r - len(t.replace("...", ""))
            t = t.replace("...", ell[nell - k:])
        if any(c not in string.ascii_lowercase and c not in ell for c in t):
            raise ValueError(f"np.einsum: invalid subscript in {subscripts!r} (use lower-case "
                             f"letters and '...')")
        if len(t) != r:
            raise ValueError(f"np.einsum: operand subscripts {t!r} do not match an operand of "
                             f"rank {r}")
        expanded.append(t)
    if arrow:
        out = output.replace("...", ell)
        for c in out:
            if not any(c in t for t in expanded):
                raise ValueError(f"np.einsum: output subscript {c!r} appears in no operand")
    else:
        counts: Dict[str, int] = {}
        for t in expanded:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(builtins.sorted(c for c, k in counts.items()
                                            if k == 1 and c not in ell))
    return expanded, out


def _aligned(x, have: str, order: str):
    """x (indices `have`) transposed to `order`'s relative order and reshaped
    with size-1 axes for the indices it lacks."""
    present = [c for c in order if c in have]
    perm = [have.index(c) for c in present]
    if perm != builtins.list(builtins.range(len(perm))):
        x = transpose(x, perm)
    dims = dims_of(x)
    full = [dims[present.index(c)] if c in present else 1 for c in order]
    return reshape(x, full) if len(full) != len(present) else x


def _as_matmul(terms, out, xs):
    """The contraction as one 2-D matmul when it is one: two operands, one
    contracted index set (in both, not in the output), one free index set
    each (in the output), no index shared by both and kept. Else None."""
    if len(xs) != 2:
        return None
    a, b = terms
    batch = [c for c in out if c in a and c in b]
    contract = [c for c in a if c in b and c not in out]
    free_a = [c for c in a if c not in b]
    free_b = [c for c in b if c not in a]
    # ag.matmul is 2-D: batch indices take the general path
    if batch or not contract or any(c not in out for c in free_a + free_b):
        return None
    da = dict(zip(a, dims_of(xs[0])))
    db = dict(zip(b, dims_of(xs[1])))

    def size(dims, cs):
        n = 1
        for c in cs:
            n = n * dims[c] if isinstance(n, int) and isinstance(dims[c], int) else \
                multiply(n, dims[c])
        return n

    lhs = _aligned(xs[0], a, "".join(batch + free_a + contract))
    rhs = _aligned(xs[1], b, "".join(batch + contract + free_b))
    bdims = [da[c] for c in batch]
    lhs = reshape(lhs, bdims + [size(da, free_a), size(da, contract)])
    rhs = reshape(rhs, bdims + [size(db, contract), size(db, free_b)])
    r = reshape(matmul(lhs, rhs), bdims + [da[c] for c in free_a] + [db[c] for c in free_b])
    got = "".join(batch + free_a + free_b)
    if got != out:
        r = transpose(r, [got.index(c) for c in out])
    return r


@locate_errors
def np_einsum(subscripts, *operands, out=None, optimize=False, dtype=None, order="K",
              casting="safe"):
    """NumPy's `einsum` (see the module docstring)."""
    if out is not None:
        raise Unsupported("the out= argument")
    if dtype is not None:
        raise Unsupported("the dtype= argument")
    xs = [tensor_operand("einsum", o) for o in operands]
    if not xs:
        raise ValueError("np.einsum: expected at least one operand")
    ranks = [rank_of(x) for x in xs]
    if any(r is None for r in ranks):
        raise ValueError("np.einsum: operands of unknown rank")
    terms, out_idx = _parse(subscripts, ranks)
    if any(len(set(t)) != len(t) for t in terms):      # "ii": the operand's diagonal first
        from .numpy_diagonal import diagonal_terms
        pairs = [diagonal_terms(t, x) for t, x in zip(terms, xs)]
        terms, xs = [t for t, _ in pairs], [x for _, x in pairs]
    if len({x.dtype for x in xs}) > 1:
        raise TypeError(f"np.einsum: the operands have different dtypes "
                        f"{', '.join(sorted(str(x.dtype.name) for x in xs))}; autograph does not "
                        f"promote: cast them to one dtype with ag.cast")
    fast = _as_matmul(terms, out_idx, xs)
    if fast is not None:
        return fast
    order = out_idx + "".join(c for t in terms for c in t if c not in out_idx)
    order = "".join(dict.fromkeys(order))          # first occurrence, no repeats
    prod = None
    for x, t in zip(xs, terms):
        y = _aligned(x, t, order)
        prod = y if prod is None else multiply(prod, y)
    summed = [i for i, c in enumerate(order) if c not in out_idx]
    return reduce_sum(prod, axis=summed) if summed else prod


FUNCTIONS = {"unique": np_unique, "einsum": np_einsum}
