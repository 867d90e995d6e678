"""NumPy's `np.i0` on tensors: the modified Bessel function of the first kind,
order 0.

NumPy computes it in Python, from Clenshaw's Chebyshev expansions (the ones
Cephes uses) on two intervals of |x|: exp(x) * chbevl(x / 2 - 2, A) for
|x| <= 8, exp(x) * chbevl(32 / x - 2, B) / sqrt(x) above. This module makes the
same operations in the same order and dtype (float32 stays float32, integers
and bools compute in float64; complex is NumPy's TypeError), so eagerly the
results are NumPy's bit for bit; compiled, `exp` is autograph's own (1 ulp from
NumPy's in float64, 2 in float32, at most), so i0 agrees within 3 ulps, nearly always
within 2 (tests/tracer/test_numpy_bessel.py measures it). Both branches are computed on every element and one is picked,
each fed a harmless value where it is not used, so no NaN leaks into the
gradient (the derivative of the expansion, close to i1(x)).
"""
from __future__ import annotations

from .common import locate_errors
from .elementwise import abs as abs_, add, cast, divide, exp, less_equal, multiply, sqrt, subtract, where
from .numpy_functions import tensor_operand
from ..core.types import float64

__all__ = ["np_i0", "FUNCTIONS", "I0_A", "I0_B"]

# The Chebyshev coefficients of exp(-x) I0(x) on [0, 8] (A) and of
# exp(-x) sqrt(x) I0(x) on (8, inf) in 32/x (B), highest order first: the values
# of Clenshaw's tables that Cephes and NumPy use (the tests compare them with
# NumPy's own).
I0_A = (-4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16,
        1.715391285555133e-15, -1.1685332877993451e-14, 7.676185498604936e-14,
        -4.856446783111929e-13, 2.95505266312964e-12, -1.726826291441556e-11,
        9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
        -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07,
        1.1173875391201037e-06, -4.4167383584587505e-06, 1.6448448070728896e-05,
        -5.754195010082104e-05, 0.00018850288509584165, -0.0005763755745385824,
        0.0016394756169413357, -0.004324309995050576, 0.010546460394594998,
        -0.02373741480589947, 0.04930528423967071, -0.09490109704804764,
        0.17162090152220877, -0.3046826723431984, 0.6767952744094761)
I0_B = (-7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17,
        3.461222867697461e-17, -2.8276239805165836e-16, -3.425485619677219e-16,
        1.7725601330565263e-15, 3.8116806693526224e-15, -9.554846698828307e-15,
        -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
        7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11,
        -3.1499165279632416e-11, 1.1889147107846439e-11, 4.94060238822497e-10,
        3.3962320257083865e-09, 2.266668990498178e-08, 2.0489185894690638e-07,
        2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
        0.8044904110141088)


def _chebyshev(t, coefs):
    """Clenshaw's recurrence b_k = t b_{k+1} - b_{k+2} + c_k, then (b_0 - b_2) / 2,
    step by step as NumPy's `_chbevl` (the first products are of Python floats, which
    the tensor's dtype then takes, as NumPy 2's weak scalars)."""
    b0, b1, b2 = coefs[0], 0.0, 0.0
    for c in coefs[1:]:
        b2, b1 = b1, b0
        b0 = add(subtract(multiply(t, b1), b2), c)
    return multiply(subtract(b0, b2), 0.5)


@locate_errors
def np_i0(x):
    """NumPy's `i0`: the modified Bessel function of the first kind, order 0, by
    NumPy's Chebyshev expansions (float64 for integers and bools)."""
    t = tensor_operand("i0", x)
    if t.dtype.is_complex:
        raise TypeError("np.i0: i0 not supported for complex values")
    if not t.dtype.is_floating:
        t = cast(t, float64)
    t = abs_(t)
    low = less_equal(t, 8.0)
    # each branch sees a value in its own interval where the other one is taken
    # (NaN is not <= 8: the second branch, which keeps it, as NumPy's piecewise)
    t1 = where(low, t, 0.0)
    t2 = where(low, 9.0, t)
    near = multiply(exp(t1), _chebyshev(subtract(divide(t1, 2.0), 2.0), I0_A))
    far = divide(multiply(exp(t2), _chebyshev(subtract(divide(32.0, t2), 2.0), I0_B)),
                 sqrt(t2))
    return where(low, near, far)


FUNCTIONS = {"i0": np_i0}
