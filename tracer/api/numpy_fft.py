"""`np.fft` on tensors: `fft ifft rfft irfft hfft ihfft fft2 ifft2 fftn ifftn
rfft2 irfft2 rfftn irfftn fftshift ifftshift`, built from matmul and reshapes.

A transform of length n along one axis works on the real and imaginary
parts as two real tensors (complex matmul is not compiled), the axis moved
last:

* n up to `_DENSE` (or a prime up to `_DENSE_PRIME`): the DFT matrix, as a
  constant computed in float64 from the exact angle 2*pi*((j*k) mod n)/n, in
  four real matmuls (BLAS for large batches);
* a composite n = n1 * n2 (n1 the divisor closest to sqrt(n)): Cooley-Tukey
  in one step, x viewed as (n1, n2): transforms of length n1 over the
  columns, twiddle factors, transforms of length n2 over the rows, then the
  (k1, k2) -> k1 + n1*k2 transpose; recursively;
* a larger prime n: Bluestein's chirp: the transform is a circular
  convolution of length m (the power of two >= 2n - 1) with a fixed chirp,
  whose spectrum is a trace-time constant; the two other transforms of
  length m go through the composite path.

Work is O(n * (n1 + n2)) per level rather than the O(n log n) of NumPy's
pocketfft, so long transforms are slower than NumPy's; results agree with
NumPy's to a few ulp times log(n) (tests: rtol 1e-12 in float64, 1e-5 in
float32). Dtypes follow NumPy 2: float32 and complex64 give complex64 (real
results float32), every other real or integer dtype complex128 / float64.
`norm` is "backward" (default), "ortho" or "forward". Lengths must be known
when tracing (static shapes or `n=`/`s=`, values known at trace time such
as `x.shape[0] + 1` included). Gradients do not flow through a transform:
the complex parts (`real`, `imag`, casts to complex) have no gradient
rules yet, so `tape.gradient` gives None for a source reached only through
one, as for any other path through complex values.
"""
from __future__ import annotations

import math
import numbers
from typing import List, Optional, Tuple

import numpy as np

from .common import is_tensor_like, locate_errors, rank_of
from .construct import zeros
from .elementwise import add, cast, matmul, multiply, subtract
from .numpy_functions import Unsupported, np_roll, tensor_operand
from .shaping import concat, reshape, transpose
from ..core.types import complex64, complex128, float32, float64
from ..tracing.known_values import known_value
from ..tracing.symbolic import bind, is_traced

__all__ = ["BY_FUNCTION"]

_DENSE = 32           # lengths up to this: one DFT matrix
_DENSE_PRIME = 256    # primes up to this: one DFT matrix; larger ones: Bluestein
_NORMS = ("backward", "ortho", "forward")


# ---------------------------------------------------------------- the parts

class _Parts:
    """A complex tensor as its real and imaginary parts (`im` None: zero), with the
    transformed axis last, in float32 or float64 (`real`)."""

    def __init__(self, re, im, real):
        self.re, self.im, self.real = re, im, real


def _real_dtype(d):
    return float32 if d in (float32, complex64) else float64


def _parts(op: str, a) -> _Parts:
    x = tensor_operand(op, a)
    d = x.dtype
    real = _real_dtype(d)
    if d.is_complex:
        return _Parts(bind("real", x), bind("imag", x), real)
    if d.name == "string":
        raise TypeError(f"{op}: expected a numeric tensor, got a string tensor")
    return _Parts(x if d is real else cast(x, real), None, real)


def _complex(p: _Parts):
    """The complex tensor re + i*im."""
    c = complex64 if p.real is float32 else complex128
    out = cast(p.re, c)
    if p.im is None:
        return out
    return add(out, multiply(cast(p.im, c), np.asarray(1j, c.np_dtype)))


def _const(p: _Parts, arr: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(arr, dtype=p.real.np_dtype)


def _map(p: _Parts, fn) -> _Parts:
    return _Parts(fn(p.re), None if p.im is None else fn(p.im), p.real)


# ---------------------------------------------------------------- one axis, last

def _dims(x) -> List[int]:
    shape = x.shape
    if shape is None or any(d is None for d in shape):
        raise Unsupported("a tensor whose shape is only known when the compiled code runs "
                          "(the transform's length must be known when tracing)")
    return list(shape)


def _twiddle(rows: int, cols: int, n: int, sign: int) -> Tuple[np.ndarray, np.ndarray]:
    """cos and sign*sin of 2*pi*(r*c mod n)/n for r < rows, c < cols (exact reduction)."""
    rc = (np.arange(rows, dtype=np.int64)[:, None] * np.arange(cols, dtype=np.int64)[None, :]) % n
    angle = (2.0 * np.pi / n) * rc
    return np.cos(angle), sign * np.sin(angle)


def _cmul_const(p: _Parts, c: np.ndarray, s: np.ndarray) -> _Parts:
    """p * (c + i*s) elementwise, c and s constants broadcasting against p."""
    c, s = _const(p, c), _const(p, s)
    if p.im is None:
        return _Parts(multiply(p.re, c), multiply(p.re, s), p.real)
    return _Parts(subtract(multiply(p.re, c), multiply(p.im, s)),
                  add(multiply(p.re, s), multiply(p.im, c)), p.real)


def _matmul_parts(p: _Parts, c: np.ndarray, s: np.ndarray) -> _Parts:
    """p @ (c + i*s) over the last axis, as one real matmul of the batch's rows:
    [re, im] @ [[c, s], [-s, c]] = [re@c - im@s, re@s + im@c]."""
    shape = _dims(p.re)
    n, k = shape[-1], c.shape[1]
    if p.im is None:
        z, w = reshape(p.re, [-1, n]), np.concatenate([c, s], axis=1)
    else:
        z = concat([reshape(p.re, [-1, n]), reshape(p.im, [-1, n])], axis=-1)
        w = np.block([[c, s], [-s, c]])
    out = matmul(z, _const(p, w))
    out_shape = shape[:-1] + [k]
    return _Parts(reshape(out[:, :k], out_shape), reshape(out[:, k:], out_shape), p.real)


def _swap_last_two(p: _Parts) -> _Parts:
    rank = len(_dims(p.re))
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return _map(p, lambda t: transpose(t, perm))


def _split(n: int) -> int:
    """The divisor of n closest to sqrt(n) from below (1 when n is prime)."""
    for d in range(math.isqrt(n), 0, -1):
        if n % d == 0:
            return d
    return 1


def _transform(p: _Parts, sign: int) -> _Parts:
    """The unnormalised DFT (sign -1) or inverse DFT (sign +1) over the last axis."""
    n = _dims(p.re)[-1]
    if n <= 1:
        return p
    n1 = _split(n)
    if n <= _DENSE or (n1 == 1 and n <= _DENSE_PRIME):
        c, s = _twiddle(n, n, n, sign)
        return _matmul_parts(p, c, s)
    if n1 == 1:
        return _bluestein(p, n, sign)
    n2 = n // n1
    lead = _dims(p.re)[:-1]
    # x[n2*j1 + j2] viewed as (j1, j2); transforms over j1 for each j2 ...
    cols = _swap_last_two(_map(p, lambda t: reshape(t, lead + [n1, n2])))     # (j2, j1)
    cols = _transform(cols, sign)                                               # (j2, k1)
    c, s = _twiddle(n2, n1, n, sign)
    cols = _cmul_const(cols, c, s)
    rows = _transform(_swap_last_two(cols), sign)                               # (k1, k2)
    # ... and X[k1 + n1*k2] is read with k2 major
    return _map(_swap_last_two(rows), lambda t: reshape(t, lead + [n]))


def _bluestein(p: _Parts, n: int, sign: int) -> _Parts:
    """Prime n: X_k = w_k * sum_j (x_j w_j) v_(k-j), w_j = exp(sign*i*pi*j^2/n), v = conj(w),
    the sum a circular convolution of length m >= 2n - 1 done by transforms of length m."""
    m = 1 << (2 * n - 2).bit_length()
    j = np.arange(n, dtype=np.int64)
    angle = (np.pi / n) * ((j * j) % (2 * n))
    wc, ws = np.cos(angle), sign * np.sin(angle)
    chirp = np.zeros(m, np.complex128)
    chirp[:n] = wc - 1j * ws
    chirp[m - n + 1:] = (wc - 1j * ws)[1:][::-1]
    spectrum = np.fft.fft(chirp)      # of a constant: computed once, at trace time
    lead = _dims(p.re)[:-1]
    u = _cmul_const(p, wc, ws)
    pad = zeros(lead + [m - n], p.real)
    u = _map(u, lambda t: concat([t, pad], axis=-1))
    U = _transform(u, -1)
    V = _cmul_const(U, spectrum.real, spectrum.imag)
    conv = _transform(V, +1)
    conv = _map(conv, lambda t: _first(t, n))
    return _cmul_const(conv, wc / m, ws / m)


def _first(t, k: int):
    """t[..., :k]."""
    rank = len(_dims(t))
    key = (slice(None),) * (rank - 1) + (slice(0, k),)
    return t[key]


# ---------------------------------------------------------------- axes, lengths, norms

def _axis(op: str, axis, rank: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{op}: axis must be an int, got {axis!r}")
    a = int(axis)
    if not -rank <= a < rank:
        raise np.exceptions.AxisError(f"{op}: axis {a} is out of bounds for a tensor of rank {rank}")
    return a % rank


def _to_last(p: _Parts, axis: int) -> Tuple[_Parts, Optional[List[int]]]:
    rank = len(_dims(p.re))
    if axis == rank - 1:
        return p, None
    perm = [i for i in range(rank) if i != axis] + [axis]
    return _map(p, lambda t: transpose(t, perm)), perm


def _from_last(p: _Parts, perm: Optional[List[int]]) -> _Parts:
    if perm is None:
        return p
    inverse = list(np.argsort(perm))
    return _map(p, lambda t: transpose(t, inverse))


def _resize(op: str, p: _Parts, n: int) -> _Parts:
    """The last axis cut to n, or zero-padded to n (NumPy's `n=`)."""
    have = _dims(p.re)[-1]
    if n == have:
        return p
    if n > have:
        pad = zeros(_dims(p.re)[:-1] + [n - have], p.real)
        return _map(p, lambda t: concat([t, pad], axis=-1))
    return _map(p, lambda t: _first(t, n))


def _static_int(v):
    """`v` as a Python int when it is one, or a 0-d integer tensor whose value is known
    when tracing (`x.shape[0] + 1` from static dimensions); else `v` unchanged."""
    if is_traced(v):
        value = known_value(v.value)
        return v if value is None or value.ndim or value.dtype.kind not in "iu" else int(value)
    if is_tensor_like(v) and v.shape == () and v.dtype.is_integer:
        return int(v)
    return v


def _length(op: str, n, default: int) -> int:
    if n is None:
        n = default
    n = _static_int(n)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{op}: n must be an int, got {n!r}")
    if n < 1:
        raise ValueError(f"{op}: invalid number of data points ({int(n)}) specified")
    return int(n)


def _scale(op: str, norm, n: int, inverse: bool) -> float:
    if norm is None:
        norm = "backward"
    if norm not in _NORMS:
        raise ValueError(f'{op}: invalid norm value {norm!r}; should be "backward", "ortho" or "forward"')
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "backward") == inverse else 1.0


def _scaled(p: _Parts, factor: float) -> _Parts:
    if factor == 1.0:
        return p
    f = np.asarray(factor, p.real.np_dtype)
    return _map(p, lambda t: multiply(t, f))


def _one_axis(op: str, p: _Parts, n, axis, norm, inverse: bool) -> _Parts:
    rank = len(_dims(p.re))
    if rank == 0:
        raise ValueError(f"{op}: expected a tensor of rank >= 1, got a scalar")
    ax = _axis(op, axis, rank)
    q, perm = _to_last(p, ax)
    length = _length(op, n, _dims(q.re)[-1])
    q = _resize(op, q, length)
    q = _scaled(_transform(q, +1 if inverse else -1), _scale(op, norm, length, inverse))
    return _from_last(q, perm)


def _no_out(op: str, out) -> None:
    if out is not None:
        raise Unsupported("the out= argument")


# ---------------------------------------------------------------- NumPy's functions

@locate_errors
def np_fft(a, n=None, axis=-1, norm=None, out=None):
    """NumPy's `fft.fft`: the discrete Fourier transform along `axis`."""
    _no_out("fft", out)
    return _complex(_one_axis("fft", _parts("fft", a), n, axis, norm, inverse=False))


@locate_errors
def np_ifft(a, n=None, axis=-1, norm=None, out=None):
    """NumPy's `fft.ifft`: the inverse discrete Fourier transform along `axis`."""
    _no_out("ifft", out)
    return _complex(_one_axis("ifft", _parts("ifft", a), n, axis, norm, inverse=True))


def _real_input(op: str, a) -> _Parts:
    p = _parts(op, a)
    if p.im is not None:
        # NumPy discards the imaginary part with a ComplexWarning; a silent drop hides bugs.
        raise TypeError(f"{op}: expected a real tensor, got {tensor_operand(op, a).dtype.name}; "
                        f"use np.real(x) to transform the real part")
    return p


def _half(op: str, p: _Parts, axis: int) -> _Parts:
    """The first n//2 + 1 terms along `axis` (the others are conjugates)."""
    rank = len(_dims(p.re))
    keep = _dims(p.re)[axis] // 2 + 1
    key = tuple(slice(0, keep) if i == axis else slice(None) for i in range(rank))
    return _map(p, lambda t: t[key])


@locate_errors
def np_rfft(a, n=None, axis=-1, norm=None, out=None):
    """NumPy's `fft.rfft`: the transform of a real tensor, non-negative frequencies only."""
    _no_out("rfft", out)
    p = _real_input("rfft", a)
    full = _one_axis("rfft", p, n, axis, norm, inverse=False)
    return _complex(_half("rfft", full, _axis("rfft", axis, len(_dims(p.re)))))


def _hermitian_full(op: str, p: _Parts, n: int) -> _Parts:
    """From the first n//2 + 1 terms (last axis), the whole Hermitian spectrum of length n:
    X[n - k] = conj(X[k])."""
    p = _resize(op, p, n // 2 + 1)
    tail = n - (n // 2 + 1)            # X[n//2 + 1 .. n - 1] = conj(X[tail .. 1])
    if tail == 0:
        return p
    rank = len(_dims(p.re))
    key = (slice(None),) * (rank - 1) + (slice(tail, 0, -1),)
    re_tail = p.re[key]
    im = p.im if p.im is not None else zeros(_dims(p.re), p.real)
    im_tail = multiply(im[key], np.asarray(-1, p.real.np_dtype))
    return _Parts(concat([p.re, re_tail], axis=-1), concat([im, im_tail], axis=-1), p.real)


def _inverse_real(op: str, a, n, axis, norm, conjugate: bool, inverse: bool):
    """The real signal of length n whose spectrum's first n//2 + 1 terms (along `axis`) are
    `a` (conjugated first for `hfft`), by the sign +1 transform; `inverse` picks the norm."""
    p = _parts(op, a)
    rank = len(_dims(p.re))
    if rank == 0:
        raise ValueError(f"{op}: expected a tensor of rank >= 1, got a scalar")
    ax = _axis(op, axis, rank)
    q, perm = _to_last(p, ax)
    m = _dims(q.re)[-1]
    length = _length(op, n, 2 * (m - 1))
    if conjugate and q.im is not None:
        q = _Parts(q.re, multiply(q.im, np.asarray(-1, q.real.np_dtype)), q.real)
    full = _hermitian_full(op, q, length)
    out = _transform(full, +1)
    out = _scaled(_Parts(out.re, None, out.real), _scale(op, norm, length, inverse))
    return _from_last(out, perm).re


@locate_errors
def np_irfft(a, n=None, axis=-1, norm=None, out=None):
    """NumPy's `fft.irfft`: the real inverse of `rfft` (output length `n`, default 2*(m-1))."""
    _no_out("irfft", out)
    return _inverse_real("irfft", a, n, axis, norm, conjugate=False, inverse=True)


@locate_errors
def np_hfft(a, n=None, axis=-1, norm=None, out=None):
    """NumPy's `fft.hfft`: the transform of a Hermitian-symmetric signal (a real spectrum)."""
    _no_out("hfft", out)
    return _inverse_real("hfft", a, n, axis, norm, conjugate=True, inverse=False)


@locate_errors
def np_ihfft(a, n=None, axis=-1, norm=None, out=None):
    """NumPy's `fft.ihfft`: the inverse of `hfft`, conj(rfft(a)) / n."""
    _no_out("ihfft", out)
    p = _real_input("ihfft", a)
    full = _one_axis("ihfft", p, n, axis, norm, inverse=True)   # of a real signal: conj(rfft)/n
    return _complex(_half("ihfft", full, _axis("ihfft", axis, len(_dims(p.re)))))


def _axes_and_lengths(op: str, p: _Parts, s, axes, default_axes) -> Tuple[List[int], List[Optional[int]]]:
    rank = len(_dims(p.re))
    if axes is None:
        axes = default_axes if default_axes is not None else (
            list(range(rank)) if s is None else list(range(rank - len(s), rank)))
    axes = [_axis(op, a, rank) for a in axes]
    if len(set(axes)) != len(axes):
        raise Unsupported("repeated axes")
    if s is None:
        lengths: List[Optional[int]] = [None] * len(axes)
    else:
        s = [_static_int(v) for v in s]
        if len(s) != len(axes):
            raise ValueError(f"{op}: shape and axes have different lengths")
        lengths = s
    return axes, lengths


def _many(op: str, a, s, axes, norm, inverse: bool, default_axes=None):
    p = _parts(op, a)
    axes, lengths = _axes_and_lengths(op, p, s, axes, default_axes)
    for ax, n in zip(reversed(axes), reversed(lengths)):
        p = _one_axis(op, p, n, ax, norm, inverse)
    return p


@locate_errors
def np_fftn(a, s=None, axes=None, norm=None, out=None):
    """NumPy's `fft.fftn`: the transform over `axes` (all by default)."""
    _no_out("fftn", out)
    return _complex(_many("fftn", a, s, axes, norm, inverse=False))


@locate_errors
def np_ifftn(a, s=None, axes=None, norm=None, out=None):
    """NumPy's `fft.ifftn`: the inverse transform over `axes` (all by default)."""
    _no_out("ifftn", out)
    return _complex(_many("ifftn", a, s, axes, norm, inverse=True))


@locate_errors
def np_fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """NumPy's `fft.fft2`: the transform over the last two axes."""
    _no_out("fft2", out)
    return _complex(_many("fft2", a, s, axes, norm, inverse=False))


@locate_errors
def np_ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """NumPy's `fft.ifft2`: the inverse transform over the last two axes."""
    _no_out("ifft2", out)
    return _complex(_many("ifft2", a, s, axes, norm, inverse=True))


@locate_errors
def np_rfftn(a, s=None, axes=None, norm=None, out=None):
    """NumPy's `fft.rfftn`: `rfft` over the last of `axes`, then `fft` over the others."""
    _no_out("rfftn", out)
    p = _real_input("rfftn", a)
    axes, lengths = _axes_and_lengths("rfftn", p, s, axes, None)
    last = axes[-1]
    p = _one_axis("rfftn", p, lengths[-1], last, norm, inverse=False)
    p = _half("rfftn", p, last)
    for ax, n in zip(reversed(axes[:-1]), reversed(lengths[:-1])):
        p = _one_axis("rfftn", p, n, ax, norm, inverse=False)
    return _complex(p)


@locate_errors
def np_rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """NumPy's `fft.rfft2`: `rfftn` over the last two axes."""
    return np_rfftn(a, s, axes, norm, out)


@locate_errors
def np_irfftn(a, s=None, axes=None, norm=None, out=None):
    """NumPy's `fft.irfftn`: `ifft` over all of `axes` but the last, then `irfft` over it."""
    _no_out("irfftn", out)
    p = _parts("irfftn", a)
    axes, lengths = _axes_and_lengths("irfftn", p, s, axes, None)
    for ax, n in zip(reversed(axes[:-1]), reversed(lengths[:-1])):
        p = _one_axis("irfftn", p, n, ax, norm, inverse=True)
    return np_irfft(_complex(p), lengths[-1], axes[-1], norm)


@locate_errors
def np_irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """NumPy's `fft.irfft2`: `irfftn` over the last two axes."""
    return np_irfftn(a, s, axes, norm, out)


def _shift(op: str, x, axes, sign: int):
    t = tensor_operand(op, x)
    rank = rank_of(t)
    if rank is None:
        raise Unsupported("a tensor of unknown rank")
    dims = _dims(t)
    if axes is None:
        axes = list(range(rank))
    elif isinstance(axes, numbers.Integral):
        axes = [axes]
    axes = [_axis(op, a, rank) for a in axes]
    shifts = [sign * (dims[a] // 2) for a in axes]
    return np_roll(t, shifts, axes)


@locate_errors
def np_fftshift(x, axes=None):
    """NumPy's `fft.fftshift`: the zero frequency moved to the middle (a roll by n//2)."""
    return _shift("fftshift", x, axes, +1)


@locate_errors
def np_ifftshift(x, axes=None):
    """NumPy's `fft.ifftshift`: the inverse of `fftshift` (a roll by -(n//2))."""
    return _shift("ifftshift", x, axes, -1)


BY_FUNCTION = {
    np.fft.fft: np_fft, np.fft.ifft: np_ifft, np.fft.rfft: np_rfft, np.fft.irfft: np_irfft,
    np.fft.hfft: np_hfft, np.fft.ihfft: np_ihfft,
    np.fft.fft2: np_fft2, np.fft.ifft2: np_ifft2, np.fft.fftn: np_fftn, np.fft.ifftn: np_ifftn,
    np.fft.rfft2: np_rfft2, np.fft.irfft2: np_irfft2, np.fft.rfftn: np_rfftn,
    np.fft.irfftn: np_irfftn, np.fft.fftshift: np_fftshift, np.fft.ifftshift: np_ifftshift,
}
