"""NumPy's small float functions on tensors, eagerly and compiled, against NumPy:
copysign signbit heaviside logaddexp logaddexp2 sinc float_power fabs positive
reciprocal cbrt deg2rad rad2deg degrees radians fmax fmin nan_to_num isclose allclose
isposinf isneginf real_if_close, with zeros of both signs, infinities, NaN, subnormals and
the largest floats.

Exact (same bits, NaN positions; NaN payloads not compared) unless listed in `ULPS`:
* cbrt, sinc: compiled code calls another cbrt/sin than NumPy's loops (eagerly
  exact): within 4 ulps, the house bound of tests/codegen/test_compiled_numpy_math.py;
* float_power: NumPy's loop calls the C library's pow, `np.power` (eager) and the
  compiled pow are others: within 4 ulps;
* logaddexp, logaddexp2: NumPy's loop calls the C library's exp and log1p; near a
  result of 0 the cancellation in x + log1p(exp(y - x)) magnifies their last-bit
  differences, so the error is bounded by 4 ulps of max(|x|, |y|, |result|).
fmax/fmin of two equal zeros may give either zero (NumPy's own loops differ).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

FLOATS = (np.float32, np.float64)

UNARY = {
    "signbit": lambda a: np.signbit(a), "sinc": lambda a: np.sinc(a),
    "fabs": lambda a: np.fabs(a), "positive": lambda a: np.positive(a),
    "reciprocal": lambda a: np.reciprocal(a), "cbrt": lambda a: np.cbrt(a),
    "deg2rad": lambda a: np.deg2rad(a), "rad2deg": lambda a: np.rad2deg(a),
    "degrees": lambda a: np.degrees(a), "radians": lambda a: np.radians(a),
    "nan_to_num": lambda a: np.nan_to_num(a),
    "nan_to_num_args": lambda a: np.nan_to_num(a, nan=-1.5, posinf=7.0, neginf=-7.0),
    "isposinf": lambda a: np.isposinf(a), "isneginf": lambda a: np.isneginf(a),
    "real_if_close": lambda a: np.real_if_close(a),
}
BINARY = {
    "copysign": lambda a, b: np.copysign(a, b), "heaviside": lambda a, b: np.heaviside(a, b),
    "logaddexp": lambda a, b: np.logaddexp(a, b), "logaddexp2": lambda a, b: np.logaddexp2(a, b),
    "float_power": lambda a, b: np.float_power(a, b), "fmax": lambda a, b: np.fmax(a, b),
    "fmin": lambda a, b: np.fmin(a, b), "isclose": lambda a, b: np.isclose(a, b),
    "isclose_args": lambda a, b: np.isclose(a, b, rtol=1e-3, atol=1e-6, equal_nan=True),
    "allclose": lambda a, b: np.allclose(a, b),
    "allclose_nan": lambda a, b: np.allclose(a, b, equal_nan=True),
}
ULPS = {"cbrt": "compiled", "sinc": "compiled", "float_power": "both"}
LOG_SUMS = ("logaddexp", "logaddexp2")
EITHER_ZERO = ("fmax", "fmin")


def special(dt):
    fi = np.finfo(dt)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fi.max, -fi.max, fi.tiny, -fi.tiny,
                     fi.smallest_subnormal, -fi.smallest_subnormal, 1.0, -1.0, 0.5, -2.5, 3.0,
                     180.0, -90.0, 1e-6, 30.0, -30.0], dt)


def _bits(a):
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def assert_matches(name, got, want, how, x=None, y=None):
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (name, g.dtype, g.shape, w.dtype, w.shape)
    if w.dtype.kind != "f":
        np.testing.assert_array_equal(g, w, err_msg=name)
        return
    nan = np.isnan(w)
    np.testing.assert_array_equal(np.isnan(g), nan, err_msg=name)
    g, w = g[~nan], w[~nan]
    if how == "exact":
        same = _bits(g) == _bits(w)
        if name in EITHER_ZERO:
            same |= (g == 0) & (w == 0)
        assert same.all(), (name, g[~same][:6], w[~same][:6])
        return
    inf = np.isinf(w)
    np.testing.assert_array_equal(g[inf], w[inf], err_msg=name)
    scale = np.abs(w)
    if how == "log_sum":   # ulps of the operands' magnitude (see the module docstring)
        ops = [np.abs(np.broadcast_to(v, nan.shape)) for v in (x, y)]
        mag = np.maximum(*[np.where(np.isfinite(v), v, 0) for v in ops])   # (finite operands)
        scale = np.maximum(scale, mag[~nan])
    scale, g, w = scale[~inf], g[~inf], w[~inf]
    with np.errstate(over="ignore"):
        tol = 4 * np.spacing(scale).astype(np.float64)
    err = np.abs(g.astype(np.float64) - w.astype(np.float64))
    assert (err <= tol).all(), (name, g[err > tol][:6], w[err > tol][:6])


def _how(name, compiled):
    if name in LOG_SUMS:
        return "log_sum"
    mode = ULPS.get(name)
    return "ulps" if mode == "both" or (mode == "compiled" and compiled) else "exact"


# The functions compiled together: the cheap ones in one function each for UNARY and
# BINARY, those with exp/log/pow/sin/cbrt on their own (LLVM takes much longer over
# several of those in one function than over each alone).
ALONE = ("sinc", "cbrt", "logaddexp", "logaddexp2", "float_power")

_cache = {}


def _compiled(key, fns, *arrays):
    """The functions `fns` of `arrays` in one compiled function (compiled once per
    dtype and rank, every dimension None), as a tuple."""
    k = (key,) + tuple((a.dtype.str, a.ndim) for a in arrays)
    if k not in _cache:
        specs = [ag.TensorSpec([None] * a.ndim, a.dtype) for a in arrays]
        _cache[k] = ag.function(lambda *a: tuple(f(*a) for f in fns)).get_concrete_function(*specs)
    return _cache[k](*arrays)


def check(x, y):
    for table, args in ((UNARY, (x,)), (BINARY, (x, y))):
        groups = [[n] for n in table if n in ALONE] + [[n for n in table if n not in ALONE]]
        for names in groups:
            gots = _compiled(names[0], [table[n] for n in names], *args)
            for name, got in zip(names, gots):
                fn = table[name]
                with np.errstate(all="ignore"):
                    want = fn(*args)
                    eager = fn(*[ag.constant(a) for a in args])
                assert_matches(name, got, want, _how(name, True), x, y)
                assert_matches(name, eager, want, _how(name, False), x, y)


@pytest.mark.parametrize("dt", FLOATS)
def test_every_pair_of_special_values(dt):
    sp = special(dt)
    check(np.repeat(sp, len(sp)), np.tile(sp, len(sp)))


@pytest.mark.parametrize("dt", FLOATS)
def test_random_values(dt):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(5000) * 10.0 ** rng.uniform(-6, 3, 5000)).astype(dt)
    y = (rng.standard_normal(5000) * 10.0 ** rng.uniform(-6, 3, 5000)).astype(dt)
    y[::3] = x[::3] * (1 + rng.standard_normal(1667) * 1e-5).astype(dt)   # near for isclose
    check(x, y)
    check(np.abs(x), y / 100)                                             # float_power's domain


@pytest.mark.parametrize("dt", FLOATS)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_hypothesis_against_numpy(dt, data):
    width = 32 if dt == np.float32 else 64
    elements = st.one_of(st.sampled_from(list(special(dt))), st.floats(width=width),
                         st.floats(-100, 100, width=width))
    x = data.draw(hnp.arrays(dt, st.integers(0, 10), elements=elements))
    y = data.draw(hnp.arrays(dt, x.shape, elements=elements))
    check(x, y)


def test_integer_and_mixed_operands_take_numpy_dtypes():
    ints = np.arange(-4, 5, dtype=np.int32)
    cases = [
        (lambda a: np.deg2rad(a), ints), (lambda a: np.degrees(a), ints),
        (lambda a: np.fabs(a), ints), (lambda a: np.sinc(a), ints),
        (lambda a: np.isposinf(a), ints), (lambda a: np.isneginf(a), ints),
        (lambda a: np.nan_to_num(a), ints), (lambda a: np.positive(a), ints),
        (lambda a: np.real_if_close(a), ints),
        (lambda a: np.heaviside(a, 0.5), ints), (lambda a: np.float_power(a, 2), ints),
        (lambda a: np.fmax(a, 0), ints),
        (lambda a: np.logaddexp(a, 0.0), ints), (lambda a: np.isclose(a, 1), ints),
    ]
    for i, (fn, x) in enumerate(cases):
        want = fn(x)
        for got in (ag.function(fn)(x), fn(ag.constant(x))):
            assert_matches(str(i), got, want, "ulps")


def test_real_if_close_of_complex_eagerly_and_refused_when_traced():
    near = np.array([2.1 + 4e-14j, 5.2 + 3e-15j])
    for z, tol in ((near, 1000), (near, 10), (near.astype(np.complex64), 100), (near, 1e-13)):
        want = np.real_if_close(z, tol=tol)
        got = np.real_if_close(ag.constant(z), tol=tol)
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(TypeError, match=r"np\.real_if_close: a complex tensor \(the result's dtype, "
                                        r"real or complex, depends on its values"):
        ag.function(lambda a: np.real_if_close(a))(near)


def test_refusals_are_numpy_type_errors():
    with pytest.raises(TypeError, match=r"np\.positive: ufunc 'positive' did not contain a loop "
                                        r"with signature matching types bool"):
        ag.function(lambda a: np.positive(a))(np.array([True]))
    with pytest.raises(TypeError, match=r"np\.isposinf: This operation is not supported for "
                                        r"complex128 values because it would be ambiguous"):
        ag.function(lambda a: np.isposinf(a))(np.ones(2, np.complex128))
    with pytest.raises(TypeError, match=r"np\.isneginf: the out= argument has no autograph"):
        ag.function(lambda a: np.isneginf(a, out=a))(np.ones(2))
    with pytest.raises(TypeError, match=r"np\.reciprocal: integer input .* has no autograph "
                                        r"equivalent"):
        ag.function(lambda a: np.reciprocal(a))(np.ones(2, np.int32))
