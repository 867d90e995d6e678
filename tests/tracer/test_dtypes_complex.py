"""complex64 and complex128 (API.md section 2), eagerly.

The arithmetic, abs, exp, sqrt, conj/real/imag/angle, equality and the
reductions against NumPy; the TypeErrors of ops NumPy's complex numbers have
no meaning for here (ordering, floor, mod, maximum, pow); the rules for a
Python `complex`; printing and `.numpy()`; constants in the IR's text. The
compiled side is tests/codegen/test_compiled_new_dtypes.py.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag
from autograph.tracer.core.parser import parse_graph
from autograph.tracer.core.types import TensorType, as_dtype

CX = ["complex64", "complex128"]
INF, NAN = np.inf, np.nan
SPECIAL = [0.0, -0.0, 1.0, -2.5, INF, -INF, NAN, 1e300, 5e-324]


def special_grid(name: str) -> np.ndarray:
    """Every complex number whose parts are in SPECIAL (finite, signed zeros, inf, NaN, huge, tiny)."""
    with np.errstate(all="ignore"):
        return np.array([complex(a, b) for a in SPECIAL for b in SPECIAL]).astype(name)


def assert_close(got, want, name: str, ulps: int = 8):
    """Same dtype; parts equal to `ulps` units of the real dtype, NaN where NumPy has NaN."""
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    eps = np.finfo(np.dtype(name)).eps
    for g, w in ((got.real, want.real), (got.imag, want.imag)) if got.dtype.kind == "c" else ((got, want),):
        np.testing.assert_allclose(g, w, rtol=ulps * eps, atol=0, equal_nan=True)


_UNARY = [("negative", np.negative), ("abs", np.abs), ("exp", np.exp), ("sqrt", np.sqrt),
          ("square", np.square), ("math.conj", np.conj), ("math.real", np.real),
          ("math.imag", np.imag), ("math.angle", np.angle)]
_BINARY = [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
           ("divide", np.divide), ("equal", np.equal), ("not_equal", np.not_equal)]


def _fn(name):
    space, _, short = name.rpartition(".")
    return getattr(getattr(ag, space) if space else ag, short)


@pytest.mark.parametrize("name", CX)
def test_ops_match_numpy_on_special_values(name):
    z = special_grid(name)
    a, b = np.repeat(z, len(z)), np.tile(z, len(z))
    with np.errstate(all="ignore"):
        for op, ref in _UNARY:
            assert_close(_fn(op)(z).numpy(), ref(z), name)
        for op, ref in _BINARY:
            assert_close(_fn(op)(a, b).numpy(), ref(a, b), name)


def _complex_arrays(name: str, bound: float):
    part = "float32" if name == "complex64" else "float64"
    bound = float(np.dtype(part).type(bound))   # representable in the part's width
    return hnp.arrays(part, (2, 5), elements=st.floats(-bound, bound, width=32 if part == "float32" else 64)
                      ).map(lambda a: (a[0] + 1j * a[1]).astype(name))


# Real parts within +-60: NumPy's exp scales results beyond exp's overflow (e**710 * cos y
# may be finite); the compiled exp gives inf there (documented in API.md section 2).
@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CX).flatmap(lambda n: st.tuples(st.just(n), _complex_arrays(n, 60.0),
                                                       _complex_arrays(n, 1e30))))
def test_hypothesis_arithmetic_matches_numpy(args):
    name, x, y = args
    with np.errstate(all="ignore"):
        for op, ref in _BINARY:
            assert_close(_fn(op)(x, y).numpy(), ref(x, y), name)
        for op, ref in _UNARY:
            assert_close(_fn(op)(x).numpy(), ref(x), name)


@pytest.mark.parametrize("name", CX)
def test_reductions(name):
    x = (np.arange(12).reshape(3, 4) + 1j * np.arange(12)[::-1].reshape(3, 4)).astype(name)
    for axis in (None, 0, 1):
        assert_close(ag.reduce_sum(x, axis=axis).numpy(), np.sum(x, axis=axis), name)
        assert_close(ag.reduce_prod(x / 4, axis=axis).numpy(), np.prod(x / 4, axis=axis), name)
        assert_close(ag.reduce_mean(x, axis=axis).numpy(), np.mean(x, axis=axis), name)
    assert ag.reduce_sum(x).dtype is as_dtype(name)
    assert np.isnan(ag.reduce_mean(np.zeros(0, name)).numpy())


@pytest.mark.parametrize("name", CX)
def test_power_matches_numpy(name):
    x = (np.linspace(-2, 2, 9)[:, None] + 1j * np.linspace(-1.5, 1.5, 7)[None, :]).ravel().astype(name)
    with np.errstate(all="ignore"):
        for y in (0, 1, 2, 3, -1, -4, 0.5, 2.5 + 1j, -3j):
            yy = np.full_like(x, y)
            assert_close(ag.pow(x, yy).numpy(), x ** yy, name)
        assert_close((ag.constant(x) ** 2).numpy(), x ** 2, name)


@pytest.mark.parametrize("name", CX)
def test_running_sums_and_products(name):
    x = (np.arange(12).reshape(3, 4) / 3 + 1j * np.arange(12)[::-1].reshape(3, 4) / 5).astype(name)
    for axis in (0, 1):
        assert_close(ag.cumsum(x, axis=axis).numpy(), np.cumsum(x, axis=axis), name)
        assert_close(ag.math.cumprod(x, axis=axis).numpy(), np.cumprod(x, axis=axis), name)
    assert_close(np.cumsum(ag.constant(x), axis=1).numpy(), np.cumsum(x, axis=1), name)


def test_abs_gives_the_real_dtype_and_does_not_overflow():
    assert ag.abs(np.complex64(3 + 4j)).dtype is ag.float32
    assert float(ag.abs(np.complex128(3e300 + 4e300j))) == pytest.approx(5e300)
    assert float(ag.abs(np.complex128(complex(INF, NAN)))) == INF


def test_parts_on_real_inputs_do_what_numpy_does():
    for x in (np.array([-1.5, 0.0, -0.0, 2.0, NAN], np.float32), np.array([-3, 0, 5], np.int16),
              np.array([0, 200], np.uint8), np.array([-5, 0], np.int8), np.array([7], np.uint64)):
        for op, ref in (("conj", np.conj), ("real", np.real), ("imag", np.imag), ("angle", np.angle)):
            got = getattr(ag.math, op)(x).numpy()
            want = np.asarray(ref(x))
            if want.dtype == np.float16:   # NumPy's angle of int8/uint8; autograph gives float32
                want = np.angle(x.astype(np.float32))
            assert got.dtype == want.dtype, (op, x.dtype)
            np.testing.assert_array_equal(got, want)


def test_numpy_functions_dispatch():
    z = ag.constant(np.array([1 + 2j, -3j], np.complex64))
    np.testing.assert_array_equal(np.conjugate(z).numpy(), [1 - 2j, 3j])
    np.testing.assert_array_equal(np.conj(z).numpy(), [1 - 2j, 3j])
    np.testing.assert_array_equal(np.real(z).numpy(), [1, 0])
    np.testing.assert_array_equal(np.imag(z).numpy(), [2, -3])
    np.testing.assert_allclose(np.angle(z).numpy(), np.angle([1 + 2j, -3j]), rtol=1e-6)


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("op", ["less", "less_equal", "greater", "greater_equal", "floordiv", "mod",
                                "maximum", "minimum"])
@pytest.mark.parametrize("name", CX)
def test_ops_without_complex_meaning_raise(op, name):
    z = np.array([1 + 1j], name)
    with pytest.raises(TypeError, match=rf"{op}: expected an int or float tensor, got {name}"):
        getattr(ag, op)(z, z)


@pytest.mark.parametrize("op", ["reduce_max", "reduce_min", "argmax"])
def test_ordering_reductions_raise(op):
    with pytest.raises(TypeError, match=rf"{op}: expected an? .*tensor, got complex128"):
        getattr(ag, op)(np.array([1j, 2j]))


def test_operators_raise_for_ordering():
    z = ag.constant(np.array([1j]))
    with pytest.raises(TypeError, match=r"less: expected an int or float tensor, got complex128"):
        z < z
    with pytest.raises(TypeError, match=r"floordiv: expected an int or float tensor, got complex128"):
        z // z


# ---------------------------------------------------------------- Python complex

def test_python_complex_alone_is_complex128():
    assert ag.constant(1 + 2j).dtype is ag.complex128
    assert ag.constant([1j, 2]).dtype is ag.complex128
    assert ag.add(1j, 2j).dtype is ag.complex128


@pytest.mark.parametrize("name", CX)
def test_python_numbers_adopt_a_complex_dtype(name):
    z = ag.constant(np.array([1 + 1j], name))
    for w in (z * 2j, z + 1, z * 0.5, 1j - z):
        assert w.dtype is as_dtype(name)
    np.testing.assert_array_equal((z * 2j).numpy(), np.array([1 + 1j], name) * 2j)


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "uint8"])
def test_python_complex_with_a_real_tensor_raises(name):
    x = ag.constant(np.ones(2, name))
    with pytest.raises(TypeError, match=rf"multiply: cannot use the complex 1j with a tensor of dtype "
                                        rf"{name}; use ag.cast"):
        x * 1j


def test_mixed_complex_and_float_names_the_promotion():
    with pytest.raises(TypeError, match=r"add: the operands have different dtypes complex64 and float64; "
                                        r"NumPy would have promoted to complex128.*ag.cast\(x, ag.complex128\)"):
        ag.add(np.ones(1, np.complex64), np.ones(1, np.float64))


def test_bool_with_complex_raises():
    with pytest.raises(TypeError, match=r"cannot use the bool True with a tensor of dtype complex64"):
        ag.constant(np.ones(1, np.complex64)) + True


# ---------------------------------------------------------------- casts, printing, IR

_CAST_NAMES = ["bool", "int8", "uint16", "int64", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("src,dst", [(a, b) for a in _CAST_NAMES for b in _CAST_NAMES
                                     if "complex" in a + b])
def test_casts_with_complex(src, dst):
    x = np.array([0, 1 + 2j, 3.5 - 1j, 100.25j], np.complex128)   # in range of every dtype
    x = x.astype(src) if src.startswith("complex") else np.real(x).astype(src)
    with np.errstate(all="ignore"):
        want = x.real.astype(dst) if (x.dtype.kind == "c" and dst[0] not in "cb") else (
            x != 0 if dst == "bool" else x.astype(dst))
    got = ag.cast(x, dst).numpy()
    assert got.dtype == np.dtype(dst)
    np.testing.assert_array_equal(got, want)


def test_printing_and_numpy():
    z = ag.constant(np.array([1 + 2j, -0.5j], np.complex64))
    assert isinstance(z.numpy(), np.ndarray) and z.numpy().dtype == np.complex64
    assert "complex64" in repr(z) and "1.+2.j" in str(z)
    assert np.asarray(z).dtype == np.complex64


@pytest.mark.parametrize("name", CX)
def test_ir_text_round_trip(name, trace):
    def f(x):
        return x * np.array([1.5 - 2j, complex(INF, NAN)], name) + 1j
    graph = trace(f, TensorType(as_dtype(name), (2,)))
    text = str(graph)
    assert "complex(1.5, -2.0)" in text and f"{name}[2]" in text
    assert str(parse_graph(text)) == text


# ---------------------------------------------------------------- matrix products

def _products(a, b, v):
    return a @ b, a @ v, v @ v, np.dot(a, b), np.einsum("ij,jk->ik", a, b), np.stack([a, a]) @ b


@pytest.mark.parametrize("name", CX)
def test_complex_matrix_products_match_numpy(name):
    rng = np.random.default_rng(5)
    parts = [rng.standard_normal(s) + 1j * rng.standard_normal(s) for s in ((3, 4), (4, 2), (4,))]
    a, b, v = (p.astype(name) for p in parts)
    rtol = 1e-5 if name == "complex64" else 1e-12
    for got, want in zip(ag.function(_products)(a, b, v), _products(a, b, v)):
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol)
    np.testing.assert_allclose(np.asarray(ag.matmul(a, b)), a @ b, rtol=rtol)   # eager


def test_complex_times_real_matrix_names_the_promotion():
    with pytest.raises(TypeError, match=r"matmul: the operands have different dtypes complex128 and float64"):
        ag.function(lambda a, b: a @ b)(np.ones((2, 2), complex), np.ones((2, 2)))
