"""The backward walk of a tape: upstream gradients through the recorded ops, last first."""
from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np

from .. import api
from ..tracing.symbolic import SymbolicTensor
from .tape_state import differentiable, key_of, stop_recording

__all__ = ["run", "zeros_like", "accumulate"]


def zeros_like(x):
    """Zeros of `x`'s dtype and shape (a variable's too)."""
    if getattr(x, "_ag_variable", False) and not isinstance(x, SymbolicTensor):
        return api.zeros(x.shape, x.dtype)
    return api.zeros_like(x)


def accumulate(a, b):
    """a + b where either may be None (no gradient)."""
    if a is None:
        return b
    if b is None:
        return a
    return api.add(a, b)


def _seed(target, given):
    if given is not None:
        shape = getattr(given, "shape", None) if hasattr(given, "shape") else np.shape(given)
        want = target.shape
        if shape and want is not None and None not in shape and None not in want \
                and tuple(shape) != tuple(want):
            # a scalar seed scales the whole target; any other must match it (a larger
            # one would silently be summed into the gradient)
            raise ValueError(f"GradientTape.gradient: output_gradients of shape {tuple(shape)} for a "
                             f"target of shape {tuple(want)}; they must have the same shape")
        return api.cast(given, target.dtype) if getattr(given, "dtype", None) is not target.dtype \
            else given
    with stop_recording():     # the seed depends on nothing any tape watches
        if isinstance(target, SymbolicTensor):
            return api.ones_like(target)
        return api.ones(tuple(target.shape), target.dtype)


def run(records, targets, seeds, sources, tracked) -> List[Optional[object]]:
    """The gradients of the sum of `targets` (weighted by `seeds`) for each of
    `sources`; None for a source not in `tracked` (the keys the tape watched or
    computed)."""
    grads: Dict[object, object] = {}
    for i, t in enumerate(targets):
        k = key_of(t)
        if k is None or not differentiable(t):
            continue
        grads[k] = accumulate(grads.get(k), _seed(t, None if seeds is None else seeds[i]))
    wanted = {key_of(s) for s in sources}
    for rec in reversed(records):
        ups = [None if k is None else grads.get(k) for k in rec.out_keys]
        if all(g is None for g in ups):
            continue
        if not any(k is not None for k in rec.in_keys):
            continue
        if rec.grad is None:
            raise LookupError(f"no gradient is defined for op '{rec.name}' (it is on the path from "
                              f"the target to a watched source)")
        if len(ups) > 1:
            ups = [zeros_like(y) if g is None and k is not None else g
                   for g, y, k in zip(ups, rec.outputs, rec.out_keys)]
        in_grads = rec.grad(rec.inputs, rec.outputs, rec.attrs, ups)
        for x, k, g in zip(rec.inputs, rec.in_keys, in_grads):
            if k is None or g is None or not differentiable(x):
                continue
            grads[k] = accumulate(grads.get(k), g)
        # Free the gradients of outputs nothing else needs (values are never re-recorded).
        for k in rec.out_keys:
            if k is not None and k not in wanted:
                grads.pop(k, None)
    out = []
    for s in sources:
        k = key_of(s)
        g = None if k is None or k not in tracked or not differentiable(s) else grads.get(k)
        out.append(g)
    return out

