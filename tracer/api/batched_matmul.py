"""NumPy's `@` on operands of rank > 2 (stacks of matrices), composed of ops.

NumPy's `matmul` treats the last two dimensions as matrices and broadcasts
the others (the batch dimensions); a 1-D operand is a vector, promoted to a
matrix and its axis removed from the result. The `matmul` op is 2-D, so:

* a stack times one matrix (`A[r, q, 1, p] @ C4[p, s]`, npbench's doitgen;
  activations `x[b, t, k] @ W[k, n]`) flattens the stack's rows into one
  matrix: one BLAS product, reshaped back;
* one matrix times a stack is the same on the transposes;
* two stacks multiply elementwise with broadcasting and sum over the inner
  dimension (`a[..., m, k, 1] * b[..., 1, k, n]`): exact, not BLAS speed.

Sums of products may add in another order than NumPy's BLAS, so results
agree to rounding.
"""
from __future__ import annotations

from .common import rank_of

__all__ = ["batched_matmul"]


def _swap_last(x):
    from .shaping import transpose
    r = rank_of(x)
    return transpose(x, list(range(r - 2)) + [r - 1, r - 2])


def _stacks(a, b):
    """a @ b for a, b of rank >= 2, at least one > 2 (no vectors)."""
    from .elementwise import matmul
    from .numpy_functions import dims_of
    from .reduce import reduce_sum
    from .shaping import expand_dims, reshape
    ra, rb = rank_of(a), rank_of(b)
    if rb == 2:
        da = dims_of(a)
        flat = matmul(reshape(a, [-1, da[-1]]), b)
        return reshape(flat, da[:-1] + [dims_of(b)[-1]])
    if ra == 2:
        return _swap_last(_stacks(_swap_last(b), _swap_last(a)))
    return reduce_sum(expand_dims(a, -1) * expand_dims(b, -3), axis=-2)


def batched_matmul(a, b):
    """NumPy's `a @ b` where a rank exceeds 2 (operands already prepared:
    tensors of one numeric dtype, known ranks)."""
    from .shaping import reshape, squeeze
    from .numpy_functions import dims_of
    ra, rb = rank_of(a), rank_of(b)
    if ra is None or rb is None:
        raise ValueError("matmul: operands of unknown rank have no batched product")
    k1, k2 = a.shape[-1], b.shape[0 if rb == 1 else -2]
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"matmul: the inner dimensions do not match: a has shape "
                         f"{tuple(a.shape)} and b has shape {tuple(b.shape)} ({k1} vs {k2})")
    if ra == 1:
        return squeeze(_stacks(reshape(a, [1, -1]), b), axis=-2)
    if rb == 1:
        return squeeze(_stacks(a, reshape(b, [dims_of(b)[0], 1])), axis=-1)
    return _stacks(a, b)
