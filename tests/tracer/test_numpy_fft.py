"""np.fft on tensors (tracer/api/numpy_fft.py): compiled and eager results against
NumPy's pocketfft, for the dense, Cooley-Tukey and Bluestein lengths."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph as ag

_RNG = np.random.default_rng(7)


def _close(got, want, rtol=1e-11):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    scale = max(float(np.abs(want).max()), 1.0) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=rtol * scale)


def _signal(n, complex_=True, shape=()):
    x = _RNG.standard_normal(shape + (n,))
    return x + 1j * _RNG.standard_normal(shape + (n,)) if complex_ else x


def _all_one_axis(x, y, n):
    return (np.fft.fft(x), np.fft.ifft(x), np.fft.rfft(y), np.fft.irfft(np.fft.rfft(y), n),
            np.fft.hfft(x), np.fft.ihfft(y))


# 12: dense; 100 = 10 x 10: Cooley-Tukey; 97: a dense prime
@pytest.mark.parametrize("n", [1, 12, 97, 100])
def test_one_axis_transforms_match_numpy(n):
    x, y = _signal(n), _signal(n, complex_=False)
    want = _all_one_axis(x, y, n) if n > 1 else (np.fft.fft(x), np.fft.ifft(x), np.fft.rfft(y))
    fn = _all_one_axis if n > 1 else (lambda x, y, n: (np.fft.fft(x), np.fft.ifft(x), np.fft.rfft(y)))
    got = ag.function(fn)(x, y, n)
    for g, w in zip(got, want):
        _close(g, w)


def test_a_long_prime_length_goes_through_bluestein():
    x = _signal(263, shape=(2,))      # 263 is prime: a convolution of length 1024
    _close(ag.function(lambda v: np.fft.fft(v))(x), np.fft.fft(x))
    _close(np.fft.ifft(ag.constant(x)), np.fft.ifft(x))     # eager: the same composition


def _many_axes(a, b):
    return (np.fft.fft2(a), np.fft.ifftn(a, axes=(0, 2)), np.fft.fftn(a, s=(3, 8, 4), axes=(0, 1, 2)),
            np.fft.rfft2(b), np.fft.irfft2(np.fft.rfft2(b), s=b.shape[-2:]),
            np.fft.rfftn(b, s=(4, 6), axes=(0, 1)), np.fft.irfftn(np.fft.rfftn(b)),
            np.fft.fft(a, n=7, axis=1, norm="ortho"), np.fft.ifft(a, n=3, axis=0, norm="forward"),
            np.fft.fftshift(b), np.fft.ifftshift(b, axes=0), np.fft.fftshift(np.fft.fftshift(b, axes=1), 1))


def test_several_axes_lengths_norms_and_shifts_match_numpy():
    a, b = _signal(5, shape=(4, 6)), _signal(9, complex_=False, shape=(6,))
    got = ag.function(_many_axes)(a, b)
    for g, w in zip(got, _many_axes(a, b)):
        _close(g, w)


@pytest.mark.parametrize("dtype, want", [(np.float32, np.complex64), (np.complex64, np.complex64),
                                         (np.int32, np.complex128), (np.float64, np.complex128)])
def test_result_dtypes_follow_numpy_2(dtype, want):
    x = (_RNG.standard_normal((3, 16)) * 10).astype(dtype)
    got = ag.function(lambda v: (np.fft.fft(v), np.fft.ifft2(v)))(x)
    assert np.asarray(got[0]).dtype == want
    _close(got[0], np.fft.fft(x), rtol=1e-5 if want == np.complex64 else 1e-11)
    _close(got[1], np.fft.ifft2(x), rtol=1e-5 if want == np.complex64 else 1e-11)
    real = ag.function(lambda v: np.fft.irfft(np.fft.rfft(np.real(v))))(x)
    assert np.asarray(real).dtype == (np.float32 if want == np.complex64 else np.float64)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 3), st.sampled_from(["backward", "ortho", "forward"]))
def test_eager_transforms_match_numpy_for_any_length(n, rows, norm):
    x = _signal(n, shape=(rows,))
    t = ag.constant(x)
    _close(np.fft.fft(t, norm=norm), np.fft.fft(x, norm=norm))
    _close(np.fft.ifft(t, axis=0, norm=norm), np.fft.ifft(x, axis=0, norm=norm))
    _close(np.fft.rfft(ag.constant(x.real), norm=norm), np.fft.rfft(x.real, norm=norm))
    if n > 1:
        _close(np.fft.irfft(t, norm=norm), np.fft.irfft(x, norm=norm))


def test_a_convolution_by_transforms():
    def convolve(a, b):
        n = a.shape[0] + b.shape[0] - 1
        return np.fft.irfft(np.fft.rfft(a, n) * np.fft.rfft(b, n), n)
    a, b = _signal(30, complex_=False), _signal(11, complex_=False)
    _close(ag.function(convolve)(a, b), np.convolve(a, b))


@pytest.mark.parametrize("fn, error, message", [
    (lambda v: np.fft.rfft(v), TypeError, r"rfft: expected a real tensor, got complex128; use np\.real"),
    (lambda v: np.fft.fft(v, norm="both"), ValueError, r"fft: invalid norm value 'both'"),
    (lambda v: np.fft.fft(v, n=0), ValueError, r"fft: invalid number of data points \(0\) specified"),
    (lambda v: np.fft.fft(v, axis=2), np.exceptions.AxisError, r"fft: axis 2 is out of bounds"),
    (lambda v: np.fft.fft(v, out=v), TypeError, r"np\.fft\.fft.*the out= argument"),
    (lambda v: np.fft.fft2(v, s=(2, 2, 2)), ValueError, r"fft2: shape and axes have different lengths"),
])
def test_errors_name_the_function_and_the_argument(fn, error, message):
    with pytest.raises(error, match=message):
        ag.function(fn)(_signal(4, shape=(2,)))


def test_a_length_known_only_at_run_time_is_refused_clearly():
    f = ag.function(lambda v: np.fft.fft(v), input_signature=[ag.TensorSpec([None], ag.complex128)])
    with pytest.raises(TypeError, match=r"np\.fft\.fft.*shape is only known when the compiled code runs"):
        f(_signal(8))
