"""The polynomial tables of the vector maths routines (codegen/llvm/vecmath_*.py)
match what they claim: each table, evaluated in np.longdouble against the
function it approximates (bench/polyfit.py's definitions) over a dense grid of
its interval, stays within the relative error its module states; and the
fitter itself reproduces a table's quality. A mistyped coefficient fails here
even where the routine's own ulp test happens not to sample the bad spot."""
import math
import sys

import numpy as np
import pytest

import paths

if paths.ROOT not in sys.path:
    sys.path.insert(0, paths.ROOT)

from bench import polyfit  # noqa: E402
from autograph.codegen.llvm import (mathfns, vecmath_exp_two, vecmath_exp_minus_one, vecmath_hyper,  # noqa: E402
                                    vecmath_pow_single, vecmath_pow_double, vecmath_tanh)

_PRECISE = np.finfo(np.longdouble).nmant >= 63

# table name in bench.polyfit.TABLES: (coefficients as used, log2 of the stated bound)
USED = {
    "vecmath_hyper._E f64": (vecmath_hyper._E["f64"], -51.5),
    "vecmath_hyper._O f64": (vecmath_hyper._O["f64"], -52.5),
    "vecmath_hyper._E f32": (vecmath_hyper._E["f32"], -28.0),
    "vecmath_hyper._O f32": (vecmath_hyper._O["f32"], -29.5),
    "mathfns f64 (1, EXP_Q)": ((1.0,) + mathfns.EXP_Q["f64"], -56.0),
    "mathfns f32 (1, EXP_Q)": ((1.0,) + mathfns.EXP_Q["f32"], -28.5),
    "vecmath_exp_two f64 (1, EXP2_Q)": ((1.0,) + vecmath_exp_two.EXP2_Q["f64"], -54.5),
    "vecmath_exp_two f32 (1, EXP2_Q)": ((1.0,) + vecmath_exp_two.EXP2_Q["f32"], -28.5),
    "vecmath_exp_minus_one.EXPM1_E f64": (vecmath_exp_minus_one.EXPM1_E["f64"], -56.5),
    "vecmath_exp_minus_one.EXPM1_E f32": (vecmath_exp_minus_one.EXPM1_E["f32"], -28.0),
    "vecmath_tanh._E32": (vecmath_tanh._E32, -22.5),
    "vecmath_tanh._P32": (vecmath_tanh._P32, -24.0),
    "vecmath_pow_single._LOG2": (vecmath_pow_single._LOG2, -32.5),
    "vecmath_pow_single._EXP2": (vecmath_pow_single._EXP2, -33.5),
    "vecmath_pow_double._Q": (vecmath_pow_double._Q, -53.0),
}


@pytest.mark.skipif(not _PRECISE, reason="needs an extended-precision np.longdouble")
@pytest.mark.parametrize("name", sorted(USED))
def test_table_is_within_its_stated_error(name):
    f, lo, hi, degrees, _ = polyfit.TABLES[name]
    coeffs, bound = USED[name]
    assert len(coeffs) == len(list(degrees)), name
    err = polyfit.max_rel_error(f, lo, hi, list(degrees), coeffs)
    assert math.log2(err) <= bound, (name, math.log2(err))


def test_max_rel_error_sees_a_wrong_coefficient():
    f, lo, hi, degrees, _ = polyfit.TABLES["vecmath_exp_two f32 (1, EXP2_Q)"]
    coeffs = list((1.0,) + vecmath_exp_two.EXP2_Q["f32"])
    coeffs[3] *= 1.001
    assert math.log2(polyfit.max_rel_error(f, lo, hi, list(degrees), coeffs)) > -20


@pytest.mark.skipif(not _PRECISE, reason="needs an extended-precision np.longdouble")
def test_fit_reproduces_a_table():
    """The fitter finds float32 exp2's polynomial (degree 6, leading 1 fixed) at the
    quality of the table: near-minimax, 2**-28.9."""
    c = polyfit.fit(np.exp2, -0.5, 0.5, list(range(7)), nodes=1000, rounds=30, fixed=((0, 1.0),))
    err = polyfit.max_rel_error(np.exp2, -0.5, 0.5, list(range(7)), c)
    assert c[0] == 1.0 and math.log2(err) <= -28.5
