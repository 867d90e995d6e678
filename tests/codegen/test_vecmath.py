"""The vectorisable math routines (codegen/llvm/vecmath.py: log, log1p, expm1,
tanh; vecmath_trig.py: sin, cos, tan; vecmath_pow.py: pow; vecmath_hyper.py:
sinh, cosh; vecmath_exp_two.py: exp2; mathfns.exp;
sigmoid on exp): max ulp error within each routine's documented bound against
a higher-precision reference over a sample of the whole domain (random bit
patterns, so subnormals and huge values are in), NumPy's exact results on
special values, and loops that use them vectorise without libm calls.
Nothing here depends on this machine's vector width."""
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph as ag

def _sigmoid_np(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


OPS = {"log": np.log, "log1p": np.log1p, "expm1": np.expm1, "tanh": np.tanh, "exp": np.exp,
       "sin": np.sin, "cos": np.cos, "tan": np.tan, "sigmoid": _sigmoid_np,
       "exp2": np.exp2, "log2": np.log2, "log10": np.log10, "sinh": np.sinh, "cosh": np.cosh}
# dense ranges where each function's reductions switch branches
RANGES = {"log": [(0.5, 2.0)], "log1p": [(-0.999, 3.0), (-1e-6, 1e-6)],
          "expm1": [(-45.0, 45.0), (-1.2, 1.2), (-1e-6, 1e-6)],
          "tanh": [(-25.0, 25.0), (-0.7, 0.7)], "exp": [(-750.0, 710.0), (-1.0, 1.0)],
          "sin": [(-10.0, 10.0), (-1e6, 1e6)], "cos": [(-10.0, 10.0), (-1e6, 1e6)],
          "tan": [(-10.0, 10.0), (-1e6, 1e6)], "sigmoid": [(-40.0, 40.0), (-1.0, 1.0)],
          "exp2": [(-1100.0, 1030.0), (-2.0, 2.0)], "log2": [(0.5, 2.0), (1e-3, 1e3)],
          "log10": [(0.5, 2.0), (1e-3, 1e3)],
          # sinh/cosh: n = 0, 1, 2 of the reduction, s = 2**-2n inexact in 1 +- s, overflow
          "sinh": [(-3.0, 3.0), (-20.0, 20.0), (-720.0, 720.0)],
          "cosh": [(-3.0, 3.0), (-20.0, 20.0), (-720.0, 720.0)]}
MAX_ULP = 2.0
# documented bounds (docs/ARCHITECTURE.md, "Vector maths") other than MAX_ULP (tan float64:
# measured 0.92, its quotient corrected by the kernels' rounding errors)
BOUND = {("tan", "float64"): 1.5, ("tan", "float32"): 3.5, ("sigmoid", "float32"): 2.5,
         ("sigmoid", "float64"): 2.5}
pytestmark = pytest.mark.filterwarnings("ignore:.*triggered a retrace")

_PRECISE = np.finfo(np.longdouble).nmant >= 63      # x87 80-bit or IEEE quad


def _kernel(name):
    fn = getattr(ag.math, name)
    return ag.function(lambda x: fn(x), autograph=False)


KERNELS = {name: _kernel(name) for name in OPS}


def _reference(name, x):
    """`name` of x in np.longdouble (sigmoid in its overflow-free form)."""
    xl = x.astype(np.longdouble)
    if name == "sigmoid":
        e = np.exp(-np.abs(xl))
        return np.where(xl >= 0, 1 / (1 + e), e / (1 + e))
    return OPS[name](xl)


def _sample(dtype, n=60_000, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.float32:
        x = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    else:
        x = rng.integers(0, 2 ** 64, n, dtype=np.uint64).view(np.float64)
    return x[np.isfinite(x)]


def _ulps(got, ref, dtype):
    """|got - ref| in units of the last place of ref rounded to dtype (finite results only)."""
    with np.errstate(all="ignore"):
        ref_t = ref.astype(dtype)
    ok = np.isfinite(ref_t) & np.isfinite(got)
    spacing = np.spacing(np.abs(ref_t[ok])).astype(np.longdouble)
    err = np.abs(got[ok].astype(np.longdouble) - ref[ok]) / spacing
    return np.append(err, np.longdouble(0))      # never empty (all results non-finite)


@pytest.mark.skipif(not _PRECISE, reason="needs an extended-precision np.longdouble as reference")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(OPS))
def test_max_ulp_error_over_the_domain(name, dtype):
    x = np.concatenate([_sample(dtype)] + [np.linspace(lo, hi, 20_001).astype(dtype)
                                             for lo, hi in RANGES[name]])
    with np.errstate(all="ignore"):
        got = np.asarray(KERNELS[name](x))
        ref = _reference(name, x)
    err = _ulps(got, ref, dtype)
    worst = int(np.argmax(err))
    assert err[worst] <= BOUND.get((name, dtype.__name__), MAX_ULP), \
        (name, dtype.__name__, float(err[worst]))


def _specials(dtype):
    fi = np.finfo(dtype)
    return np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, fi.smallest_subnormal,
                     -fi.smallest_subnormal, fi.tiny, -fi.tiny, fi.max, -fi.max, -1.0,
                     -1.5, 1e-30, -1e-30, 1000.0, -1000.0, 720.0, -760.0, 100.0, -120.0], dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(OPS))
def test_special_values_match_numpy(name, dtype):
    x = _specials(dtype)
    with np.errstate(all="ignore"):
        got = np.asarray(KERNELS[name](x))
        want = OPS[name](x)
    special = ~np.isfinite(want) | (want == 0) | (np.abs(want) == 1) | (x == 0) | ~np.isfinite(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    assert same[special].all(), (x[special & ~same], got[special & ~same], want[special & ~same])
    signs = ~np.isnan(want) & special
    np.testing.assert_array_equal(np.signbit(got[signs]), np.signbit(want[signs]))
    # tiny arguments: log1p/expm1/tanh return x itself (subnormals included)
    if name in ("log1p", "expm1", "tanh", "sin", "tan", "sinh"):
        tiny = x[(np.abs(x) < 1e-20) & (x != 0)]
        np.testing.assert_array_equal(np.asarray(KERNELS[name](tiny)), tiny)


@pytest.mark.parametrize("name", ["log", "log1p", "expm1", "tanh"])
def test_loops_using_them_vectorise_without_libm_calls(name):
    for dtype, elem in ((np.float64, "double"), (np.float32, "float")):
        x = np.ones(64, dtype)
        ir = KERNELS[name].get_concrete_function(x).kernel._jit.optimized_ir()
        assert re.search(rf"<\d+ x {elem}>", ir), f"{name} {elem}: the loop was not vectorised"
        assert not re.search(r"call [^\n]*@(log|log1p|expm1|tanh)f?\(", ir), f"{name}: calls libm"


# ------------------------------------------------------------------ sin, cos, tan: huge arguments

def _huge(dtype):
    """Arguments beyond the fast reduction's range, the worst known cases included
    (float64: 6381956970095103 * 2**797, closest of all doubles to a multiple of pi/2)."""
    fi = np.finfo(dtype)
    if dtype == np.float64:
        extra = [6381956970095103 * 2.0 ** 797, 5.319372648326541e255, 1e22, 2.0 ** 19, 1e300]
    else:
        extra = [1.3176793e8, 2.0 ** 27, 1e22, 1e38, 7.5e37]
    rng = np.random.default_rng(5)
    e = rng.uniform(np.log2(2.0 ** 19 if dtype == np.float64 else 2.0 ** 27), np.log2(fi.max), 3000)
    x = np.concatenate([extra, 2.0 ** e * rng.choice([-1, 1], e.size), [fi.max, -fi.max]])
    return x.astype(dtype)


@pytest.mark.skipif(not _PRECISE, reason="needs an extended-precision np.longdouble as reference")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_huge_arguments_are_reduced_exactly(name, dtype):
    """Huge arguments alone, mixed into ordinary ones (the loop's exact re-run,
    lowering/fixup.py), in a reduction and as a 0-d value (the exact routine):
    all within the bound."""
    huge = _huge(dtype)
    rng = np.random.default_rng(6)
    mixed = rng.uniform(-100, 100, 5000).astype(dtype)
    mixed[rng.integers(0, mixed.size, 40)] = huge[:40]
    bound = BOUND.get((name, np.dtype(dtype).name), MAX_ULP)
    for x in (huge, mixed):
        with np.errstate(all="ignore"):
            got = np.asarray(KERNELS[name](x))
        assert _ulps(got, _reference(name, x), dtype).max() <= bound
    fn = getattr(ag.math, name)
    total = ag.function(lambda x: ag.reduce_sum(fn(x) * 0.0 + fn(x)), autograph=False)
    ref = float(_reference(name, mixed).sum())
    assert abs(float(total(mixed)) - ref) <= 1e-3 * max(1.0, abs(ref))
    scalar = ag.function(lambda x: fn(x), autograph=False)
    for v in huge[:5]:
        got = np.asarray(scalar(dtype(v)))
        assert _ulps(got.reshape(1), _reference(name, np.array([v], dtype)), dtype).max() <= bound


@pytest.mark.skipif(not _PRECISE, reason="needs an extended-precision np.longdouble as reference")
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_near_multiples_of_half_pi(name):
    """float64 arguments next to k*pi/2 across the fast reduction's range (|x| < 2**19):
    there r = x - k*pi/2 keeps only the bits beyond pi/2's first two doubles (r1 =
    x - k*PIO2_HI and k*PIO2_LO cancel; without the third part, k*PIO2_T, the
    error is thousands of ulp), and tan's odd quadrants divide by a tiny sin."""
    base = np.arange(1, 333_800, 5, dtype=np.float64) * (np.pi / 2)
    x = np.concatenate([base, np.nextafter(base, np.inf), np.nextafter(base, -np.inf),
                        base + 3 * np.spacing(base)])
    x = np.concatenate([x, -x])
    got = np.asarray(KERNELS[name](x))
    bound = BOUND.get((name, "float64"), MAX_ULP)
    assert _ulps(got, _reference(name, x), np.float64).max() <= bound


def test_trig_huge_arguments_in_a_threaded_loop():
    """A large loop runs in chunks (maybe on several threads): each chunk
    re-runs only its own part exactly, and the result matches."""
    n = 600_000
    x = np.linspace(-50, 50, n)
    x[[0, n // 2, n - 1]] = [1e22, -3e300, 2.0 ** 40]
    got = np.asarray(KERNELS["sin"](x))
    want = np.sin(x.astype(np.longdouble))
    assert _ulps(got, want, np.float64).max() <= MAX_ULP


@pytest.mark.parametrize("name", ["sin", "cos", "tan", "exp2", "log2", "log10", "sinh", "cosh"])
def test_loops_call_no_libm(name):
    """The loop computes the function itself (a libm call would keep it scalar);
    the assertion does not depend on the host's vector width."""
    for dtype in (np.float64, np.float32):
        ir = KERNELS[name].get_concrete_function(np.ones(64, dtype)).kernel._jit.optimized_ir()
        assert not re.search(rf"call [^\n]*@(llvm\.)?{name}(f|\.f32|\.f64)?\(", ir), name


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_routines_stay_correct_under_fastmath(dtype):
    """fastmath=True puts `fast` on every float instruction of the routines too:
    their exact tricks (the 1.5 * 2**p shifter that rounds to an integer,
    Fast2Sum) may lose their last bits but must not break (a folded shifter
    made float32 pow 40% off). Ordinary arguments, a loose relative bound."""
    x = np.linspace(-20.0, 20.0, 4001).astype(dtype)
    tol = 64 * np.finfo(dtype).eps
    for name in ("exp", "expm1", "tanh", "sinh", "cosh", "exp2", "sin", "cos", "log"):
        fn = getattr(ag.math, name)
        f = ag.function(lambda v: fn(v), autograph=False, fastmath=True)
        arg = np.abs(x) + dtype(0.01) if name == "log" else x
        got = np.asarray(f(arg)).astype(np.float64)
        want = OPS[name](arg.astype(np.float64))
        nz = np.abs(want) > 1e-6
        assert (np.abs(got[nz] - want[nz]) <= tol * np.abs(want[nz])).all(), name
    p = ag.function(lambda a, b: ag.math.pow(a, b), autograph=False, fastmath=True)
    a, b = np.linspace(0.1, 10.0, 1001).astype(dtype), np.linspace(-5.0, 5.0, 1001).astype(dtype)
    want = np.power(a.astype(np.float64), b.astype(np.float64))
    assert (np.abs(np.asarray(p(a, b)).astype(np.float64) - want) <= tol * want).all()


# ------------------------------------------------------------------ pow

POW = ag.function(lambda x, y: ag.math.pow(x, y), autograph=False)
POW_BOUND = {"float32": 1.0, "float64": 1.5}


def _pow_sample(dtype, n=40_000, seed=2):
    rng = np.random.default_rng(seed)
    x = np.abs(_sample(dtype, n, seed))
    lim = 120.0 if dtype == np.float32 else 1000.0
    y = rng.uniform(-1, 1, x.size) * lim / np.maximum(np.abs(np.log2(x.astype(np.float64))), 1.0)
    x2, y2 = rng.uniform(0.5, 2.0, n), rng.uniform(-lim, lim, n)          # near 1, large exponents
    x3, y3 = rng.uniform(-10, 10, n), rng.integers(-40, 40, n)              # negative bases
    return (np.concatenate([x, x2, x3]).astype(dtype), np.concatenate([y, y2, y3]).astype(dtype))


@pytest.mark.skipif(not _PRECISE, reason="needs an extended-precision np.longdouble as reference")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_max_ulp_error(dtype):
    x, y = _pow_sample(dtype)
    with np.errstate(all="ignore"):
        got = np.asarray(POW(x, y))
        ref = np.power(x.astype(np.longdouble), y.astype(np.longdouble))
        want = np.power(x, y)
    assert _ulps(got, ref, dtype).max() <= POW_BOUND[np.dtype(dtype).name]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))


_POW_SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0,
                1e-40, -7.5, 1.5, 1e30, -1e30, 4.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_special_cases_match_numpy(dtype):
    """C99's table: x**0, 1**y, NaN, zeros and infinities of both signs, negative
    bases with odd, even and non-integer exponents, |x| vs 1 with y = +-inf."""
    X, Y = np.meshgrid(np.array(_POW_SPECIAL, dtype), np.array(_POW_SPECIAL, dtype))
    X, Y = X.ravel(), Y.ravel()
    with np.errstate(all="ignore"):
        got = np.asarray(POW(X, Y))
        want = np.power(X, Y)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    exact = ~np.isfinite(want) | (want == 0) | (np.abs(want) == 1)
    bad = exact & ~np.isnan(want) & ((got != want) | (np.signbit(got) != np.signbit(want)))
    assert not bad.any(), list(zip(X[bad], Y[bad], got[bad], want[bad]))
    close = np.isclose(got, want, rtol=4 * np.finfo(dtype).eps, atol=0, equal_nan=True)
    assert close.all(), list(zip(X[~close], Y[~close], got[~close], want[~close]))


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_pow_hypothesis_against_numpy(data):
    """Drawn bases and exponents (finite, of either sign), both dtypes, compiled and
    eager `ag.math.pow` against NumPy within 2 ulp of NumPy's own result."""
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    width = 32 if dtype == np.float32 else 64
    floats = st.floats(allow_nan=False, allow_infinity=False, width=width)
    x = np.array(data.draw(st.lists(floats, min_size=1, max_size=8)), dtype)
    y = np.array(data.draw(st.lists(st.floats(-60, 60, width=width), min_size=x.size,
                                    max_size=x.size)), dtype)
    with np.errstate(all="ignore"):
        want = np.power(x, y)
        for got in (np.asarray(POW(x, y)), np.asarray(ag.math.pow(x, y))):
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
            fin = np.isfinite(want) & (want != 0)
            err = np.abs(got[fin].astype(np.float64) - want[fin]) / np.spacing(np.abs(want[fin]))
            assert (err <= 2.0).all(), (x[fin], y[fin], got[fin], want[fin])


def test_pow_loop_calls_no_libm():
    for dtype in (np.float64, np.float32):
        x = np.ones(64, dtype)
        ir = POW.get_concrete_function(x, x).kernel._jit.optimized_ir()
        assert not re.search(r"call [^\n]*@(llvm\.)?pow(f|\.f32|\.f64)?\(", ir)


# ------------------------------------------------------------------ eager and compiled agree

@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_eager_and_compiled_agree(data):
    """`ag.math.<f>(array)` outside a function and the compiled routine agree
    within the routine's bound (each against the higher-precision reference)."""
    name = data.draw(st.sampled_from(sorted(OPS)))
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    width = 32 if dtype == np.float32 else 64
    x = np.array(data.draw(st.lists(st.floats(-1e4, 1e4, width=width), min_size=1, max_size=8)),
                 dtype)
    if name in ("log", "log1p", "log2", "log10"):
        x = np.abs(x) + dtype(0.5)
    bound = BOUND.get((name, np.dtype(dtype).name), MAX_ULP)
    with np.errstate(all="ignore"):
        ref = _reference(name, x)
        eager = np.asarray(getattr(ag.math, name)(x))
        compiled = np.asarray(KERNELS[name](x))
    if _PRECISE:
        assert _ulps(compiled, ref, dtype).max() <= bound
        # eager runs NumPy's loops: within NumPy's own error (up to 4 ulp for float32)
        assert _ulps(eager, ref, dtype).max() <= 4.0
    np.testing.assert_allclose(eager, compiled, rtol=8 * np.finfo(dtype).eps, atol=0)


# ------------------------------------------------------------------ sigmoid

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_is_stable_for_large_arguments(dtype):
    x = np.array([-1e30, -800.0, -100.0, -40.0, 40.0, 100.0, 800.0, 1e30, -np.inf, np.inf], dtype)
    with np.errstate(all="ignore"):
        got = np.asarray(KERNELS["sigmoid"](x))
    assert np.isfinite(got).all() and (got >= 0).all() and (got <= 1).all()
    assert got[-2] == 0 and got[-1] == 1 and got[0] == 0 and got[7] == 1
    if _PRECISE:
        ref = _reference("sigmoid", x[2:8])
        assert _ulps(got[2:8], ref, dtype).max() <= BOUND[("sigmoid", np.dtype(dtype).name)]


def test_trig_in_a_body_too_large_to_vectorise_is_called_out_of_line():
    """A fused body beyond SCALAR_LOOP_NODES is a scalar loop: sin is a call of
    one out-of-line copy of the exact routine there (inlining would only grow
    the code), with the same results."""
    def many(y):
        for _ in range(100):
            y = y * 1.0001 + ag.math.sin(y) - 0.5 * y
        return y

    f = ag.function(many, autograph=False)
    x = np.linspace(-3.0, 3.0, 16)
    want = x.copy()
    for _ in range(100):
        want = want * 1.0001 + np.sin(want) - 0.5 * want
    np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-12, atol=1e-12)
    ir = f.get_concrete_function(x).llvm_ir()
    assert len(re.findall(r"call [^\n]*@\"?ag\.sin\.outlined\.f64", ir)) == 100
    assert len(re.findall(r"define [^\n]*@\"?ag\.sin\.outlined\.f64", ir)) == 1
