"""Gradient rules of the NumPy-style float ops (`ag.math.log1p`, `atan2`, `sort`, ...).

Same rule form as `rules_math`. The rounding ops (`floor`, `ceil`, `round`,
`trunc`, `rint`) are flat almost everywhere: they pass no gradient (None), as
in TensorFlow.
"""
from __future__ import annotations

import math

from .. import api
from ..core.registry import REGISTRY, set_grad
from ..core.types import int64
from ..tracing.symbolic import bind
from .helpers import shape_of
from .rules_math import _b, _u

__all__ = ["RULES"]

A = api
LN2, LN10 = math.log(2.0), math.log(10.0)


def _op(name, *xs, **attrs):
    return bind(name, *xs, **attrs)


def _sq(x):
    return A.multiply(x, x)


def _fmax_x(x, y, z, g):
    take = A.logical_or(A.greater_equal(x, y), _op("isnan", y))
    return A.where(take, g, A.zeros_like(g))


def _fmax_y(x, y, z, g):
    take = A.logical_or(A.greater_equal(x, y), _op("isnan", y))
    return A.where(take, A.zeros_like(g), g)


def _fmin_x(x, y, z, g):
    take = A.logical_or(A.less_equal(x, y), _op("isnan", y))
    return A.where(take, g, A.zeros_like(g))


def _fmin_y(x, y, z, g):
    take = A.logical_or(A.less_equal(x, y), _op("isnan", y))
    return A.where(take, A.zeros_like(g), g)


RULES = {name: _u(lambda x, y, g: None) for name in ("floor", "ceil", "round", "trunc", "rint")}
# bitcast reads bits as another dtype: no derivative (ints carry none; between floats it is
# not allowed), so frexp/nextafter/spacing built on it pass no gradient, as floor.
RULES["bitcast"] = _u(lambda x, y, g: None)
RULES.update({
    "exp2": _u(lambda x, y, g: A.multiply(g, A.multiply(y, LN2))),
    "log2": _u(lambda x, y, g: A.divide(g, A.multiply(x, LN2))),
    "log10": _u(lambda x, y, g: A.divide(g, A.multiply(x, LN10))),
    "log1p": _u(lambda x, y, g: A.divide(g, A.add(x, 1))),
    "expm1": _u(lambda x, y, g: A.multiply(g, A.add(y, 1))),
    "asin": _u(lambda x, y, g: A.divide(g, A.sqrt(A.subtract(1, _sq(x))))),
    "acos": _u(lambda x, y, g: A.negative(A.divide(g, A.sqrt(A.subtract(1, _sq(x)))))),
    "atan": _u(lambda x, y, g: A.divide(g, A.add(_sq(x), 1))),
    "sinh": _u(lambda x, y, g: A.multiply(g, _op("cosh", x))),
    "cosh": _u(lambda x, y, g: A.multiply(g, _op("sinh", x))),
    "asinh": _u(lambda x, y, g: A.divide(g, A.sqrt(A.add(_sq(x), 1)))),
    "acosh": _u(lambda x, y, g: A.divide(g, A.sqrt(A.subtract(_sq(x), 1)))),
    "atanh": _u(lambda x, y, g: A.divide(g, A.subtract(1, _sq(x)))),
    # atan2(y, x): the operands are (y, x)
    "atan2": _b(lambda y, x, z, g: A.divide(A.multiply(g, x), A.add(_sq(x), _sq(y))),
                lambda y, x, z, g: A.negative(A.divide(A.multiply(g, y), A.add(_sq(x), _sq(y))))),
    "hypot": _b(lambda x, y, z, g: A.divide(A.multiply(g, x), z),
                lambda x, y, z, g: A.divide(A.multiply(g, y), z)),
    "fmod": _b(lambda x, y, z, g: g,
               lambda x, y, z, g: A.negative(A.multiply(g, _op("trunc", A.divide(x, y))))),
    # copysign(x, y) = |x| sgn(y): d/dx = sign(x) sgn(y), the sign of z * x
    "copysign": _b(lambda x, y, z, g: A.multiply(g, A.sign(A.multiply(z, x))), None),
    "fmax": _b(_fmax_x, _fmax_y),
    "fmin": _b(_fmin_x, _fmin_y),
})
# d/dx erf(x) = 2/sqrt(pi) exp(-x^2); erfc = 1 - erf. (lgamma and gamma would need digamma,
# which the library lacks: their gradient is the tape's "no gradient is defined" error.)
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
RULES.update({
    "erf": _u(lambda x, y, g: A.multiply(g, A.multiply(A.exp(A.negative(_sq(x))),
                                                       TWO_OVER_SQRT_PI))),
    "erfc": _u(lambda x, y, g: A.multiply(g, A.multiply(A.exp(A.negative(_sq(x))),
                                                        -TWO_OVER_SQRT_PI))),
})


def _cumprod(inputs, outputs, attrs, grads):
    # d/dx_k of the running products: the reversed running sum of g * y, over x
    # (exact where x has no zeros, as TensorFlow's rule).
    x, y, g = inputs[0], outputs[0], grads[0]
    s = bind("cumsum", A.multiply(g, y), axis=attrs["axis"], exclusive=attrs["exclusive"],
             reverse=not attrs["reverse"])
    return [A.divide(s, x)]


def _sort(inputs, outputs, attrs, grads):
    # y[..., i] = x[..., p_i] with p = argsort(x): each g_i goes back to x's p_i. With the
    # axis moved last and the rest flattened to m rows of n, that is one scatter-add at
    # the flat positions row * n + p (O(size) work and memory).
    x, g = inputs[0], grads[0]
    axis, rank = attrs["axis"], len(shape_of(x))
    perm = [d for d in range(rank) if d != axis] + [axis]
    moved = perm != list(range(rank))
    p = bind("argsort", x, axis=axis, descending=attrs["descending"])
    xt = x
    if moved:
        p, g, xt = A.transpose(p, perm), A.transpose(g, perm), A.transpose(x, perm)
    n = shape_of(x)[axis]
    if n is None:
        n = A.shape(x, out_type=int64)[axis]
    flat_p = A.reshape(A.cast(p, int64), [-1, n])
    rows = A.expand_dims(A.multiply(A.range(A.shape(flat_p, out_type=int64)[0], dtype=int64),
                                    A.cast(n, int64)), 1)
    where_to = A.reshape(A.add(flat_p, rows), [-1])
    zero = A.zeros_like(A.reshape(xt, [-1]))
    gx = bind("scatter", zero, where_to, A.reshape(A.cast(g, zero.dtype), [-1]), mode="add", axis=0)
    gx = A.reshape(gx, A.shape(xt, out_type=int64))
    if moved:
        inverse = [0] * rank
        for i, d in enumerate(perm):
            inverse[d] = i
        gx = A.transpose(gx, inverse)
    return [gx]


RULES.update({"cumprod": _cumprod, "sort": _sort})

for _name, _rule in RULES.items():
    if _name in REGISTRY and REGISTRY[_name].grad is None:
        set_grad(_name, _rule)

