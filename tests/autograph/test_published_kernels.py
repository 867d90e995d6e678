"""Published kernels (Numba-style loops and vectorised NumPy) compile unchanged.

Each kernel of published_kernels.py and published_numpy_kernels.py runs as
plain NumPy and through `ag.function` on copies of the same inputs, and the
results agree: exactly for integers and bools, rtol 1e-9 for float64 (sums
may add in another order), 1e-5 for float32. Dtypes agree with NumPy's,
except where the contract fixes another one: a Python int result is int32
and a Python float float32 (API.md §3), and indices collected from a loop
over `range(len(x))` are int32 (§9: `len` is int32). The unchanged forms the
contract refuses (published_refused.py) raise its clear TypeError, quoting
the user's line.
"""
import copy
import re
import warnings

import numpy as np
import pytest

import autograph as ag

import published_kernels
import published_numpy_kernels
import published_refused

CASES = {**published_kernels.CASES, **published_numpy_kernels.CASES}
SEED = 11
# results that are indices gathered from an int32 loop counter (§9)
INT32_INDICES = {"select_indices"}
# Python floats computed at trace time from Python floats only: float32 (§3). Other Python
# float results (math.sqrt of a float64, float(t)) come from float64 tensors: float64.
PYTHON_FLOATS = {"rk4_python_floats"}


def _expected_dtype(name, want):
    if type(want) is int:
        return np.dtype(np.int32)       # a Python int alone is int32 (§3)
    if type(want) is float:
        return np.dtype(np.float32 if name in PYTHON_FLOATS else np.float64)
    dtype = np.asarray(want).dtype
    if name in INT32_INDICES and dtype == np.int64:
        return np.dtype(np.int32)
    return dtype


def _same(name, got, want):
    dtype = _expected_dtype(name, want)
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    assert got.dtype == dtype, (name, got.dtype, dtype)
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want, err_msg=name)
    else:
        rtol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-9
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 1e-3, err_msg=name)


def _as_tuple(v):
    return v if isinstance(v, tuple) else (v,)


@pytest.mark.parametrize("name", sorted(CASES))
def test_published_kernel_matches_numpy(name):
    kernel, make_args = CASES[name]
    args = make_args(np.random.default_rng(SEED))
    want = kernel(*copy.deepcopy(args))
    inputs = copy.deepcopy(args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no warning at all: none of these writes an argument
        got = ag.function(kernel)(*inputs)
    got, want = _as_tuple(got), _as_tuple(want)
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        _same(name, g, w)
    for before, after in zip(args, inputs):   # the caller's arrays are never changed
        if isinstance(before, np.ndarray):
            np.testing.assert_array_equal(after, before, err_msg=name)


@pytest.mark.parametrize("name", sorted(published_refused.ERRORS))
def test_refused_published_form_raises_the_contract_error(name):
    kernel, make_args, pattern = published_refused.ERRORS[name]
    args = make_args(np.random.default_rng(SEED))
    kernel(*copy.deepcopy(args))   # plain NumPy runs it
    with pytest.raises(TypeError) as info:
        ag.function(kernel)(*copy.deepcopy(args))
    message = str(info.value)
    assert re.search(pattern, message, re.S), message
    assert "published_refused.py" in message   # it points at the user's line


def test_count_of_kernels():
    assert len(published_kernels.CASES) + len(published_numpy_kernels.CASES) >= 60
    assert len(published_refused.ERRORS) == 7
