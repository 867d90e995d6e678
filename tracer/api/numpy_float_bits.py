"""NumPy's functions on the parts of a float: `np.frexp`, `np.ldexp`,
`np.nextafter`, `np.spacing`.

A float32 is 1 sign bit, 8 exponent bits (bias 127) and 23 mantissa bits; a
float64 1, 11 (bias 1023) and 52. Each function reads those fields with the
`bitcast` op (`tracer/ops/cast.py`: the bits as an unsigned integer of the same
width, LLVM's free `bitcast` when compiled, so the chains fuse and vectorise)
and computes with integer and bit operations, which are exact; the results
equal NumPy's (the C library's `frexp`, `ldexp`, `nextafter`) bit for bit,
zeros of either sign, infinities, NaN and subnormals included:

* frexp(x) -> (m, e), x = m * 2**e with 0.5 <= |m| < 1 (m keeps x's sign); e is
  int32 as NumPy's; 0, inf and NaN give (x, 0). A subnormal x is first scaled
  into the normal range by a power of two (exact) and its exponent corrected.
* ldexp(x, n) -> x * 2**n rounded once, as C's: the product is made of three
  multiplications by powers of two of which only the last can round (the
  earlier ones stay exact, or the result is 0 or inf anyway; see `_ldexp`),
  so subnormal results round half to even and overflow gives inf. Its
  gradient is therefore ldexp(g, n) (multiplications by constants).
* nextafter(x, y): the next float after x towards y: the bit pattern plus or
  minus one, the smallest subnormal (with y's sign) from a zero, y when x == y,
  NaN when either is.
* spacing(x): NumPy's `nextafter(x, +-inf) - x` away from zero, i.e. the gap to
  the next float of larger magnitude with x's sign: 2**(e - 52) (float32:
  2**(e - 23)) from x's exponent field e, the smallest subnormal for subnormals and for both zeros
  (positive, as NumPy), +-inf for +-max, NaN for inf and NaN.

frexp, nextafter and spacing pass no gradient (the bit reads have none, as
`floor`). Operands resolve as NumPy's ufuncs: integers compute in float64, an
ldexp exponent may be any integer dtype NumPy casts safely to int64 (uint64
and floats are NumPy's own TypeError); float16 (no autograph dtype) is not
supported.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .common import locate_errors
from .elementwise import (abs as abs_, add, bitwise_and, bitwise_or, cast, equal, greater, isnan,
                          left_shift, less, logical_and, logical_or, maximum, minimum, multiply,
                          not_equal, right_shift, subtract, where)
from .numpy_functions import Unsupported, tensor_operand
from .numpy_promote import cast_to
from ..core.convert import is_python_number
from ..core.types import as_dtype, int32, int64
from ..tracing.symbolic import bind

__all__ = ["bitcast", "np_frexp", "np_ldexp", "np_nextafter", "np_spacing", "FUNCTIONS"]


class _Layout(NamedTuple):
    """The fields of one float dtype."""

    uint: str          # the unsigned integer of the same width (the bits)
    sint: str          # the signed one (exponents)
    width: int         # bits in all
    mbits: int         # mantissa bits
    bias: int          # exponent bias (the largest finite exponent)
    emask: int         # all exponent bits set: inf and NaN
    clamp: int         # |n| beyond which ldexp's result is already 0 or inf


# ldexp's clamp: from the smallest subnormal (2**-1074) 2**2098 overflows, and from
# below 2**1024, 2**-2200 rounds to zero; float32 likewise with 2**-149 and 2**128.
_LAYOUTS = {"float32": _Layout("uint32", "int32", 32, 23, 127, 0xFF, 300),
            "float64": _Layout("uint64", "int64", 64, 52, 1023, 0x7FF, 2200)}


def bitcast(x, dtype):
    """The bits of tensor `x` read as `dtype` of the same width (NumPy's
    `x.view(dtype)`): float32/int32/uint32 among themselves, float64/int64/uint64
    likewise; TypeError otherwise."""
    return bind("bitcast", x, dtype=as_dtype(dtype))


def _layout(t):
    lay = _LAYOUTS.get(t.dtype.name)
    if lay is None:   # (ufunc resolution gives float32/float64 only, or float16, refused before)
        raise Unsupported(f"{t.dtype.name} input")
    return lay


def _no_kwargs(kwargs) -> None:
    if kwargs:
        raise Unsupported(f"the {next(iter(kwargs))}= argument")


def _fields(t, lay: _Layout):
    """(bits, exponent field as a signed integer) of float tensor `t`."""
    u = bitcast(t, lay.uint)
    field = cast(bitwise_and(right_shift(u, lay.mbits), lay.emask), lay.sint)
    return u, field


def _pow2(k, lay: _Layout, dtype):
    """2.0**k for integer tensor k in the normal range [1 - bias, bias], built from bits."""
    biased = cast(add(k, lay.bias), lay.uint)
    return bitcast(left_shift(biased, lay.mbits), dtype)


def _probe(v):
    """What NumPy's loop resolution is told of an operand: its dtype, or for a Python
    int, float or complex the type itself (a weak operand); a Python bool is a bool."""
    if isinstance(v, (bool, np.generic)):
        return np.dtype(type(v))
    if is_python_number(v):
        return next(t for t in (int, float, complex) if isinstance(v, t))
    return np.dtype(as_dtype(v.dtype).np_dtype)


def _loop_operands(ufunc, name: str, *values):
    """`values` as tensors of the dtypes NumPy's `ufunc` loop takes them in (Python
    numbers weak, as NumPy 2 resolves them): a loop per input, so ldexp's exponent
    stays an integer where `ufunc_operands` would give every operand one dtype."""
    xs = [v if is_python_number(v) else tensor_operand(name, v) for v in values]
    probes = [_probe(v) for v in xs]
    try:
        loop = ufunc.resolve_dtypes(tuple(probes) + (None,) * ufunc.nout)
    except TypeError as e:   # NumPy has no loop for these dtypes: its own error
        raise TypeError(f"np.{name}: {e}") from None
    return [tensor_operand(name, np.asarray(v, dt)) if is_python_number(v) else cast_to(v, dt)
            for v, dt in zip(xs, loop)]


# ---------------------------------------------------------------- frexp

def _frexp(t):
    lay = _layout(t)
    # subnormals: scaled by 2**(mbits + 2) into the normal range first (exact)
    tiny = float(np.finfo(t.dtype.np_dtype).tiny)
    sub = logical_and(less(abs_(t), tiny), not_equal(t, 0))
    lift = lay.mbits + 2
    s = where(sub, multiply(t, float(2 ** lift)), t)
    u, field = _fields(s, lay)
    e = subtract(cast(field, int32), lay.bias - 1)
    e = subtract(e, where(sub, lift, 0))
    # the mantissa with the exponent field of [0.5, 1): bias - 1
    keep = ((1 << lay.width) - 1) ^ (lay.emask << lay.mbits)
    m = bitwise_or(bitwise_and(u, keep), (lay.bias - 1) << lay.mbits)
    # 0, inf and NaN are their own mantissa (their bits, so no gradient leaks through
    # them either), with exponent 0
    special = logical_or(equal(t, 0), equal(field, lay.emask))
    return bitcast(where(special, u, m), t.dtype), where(special, 0, e)


@locate_errors
def np_frexp(x, /, **kwargs):
    """NumPy's `frexp`: (mantissa, exponent) with x = m * 2**e, 0.5 <= |m| < 1;
    the exponent is int32; 0, inf and NaN give (x, 0)."""
    _no_kwargs(kwargs)
    return _frexp(_loop_operands(np.frexp, "frexp", x)[0])


# ---------------------------------------------------------------- ldexp

def _ldexp(t, k):
    """t * 2**k (k int64) rounded once.

    k is clamped to +-clamp (the result is 0 or inf beyond it), then applied as
    up to two steps and a rest, each a power of two in the normal range:
    * upwards, steps of 2**bias: a product with a power of two >= 1 is exact
      unless it overflows to inf, which is then the result;
    * downwards, steps of 2**-(bias - 1 - precision) (2**-969 for float64) while
      k < 1 - bias. A step is exact unless its product is below 2**(1 - bias)
      (subnormal), i.e. its operand was below 2**-precision; the rest still to
      apply is then below 2**-precision too, so the true result is below half the
      smallest subnormal and the computed one as well: both round to a zero of
      t's sign. So only the last multiplication rounds, as C's ldexp does.
    """
    lay = _layout(t)
    k = minimum(maximum(k, -lay.clamp), lay.clamp)
    down = lay.bias - 1 - (lay.mbits + 1)
    for _ in range(2):
        step = cast(where(greater(k, lay.bias), lay.bias,
                          where(less(k, 1 - lay.bias), -down, 0)), int64)
        t = multiply(t, _pow2(step, lay, t.dtype))
        k = subtract(k, step)
    return multiply(t, _pow2(k, lay, t.dtype))


@locate_errors
def np_ldexp(x1, x2, /, **kwargs):
    """NumPy's `ldexp`: x1 * 2**x2 (x2 an integer), rounded once as C's ldexp
    (subnormal results round half to even, overflow gives inf)."""
    _no_kwargs(kwargs)
    t, n = _loop_operands(np.ldexp, "ldexp", x1, x2)
    return _ldexp(t, cast(n, int64))


# ---------------------------------------------------------------- nextafter

def _nextafter(a, b):
    lay = _layout(a)
    ua, ub = bitcast(a, lay.uint), bitcast(b, lay.uint)
    sign = 1 << (lay.width - 1)
    # one step up the bit pattern is one step away from zero, for either sign
    away = equal(less(a, b), greater(a, 0))
    bits = where(away, add(ua, 1), subtract(ua, 1))
    bits = where(equal(a, 0), bitwise_or(bitwise_and(ub, sign), 1), bits)
    bits = where(equal(a, b), ub, bits)
    # NaN: x + y, as the C library (NumPy's loop) returns
    bits = where(logical_or(isnan(a), isnan(b)), bitcast(add(a, b), lay.uint), bits)
    return bitcast(bits, a.dtype)


@locate_errors
def np_nextafter(x1, x2, /, **kwargs):
    """NumPy's `nextafter`: the next float after x1 towards x2 (x2 itself when
    equal, NaN when either is)."""
    _no_kwargs(kwargs)
    return _nextafter(*_loop_operands(np.nextafter, "nextafter", x1, x2))


# ---------------------------------------------------------------- spacing

def _spacing(t):
    lay = _layout(t)
    _, field = _fields(t, lay)
    # the gap in x's binade: 2**(field - bias - mbits); its own field is field - mbits
    # when that is >= 1, else it is the subnormal 1 << (field - 1) (1 for fields 0 and 1)
    normal = left_shift(cast(maximum(subtract(field, lay.mbits), 1), lay.uint), lay.mbits)
    small = left_shift(cast(1, lay.uint), cast(maximum(subtract(field, 1), 0), lay.uint))
    bits = where(greater(field, lay.mbits), normal, small)
    sign = 1 << (lay.width - 1)
    bits = where(less(t, 0), bitwise_or(bits, sign), bits)   # -0.0 is not < 0: positive
    gap = bitcast(bits, t.dtype)
    big = float(np.finfo(t.dtype.np_dtype).max)
    # +-max: the next float is +-inf, so is the difference
    gap = where(equal(abs_(t), big), multiply(gap, np.inf), gap)
    return where(equal(field, lay.emask), np.nan, gap)


@locate_errors
def np_spacing(x, /, **kwargs):
    """NumPy's `spacing`: the distance from x to the next float of larger
    magnitude, with x's sign (the smallest subnormal for +-0, NaN for inf/NaN)."""
    _no_kwargs(kwargs)
    return _spacing(_loop_operands(np.spacing, "spacing", x)[0])


FUNCTIONS = {"frexp": np_frexp, "ldexp": np_ldexp, "nextafter": np_nextafter,
             "spacing": np_spacing}
