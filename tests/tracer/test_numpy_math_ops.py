"""The NumPy functions of API.md section 9 that are ops of their own, eagerly:
rounding, exp/log variants, inverse and hyperbolic trigonometry, atan2,
hypot, fmod, the float predicates, shifts and bitwise ops (bools too),
cumprod, sort, argsort, searchsorted, nonzero / one-argument where /
argwhere, count_nonzero, clip_by_value.

Each is checked against NumPy running the same call on arrays (exactly:
eagerly the op's reference is NumPy's function), through both the `ag`
function and the NumPy function applied to a tensor, plus TensorFlow's dtype
rules and every error message. The compiled side is
tests/codegen/test_compiled_numpy_math.py.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag
from autograph.tracer.core import registry
from autograph.tracer.core.types import as_dtype
from support import FLOATS, INTS, assert_same

SETTINGS = settings(max_examples=30, deadline=None)
SPECIAL = [-np.inf, -1e30, -2.5, -1.5, -1.0, -0.5, -0.4, -1e-30, -0.0, 0.0, 1e-30, 0.4, 0.5, 1.0,
           1.5, 2.5, 3.5, 1e30, np.inf, np.nan]


def _numpy_fn(op: str):
    """NumPy's function for a declared op (its first NumPy name)."""
    return getattr(np, registry.get(op).numpy[0])


def _unary_with_numpy(kind_test):
    return [o for o in registry.ops_where(elementwise="unary")
            if registry.get(o).numpy and "." not in registry.get(o).numpy[0]
            and kind_test(registry.get(o))]


FLOAT_UNARY = _unary_with_numpy(lambda d: registry.accepts(d, as_dtype("float32")))
INT_UNARY = _unary_with_numpy(lambda d: registry.accepts(d, as_dtype("int32")))


def _exact(got, want):
    """Same dtype, shape, values (NaN == NaN) and signs of zeros."""
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    np.testing.assert_array_equal(g, w)
    if g.dtype.kind == "f":
        numbers = ~np.isnan(w)
        np.testing.assert_array_equal(np.signbit(g[numbers]), np.signbit(w[numbers]))


# ---------------------------------------------------------------- elementwise

@pytest.mark.parametrize("op", FLOAT_UNARY)
@pytest.mark.parametrize("dtype", FLOATS)
def test_numpy_function_on_a_tensor_is_the_op(op, dtype):
    """np.<name>(tensor) dispatches to the op and equals NumPy on special values."""
    x = np.array(SPECIAL, dtype)
    with np.errstate(all="ignore"):
        want = _numpy_fn(op)(x)
    got = _numpy_fn(op)(ag.constant(x))
    assert isinstance(got, ag.Tensor)
    _exact(got, want)


@pytest.mark.parametrize("op", INT_UNARY)
@pytest.mark.parametrize("dtype", INTS)
def test_int_unary_as_numpy(op, dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, -7, -1, 0, 1, 7, info.max], dtype)
    with np.errstate(all="ignore"):
        want = _numpy_fn(op)(x)
    _exact(_numpy_fn(op)(ag.constant(x)), want)


def test_rounding_halves_to_even_and_keeps_signs():
    x = ag.constant([-2.5, -1.5, -0.5, -0.4, 0.5, 1.5, 2.5], ag.float64)
    _exact(ag.round(x), np.array([-2.0, -2.0, -0.0, -0.0, 0.0, 2.0, 2.0]))
    _exact(ag.math.rint(x), np.array([-2.0, -2.0, -0.0, -0.0, 0.0, 2.0, 2.0]))
    _exact(ag.floor(x), np.array([-3.0, -2.0, -1.0, -1.0, 0.0, 1.0, 2.0]))
    _exact(ag.ceil(x), np.array([-2.0, -1.0, -0.0, -0.0, 1.0, 2.0, 3.0]))
    _exact(ag.math.trunc(x), np.array([-2.0, -1.0, -0.0, -0.0, 0.0, 1.0, 2.0]))
    assert ag.math.floor is ag.floor and ag.math.round is ag.round and ag.math.ceil is ag.ceil


def test_rounding_of_integers_is_the_identity():
    x = np.array([-3, 0, 5], np.int64)
    for fn in (ag.floor, ag.ceil, ag.round, ag.math.trunc, np.floor, np.ceil, np.round, np.trunc):
        _exact(fn(ag.constant(x)), x)
    with pytest.raises(TypeError, match=r"rint: expected a float tensor, got int32; use "
                                        r"ag\.cast\(x, ag\.float32\) to convert it"):
        ag.math.rint(ag.constant([1]))


def test_np_round_with_decimals_is_numpys_computation():
    x = np.array([1.2345, -2.5551, 12345.678, 0.125, np.nan, -0.0], np.float64)
    for d in (1, 2, -1, -2, 0):
        _exact(np.round(ag.constant(x), d), np.round(x, d))
        _exact(np.around(ag.constant(x.astype(np.float32)), d), np.around(x.astype(np.float32), d))
    _exact(np.round(ag.constant(np.array([15, -25], np.int32)), 2), np.array([15, -25], np.int32))


@pytest.mark.parametrize("op", ["asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
                                "atanh", "exp2", "log2", "log10", "log1p", "expm1", "rint"])
def test_float_only_functions_reject_integers(op):
    with pytest.raises(TypeError, match=rf"{op}: expected a float tensor, got int64; use "
                                        rf"ag\.cast\(x, ag\.float32\) to convert it"):
        getattr(ag.math, op)(ag.constant([1], ag.int64))


def test_predicates():
    x = ag.constant([np.nan, np.inf, -np.inf, 0.0, -1e300], ag.float64)
    _exact(ag.math.is_nan(x), np.array([True, False, False, False, False]))
    _exact(ag.math.is_inf(x), np.array([False, True, True, False, False]))
    _exact(ag.math.is_finite(x), np.array([False, False, False, True, True]))
    for v in (ag.constant([1, -2], ag.int32), ag.constant([True, False])):
        _exact(np.isnan(v), np.array([False, False]))
        _exact(np.isinf(v), np.array([False, False]))
        _exact(np.isfinite(v), np.array([True, True]))
    with pytest.raises(TypeError, match=r"isnan: expected a bool, int or float tensor, got string"):
        ag.math.is_nan(ag.constant(["a"]))


@pytest.mark.parametrize("dtype", FLOATS)
@SETTINGS
@given(data=st.data())
def test_binary_float_functions(dtype, data):
    elems = st.one_of(st.floats(-1e3, 1e3, width=32), st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0]))
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
    x = data.draw(hnp.arrays(dtype, shapes.input_shapes[0], elements=elems))
    y = data.draw(hnp.arrays(dtype, shapes.input_shapes[1], elements=elems))
    with np.errstate(all="ignore"):
        for np_fn, ag_fn in ((np.arctan2, ag.math.atan2), (np.hypot, ag.math.hypot),
                             (np.fmod, ag.math.fmod)):
            _exact(ag_fn(x, ag.constant(y)), np_fn(x, y))
            _exact(np_fn(ag.constant(x), y), np_fn(x, y))


def test_atan2_signed_zeros_and_infinities():
    y = np.array([0.0, -0.0, 0.0, -0.0, np.inf, -np.inf, 1.0], np.float32)
    x = np.array([-0.0, -0.0, 0.0, 0.0, -np.inf, np.inf, np.nan], np.float32)
    _exact(ag.math.atan2(y, x), np.arctan2(y, x))


@pytest.mark.parametrize("dtype", INTS)
def test_fmod_of_integers_has_the_dividends_sign(dtype):
    info = np.iinfo(dtype)
    x = np.array([7, -7, 7, -7, info.min, info.max], dtype)
    y = np.array([3, 3, -3, -3, -1, -1], dtype)
    _exact(np.fmod(ag.constant(x), y), np.fmod(x, y))
    assert ag.math.truncatemod is ag.math.fmod
    with pytest.raises(ag.errors.InvalidArgumentError, match=r"fmod: integer modulo by zero"):
        ag.math.fmod(ag.constant(x), np.zeros_like(x))


@pytest.mark.parametrize("dtype", INTS)
@SETTINGS
@given(data=st.data())
def test_shifts_as_numpy(dtype, data):
    info = np.iinfo(dtype)
    bits = info.bits
    x = data.draw(hnp.arrays(dtype, st.integers(0, 5), elements=st.integers(int(info.min), int(info.max))))
    n = data.draw(hnp.arrays(dtype, x.shape, elements=st.integers(max(int(info.min), -4), bits + 4)))
    _exact(np.left_shift(ag.constant(x), n), np.left_shift(x, n))
    _exact(np.right_shift(ag.constant(x), n), np.right_shift(x, n))
    _exact(ag.bitwise.left_shift(x, n), np.left_shift(x, n))
    _exact(ag.bitwise.right_shift(x, n), np.right_shift(x, n))


def test_bitwise_on_ints_and_bools():
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    for np_fn in (np.bitwise_and, np.bitwise_or, np.bitwise_xor):
        _exact(np_fn(ag.constant(a), ag.constant(b)), np_fn(a, b))
    _exact(np.invert(ag.constant(a)), np.invert(a))
    _exact(np.bitwise_not(ag.constant(a)), np.bitwise_not(a))
    i, j = np.array([12, -1, 5], np.int32), np.array([10, 7, -6], np.int32)
    for tf_fn, np_fn in ((ag.bitwise.bitwise_and, np.bitwise_and), (ag.bitwise.bitwise_or, np.bitwise_or),
                         (ag.bitwise.bitwise_xor, np.bitwise_xor)):
        _exact(tf_fn(i, j), np_fn(i, j))
        _exact(np_fn(ag.constant(i), j), np_fn(i, j))
    _exact(ag.bitwise.invert(i), np.invert(i))
    # TensorFlow's tf.bitwise takes integers only; the NumPy functions take bools too.
    with pytest.raises(TypeError, match=r"bitwise_and: expected an? (integer|int32 or int64) tensor, "
                                        r"got bool; for bool tensors use the logical_\* ops"):
        ag.bitwise.bitwise_and(a, b)
    with pytest.raises(TypeError, match=r"left_shift: expected an? (integer|int32 or int64) tensor, "
                                        r"got float32"):
        ag.bitwise.left_shift(ag.constant([1.0]), 1)


def test_clip_by_value():
    x = np.array([-2.0, 0.5, 3.0, np.nan], np.float32)
    _exact(ag.clip_by_value(x, 0.0, 1.0), np.clip(x, 0.0, 1.0))
    _exact(np.clip(ag.constant(x), 0.0, 1.0), np.clip(x, 0.0, 1.0))
    _exact(ag.clip_by_value(np.array([1, 5, 9], np.int32), [2, 2, 2], 6), np.array([2, 5, 6], np.int32))


# ---------------------------------------------------------------- cumprod

@SETTINGS
@given(data=st.data())
def test_cumprod(data):
    dtype = data.draw(st.sampled_from(["int32", "int64", "float32", "float64"]))
    elems = st.integers(-3, 3) if dtype in INTS else st.floats(-2, 2, width=32)
    x = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4),
                             elements=elems))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    _exact(ag.math.cumprod(x, axis=axis), np.cumprod(x, axis=axis, dtype=x.dtype))
    _exact(np.cumprod(ag.constant(x), axis=axis), np.cumprod(x, axis=axis, dtype=x.dtype))
    _exact(np.cumprod(ag.constant(x)), np.cumprod(x, dtype=x.dtype))
    _exact(np.multiply.accumulate(ag.constant(x), axis=axis), np.cumprod(x, axis=axis, dtype=x.dtype))
    rev = np.flip(np.cumprod(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
    _exact(ag.math.cumprod(x, axis=axis, reverse=True), rev)


def test_cumprod_exclusive_and_errors():
    _exact(ag.math.cumprod([2, 3, 4], exclusive=True), np.array([1, 2, 6], np.int32))
    _exact(ag.math.cumprod([2, 3, 4], exclusive=True, reverse=True), np.array([12, 4, 1], np.int32))
    with pytest.raises(ValueError, match=r"cumprod: expected a tensor of rank >= 1, got a scalar"):
        ag.math.cumprod(3.0)
    with pytest.raises(TypeError, match=r"cumprod: expected an int, float or complex tensor, got bool"):
        ag.math.cumprod([True])


# ---------------------------------------------------------------- sorting

def _sortable(dtype):
    if dtype == "bool":
        return st.booleans()
    if dtype in INTS:
        return st.integers(-3, 3)      # small range: many duplicates
    return st.one_of(st.sampled_from([0.0, -0.0, 1.5, np.nan, np.inf, -np.inf]),
                     st.floats(-3, 3, width=32))


SORT_DTYPES = ["bool", "int32", "int64", "float32", "float64"]


@pytest.mark.parametrize("dtype", SORT_DTYPES)
@SETTINGS
@given(data=st.data())
def test_sort_and_argsort_as_numpy(dtype, data):
    x = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6),
                             elements=_sortable(dtype)))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    # (kind="stable": NumPy's default quicksort may swap 0.0 and -0.0; ours is stable)
    _exact(ag.sort(x, axis=axis), np.sort(x, axis=axis, kind="stable"))
    _exact(np.sort(ag.constant(x), axis=axis), np.sort(x, axis=axis, kind="stable"))
    _exact(ag.argsort(x, axis=axis), np.argsort(x, axis=axis, kind="stable"))
    _exact(np.argsort(ag.constant(x), axis=axis), np.argsort(x, axis=axis, kind="stable"))
    _exact(np.sort(ag.constant(x), axis=None), np.sort(x, axis=None, kind="stable"))
    _exact(np.argsort(ag.constant(x), axis=None), np.argsort(x, axis=None, kind="stable"))
    # Descending: NaNs first, then from the largest; stable (Python's sorted
    # with reverse=True keeps equal elements in order, 0.0 and -0.0 included).
    order = np.apply_along_axis(_descending_order, axis, x) if x.size else np.zeros(x.shape, np.int64)
    _exact(ag.argsort(x, axis=axis, direction="DESCENDING"), order)
    _exact(ag.sort(x, axis=axis, direction="DESCENDING"), np.take_along_axis(x, order, axis))


def _descending_order(line):
    def key(i):
        v = line[i]
        return (1, 0.0) if v != v else (0, v)    # NaN above every number
    return np.array(sorted(range(len(line)), key=key, reverse=True), np.int64)


def test_sort_errors():
    with pytest.raises(ValueError, match=r"sort: expected a tensor of rank >= 1, got a scalar"):
        ag.sort(3.0)
    with pytest.raises(ValueError, match=r"argsort: direction must be 'ASCENDING' or 'DESCENDING', "
                                         r"got 'UP'"):
        ag.argsort([1.0], direction="UP")
    with pytest.raises(ValueError, match=r"sort: axis 1 is out of range for a tensor of rank 1"):
        ag.sort([1.0], axis=1)
    with pytest.raises(TypeError, match=r"sort: expected a bool, int or float tensor, got string"):
        ag.sort(ag.constant(["b", "a"]))
    with pytest.raises(TypeError, match=r"np\.sort: the order= argument has no autograph equivalent"):
        ag.function(lambda a: np.sort(a, order="x"))(np.ones(2))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@SETTINGS
@given(data=st.data())
def test_searchsorted_as_numpy(dtype, data):
    a = np.sort(data.draw(hnp.arrays(dtype, st.integers(0, 8), elements=_sortable(dtype))))
    v = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4),
                             elements=_sortable(dtype)))
    for side in ("left", "right"):
        want = np.asarray(np.searchsorted(a, v, side=side), np.int64)
        _exact(ag.searchsorted(a, v, side=side), want)
        _exact(np.searchsorted(ag.constant(a), v, side=side), want)
    _exact(ag.searchsorted(a, v, out_type=ag.int32), np.searchsorted(a, v).astype(np.int32))


def test_searchsorted_errors():
    with pytest.raises(ValueError, match=r"searchsorted: expected a 1-D sorted sequence, got shape "
                                         r"\(1, 2\)"):
        ag.searchsorted([[1, 2]], 1)
    with pytest.raises(ValueError, match=r"searchsorted: side must be 'left' or 'right', got 'middle'"):
        ag.searchsorted([1, 2], 1, side="middle")
    with pytest.raises(TypeError, match=r"searchsorted: the operands have different dtypes int32 "
                                        r"and float32"):
        ag.searchsorted(ag.constant([1, 2]), ag.constant(1.5))
    with pytest.raises(TypeError, match=r"np\.searchsorted: the sorter= argument has no autograph"):
        ag.function(lambda a: np.searchsorted(a, a, sorter=np.array([0, 1])))(np.ones(2))


@SETTINGS
@given(data=st.data())
def test_nonzero_where_argwhere_count_nonzero(data):
    dtype = data.draw(st.sampled_from(["bool", "int32", "float64"]))
    elems = st.booleans() if dtype == "bool" else st.sampled_from([0, 0, 1, -2]) if dtype in INTS \
        else st.sampled_from([0.0, -0.0, 1.5, np.nan])
    x = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4),
                             elements=elems))
    got = np.nonzero(ag.constant(x))
    want = np.nonzero(x)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        _exact(g, w.astype(np.int64))
    for g, w in zip(np.where(ag.constant(x)), want):
        _exact(g, w.astype(np.int64))
    _exact(np.argwhere(ag.constant(x)), np.argwhere(x).astype(np.int64))
    if dtype == "bool":
        _exact(ag.where(x), np.argwhere(x).astype(np.int64))   # TensorFlow's one-argument where
    _exact(np.count_nonzero(ag.constant(x)), np.int64(np.count_nonzero(x)))
    _exact(ag.math.count_nonzero(x, axis=0), np.count_nonzero(x, axis=0).astype(np.int64))


def test_nonzero_errors():
    with pytest.raises(ValueError, match=r"nonzero: expected a tensor of rank >= 1, got a scalar"):
        np.nonzero(ag.constant(True))
    with pytest.raises(TypeError, match=r"where: pass both x and y \(or neither"):
        ag.where([True], 1.0)


# ---------------------------------------------------------------- copysign, fmax/fmin, signbit

def test_copysign_fmax_fmin_signbit():
    x = np.array([-0.0, 0.0, np.nan, 1.0, -2.0, np.inf], np.float64)
    y = np.array([0.0, -0.0, 1.0, np.nan, np.nan, -np.inf], np.float64)
    for np_fn, ag_fn in ((np.copysign, ag.math.copysign), (np.fmax, ag.math.fmax),
                         (np.fmin, ag.math.fmin)):
        assert_same(ag_fn(x, y), np_fn(x, y))
        assert_same(np_fn(ag.constant(x), y), np_fn(x, y))
    _exact(np.copysign(ag.constant(x), y), np.copysign(x, y))
    _exact(np.signbit(ag.constant(x)), np.signbit(x))
    i, j = np.array([-3, 5, 0], np.int64), np.array([2, -7, 0], np.int64)
    _exact(np.fmax(ag.constant(i), j), np.fmax(i, j))
    _exact(np.signbit(ag.constant(i)), np.signbit(i))
    with pytest.raises(TypeError, match=r"copysign: expected a float tensor, got int64"):
        np.copysign(ag.constant(i), j)


# ---------------------------------------------------------------- compositions

def test_isclose_allclose_nan_to_num_degrees():
    a = np.array([1.0, 1e10, np.inf, np.nan, -np.inf, 0.0, 1.0], np.float32)
    b = np.array([1.0 + 1e-9, 1.0001e10, np.inf, np.nan, np.inf, 1e-9, 1.1], np.float32)
    ta, tb = ag.constant(a), ag.constant(b)
    _exact(np.isclose(ta, tb), np.isclose(a, b))
    _exact(np.isclose(ta, b, equal_nan=True), np.isclose(a, b, equal_nan=True))
    _exact(np.isclose(ta, tb, rtol=0.2, atol=0.0), np.isclose(a, b, rtol=0.2, atol=0.0))
    assert bool(np.allclose(ta[:1], tb[:1])) and not bool(np.allclose(ta[:2], tb[:2]))
    i = np.array([1, 2, 180], np.int32)
    _exact(np.isclose(ag.constant(i), i + 1, atol=1), np.isclose(i, i + 1, atol=1))
    _exact(np.nan_to_num(ta), np.nan_to_num(a))
    _exact(np.nan_to_num(ta, nan=-1.0, posinf=5.0, neginf=-5.0),
           np.nan_to_num(a, nan=-1.0, posinf=5.0, neginf=-5.0))
    _exact(np.nan_to_num(ag.constant(i)), i)
    np.testing.assert_allclose(np.deg2rad(ta), np.deg2rad(a), rtol=1e-6)
    np.testing.assert_allclose(np.degrees(tb), np.degrees(b), rtol=1e-6)
    _exact(np.radians(ag.constant(i)), np.radians(i))
    _exact(np.rad2deg(ag.constant(np.array([np.pi, -0.0]))), np.rad2deg(np.array([np.pi, -0.0])))


@SETTINGS
@given(data=st.data())
def test_digitize_and_interp_as_numpy(data):
    edges = np.sort(data.draw(hnp.arrays("float64", st.integers(1, 6),
                                         elements=st.sampled_from([-1.0, 0.0, 0.5, 2.0, 3.0]))))
    if data.draw(st.booleans()):
        edges = edges[::-1].copy()
    x = data.draw(hnp.arrays("float64", st.integers(0, 6),
                             elements=st.sampled_from([-2.0, -1.0, 0.0, 0.25, 0.5, 2.0, 4.0, np.nan])))
    right = data.draw(st.booleans())
    _exact(np.digitize(ag.constant(x), edges, right=right), np.digitize(x, edges, right=right))
    xp = np.unique(edges)      # increasing, distinct
    fp = data.draw(hnp.arrays("float64", xp.shape, elements=st.floats(-10, 10)))
    _exact(np.interp(ag.constant(x), xp, fp), np.interp(x, xp, fp))
    _exact(np.interp(ag.constant(x), xp, fp, left=-50.0, right=50.0),
           np.interp(x, xp, fp, left=-50.0, right=50.0))


def test_interp_with_a_period_equals_numpy():
    x = np.array([-180.0, -170, -185, 185, -10, -5, 0, 365, 5, 10, 175])
    xp, fp = np.array([190.0, -190, 350, -350]), np.array([5.0, 10, 3, 4])
    _exact(np.interp(ag.constant(x), xp, fp, period=360), np.interp(x, xp, fp, period=360))
    compiled = ag.function(lambda a: np.interp(a, xp, fp, period=-360))
    _exact(compiled(x), np.interp(x, xp, fp, period=-360))


def test_interp_errors():
    with pytest.raises(ValueError, match=r"interp: period must be a non-zero value"):
        np.interp(ag.constant([1.0]), [0.0, 2.0], [0.0, 1.0], period=0)
