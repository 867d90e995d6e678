"""NumPy's elementwise functions and whole-array comparisons without an
autograph operation of their own: `np.sinc`, and the ufuncs `np.heaviside`,
`np.reciprocal`, `np.fabs`, `np.float_power`, `np.logaddexp`,
`np.logaddexp2` (the NumPy protocol reaches ufuncs by name through
`dispatch_table`); `np.nancumsum`, `np.nancumprod`; `np.array_equal`,
`np.array_equiv`, `np.isin` (and NumPy 1's `np.in1d`); `np.select`,
`np.piecewise`; `np.isposinf`, `np.isneginf`, `np.real_if_close`,
`np.positive`.

Each follows NumPy's own formula with its result dtype (the operands are
cast to the dtype NumPy's ufunc loop computes in: integers go to float64
for heaviside, fabs and float_power, which computes in float64 or
complex128 always), so results equal NumPy's to the last bit where the
underlying functions (sin, exp, log1p, pow) do:

* sinc: `sin(y) / y` for `y = pi * x`, with `eps` for zero, as NumPy 2;
* logaddexp/logaddexp2: NumPy's `npy_logaddexp` (stable: `x + log1p(exp(y
  - x))` for the larger x, `x + log(2)` when equal, NaN through);
* array_equal/array_equiv: a bool scalar tensor (NumPy gives a Python bool;
  use it in `if`/`while`); arrays whose shapes differ at trace time give
  False as NumPy's, at run time when only known then;
* piecewise: every function is called once, at trace time, on the whole
  array, and its values are picked with `where` (NumPy calls it on the
  selected elements only), so the functions must be elementwise;
* real_if_close: a real tensor as it is; a complex one's result dtype depends
  on its values, so only an eager one is decided (a traced one is refused).
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from .common import holds_tensor, is_tensor_like, locate_errors, rank_of
from .construct import ones_like, shape as shape_of, zeros_like
from .elementwise import (abs as abs_, add, cast, divide, equal, exp, exp2, isnan, less,
                          imag, isinf, less_equal, log1p, logical_and, logical_not, logical_or,
                          multiply, negative, pow as pow_, real, signbit, sin, subtract, where)
from .numpy_functions import Unsupported, reject, tensor_operand
from .numpy_promote import np_dtype_of, promote, ufunc_operands
from .reduce import reduce_all, reduce_any
from .scans import cumprod, cumsum
from .shaping import expand_dims, reshape
from ..core.convert import is_python_number
from ..core.types import as_dtype
from ..tracing.symbolic import is_traced

__all__ = ["np_sinc", "np_heaviside", "np_reciprocal", "np_fabs", "np_float_power",
           "np_logaddexp", "np_logaddexp2", "np_nancumsum", "np_nancumprod", "np_array_equal",
           "np_array_equiv", "np_isin", "np_in1d", "np_select", "np_piecewise", "np_isposinf",
           "np_isneginf", "np_real_if_close", "np_positive", "FUNCTIONS"]

_LOGE2 = 0.693147180559945309417232121458176568   # NumPy's NPY_LOGE2
_LOG2E = 1.442695040888963407359924681001892137   # NPY_LOG2E


def _asarray(v):
    """A non-tensor argument as NumPy's `asarray` makes it (a list of ints is
    int64, as NumPy's); tensors and Python numbers (weak) as they are."""
    if is_tensor_like(v) or is_python_number(v) or (isinstance(v, (list, tuple)) and
                                                     holds_tensor(v)):
        return v
    return np.asarray(v)


# ----------------------------------------------------------- elementwise

@locate_errors
def np_sinc(x):
    """NumPy's `sinc`: sin(pi x) / (pi x), 1 at 0 (float64 for integers)."""
    (t,) = promote("sinc", _asarray(x), floating=True)
    y = multiply(t, math.pi)
    eps = float(np.finfo(np_dtype_of(y)).eps) if np_dtype_of(y).kind == "f" else 1e-20
    y = where(equal(y, 0), eps, y)
    return divide(sin(y), y)


@locate_errors
def np_heaviside(x1, x2):
    """NumPy's `heaviside`: 0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0,
    NaN where x1 is NaN."""
    (a, h), _ = ufunc_operands(np.heaviside, "heaviside", x1, x2)
    step = where(less(a, 0), zeros_like(a), ones_like(a))
    return where(isnan(a), np.nan, where(equal(a, 0), h, step))


@locate_errors
def np_reciprocal(x):
    """NumPy's `reciprocal` of floats: 1 / x. (Integers: NumPy truncates and
    gives an undefined value for 0; not supported.)"""
    (t,), dt = ufunc_operands(np.reciprocal, "reciprocal", x)
    if dt.kind not in "fc":
        raise Unsupported("integer input (NumPy's integer reciprocal truncates 1 / x)")
    return divide(1.0, t)


@locate_errors
def np_fabs(x):
    """NumPy's `fabs`: the absolute value, as a float (integers convert to
    the float dtype NumPy picks)."""
    (t,), _ = ufunc_operands(np.fabs, "fabs", x)
    return abs_(t)


@locate_errors
def np_float_power(x1, x2):
    """NumPy's `float_power`: x1 ** x2 computed in float64 (complex128 for
    complex operands)."""
    (a, b), _ = ufunc_operands(np.float_power, "float_power", x1, x2)
    return pow_(a, b)


def _logaddexp(name: str, x1, x2, exp_fn, log1p_fn, same):
    (x, y), _ = ufunc_operands(getattr(np, name), name, x1, x2)
    tmp = subtract(x, y)
    big_x = add(x, log1p_fn(exp_fn(negative(tmp))))
    big_y = add(y, log1p_fn(exp_fn(tmp)))
    # NaN: neither tmp > 0 nor tmp <= 0, so tmp (NaN) itself, as NumPy's C code
    r = where(tmp > 0, big_x, where(less_equal(tmp, 0), big_y, tmp))
    # equal operands: exact, and infinities of one sign stay infinite
    return where(equal(x, y), add(x, same), r)


@locate_errors
def np_logaddexp(x1, x2):
    """NumPy's `logaddexp`: log(exp(x1) + exp(x2)) without overflow."""
    return _logaddexp("logaddexp", x1, x2, exp, log1p, _LOGE2)


@locate_errors
def np_logaddexp2(x1, x2):
    """NumPy's `logaddexp2`: log2(2**x1 + 2**x2) without overflow."""
    return _logaddexp("logaddexp2", x1, x2, exp2, lambda v: multiply(log1p(v), _LOG2E), 1.0)


def _nan_scan(op: str, a, axis, dtype, out, fill, scan):
    reject(op, dtype=dtype, out=out)
    x = tensor_operand(op, a)
    if x.dtype.is_bool:
        x = cast(x, "int64")   # NumPy's running sum/product of bools counts
    elif x.dtype.is_floating:
        x = where(isnan(x), fill, x)
    if axis is None:
        return scan(reshape(x, [-1]), axis=0)
    if rank_of(x) == 0:
        raise ValueError(f"np.{op}: axis {axis} is out of bounds for array of dimension 0")
    return scan(x, axis=axis)


@locate_errors
def np_nancumsum(a, axis=None, dtype=None, out=None):
    """NumPy's `nancumsum`: the running sum with NaN counted as zero (of the
    flattened tensor when `axis` is None)."""
    return _nan_scan("nancumsum", a, axis, dtype, out, 0.0, cumsum)


@locate_errors
def np_nancumprod(a, axis=None, dtype=None, out=None):
    """NumPy's `nancumprod`: the running product with NaN counted as one."""
    return _nan_scan("nancumprod", a, axis, dtype, out, 1.0, cumprod)


# ----------------------------------------------------------- comparisons

def _false():
    return tensor_operand("array_equal", np.array(False))


def _static_shapes_differ(x, y) -> bool:
    if rank_of(x) != rank_of(y):
        return True
    return builtins.any(p is not None and q is not None and p != q
                        for p, q in zip(x.shape, y.shape))


@locate_errors
def np_array_equal(a1, a2, equal_nan=False):
    """NumPy's `array_equal`: same shape and elements (NaN equal to NaN with
    `equal_nan`), as a bool scalar tensor."""
    x, y = promote("array_equal", _asarray(a1), _asarray(a2))
    x, y = tensor_operand("array_equal", x), tensor_operand("array_equal", y)
    if rank_of(x) is None or rank_of(y) is None:
        raise ValueError("np.array_equal: expected tensors of known rank")
    if _static_shapes_differ(x, y):
        return _false()
    same = equal(x, y)
    if equal_nan and x.dtype.is_floating:
        same = logical_or(same, logical_and(isnan(x), isnan(y)))
    result = reduce_all(same)
    if builtins.any(d is None for d in list(x.shape) + list(y.shape)) and rank_of(x) > 0:
        result = logical_and(reduce_all(equal(shape_of(x), shape_of(y))), result)
    return result


@locate_errors
def np_array_equiv(a1, a2):
    """NumPy's `array_equiv`: shapes that broadcast and equal elements, as a
    bool scalar tensor."""
    x, y = promote("array_equiv", _asarray(a1), _asarray(a2))
    x, y = tensor_operand("array_equiv", x), tensor_operand("array_equiv", y)
    for p, q in zip(reversed(x.shape), reversed(y.shape)):
        if p is not None and q is not None and p != q and 1 not in (p, q):
            return _false()
    return reduce_all(equal(x, y))


@locate_errors
def np_isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """NumPy's `isin`: whether each element of `element` equals one of
    `test_elements` (a bool tensor of element's shape; NaN is in nothing)."""
    if kind not in (None, "sort", "table"):
        raise ValueError(f"np.isin: Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    e, t = promote("isin", _asarray(element), _asarray(test_elements))
    e, t = tensor_operand("isin", e), tensor_operand("isin", t)
    found = reduce_any(equal(expand_dims(e, -1), reshape(t, [-1])), axis=-1)
    return logical_not(found) if invert else found


@locate_errors
def np_in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    """NumPy 1's `in1d`: `isin` of the flattened `ar1` (a 1-D bool tensor)."""
    x = _asarray(ar1)
    x = reshape(x if is_tensor_like(x) else tensor_operand("in1d", np.asarray(x)), [-1])
    return np_isin(x, ar2, invert=invert, kind=kind)


# ----------------------------------------------------------- select, piecewise

@locate_errors
def np_select(condlist, choicelist, default=0):
    """NumPy's `select`: from the first true condition's choice, `default`
    where none holds; NumPy's result dtype and broadcast shape."""
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist):
        raise ValueError("np.select: list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError("np.select: select with an empty condition list is not possible")
    values = [v if is_python_number(v) or is_tensor_like(v) else np.asarray(v)
              for v in choicelist + [default]]
    probes = [v if is_python_number(v) else np.zeros(0, np_dtype_of(v)) if is_tensor_like(v)
              else v[:0] if v.ndim else v for v in values]
    try:
        dt = np.result_type(*probes)
    except TypeError as e:
        raise TypeError(f"np.select: Choicelist and default value do not have a common dtype: "
                        f"{e}") from None
    target = as_dtype(dt)
    values = [np.asarray(v, dtype=dt) if is_python_number(v) else
              (v if np_dtype_of(tensor_operand("select", v)) == dt
               else cast(tensor_operand("select", v), target)) for v in values]
    conds = [tensor_operand("select", c) for c in condlist]
    for i, c in enumerate(conds):
        if not c.dtype.is_bool:
            raise TypeError(f"np.select: invalid entry {i} in condlist: should be boolean ndarray")
    result = values[-1]
    # nested from the last: the first true condition wins; `where` broadcasts
    # every condition and choice, as NumPy's result shape
    for cond, choice in zip(reversed(conds), reversed(values[:-1])):
        result = where(cond, choice, result)
    return result


@locate_errors
def np_piecewise(x, condlist, funclist, *args, **kw):
    """NumPy's `piecewise`: where condition i holds, funclist[i] (a constant,
    or a function called on the whole array at trace time: see the module
    docstring), the later conditions winning; one extra function is the
    value where no condition holds; zero elsewhere; x's dtype."""
    t = tensor_operand("piecewise", x if is_tensor_like(x) else np.asarray(x))
    # NumPy's rule: one condition unless condlist[0] is itself an array (so
    # a condition array of rank >= 2 is a list of conditions, its rows)
    if isinstance(condlist, (bool, np.bool_)) or (is_tensor_like(condlist) and
                                                  (rank_of(condlist) or 0) <= 1):
        condlist = [condlist]
    elif is_tensor_like(condlist):
        n = condlist.shape[0]
        if n is None:
            raise Unsupported("a condition array of rank >= 2 (a list of conditions) whose "
                              "length is only known at run time")
        condlist = [condlist[i] for i in builtins.range(n)]
    elif isinstance(condlist, (list, tuple, np.ndarray)) and len(condlist) and \
            rank_of(t) != 0 and not isinstance(condlist[0], (list, tuple, np.ndarray)) and \
            not is_tensor_like(condlist[0]):
        condlist = [condlist]
    conds = [tensor_operand("piecewise", c if is_tensor_like(c) else np.asarray(c, dtype=bool))
             for c in condlist]
    conds = [c if c.dtype.is_bool else cast(c, "bool") for c in conds]
    funcs = list(funclist)
    if len(conds) == len(funcs) - 1:
        otherwise = conds[0]
        for c in conds[1:]:
            otherwise = logical_or(otherwise, c)
        conds.append(logical_not(otherwise))
    elif len(conds) != len(funcs):
        raise ValueError(f"np.piecewise: with {len(conds)} condition(s), either {len(conds)} or "
                         f"{len(conds) + 1} functions are expected")
    y = zeros_like(t)
    for cond, func in zip(conds, funcs):
        if callable(func):
            v = tensor_operand("piecewise", func(t, *args, **kw))
            v = v if v.dtype is t.dtype else cast(v, t.dtype)
        else:
            v = np.asarray(func).astype(np_dtype_of(t))
        y = where(cond, v, y)
    return y


# ----------------------------------------------------------- infinities, real parts

def _signed_inf(op: str, x, out, negative_side: bool):
    reject(op, out=out)
    t = tensor_operand(op, _asarray(x))
    if t.dtype.is_complex:   # NumPy's own message
        raise TypeError(f"np.{op}: This operation is not supported for {t.dtype.name} values "
                        f"because it would be ambiguous.")
    inf = isinf(t)
    if not t.dtype.is_floating:
        return inf            # all False: integers and bools are finite
    side = signbit(t)
    return logical_and(inf, side if negative_side else logical_not(side))


@locate_errors
def np_positive(x, /, **kwargs):
    """NumPy's `positive`: +x, the tensor itself (tensors are immutable, so it
    stands for NumPy's copy); bools and strings have no `+`, as in NumPy."""
    if kwargs:
        raise Unsupported(f"the {next(iter(kwargs))}= argument")
    t = tensor_operand("positive", _asarray(x))
    if t.dtype.is_bool or t.dtype.name == "string":
        raise TypeError(f"np.positive: ufunc 'positive' did not contain a loop with signature "
                        f"matching types {t.dtype.name} (NumPy has no + for it)")
    return t


@locate_errors
def np_isposinf(x, out=None):
    """NumPy's `isposinf`: True where x is +inf, a bool tensor."""
    return _signed_inf("isposinf", x, out, False)


@locate_errors
def np_isneginf(x, out=None):
    """NumPy's `isneginf`: True where x is -inf, a bool tensor."""
    return _signed_inf("isneginf", x, out, True)


@locate_errors
def np_real_if_close(a, tol=100):
    """NumPy's `real_if_close`: a complex tensor's real part when every imaginary
    part is below `tol` (in machine epsilons when `tol` > 1), else the tensor; a
    real tensor as it is."""
    t = tensor_operand("real_if_close", _asarray(a))
    if not t.dtype.is_complex:
        return t
    if is_traced(t):
        raise Unsupported("a complex tensor (the result's dtype, real or complex, depends on "
                          "its values; use np.real or ag.math.real)")
    if tol > 1:
        tol = float(np.finfo(t.dtype.np_dtype).eps) * tol
    return real(t) if bool(reduce_all(less(abs_(imag(t)), tol))) else t


FUNCTIONS = {
    "sinc": np_sinc, "heaviside": np_heaviside, "reciprocal": np_reciprocal, "fabs": np_fabs,
    "float_power": np_float_power, "logaddexp": np_logaddexp, "logaddexp2": np_logaddexp2,
    "nancumsum": np_nancumsum, "nancumprod": np_nancumprod, "array_equal": np_array_equal,
    "array_equiv": np_array_equiv, "isin": np_isin, "in1d": np_in1d, "select": np_select,
    "piecewise": np_piecewise, "isposinf": np_isposinf, "isneginf": np_isneginf,
    "real_if_close": np_real_if_close, "positive": np_positive,
}
