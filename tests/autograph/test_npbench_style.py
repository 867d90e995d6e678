"""npbench's NumPy kernels (our own words) compile with `ag.function` as written.

npbench (spcl/npbench) is the best-known collection of kernels written for
NumPy: polybench (npbench_polybench.py), applications, stencils and deep
learning layers (npbench_apps.py), image processing, Krylov solvers and
complex kernels (npbench_more.py). Each kernel runs plainly on NumPy arrays
and through `ag.function` on copies of the same inputs, and the results
agree: exactly for integers, rtol 1e-9 for float64 (sums of products may add
in another order than NumPy's BLAS), 1e-4 for float32.

Under `ag.function` a write into an argument is a functional update
(API.md §2, §9): kernels whose published form writes its result into an
argument return it explicitly here (said in a comment at each), their
`ArgumentWriteWarning`s are expected, and the caller's arrays must come back
unchanged. The kernels whose published form needs what the contract refuses
(npbench_refused.py) must raise its clear error, and compile once given
the cast the error names.
"""
import copy
import re
import warnings

import numpy as np
import pytest

import autograph as ag

import npbench_apps
import npbench_more
import npbench_polybench
import npbench_refused

CASES = {**npbench_polybench.CASES, **npbench_apps.CASES, **npbench_more.CASES,
         **npbench_refused.CASES}
SEED = 7


def _same(got, want, name):
    python_int = isinstance(want, int)
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    if python_int:   # a Python int result (a step count) is int32 compiled (§3)
        assert got.dtype == np.int32, (name, got.dtype)
    else:
        assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want, err_msg=name)
    else:
        rtol = 1e-4 if want.dtype in (np.float32, np.complex64) else 1e-9
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 1e-3, err_msg=name)


def _as_tuple(v):
    return v if isinstance(v, tuple) else (v,)


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_matches_numpy(name):
    kernel, make_args = CASES[name]
    args = make_args(np.random.default_rng(SEED))
    want = kernel(*copy.deepcopy(args))
    inputs = copy.deepcopy(args)
    with warnings.catch_warnings():
        # writes into arguments warn (API.md §9); anything else is an error
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ag.errors.ArgumentWriteWarning)
        got = ag.function(kernel)(*inputs)
    got, want = _as_tuple(got), _as_tuple(want)
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        _same(g, w, name)
    # functional updates: the caller's arrays keep their values
    for before, after in zip(args, inputs):
        if isinstance(before, np.ndarray):
            np.testing.assert_array_equal(after, before, err_msg=name)


@pytest.mark.parametrize("name", sorted(npbench_refused.ERROR_CASES))
def test_refused_kernel_raises_the_contract_error(name):
    kernel, make_args, exc, pattern = npbench_refused.ERROR_CASES[name]
    args = make_args(np.random.default_rng(SEED))
    kernel(*copy.deepcopy(args))   # plain NumPy runs it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.errors.ArgumentWriteWarning)
        with pytest.raises(exc) as info:
            ag.function(kernel)(*copy.deepcopy(args))
    assert re.search(pattern, str(info.value), re.S), str(info.value)
    # the message points at the user's line in the kernel
    assert "npbench_refused.py" in str(info.value)


def test_kernels_writing_arguments_warn_once_per_line():
    # jacobi_1d writes A and B (two lines) inside a loop: one warning per line
    args = npbench_polybench.CASES["jacobi_1d"][1](np.random.default_rng(SEED))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ag.function(npbench_polybench.jacobi_1d)(*args)
    writes = [w for w in caught if issubclass(w.category, ag.errors.ArgumentWriteWarning)]
    assert sorted({str(w.message).split("'")[1] for w in writes}) == ["A", "B"]
    assert len(writes) == 2


def test_count_of_kernels():
    # the coverage README.md claims: 32 polybench + 15 + 10 others compile as
    # written; 7 stop at a contract rule (3 of them compile with its cast)
    assert len(npbench_polybench.CASES) == 32
    assert len(npbench_apps.CASES) == 15
    assert len(npbench_more.CASES) == 10
    assert len(npbench_refused.ERROR_CASES) == 7
    assert len(npbench_refused.CASES) == 3
