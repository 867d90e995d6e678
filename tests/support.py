"""Reusable hypothesis strategies and checks for op tests.

Import from test modules as `from support import ...` (pytest puts `tests/`
on `sys.path`). Everything here is plain NumPy + hypothesis, so the same
strategies drive the eager tests (op vs. an independent NumPy computation)
and differential tests (compiled vs. eager).

Strategies
    dtype names: `BOOL`, `INTS`, `FLOATS`, `NUMERIC`, `ALL` (tuples of names)
    shapes(...)                -> a shape tuple
    broadcast_shapes(n, ...)   -> n shapes that broadcast together (NumPy rules)
    elements(dtype, ...)       -> scalars of `dtype` in a range, optionally with
                                  the special values (MIN/MAX/-1/0/1, nan/inf)
    arrays(dtype, shape, ...)  -> arrays of `dtype` and `shape` (`shape` may be a
                                  strategy)
    op_elements(op, dtype, role) -> scalars safe for `op` ("x" or "y" operand):
                                  in its domain, no division by zero, exponents
                                  small, tan away from its poles, ...
    unary_case(op, dtype)      -> one array for a unary op
    binary_case(op, dtype)     -> (x, y), broadcast-compatible, safe for `op`
    where_case(dtype)          -> (condition, x, y), broadcast-compatible
    reduction_case(dtype)      -> (x, axis, keepdims) with axis None/int/tuple,
                                  negative axes included
    index_case(...)            -> (array, key) with a NumPy basic-indexing key
                                  (ints, slices with steps, None, ...)
Checks
    assert_same(actual, expected, *, rtol=None) -> exact dtype and shape; ints
        and bools exactly, floats within `TOLERANCE[dtype]` (NaN == NaN)
The op registry
    declared_ops(arity, dtype, result=None) -> the declared elementwise ops of
        an arity that accept `dtype` (tests parametrise over these, not lists)
    numpy_counterpart(op)      -> NumPy's function of the same name as a
                                  declared op (its declaration's `numpy`)
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from autograph.tracer.core import registry
from autograph.tracer.core.types import TensorType, as_dtype

BOOL = ("bool",)
INTS = ("int32", "int64")
FLOATS = ("float32", "float64")
NUMERIC = INTS + FLOATS
ALL = BOOL + NUMERIC

# rtol, atol per float dtype: a few ulps, so another correct implementation
# (compiled code with its own exp/log) passes too.
TOLERANCE = {"float32": (2e-6, 1e-7), "float64": (1e-13, 1e-300)}


def shapes(min_dims: int = 0, max_dims: int = 3, min_side: int = 0, max_side: int = 4):
    """Shape tuples (empty dimensions included when min_side is 0)."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def broadcast_shapes(num_shapes: int = 2, min_dims: int = 0, max_dims: int = 3,
                     min_side: int = 0, max_side: int = 4):
    """`num_shapes` shapes that broadcast together (sizes 1, missing leading dims)."""
    return hnp.mutually_broadcastable_shapes(
        num_shapes=num_shapes, min_dims=min_dims, max_dims=max_dims, min_side=min_side,
        max_side=max_side).map(lambda bs: bs.input_shapes)


def _special_ints(dtype: str):
    info = np.iinfo(dtype)
    return [int(info.min), int(info.max), -1, 0, 1]


def elements(dtype: str, lo=None, hi=None, *, special: bool = False, nonzero: bool = False):
    """Scalars of `dtype` in [lo, hi] (default: the whole int range, or
    [-1e3, 1e3] for floats). `special` mixes in MIN/MAX/-1/0/1 for ints and
    nan/inf/-0.0 for floats; `nonzero` excludes 0."""
    dtype = str(np.dtype(dtype))
    if dtype == "bool":
        return st.booleans()
    if dtype in INTS:
        info = np.iinfo(dtype)
        lo = int(info.min) if lo is None else lo
        hi = int(info.max) if hi is None else hi
        base = st.integers(lo, hi)
        if special:
            base = st.one_of(base, st.sampled_from([v for v in _special_ints(dtype) if lo <= v <= hi]))
    else:
        width = 32 if dtype == "float32" else 64
        # hypothesis wants bounds exactly representable in the width
        lo = float(np.dtype(dtype).type(-1e3 if lo is None else lo))
        hi = float(np.dtype(dtype).type(1e3 if hi is None else hi))
        base = st.floats(lo, hi, width=width, allow_nan=False, allow_infinity=False)
        if special:
            base = st.one_of(base, st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0]))
    if nonzero:
        base = base.filter(lambda v: v != 0)
    return base


def arrays(dtype: str, shape, elems=None, **elements_kw):
    """Arrays of `dtype` and `shape` (a tuple or a strategy of tuples); elements
    from `elems` or `elements(dtype, **elements_kw)`."""
    return hnp.arrays(np.dtype(dtype), shape, elements=elements(dtype, **elements_kw) if elems is None else elems)


# Domains that keep results finite and comparable across implementations.
_FLOAT_DOMAIN = {
    "sqrt": (0.0, 1e4), "log": (1e-3, 1e4), "exp": (-30.0, 30.0),
    "sin": (-10.0, 10.0), "cos": (-10.0, 10.0), "tan": (-1.4, 1.4),
    "tanh": (-20.0, 20.0), "sigmoid": (-30.0, 30.0),
}


def op_elements(op: str, dtype: str, role: str = "x"):
    """Scalars of `dtype` that are safe for operand `role` ("x" or "y") of `op`.

    Integer ops get the full range with the special values (wraparound is
    exact everywhere), except: divisors of floordiv/mod are non-zero, pow
    exponents are in [0, 40]. Float ops stay in their domain ([-1e3, 1e3] by
    default), float divisors keep |y| >= 0.5, float pow has x in [0.1, 10]
    and y in [-3, 3].
    """
    dtype = str(np.dtype(dtype))
    if dtype == "bool":
        return st.booleans()
    if dtype in INTS:
        if op == "pow" and role == "y":
            return st.integers(0, 40)
        if op in ("floordiv", "mod", "fmod") and role == "y":
            return elements(dtype, special=True, nonzero=True)
        return elements(dtype, special=True)
    if op in _FLOAT_DOMAIN:
        return elements(dtype, *_FLOAT_DOMAIN[op])
    if op == "pow":
        return elements(dtype, 0.1, 10.0) if role == "x" else elements(dtype, -3.0, 3.0)
    if op in ("divide", "floordiv", "mod", "fmod") and role == "y":
        return elements(dtype, -1e3, 1e3).filter(lambda v: abs(v) >= 0.5)
    return elements(dtype)


def unary_case(op: str, dtype: str, **shape_kw):
    """One array safe for unary `op`."""
    return arrays(dtype, shapes(**shape_kw), op_elements(op, dtype))


@st.composite
def binary_case(draw, op: str, dtype: str, **shape_kw):
    """(x, y): broadcast-compatible arrays safe for binary `op`."""
    sx, sy = draw(broadcast_shapes(2, **shape_kw))
    x = draw(arrays(dtype, sx, op_elements(op, dtype, "x")))
    y = draw(arrays(dtype, sy, op_elements(op, dtype, "y")))
    return x, y


@st.composite
def where_case(draw, dtype: str, **shape_kw):
    """(condition, x, y): three broadcast-compatible arrays."""
    sc, sx, sy = draw(broadcast_shapes(3, **shape_kw))
    return (draw(arrays("bool", sc)), draw(arrays(dtype, sx, elements(dtype, special=True))),
            draw(arrays(dtype, sy, elements(dtype, special=True))))


@st.composite
def reduction_case(draw, dtype: str, elems=None, **shape_kw):
    """(x, axis, keepdims): axis None, an int or a tuple of distinct ints,
    possibly negative, valid for x's rank."""
    shape = draw(shapes(**shape_kw))
    x = draw(arrays(dtype, shape, elems))
    rank = len(shape)
    keepdims = draw(st.booleans())
    if rank == 0:
        return x, draw(st.sampled_from([None, ()])), keepdims
    axes = st.integers(-rank, rank - 1)
    axis = draw(st.one_of(
        st.none(), axes,
        st.lists(axes, max_size=rank, unique_by=lambda a: a % rank).map(tuple)))
    return x, axis, keepdims


@st.composite
def index_case(draw, dtype: str = "int32", **shape_kw):
    """(x, key): an array and a NumPy basic-indexing key for it (ints in
    range, slices with any bounds and non-zero steps, None, Ellipsis)."""
    shape = draw(shapes(**shape_kw))
    x = draw(arrays(dtype, shape, elements(dtype, -100, 100) if dtype in INTS else None))
    key = draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    return x, key


def assert_same(actual, expected, *, rtol=None, atol=None):
    """`actual` (tensor or array) equals `expected`: same dtype and shape, exact
    for bool/int/string, within `TOLERANCE` for floats, NaN matching NaN."""
    a = np.asarray(actual)
    e = np.asarray(expected)
    assert a.dtype == e.dtype, f"dtype {a.dtype} != expected {e.dtype}"
    assert a.shape == e.shape, f"shape {a.shape} != expected {e.shape}"
    if a.dtype.kind == "f":
        r, t = TOLERANCE[str(a.dtype)]
        np.testing.assert_allclose(a, e, rtol=rtol or r, atol=atol or t, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, e)


def declared_ops(arity: str, dtype: str, result: str = None) -> list:
    """Names of the declared elementwise ops of `arity` ("unary" or "binary")
    whose dtype kind accepts `dtype`, in declaration order; with `result`, only
    those whose result dtype is `result` ("same": `dtype` itself). Tests
    parametrise over these instead of keeping their own lists of op names."""
    d = as_dtype(dtype)
    out = []
    for name in registry.ops_where(elementwise=arity):
        opdef = registry.get(name)
        if not registry.accepts(opdef, d):
            continue
        if result is not None:
            n = 1 if arity == "unary" else 2
            got = opdef.type_rule([TensorType(d, ())] * n, {}, [None] * n)[0].dtype.name
            if got != (dtype if result == "same" else result):
                continue
        out.append(name)
    return out


def numpy_counterpart(op: str):
    """The NumPy function (ufunc) a declared op names as its counterpart, or None."""
    names = [n for n in registry.get(op).numpy if "." not in n]
    return getattr(np, names[0]) if names else None



def c_gamma(v: float) -> float:
    """C's tgamma of a Python float where Python's math.gamma raises: +-inf at +-0,
    NaN at the negative integers and -inf, inf with gamma's sign on overflow (which
    happens above 171.6 and for |v| below about 5.6e-309, where gamma(v) ~ 1/v)."""
    if v == 0.0:
        return math.copysign(math.inf, v)
    if v == -math.inf or (v < 0 and v == math.floor(v)):
        return math.nan
    try:
        return math.gamma(v)
    except OverflowError:
        return math.copysign(math.inf, v)


def c_lgamma(v: float) -> float:
    """C's lgamma of a Python float: +inf at the poles 0, -1, -2, ..."""
    try:
        return math.lgamma(v)
    except ValueError:
        return math.inf
