"""The two ways of scaling by 2**n of exp, exp2 and float64 pow
(codegen/llvm/mathfns.py: times_power_of_two): `llvm.ldexp`
(one AVX-512 instruction) where the host has AVX-512, exponent bits in two
steps elsewhere. Each is compiled here whatever this machine is (the
generic one always; the ldexp one where the host can run it), with the disk
cache and the reuse of loaded code off so that the other way's object code is not reused: same ulp bound,
NumPy's results on special values, overflow and the subnormal range."""
import weakref

import numpy as np
import pytest

import autograph as ag
from autograph.codegen.jit import compile
from autograph.codegen.llvm import host, mathfns
from test_vecmath import _PRECISE, _sample, _specials, _ulps

WAYS = [False, pytest.param(True, marks=pytest.mark.skipif(
    not host.has_feature("avx512f"), reason="the ldexp way needs AVX-512 to run"))]


# name: (module that scales, the function, NumPy's, its inverse for the edges, longdouble reference)
# name: (the function, NumPy's, its inverse for the edges)
ROUTINES = {"exp": (ag.math.exp, np.exp, np.log), "exp2": (ag.math.exp2, np.exp2, np.log2)}


def _kernel(monkeypatch, fn, ldexp: bool):
    """`fn` compiled with the scaling of `mathfns.times_power_of_two` chosen by `ldexp`."""
    monkeypatch.setenv("AUTOGRAPH_DISABLE_CACHE", "1")
    monkeypatch.setattr(compile, "_LOADED", weakref.WeakValueDictionary())   # nor code loaded before
    monkeypatch.setattr(mathfns, "has_feature", lambda feature: ldexp)
    return ag.function(fn, autograph=False)


def _edges(dtype, inverse):
    """Around overflow and through the subnormal results down to 0."""
    big = inverse(np.finfo(dtype).max)
    tiny = inverse(np.finfo(dtype).smallest_subnormal)
    return np.concatenate([np.linspace(big - 0.01, big + 0.01, 2001),
                           np.linspace(inverse(np.finfo(dtype).tiny) + 0.5, tiny - 1.0, 20001)]).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ldexp", WAYS)
@pytest.mark.parametrize("name", sorted(ROUTINES))
def test_both_scalings_match_numpy(monkeypatch, name, ldexp, dtype):
    routine, numpy_fn, inverse = ROUTINES[name]
    f = _kernel(monkeypatch, lambda x: routine(x), ldexp)
    x = np.concatenate([_specials(dtype), _edges(dtype, inverse), _sample(dtype, 20_000)])
    with np.errstate(all="ignore"):
        got, want = np.asarray(f(x)), numpy_fn(x)
    ir = f.get_concrete_function(x).llvm_ir()
    assert ("llvm.ldexp" in ir) == ldexp
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    if not _PRECISE:
        np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(dtype).eps, atol=0)
        return
    with np.errstate(all="ignore"):
        ref = numpy_fn(x.astype(np.longdouble))
        ref_t = ref.astype(dtype)
    # overflow to inf and underflow to 0 exactly where the exact result rounds there
    # (NumPy's exp2 float32 gives 0 for 2**-149.5, which rounds to 2**-149)
    edge = np.isinf(ref_t) | (ref_t == 0)
    assert (got[edge] == ref_t[edge]).all(), (x[edge], got[edge], ref_t[edge])
    err = _ulps(got, ref, dtype)
    assert err.max() <= 2.0, float(err.max())


@pytest.mark.skipif(not host.has_feature("avx512f"), reason="the ldexp way needs AVX-512 to run")
def test_float64_pow_is_the_same_either_way(monkeypatch):
    """Both ways round p * 2**n once, so float64 pow (whose scaling is the same
    helper) gives identical bits, subnormal and overflowing results included."""
    rng = np.random.default_rng(5)
    a = np.concatenate([rng.uniform(0.01, 100.0, 4000), [0.5, 2.0, 1e-300, 1e300, 3.0]])
    b = np.concatenate([rng.uniform(-160.0, 160.0, 4000), [1074.5, -1074.5, 1.5, 0.5, 646.0]])
    results = []
    for ldexp in (False, True):
        f = _kernel(monkeypatch, lambda x, y: ag.math.pow(x, y), ldexp)
        assert ("llvm.ldexp" in f.get_concrete_function(a, b).llvm_ir()) == ldexp
        results.append(np.asarray(f(a, b)))
    np.testing.assert_array_equal(results[0], results[1])
    assert (results[0] == 0).any() and np.isinf(results[0]).any()
