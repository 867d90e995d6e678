"""NumPy's refusal of an empty `max`/`min`.

`ag.reduce_max`/`ag.reduce_min` follow TensorFlow: over no elements they give
the identity (`-inf`/`+inf`, or the dtype's minimum/maximum). NumPy's `max`,
`min`, `amax`, `amin` and the array methods `.max()`/`.min()` have no identity
and raise `ValueError` ("zero-size array to reduction operation maximum which
has no identity") unless `initial=` gives one; users of those names expect
that, not a silent `-inf`. So the NumPy spellings check that the reduced axes
hold at least one element: at trace time when the dimensions are known, else
with a `check` op, so the compiled code raises `InvalidArgumentError` (a
`ValueError`) naming the user's line. The run-time check is made only at the
top level of the function: inside a compiled branch or loop body (where a
check would keep a counted loop on one thread) a dimension known only at run
time keeps `reduce_max`'s identity.
"""
from __future__ import annotations

import math

from .common import normalize_axis
from ..core.errors import InvalidArgumentError, with_location
from ..core.location import user_location
from ..core.types import DType
from ..tracing.symbolic import bind, current_builder

__all__ = ["refuse_empty"]

_NUMPY_NAME = {"reduce_max": ("max", "maximum"), "reduce_min": ("min", "minimum")}


def refuse_empty(name: str, a, axis, label: str = None) -> None:
    """Raise (or check when the code runs) when the NumPy reduction `name`
    (`reduce_max` or `reduce_min`; others pass) of the tensor `a` over `axis`
    would reduce zero elements, as NumPy does; `label` names the NumPy
    function in the message (default `max`/`min`)."""
    names = _NUMPY_NAME.get(name)
    if names is None or not isinstance(getattr(a, "dtype", None), DType) or not hasattr(a, "shape"):
        return   # not a tensor: nothing to check here
    text = (f"{label or names[0]}: zero-size array to reduction operation {names[1]} which has no "
            f"identity" + ("" if label else " (pass initial= to give one)"))
    shape = a.shape
    if shape is None:   # unknown rank (reduce_retracing): the whole size, when all is reduced
        if axis is None and _top_level():
            from . import elementwise as ew
            from .shaping import size
            from ..core.types import int64
            bind("check", ew.greater(size(a, out_type=int64), 0), message=text)
        return
    axes = normalize_axis(name, axis, len(shape))
    picked = range(len(shape)) if axes is None else axes
    dims = [shape[i] for i in picked]
    if all(d is not None for d in dims):
        if math.prod(dims) == 0:
            raise with_location(InvalidArgumentError(text), user_location())
        return
    from .construct import dim
    from . import elementwise as ew
    known = math.prod(d for d in dims if d is not None)
    if known == 0:
        raise with_location(InvalidArgumentError(text), user_location())
    if not _top_level():
        return
    nonempty = None
    for i in picked:   # each unknown dimension must be non-zero (no product: it could wrap)
        if shape[i] is None:
            ok = ew.greater(dim(a, i), 0)
            nonempty = ok if nonempty is None else ew.logical_and(nonempty, ok)
    bind("check", nonempty, message=text)


def _top_level() -> bool:
    """True unless tracing a compiled branch or loop body: there a check would stay in
    the body and keep a counted loop on one thread (codegen.lowering.split_safety
    refuses `check`), so the reduction keeps reduce_max's identity, as TensorFlow's."""
    builder = current_builder()
    return builder is None or len(builder.blocks) <= 1
