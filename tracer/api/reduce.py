"""Public reductions: reduce_sum/mean/max/min/prod/any/all.

`axis` is None (all axes), an int or a tuple/list of ints, negative counting
from the end; it must be known at trace time. The result keeps the input's
dtype (TensorFlow's rule: `reduce_mean` of integers is an integer, truncated
toward zero).
"""
from __future__ import annotations

from .common import locate_errors, normalize_axis, prepare, rank_of
from ..tracing.symbolic import bind

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
           "reduce_any", "reduce_all"]


def _reduction(op: str, doc: str):
    def fn(input_tensor, axis=None, keepdims=False, name=None):
        (x,) = prepare(op, input_tensor)
        if not isinstance(keepdims, bool):
            keepdims = bool(keepdims)   # a traced keepdims raises the tracer's bool error here
        return bind(op, x, axis=normalize_axis(op, axis, rank_of(x)), keepdims=keepdims)
    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = doc + (" `axis`: None, an int or a tuple of ints (negative from the end); "
                        "`keepdims`: keep reduced axes as size 1.")
    fn.__module__ = __name__
    return locate_errors(fn)


reduce_sum = _reduction("reduce_sum", "Sum over `axis` in the input's dtype (integers wrap).")
reduce_mean = _reduction("reduce_mean", "Mean over `axis` in the input's dtype: integer means "
                                        "truncate toward zero and an empty integer mean raises "
                                        "InvalidArgumentError; an empty float mean is NaN.")
reduce_max = _reduction("reduce_max", "Maximum over `axis`; empty gives -inf or the dtype's MIN.")
reduce_min = _reduction("reduce_min", "Minimum over `axis`; empty gives +inf or the dtype's MAX.")
reduce_prod = _reduction("reduce_prod", "Product over `axis` in the input's dtype (integers wrap).")
reduce_any = _reduction("reduce_any", "Logical `or` of a bool tensor over `axis`.")
reduce_all = _reduction("reduce_all", "Logical `and` of a bool tensor over `axis`.")
