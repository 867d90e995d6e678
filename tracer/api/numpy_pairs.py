"""NumPy functions that give two results or prepend one: `np.modf`,
`np.divmod`, and NumPy 2's `np.cumulative_sum` / `np.cumulative_prod`.

* `modf(x)`: (fractional part, integral part), both with x's sign, as C's
  `modf`: `modf(-3.0)` is (-0.0, -3.0), `modf(inf)` (0.0, inf), NaN gives
  NaN twice. Integers are computed in float64, as NumPy does.
* `divmod(x, y)`: (x // y, x % y), NumPy's floor division and remainder
  (each the compiled op that `//` and `%` already are).
* `cumulative_sum`/`cumulative_prod(x, axis=, dtype=, include_initial=)`:
  `np.cumsum`/`np.cumprod` (their dtypes: sums of bools and small
  integers in int64), with the identity (0 or 1) first when
  `include_initial`; `axis` may be omitted for a 1-D tensor only.
"""
from __future__ import annotations

import numbers

import numpy as np

from .common import locate_errors, rank_of
from .construct import fill
from .elementwise import cast, copysign, floordiv, isinf, mod, subtract, trunc, where
from .numpy_functions import NO, Unsupported, bool_as_number, dims_of, reject, tensor_operand
from .numpy_promote import promote
from .scans import cumprod, cumsum
from .shaping import concat
from ..core.types import as_dtype, float64

__all__ = ["FUNCTIONS"]


@locate_errors
def np_modf(x, out=NO, **kwargs):
    """NumPy's `modf`: the fractional and integral parts, each with x's sign."""
    reject("modf", out=out)
    if kwargs:
        raise Unsupported(f"the {next(iter(kwargs))}= argument")
    t = tensor_operand("modf", x)
    if not t.dtype.is_floating:
        if t.dtype.is_complex:
            raise TypeError("np.modf: ufunc 'modf' not supported for complex input")
        t = cast(t, float64)
    whole = trunc(t)
    # x - trunc(x) is exact; copysign gives -0.0 for negative integral values, as C's modf;
    # infinities have no fractional part (inf - inf would be NaN)
    frac = copysign(where(isinf(t), 0.0, subtract(t, whole)), t)
    return frac, whole


@locate_errors
def np_divmod(x, y, out=NO, **kwargs):
    """NumPy's `divmod`: (floor division, remainder)."""
    reject("divmod", out=out)
    if kwargs:
        raise Unsupported(f"the {next(iter(kwargs))}= argument")
    a, b = promote("divmod", x, y)
    return floordiv(a, b), mod(a, b)


def _cumulative(op: str, scan: str, identity: int, x, axis, dtype, out, include_initial):
    reject(op, out=out)
    t = tensor_operand(op, x)
    rank = rank_of(t)
    if rank is None:
        raise Unsupported("a tensor of unknown rank")
    if axis is None:
        if rank != 1:
            raise ValueError(f"np.{op}: For arrays which have more than one dimension ``axis`` "
                             f"argument is required.")
        axis = 0
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"np.{op}: axis must be an int, got {axis!r}")
    if dtype is not None:
        target = as_dtype(dtype)
        t = t if t.dtype == target else cast(t, target)
    t = bool_as_number("cumsum", t)                    # as np.cumsum / np.cumprod: bools count
    out_t = (cumsum if scan == "cumsum" else cumprod)(t, axis=int(axis))
    if not include_initial:
        return out_t
    dims = dims_of(out_t)
    ax = int(axis) % max(rank, 1)
    dims[ax] = 1
    first = fill(dims, np.asarray(identity, out_t.dtype.np_dtype))
    return concat([first, out_t], axis=ax)


@locate_errors
def np_cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """NumPy's `cumulative_sum`: `cumsum`, with 0 first when `include_initial`."""
    return _cumulative("cumulative_sum", "cumsum", 0, x, axis, dtype, out, include_initial)


@locate_errors
def np_cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """NumPy's `cumulative_prod`: `cumprod`, with 1 first when `include_initial`."""
    return _cumulative("cumulative_prod", "cumprod", 1, x, axis, dtype, out, include_initial)


FUNCTIONS = {"modf": np_modf, "divmod": np_divmod, "cumulative_sum": np_cumulative_sum,
             "cumulative_prod": np_cumulative_prod}
