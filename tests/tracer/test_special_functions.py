"""`math.erf`, `erfc`, `lgamma`, `gamma` (tracer/ops/special.py), compiled.

Code written for Numba calls them on scalars (Black-Scholes' normal
distribution through `math.erf`, log-likelihoods through `math.lgamma`).
Compiled, they call the C library as Python's `math` does, so they agree
with `math` to a few ulps at ordinary points and exactly at the special ones
(the poles, infinities, NaN), with C's conventions where Python raises.
The gradients of erf and erfc are the formula 2/sqrt(pi) exp(-x^2).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import autograph as ag
from support import c_gamma, c_lgamma

POINTS = np.array([-np.inf, -30.0, -6.0, -2.5, -2.0, -1.0, -0.5, -1e-300, -0.0, 0.0, 1e-300,
                   0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.5, 27.0, 171.5, 1e10, np.inf, np.nan])


REFERENCE = {"erf": math.erf, "erfc": math.erfc, "gamma": c_gamma, "lgamma": c_lgamma}


def kernel(x):
    n = x.shape[0]
    out = np.empty((4, n), dtype=x.dtype)
    for i in range(n):
        out[0, i] = math.erf(x[i])
        out[1, i] = math.erfc(x[i])
        out[2, i] = math.gamma(x[i])
        out[3, i] = math.lgamma(x[i])
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_math_special_functions_in_a_compiled_loop(dtype):
    x = POINTS.astype(dtype)
    got = np.asarray(ag.function(kernel)(x))
    assert got.dtype == dtype
    rtol = 1e-13 if dtype == np.float64 else 1e-5
    for row, name in enumerate(("erf", "erfc", "gamma", "lgamma")):
        with np.errstate(over="ignore"):   # gamma(171.5) is inf in float32
            want = np.array([REFERENCE[name](float(v)) for v in x]).astype(dtype)
        np.testing.assert_allclose(got[row], want, rtol=rtol, atol=0, equal_nan=True,
                                   err_msg=name)
        # the special points exactly: signs of infinities, NaN where C gives NaN
        special = ~np.isfinite(want) | (want == 0)
        np.testing.assert_array_equal(got[row][special], want[special], err_msg=name)


def test_float64_eager_and_compiled_give_the_same_bits():
    """Both call the C library for float64: gamma overflowing to -inf for a tiny
    negative x (about 1/x), and lgamma near its root at 1, where CPython's own lgamma
    differs from C's by 2e-13 relatively, found by hypothesis in a full run."""
    x = np.array([-2.2250738585e-313, 2.2250738585e-313, 200.0, -0.0, 0.99609375, 1.0001, 2.5])
    compiled = ag.function(lambda t: (ag.math.gamma(t), ag.math.lgamma(t)), autograph=False)(x)
    for got, want in zip(compiled, (ag.math.gamma(x), ag.math.lgamma(x))):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert np.asarray(ag.math.gamma(x))[0] == -np.inf
    assert c_gamma(-2.2250738585e-313) == -math.inf     # the test reference agrees


def test_ops_on_tensors_and_ints():
    x = np.array([0.5, 1.0, 2.0])
    f = ag.function(lambda t: (ag.math.erf(t), ag.math.erfc(t), ag.math.lgamma(t),
                               ag.math.gamma(t)))
    for got, name in zip(f(x), ("erf", "erfc", "lgamma", "gamma")):
        np.testing.assert_allclose(np.asarray(got), [REFERENCE[name](v) for v in x], rtol=1e-14)
    # math.erf of an int tensor: as math converts to float (float64)
    g = ag.function(lambda k: math.erf(k[0]) + math.lgamma(k[1]))
    out = g(np.array([1, 4], np.int64))
    assert np.asarray(out).dtype == np.float64
    assert float(out) == pytest.approx(math.erf(1) + math.lgamma(4), rel=1e-14)


def test_erf_refuses_ints_as_an_op():
    with pytest.raises(TypeError, match=r"erf"):
        ag.math.erf(ag.constant([1, 2]))


def test_erf_erfc_gradients():
    x = np.array([-1.5, -0.2, 0.0, 0.7, 2.0])

    @ag.function
    def grads(t):
        with ag.GradientTape() as tape:
            tape.watch(t)
            y = ag.reduce_sum(ag.math.erf(t) * 2.0 + ag.math.erfc(t))
        return tape.gradient(y, t)

    # d/dx (2 erf + erfc) = (2 - 1) * 2/sqrt(pi) exp(-x^2)
    want = 2.0 / math.sqrt(math.pi) * np.exp(-x * x)
    np.testing.assert_allclose(np.asarray(grads(x)), want, rtol=1e-13)


def test_lgamma_has_no_gradient_rule():
    x = ag.constant([1.5, 2.5], ag.float64)
    with ag.GradientTape() as tape:
        tape.watch(x)
        y = ag.reduce_sum(ag.math.lgamma(x))
    with pytest.raises(LookupError, match="no gradient is defined for op 'lgamma'"):
        tape.gradient(y, x)
