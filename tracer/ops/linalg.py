"""`matmul`: the product of two rank-2 tensors of one numeric dtype.

Inner dimensions are checked statically when both are known, else at run
time (InvalidArgumentError). Integer products wrap in the dtype.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.registry import declare
from ..core.types import TensorType
from ._common import check_kind, check_same_dtype, expect_arity, fmt_shape


def _matmul_rule(types, attrs, consts):
    expect_arity("matmul", types, 2)
    a, b = types
    check_same_dtype("matmul", a.dtype, b.dtype)
    check_kind("matmul", "numeric", a.dtype)
    for t, name in ((a, "a"), (b, "b")):
        if t.rank != 2:
            got = "a tensor of unknown rank" if t.shape is None else f"shape {fmt_shape(t.shape)}"
            raise ValueError(f"matmul: expected rank-2 matrices, got {got} for {name}")
    k1, k2 = a.shape[1], b.shape[0]
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"matmul: the inner dimensions do not match: a has shape "
                         f"{fmt_shape(a.shape)} and b has shape {fmt_shape(b.shape)} ({k1} vs {k2})")
    return [TensorType(a.dtype, (a.shape[0], b.shape[1]))]


def _matmul_reference(a, b):
    if a.shape[1] != b.shape[0]:
        raise InvalidArgumentError(f"matmul: the inner dimensions do not match: a has shape "
                                   f"{a.shape} and b has shape {b.shape}")
    with np.errstate(all="ignore"):
        return np.matmul(a, b)


declare("matmul", _matmul_rule, _matmul_reference, doc="matmul(a[m,k], b[k,n]) -> [m,n]",
        kind="numeric", public=("matmul",), numpy=("matmul", "dot"))
