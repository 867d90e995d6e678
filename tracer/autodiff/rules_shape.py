"""Gradient rules of the ops that move elements: shaping, slicing, updates, gather.

Index and shape operands get no gradient (None). Same rule form as
`rules_math`.
"""
from __future__ import annotations

from .. import api
from ..core.registry import REGISTRY, set_grad
from ..tracing.symbolic import bind
from .helpers import shape_of, unbroadcast

__all__ = ["RULES"]

A = api


def _to_shape_of(g, x):
    """`g` reshaped to `x`'s shape (static when known, else read at run time)."""
    s = shape_of(x)
    if s is not None and None not in s:
        return A.reshape(g, list(s))
    return A.reshape(g, A.shape(x))


def _reshape_like(inputs, outputs, attrs, grads):
    return [_to_shape_of(grads[0], inputs[0])] + [None] * (len(inputs) - 1)


def _transpose(inputs, outputs, attrs, grads):
    perm = attrs["perm"]
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return [A.transpose(grads[0], inverse)]


def _stack(inputs, outputs, attrs, grads):
    axis = attrs["axis"]
    g = grads[0]
    n = len(inputs)
    return [A.squeeze(A.gather(g, [i], axis=axis), axis=[axis]) if n > 1 else
            A.squeeze(g, axis=[axis]) for i in range(n)]


def _concat(inputs, outputs, attrs, grads):
    axis = attrs["axis"]
    g = grads[0]
    out, start = [], 0
    for x in inputs:
        size = shape_of(x)[axis]
        if size is None:
            size = A.shape(x)[axis]
        stop = start + size if isinstance(start, int) and isinstance(size, int) else A.add(start, size)
        out.append(g[(slice(None),) * axis + (slice(start, stop),)])
        start = stop
    return out


def _gather(inputs, outputs, attrs, grads):
    # gather's adjoint is scatter-add (tracer/ops/scatter.py): each slice of g is added
    # at its index along the axis (repeated indices add up); O(size of g) work and
    # memory, whatever the size of the gathered axis.
    params, indices = inputs
    zero = A.zeros_like(params)
    g = grads[0] if grads[0].dtype == zero.dtype else A.cast(grads[0], zero.dtype)
    return [bind("scatter", zero, indices, g, mode="add", axis=attrs["axis"]), None]


def _strided_slice(inputs, outputs, attrs, grads):
    x, idx = inputs[0], inputs[1:]
    g = bind("set_item", A.zeros_like(x), grads[0], *idx, spec=attrs["spec"])
    return [g] + [None] * len(idx)


def _set_item(inputs, outputs, attrs, grads):
    value, idx = inputs[1], inputs[2:]
    g = grads[0]
    gx = bind("set_item", g, A.zeros((), g.dtype), *idx, spec=attrs["spec"])
    gv = bind("strided_slice", g, *idx, spec=attrs["spec"])
    return [gx, unbroadcast(gv, shape_of(value), value)] + [None] * len(idx)


def _grow(inputs, outputs, attrs, grads):
    x = inputs[0]
    rows = shape_of(x)[0]
    if rows is None:
        rows = A.shape(x)[0]
    return [grads[0][:rows], None]


def _fill(inputs, outputs, attrs, grads):
    return [None] * (len(inputs) - 1) + [A.reduce_sum(grads[0])]


def _identity(inputs, outputs, attrs, grads):
    return [grads[0]]


RULES = {
    "reshape": _reshape_like, "expand_dims": _reshape_like, "squeeze": _reshape_like,
    "transpose": _transpose, "stack": _stack, "concat": _concat, "gather": _gather,
    "strided_slice": _strided_slice, "set_item": _set_item, "grow": _grow, "fill": _fill,
    "read_variable": _identity,
}

for _name, _rule in RULES.items():
    if _name in REGISTRY and REGISTRY[_name].grad is None:
        set_grad(_name, _rule)
