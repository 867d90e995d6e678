"""NumPy functions of numeric kernels built from existing ops (API.md section 9):
var std average diff roll tile repeat outer vdot dot linalg.norm, 1-D `@`,
and NumPy's keyword names for the functions that map to one op.

Differential: the same plain-NumPy function on arrays, on eager tensors
(through `__array_function__`) and compiled by `ag.function`; ints exactly,
float64 within 1e-12 relative.
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

THIS_FILE = os.path.basename(__file__)


def _same(got, want, rtol=1e-12):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, rtol)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12)


def _check(fn, *arrays, compiled=True):
    want = fn(*arrays)
    _same(fn(*[ag.constant(a) for a in arrays]), want)
    if compiled:
        _same(ag.function(fn)(*arrays), want)


X = np.arange(24, dtype=np.float64).reshape(2, 3, 4) ** 1.5 - 7.0
XI = np.arange(24, dtype=np.int64).reshape(2, 3, 4) % 7 - 3

CASES = {
    "var_axis_ddof": (lambda a: np.var(a, axis=1, ddof=1), X),
    "var_ints": (lambda a: np.var(a, axis=(0, 2)), XI),
    "std_keepdims": (lambda a: np.std(a, keepdims=True), X),
    "std_ints_ddof": (lambda a: np.std(a, ddof=1, axis=-1), XI),
    "average_weights_1d": (lambda a: np.average(a, axis=2, weights=np.arange(1.0, 5.0)), X),
    "average_all": (lambda a: np.average(a), X),
    "average_ints": (lambda a: np.average(a, axis=0), XI),
    "average_returned": (lambda a: np.average(a, weights=a * 0 + 2.0, returned=True), X),
    "diff": (lambda a: np.diff(a), X),
    "diff_n_axis": (lambda a: np.diff(a, n=2, axis=1), XI),
    "diff_bool": (lambda a: np.diff(a > 0), XI),
    "roll_flat": (lambda a: np.roll(a, 5), XI),
    "roll_axis": (lambda a: np.roll(a, -1, axis=1), X),
    "roll_tuple": (lambda a: np.roll(a, (1, 2), axis=(0, 2)), XI),
    "roll_big": (lambda a: np.roll(a, 13, axis=-1), XI),
    "tile_int": (lambda a: np.tile(a, 2), XI),
    "tile_tuple": (lambda a: np.tile(a, (2, 1, 1, 3)), X),
    "tile_short": (lambda a: np.tile(a, (2, 1)), XI),
    "repeat_flat": (lambda a: np.repeat(a, 2), XI),
    "repeat_axis": (lambda a: np.repeat(a, 3, axis=-1), X),
    "repeat_counts": (lambda a: np.repeat(a, [1, 0, 2], axis=1), XI),
    "outer": (lambda a: np.outer(a[0, 0], a[1]), X),
    "vdot": (lambda a: np.vdot(a, a), XI),
    "dot_scalar": (lambda a: np.dot(a, 3), XI),
    "dot_vv": (lambda a: np.dot(a[0, 0], a[1, 1]), X),
    "dot_mv": (lambda a: np.dot(a[0], a[0, 0]), XI),
    "dot_mm": (lambda a: np.dot(a[0], a[1].T), X),
    "dot_nd_1d": (lambda a: np.dot(a, a[0, 0]), X),
    "dot_nd_nd": (lambda a: np.dot(a, a[0].T), XI),
    "matmul_vv": (lambda a: a[0, 0] @ a[1, 1], XI),
    "matmul_mv": (lambda a: a[0] @ a[0, 0], X),
    "matmul_vm": (lambda a: a[0, :, 0] @ a[0], X),
    "np_matmul_vm": (lambda a: np.matmul(a[0, :, 0], a[1]), XI),
    "norm": (lambda a: np.linalg.norm(a), X),
    "norm_ints": (lambda a: np.linalg.norm(a), XI),
    "norm_vec_1": (lambda a: np.linalg.norm(a, ord=1, axis=2), X),
    "norm_vec_inf": (lambda a: np.linalg.norm(a[0, 0], ord=np.inf), X),
    "norm_vec_minf": (lambda a: np.linalg.norm(a[0, 0], -np.inf), X),
    "norm_vec_0": (lambda a: np.linalg.norm(a[0, 0], ord=0), XI),
    "norm_vec_p": (lambda a: np.linalg.norm(a[1, 1], ord=3), X),
    "norm_mat_fro": (lambda a: np.linalg.norm(a, axis=(0, 2), keepdims=True), X),
    "norm_mat_1": (lambda a: np.linalg.norm(a[0], ord=1), X),
    "norm_mat_m1": (lambda a: np.linalg.norm(a, ord=-1, axis=(1, 2)), X),
    "norm_mat_inf": (lambda a: np.linalg.norm(a[1], ord=np.inf), XI),
    "norm_mat_minf_keep": (lambda a: np.linalg.norm(a, -np.inf, (2, 1), True), X),
}


def _all_cases(x, i):
    return tuple(fn(x if arg is X else i) for fn, arg in (CASES[n] for n in sorted(CASES)))


_COMPILED = []


def _compiled(name):
    # One compiled function holds every case (one compile instead of one each).
    if not _COMPILED:
        _COMPILED.append(dict(zip(sorted(CASES), ag.function(_all_cases)(X, XI))))
    return _COMPILED[0][name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_compositions_match_numpy(name):
    fn, x = CASES[name]
    want = fn(x)
    _same(fn(ag.constant(x)), want)
    _same(_compiled(name), want)


@st.composite
def _axis_case(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    x = draw(hnp.arrays(np.float64, shape, elements=st.floats(-100, 100, width=64)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    return x, axis


@settings(max_examples=30, deadline=None)
@given(_axis_case(), st.integers(-6, 6), st.integers(0, 3), st.integers(0, 2))
def test_axis_functions_eager_hypothesis(case, shift, reps, n):
    x, axis = case
    for fn in (lambda a: np.roll(a, shift, axis=axis), lambda a: np.roll(a, shift),
               lambda a: np.repeat(a, reps, axis=axis), lambda a: np.tile(a, reps),
               lambda a: np.var(a, axis=axis), lambda a: np.std(a, axis=axis, keepdims=True),
               lambda a: np.average(a, axis=axis), lambda a: np.linalg.norm(a, axis=axis),
               lambda a: np.diff(a, n=min(n, a.shape[axis]), axis=axis)):
        _check(fn, x, compiled=False)


@settings(max_examples=5, deadline=None)
@given(_axis_case(), st.integers(-6, 6))
def test_axis_functions_compiled_hypothesis(case, shift):
    x, axis = case

    def kernel(a):
        return (np.roll(a, shift, axis=axis), np.var(a, axis=axis, ddof=0),
                np.linalg.norm(a, ord=1, axis=axis), np.diff(a, axis=axis), np.repeat(a, 2, axis))
    want = kernel(x)
    got = ag.function(kernel)(x)
    _same(tuple(got), want)


def test_roll_with_a_run_time_length_compiles():
    f = ag.function(lambda a: np.roll(a, 2), input_signature=[ag.TensorSpec([None], ag.int64)])
    for n in (1, 3, 7):
        x = np.arange(n, dtype=np.int64)
        np.testing.assert_array_equal(f(x), np.roll(x, 2))


def test_public_tensorflow_names():
    x = np.arange(6.0).reshape(2, 3)
    _same(ag.math.reduce_variance(x, axis=0), np.var(x, axis=0))
    _same(ag.math.reduce_std(x), np.std(x))
    _same(ag.roll(x, 1, 1), np.roll(x, 1, 1))
    _same(ag.tile(x, [2, 1]), np.tile(x, (2, 1)))
    _same(ag.repeat(x, 2, axis=0), np.repeat(x, 2, axis=0))
    _same(ag.norm(x), np.linalg.norm(x))
    _same(ag.norm(x, ord=1, axis=1), np.linalg.norm(x, 1, 1))


# NumPy's keyword names on functions that map to one op.
KEYWORDS = {
    "concatenate": lambda a: np.concatenate([a, a], axis=1),
    "concatenate_none": lambda a: np.concatenate((a, a), axis=None),
    "stack": lambda a: np.stack([a, a], axis=-1),
    "transpose": lambda a: np.transpose(a, axes=(1, 0)),
    "any": lambda a: np.any(a > 2, axis=0, keepdims=True),
    "all": lambda a: np.all(a > -1, axis=1),
    "prod": lambda a: np.prod(a, axis=1, keepdims=True),
    "cumsum": lambda a: np.cumsum(a, axis=1),
    "cumsum_flat": lambda a: np.cumsum(a),
    "mean": lambda a: np.mean(a, axis=0, keepdims=True),
    "sum": lambda a: np.sum(a, axis=(0, 1)),
    "max": lambda a: np.max(a, axis=1),
    "min": lambda a: np.min(a, keepdims=True),
    "amax": lambda a: np.amax(a, axis=0),
    "amin": lambda a: np.amin(a, axis=-1, keepdims=True),
    "argmax": lambda a: np.argmax(a, axis=1),
    "argmax_flat": lambda a: np.argmax(a),
    "argmin": lambda a: np.argmin(a, axis=0, keepdims=True),
    "where3": lambda a: np.where(a > 2, a, -a),
    "square": lambda a: np.square(a),
    "abs": lambda a: np.abs(a - 3),
    "sign": lambda a: np.sign(a - 3),
    "maximum": lambda a: np.maximum(a, 2),
    "minimum": lambda a: np.minimum(a, a.T.T - 1),
    "power": lambda a: np.power(a, 2),
}


KX = np.arange(6, dtype=np.float64).reshape(2, 3)
_KCOMPILED = []


@pytest.mark.parametrize("name", sorted(KEYWORDS))
def test_numpy_keyword_names_dispatch(name):
    want = KEYWORDS[name](KX)
    _same(KEYWORDS[name](ag.constant(KX)), want)
    if not _KCOMPILED:
        every = ag.function(lambda a: tuple(KEYWORDS[n](a) for n in sorted(KEYWORDS)))(KX)
        _KCOMPILED.append(dict(zip(sorted(KEYWORDS), every)))
    _same(_KCOMPILED[0][name], want)


def test_out_is_refused_clearly():
    out = np.empty(3)
    with pytest.raises(TypeError, match=r"np.sum: the out= argument has no autograph equivalent: "
                                         r"tensors are immutable"):
        ag.function(lambda a: np.sum(a, axis=0, out=out))(np.ones((2, 3)))
    with pytest.raises(TypeError, match=r"np.var: the out= argument") as info:
        ag.function(lambda a: np.var(a, out=out))(np.ones(3))
    assert THIS_FILE in str(info.value)
    with pytest.raises(TypeError, match=r"np.maximum: the out= argument"):
        ag.function(lambda a: np.maximum(a, 1.0, out=out))(np.ones(3))


def test_errors_name_the_function_and_argument():
    with pytest.raises(ValueError, match=r"axis 2 is out of range for a tensor of rank 2"):
        ag.function(lambda a: np.roll(a, 1, axis=2))(np.ones((2, 3)))
    # the matrix 2-norm from LAPACK's singular values (tests/codegen/test_lapack_linalg.py)
    np.testing.assert_array_equal(ag.function(lambda a: np.linalg.norm(a, ord=2))(np.ones((2, 3))),
                                  np.linalg.norm(np.ones((2, 3)), ord=2))
    with pytest.raises(ValueError, match=r"repeat: 2 repeat counts for an axis of length 3"):
        np.repeat(ag.constant(np.ones(3)), [1, 2])
    with pytest.raises(ValueError, match=r"matmul: a scalar \(0-d\) operand"):
        ag.function(lambda a: a @ a[0])(np.ones(3))
    # prepend/append are supported now (tests/autograph/test_numpy_statistics.py)
    np.testing.assert_array_equal(ag.function(lambda a: np.diff(a, prepend=0))(np.ones(3)),
                                  np.diff(np.ones(3), prepend=0))


def test_bools_count_as_numpy_counts_them():
    def counts(a):
        mask = a > 2
        return (np.sum(mask), mask.sum(axis=0), np.mean(mask), mask.cumsum(), np.prod(mask),
                np.cumsum(mask, axis=1))
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    want = counts(x)
    _same(tuple(counts(ag.constant(x))), want)
    _same(tuple(ag.function(counts)(x)), want)


def test_any_all_of_numbers_and_max_min_of_bools_follow_numpy():
    def kernel(a):
        mask = a > 1.0
        return (np.any(a), a.all(axis=0), np.all(a, keepdims=True), mask.max(), np.min(mask, axis=1),
                np.amax(mask, axis=0))
    x = np.array([[0.0, 2.0, np.nan], [1.5, -1.0, 3.0]])
    want = kernel(x)
    _same(tuple(kernel(ag.constant(x))), want)
    _same(tuple(ag.function(kernel)(x)), want)
