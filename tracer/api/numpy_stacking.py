"""NumPy's stacking helpers on tensors: `np.hstack`, `np.vstack`,
`np.column_stack`, `np.dstack`, `np.atleast_1d`, `np.atleast_2d`, `np.atleast_3d`, as compositions of
`concat` and `reshape` with NumPy's rules (dispatched by
`autograph.tracer.api.numpy_protocol` when NumPy meets a tensor)."""
from __future__ import annotations

from typing import Sequence

from .common import as_operand, rank_of

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "column_stack", "dstack",
           "FUNCTIONS"]


def _parts(op: str, tup: Sequence) -> list:
    if not isinstance(tup, (list, tuple)) or not tup:
        raise TypeError(f"np.{op}: expected a non-empty list or tuple of arrays, got "
                        f"{type(tup).__name__}")
    parts = [as_operand(op, t) for t in tup]
    if any(rank_of(p) is None for p in parts):
        raise ValueError(f"np.{op}: needs arrays of known rank")
    return parts


def atleast_1d(a):
    """`np.atleast_1d` of one array: a scalar becomes shape (1,)."""
    from .shaping import reshape
    x = as_operand("atleast_1d", a)
    return reshape(x, [1]) if rank_of(x) == 0 else x


def atleast_2d(a):
    """`np.atleast_2d` of one array: shape (n,) becomes (1, n), a scalar (1, 1)."""
    x = atleast_1d(a)
    return x[None] if rank_of(x) == 1 else x


def atleast_3d(a):
    """`np.atleast_3d` of one array: (n,) becomes (1, n, 1), (m, n) becomes (m, n, 1)."""
    x = atleast_1d(a)
    r = rank_of(x)
    if r == 1:
        return x[None, :, None]
    return x[:, :, None] if r == 2 else x


def hstack(tup, dtype=None, casting="same_kind"):
    """`np.hstack`: 1-D arrays joined end to end, others along axis 1."""
    from .shaping import concat
    parts = [atleast_1d(p) for p in _parts("hstack", tup)]
    return _cast(concat(parts, 0 if rank_of(parts[0]) == 1 else 1), dtype)


def vstack(tup, dtype=None, casting="same_kind"):
    """`np.vstack`: arrays as rows (1-D arrays become rows of a matrix), along axis 0."""
    from .shaping import concat
    return _cast(concat([atleast_2d(p) for p in _parts("vstack", tup)], 0), dtype)


def column_stack(tup):
    """`np.column_stack`: 1-D arrays as columns, 2-D arrays as they are, along axis 1."""
    from .shaping import concat
    parts = [p[:, None] if rank_of(p) == 1 else atleast_2d(p) for p in _parts("column_stack", tup)]
    return concat(parts, 1)


def dstack(tup):
    """`np.dstack`: arrays joined along the third axis (made at least 3-D first)."""
    from .shaping import concat
    return concat([atleast_3d(p) for p in _parts("dstack", tup)], 2)


def _cast(x, dtype):
    if dtype is None:
        return x
    from .elementwise import cast
    return cast(x, dtype)


FUNCTIONS = {"atleast_1d": atleast_1d, "atleast_2d": atleast_2d, "atleast_3d": atleast_3d,
             "hstack": hstack, "vstack": vstack, "column_stack": column_stack, "dstack": dstack}
