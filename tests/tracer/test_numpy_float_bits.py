"""np.frexp, np.ldexp, np.nextafter, np.spacing on tensors (tracer/api/numpy_float_bits.py)
and the `bitcast` op under them: bit for bit NumPy's, eagerly and compiled, zeros of both
signs, infinities, NaN (position; NaN payloads are not compared), subnormals and the
largest floats included."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag
from autograph.tracer.api.numpy_float_bits import bitcast
from autograph.tracer.core.parser import parse_graph

FLOATS = (np.float32, np.float64)
UINT = {np.float32: np.uint32, np.float64: np.uint64}
SETTINGS = settings(max_examples=25, deadline=None)


def special(dt):
    fi = np.finfo(dt)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fi.max, -fi.max, fi.tiny, -fi.tiny,
                     fi.smallest_subnormal, -fi.smallest_subnormal, fi.tiny - fi.smallest_subnormal,
                     1.0, -1.0, 0.5, 2.0, 3.0, fi.eps, 1 - fi.epsneg], dt)


def assert_bits(got, want):
    """Same dtype and shape; NaN where NumPy has NaN; every other element the same bits."""
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    if w.dtype.kind != "f":
        np.testing.assert_array_equal(g, w)
        return
    nan = np.isnan(w)
    np.testing.assert_array_equal(np.isnan(g), nan)
    u = UINT[w.dtype.type]
    bad = (g.view(u) != w.view(u)) & ~nan
    assert not bad.any(), (g[bad][:8], w[bad][:8])


def assert_all_bits(got, want):
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_bits(g, w)


_cache = {}


def compiled(key, fn, *arrays):
    """`fn` compiled once for inputs of these dtypes and ranks (every dimension None)."""
    k = (key,) + tuple((a.dtype.str, a.ndim) for a in arrays)
    if k not in _cache:
        specs = [ag.TensorSpec([None] * a.ndim, a.dtype) for a in arrays]
        _cache[k] = ag.function(fn).get_concrete_function(*specs)
    return _cache[k](*arrays)


def both_ways(key, fn, *arrays):
    """NumPy's result, then fn compiled and fn on eager tensors, each compared bit for bit."""
    with np.errstate(all="ignore"):
        want = fn(*arrays)
    assert_all_bits(compiled(key, fn, *arrays), want)
    assert_all_bits(fn(*[ag.constant(a) for a in arrays]), want)


def float_elements(dt):
    """Special values, ordinary floats, and bit patterns (every exponent equally likely)."""
    width = 32 if dt == np.float32 else 64
    bits = st.integers(0, 2 ** width - 1).map(lambda b: np.array(b, UINT[dt]).view(dt)[()])
    return st.one_of(st.sampled_from(list(special(dt))), st.floats(width=width), bits)


def float_arrays(dt, n=None):
    shape = st.integers(0, 12) if n is None else st.just(n)
    return hnp.arrays(dt, shape, elements=float_elements(dt))


FRexp = lambda a: np.frexp(a)              # noqa: E731
SPACING = lambda a: np.spacing(a)          # noqa: E731
NEXT = lambda a, b: np.nextafter(a, b)     # noqa: E731
LDEXP = lambda a, n: np.ldexp(a, n)        # noqa: E731


# ---------------------------------------------------------------- the bitcast op

@pytest.mark.parametrize("src, dst", [(np.float32, np.int32), (np.float32, np.uint32),
                                      (np.int32, np.float32), (np.uint32, np.int32),
                                      (np.float64, np.int64), (np.float64, np.uint64),
                                      (np.uint64, np.float64), (np.int64, np.int64)])
def test_bitcast_reads_the_bits_as_numpy_view_does(src, dst):
    raw = np.arange(-3, 40, dtype=np.int64) * 0x0123_4567_89AB_CDEF
    x = raw.astype(np.dtype(src).str.replace("f", "i").replace("u", "i")).view(src)
    want = x.view(dst)
    assert_bits(ag.function(lambda a: bitcast(a, dst))(x), want)
    assert_bits(bitcast(ag.constant(x), dst), want)
    assert_bits(bitcast(ag.constant(x[3]), dst), want[3])          # rank 0


def test_bitcast_prints_as_one_op_and_fuses():
    cf = ag.function(lambda a: bitcast(bitcast(a, ag.uint32) + 1, ag.float32) * 2.0) \
        .get_concrete_function(ag.TensorSpec([None], ag.float32))
    text = str(cf.graph)
    assert "bitcast[dtype=uint32](%a)" in text and "bitcast[dtype=float32]" in text
    assert str(parse_graph(text)) == text                          # the IR text reads back
    x = np.array([1.0, -0.0, 3.5], np.float32)
    assert_bits(cf(x), (x.view(np.uint32) + 1).view(np.float32) * 2)


@pytest.mark.parametrize("src, dst", [(np.float64, np.int32), (np.float32, np.int64),
                                      (np.int16, np.float32), (np.bool_, np.int32)])
def test_bitcast_between_widths_is_a_type_error(src, dst):
    want = (rf"bitcast: cannot reinterpret the bits of {np.dtype(src).name} as "
            rf"{np.dtype(dst).name}: only between float32, int32 and uint32, or between "
            rf"float64, int64 and uint64 \(dtypes of the same width\)")
    x = np.zeros(3, src)
    with pytest.raises(TypeError, match=want):
        bitcast(ag.constant(x), dst)
    with pytest.raises(TypeError, match=want):
        ag.function(lambda a: bitcast(a, dst))(x)


# ---------------------------------------------------------------- the four functions

@pytest.mark.parametrize("dt", FLOATS)
def test_special_values_and_every_pair_of_them(dt):
    sp = special(dt)
    a, b = np.repeat(sp, len(sp)), np.tile(sp, len(sp))
    both_ways("frexp", FRexp, sp)
    both_ways("spacing", SPACING, sp)
    both_ways("next", NEXT, a, b)
    both_ways("ldexp", LDEXP, a, np.tile(np.array([0, 1, -1, 5, -5, 30, -30, 200, -200, 1100,
                                                   -1100, 2**31 - 1, -2**31], np.int32),
                                         len(a))[:len(a)])


@pytest.mark.parametrize("dt", FLOATS)
def test_many_random_bit_patterns(dt):
    rng = np.random.default_rng(7)
    u = UINT[dt]
    x = rng.integers(0, np.iinfo(u).max, 20000, dtype=u, endpoint=True).view(dt)
    x[:5000] = rng.integers(0, 2 ** np.finfo(dt).nmant, 5000, dtype=u).view(dt)   # subnormals
    x[:2500] *= -1
    y = rng.permutation(x)
    n = rng.integers(-400, 400, x.size).astype(np.int32)
    n[::2] = rng.integers(-2300, 2300, x.size // 2)
    both_ways("frexp", FRexp, x)
    both_ways("spacing", SPACING, x)
    both_ways("next", NEXT, x, y)
    both_ways("ldexp", LDEXP, x, n)


@pytest.mark.parametrize("dt", FLOATS)
def test_ldexp_rounds_once_into_the_subnormals(dt):
    """Results in and below the subnormal range round half to even, as C's ldexp (three
    multiplications that each rounded would give some of these wrong)."""
    fi = np.finfo(dt)
    low = int(np.log2(fi.smallest_subnormal))          # -149 / -1074
    rng = np.random.default_rng(3)
    u = UINT[dt]
    # mantissas in [1, 2): a few ties and short ones, then every bit random
    full = ((rng.integers(0, 2 ** fi.nmant, 4000, dtype=u) | u(fi.maxexp - 1) << u(fi.nmant))
            .view(dt))
    m = np.concatenate([np.array([1.0, 1.5, 3.0, 5.0, 7.0, 1 + fi.eps, 2 - fi.eps, 1.75], dt),
                        full])
    m = np.concatenate([m, -m])
    target = rng.integers(low - 3, low + fi.nmant + 3, m.size)     # the result's exponent
    both_ways("ldexp", LDEXP, m, target.astype(np.int64))
    # from anywhere in the range down (x tiny or huge, n beyond one normal power of two)
    j = rng.integers(fi.minexp - fi.nmant, fi.maxexp, m.size)
    x = np.ldexp(m, j)
    both_ways("ldexp", LDEXP, x, (target - j).astype(np.int32))
    # overflow from just below, and from the subnormals up
    both_ways("ldexp", LDEXP, m, np.full(m.size, fi.maxexp - 1, np.int64) + (m.size % 2))
    both_ways("ldexp", LDEXP, np.ldexp(m, low + 2), (fi.maxexp - low - 3) + target % 3)


@pytest.mark.parametrize("dt", FLOATS)
@SETTINGS
@given(data=st.data())
def test_hypothesis_against_numpy(dt, data):
    x = data.draw(float_arrays(dt))
    y = data.draw(float_arrays(dt, x.shape[0]))
    n = data.draw(hnp.arrays(np.int32, x.shape, elements=st.one_of(
        st.integers(-300, 300), st.integers(-2**31, 2**31 - 1), st.sampled_from([-1075, -1074, -150,
                                                                                  -149, 128, 1024]))))
    both_ways("frexp", FRexp, x)
    both_ways("spacing", SPACING, x)
    both_ways("next", NEXT, x, y)
    both_ways("ldexp", LDEXP, x, n)


def test_numpy_dtype_rules_operands_and_broadcasting():
    ints = np.arange(-6, 6, dtype=np.int32)
    x32 = np.array([0.75, -3.0, 1e-40, 6e4], np.float32)
    cases = [
        (lambda a: np.frexp(a), (ints,)),                   # int32 -> float64 mantissa, int32 exponent
        (lambda a: np.spacing(a), (ints.astype(np.int64),)),
        (lambda a: np.nextafter(a, 0), (ints,)),            # a Python int takes the loop's dtype
        (lambda a: np.ldexp(a, 3), (x32,)),                 # stays float32
        (lambda a: np.ldexp(2.5, a), (ints,)),              # float64
        (lambda a, n: np.ldexp(a, n), (x32, np.arange(4, dtype=np.int64))),
        (lambda a, n: np.ldexp(a, n), (x32, np.arange(4, dtype=np.uint32))),
        (lambda a, n: np.ldexp(a, n), (x32, np.array([True, False, True, True]))),
        (lambda a, n: np.ldexp(a, n), (x32, np.int8(-3))),
        (lambda a, n: np.ldexp(a[:, None], n[None, :]), (x32, ints)),
        (lambda a, b: np.nextafter(a[:, None], b), (x32, x32[::-1])),
        (lambda a: np.frexp(a[::2])[1] + 1, (x32,)),
    ]
    for i, (fn, args) in enumerate(cases):
        both_ways(f"mixed{i}", fn, *args)


def test_bad_dtypes_and_arguments_are_numpy_type_errors():
    x = np.ones(3)
    ldexp = ag.function(lambda a, b: np.ldexp(a, b))
    msg = r"np\.ldexp: ufunc 'ldexp' not supported for the input types"
    with pytest.raises(TypeError, match=msg):
        ldexp(x, np.ones(3))                                 # a float exponent
    with pytest.raises(TypeError, match=msg):
        ldexp(x, np.ones(3, np.uint64))                      # no safe cast to int64
    with pytest.raises(TypeError, match=msg):
        np.ldexp(ag.constant(x), ag.constant(np.ones(3)))    # eagerly too
    with pytest.raises(TypeError, match=r"np\.frexp: ufunc 'frexp' not supported for the input types"):
        ag.function(lambda a: np.frexp(a))(np.ones(3, np.complex64))
    with pytest.raises(TypeError, match=r"np\.nextafter: NumPy's result dtype float16 \(not an "
                                        r"autograph dtype\) has no autograph equivalent"):
        ag.function(lambda a: np.nextafter(a, a))(np.ones(3, np.int8))
    with pytest.raises(TypeError, match=r"np\.spacing: the out= argument has no autograph equivalent"):
        ag.function(lambda a: np.spacing(a, out=a))(x)


# ---------------------------------------------------------------- gradients

def _grads(x, n):
    with ag.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.ldexp(x, n)
        m, _ = np.frexp(x)
        s, after = np.spacing(x), np.nextafter(x, 0.0)
    return (tape.gradient(y, x), tape.gradient(m, x), tape.gradient(s, x),
            tape.gradient(after, x))


def test_ldexp_passes_ldexp_of_the_gradient_and_the_others_none():
    x = np.array([1.5, -3.0, 1e-310, 0.0, 7.0, -2.0])
    n = np.array([3, -2, 40, 5, -1080, 1500], np.int32)
    with np.errstate(over="ignore"):
        want = np.ldexp(np.ones_like(x), n)
    for got in (_grads(ag.constant(x), ag.constant(n)), ag.function(_grads)(x, n)):
        np.testing.assert_array_equal(np.asarray(got[0]), want)
        assert got[1:] == (None, None, None)
