"""Near-minimax polynomial fits in np.longdouble, for the coefficient tables of
codegen/llvm/vecmath_*.py (run it to re-derive them).

    python -m bench.polyfit

`fit(f, lo, hi, degrees, scale)` returns float64 coefficients c such that
sum(c[i] * t**degrees[i]) approximates f(t) on [lo, hi] with the least
maximum relative error: Lawson's iteratively reweighted least squares over
Chebyshev nodes (converges towards the minimax fit), each weighted solve
done in float64 and refined in np.longdouble (80-bit) until its residual
stops shrinking, so that the fit is not limited by float64's rounding.
`f` takes and returns np.longdouble arrays; `scale` is the weight's
reference (|f| for relative error, or any positive function).
"""
from __future__ import annotations

import math

import numpy as np

LD = np.longdouble


def _solve(a, y, w):
    """Weighted least squares a c ~ y in longdouble (float64 solves, refined)."""
    aw = (a * w[:, None]).astype(np.float64)
    c = np.zeros(a.shape[1], dtype=LD)
    for _ in range(6):
        res = (y - a @ c) * w
        d, *_ = np.linalg.lstsq(aw, res.astype(np.float64), rcond=None)
        c = c + d.astype(LD)
    return c


def fit(f, lo, hi, degrees, scale=None, nodes=4000, rounds=60, fixed=()):
    """Coefficients (float64, in `degrees` order) of the near-minimax fit of f on
    [lo, hi] in the error relative to `scale(t)` (default |f(t)|). `fixed`:
    (degree, value) pairs held at their float64 values (e.g. a leading 1)."""
    k = np.arange(nodes, dtype=LD)
    t = (LD(lo) + LD(hi)) / 2 + (LD(hi) - LD(lo)) / 2 * np.cos((2 * k + 1) * LD(math.pi) / (2 * nodes))
    y = f(t)
    sc = np.abs(y) if scale is None else scale(t)
    for dg, v in fixed:
        y = y - LD(v) * t ** dg
    free = [dg for dg in degrees if dg not in dict(fixed)]
    s = max(abs(LD(lo)), abs(LD(hi)))
    a = np.stack([(t / s) ** dg for dg in free], axis=1)     # columns scaled to [-1, 1]
    lw = np.ones(nodes, dtype=LD) / nodes
    best, c = None, None
    for _ in range(rounds):
        w = np.sqrt(lw) / sc
        cn = _solve(a, y, w)
        err = np.abs(y - a @ cn) / sc
        if best is None or err.max() < best:
            best, c = err.max(), cn
        lw = lw * err
        lw = np.maximum(lw / lw.sum(), LD(1e-30))     # keep every node in the fit
        lw = lw / lw.sum()
    out = dict(fixed)
    for dg, cv in zip(free, c):
        out[dg] = float(cv / s ** dg)
    return [out[dg] for dg in degrees]


def max_rel_error(f, lo, hi, degrees, coeffs, n=20001):
    """Max relative error of the float64 coefficients, evaluated in longdouble."""
    t = np.linspace(LD(lo), LD(hi), n)
    p = sum(LD(cv) * t ** dg for cv, dg in zip(coeffs, degrees))
    y = f(t)
    return float(np.max(np.abs(p - y) / np.abs(y)))


def _report(name, f, lo, hi, degrees, **kw):
    c = fit(f, lo, hi, degrees, **kw)
    e = max_rel_error(f, lo, hi, degrees, c)
    print(f"{name}: 2**{math.log2(e):.1f}\n  {tuple(c)}")
    return c


def series(first):
    """v -> sum v**k / (2k + first)!, k >= 0 (cosh's and sinh's tails without the
    cancellation of (cosh r - 1)/v)."""
    return lambda v: sum(v ** k / LD(math.factorial(2 * k + first)) for k in range(25))


def expm1_tail(r):
    """(e**r - 1 - r) / r**2 by its series."""
    return sum(r ** k / LD(math.factorial(k + 2)) for k in range(30))


def log2_1p_over(f):
    """log2(1 + f) / f."""
    fs = np.where(f == 0, LD(1e-30), f)
    return np.where(f == 0, 1 / np.log(LD(2)), np.log1p(fs) / fs / np.log(LD(2)))


def atanh_tail(w):
    """Q(w) = 2/5 + 2/7 w + ... (atanh(s) = s + s**3/3 + s**5 Q(s*s) / 2)."""
    return sum(2 * w ** n / LD(2 * n + 5) for n in range(40))


def tanh_tail(z):
    """(tanh(x) - x) / x**3, z = x*x (series below x = 0.05, where the difference
    cancels)."""
    x = np.sqrt(z)
    big = x > 0.05
    xb = np.where(big, x, LD(1))
    bern = [-1 / LD(3), 2 / LD(15), -17 / LD(315), 62 / LD(2835), -1382 / LD(155925),
            21844 / LD(6081075)]
    small = sum(c * z ** i for i, c in enumerate(bern))
    return np.where(big, (np.tanh(xb) - xb) / xb ** 3, small)


_HALF_LN2 = LD(math.log(2.0)) / 2 * LD(1.0002)        # |r| bound of the ln2 reductions, with margin
_SQRT_HALF = LD(math.sqrt(0.5))
# name: (function, lo, hi, degrees, fixed (degree, value) pairs): the tables of codegen/llvm
TABLES = {
    "vecmath_hyper._E f64": (series(2), 0, _HALF_LN2 ** 2, range(5), ()),
    "vecmath_hyper._O f64": (series(3), 0, _HALF_LN2 ** 2, range(5), ()),
    "vecmath_hyper._E f32": (series(2), 0, _HALF_LN2 ** 2, range(3), ()),
    "vecmath_hyper._O f32": (series(3), 0, _HALF_LN2 ** 2, range(3), ()),
    "mathfns f64 (1, EXP_Q)": (np.exp, -_HALF_LN2, _HALF_LN2, range(12), ((0, 1.0),)),
    "mathfns f32 (1, EXP_Q)": (np.exp, -_HALF_LN2, _HALF_LN2, range(7), ((0, 1.0),)),
    "vecmath_exp_two f64 (1, EXP2_Q)": (np.exp2, -0.5, 0.5, range(12), ((0, 1.0),)),
    "vecmath_exp_two f32 (1, EXP2_Q)": (np.exp2, -0.5, 0.5, range(7), ((0, 1.0),)),
    "vecmath_exp_minus_one.EXPM1_E f64": (expm1_tail, -_HALF_LN2, _HALF_LN2, range(11), ()),
    "vecmath_exp_minus_one.EXPM1_E f32": (expm1_tail, -_HALF_LN2, _HALF_LN2, range(6), ()),
    "vecmath_tanh._E32": (expm1_tail, -_HALF_LN2, _HALF_LN2, range(5), ()),
    "vecmath_tanh._P32": (tanh_tail, 0, LD(0.5493061443340549) ** 2 * LD(1.0001), range(5), ()),
    "vecmath_pow_single._LOG2": (log2_1p_over, _SQRT_HALF - 1, 2 * _SQRT_HALF - 1, range(12), ()),
    "vecmath_pow_single._EXP2": (np.exp2, -0.5, 0.5, range(8), ((0, 1.0),)),
    "vecmath_pow_double._Q": (atanh_tail, 0, ((1 - _SQRT_HALF) / (1 + _SQRT_HALF)) ** 2 * LD(1.0001),
                         range(8), ()),
}


def main():
    """Print every table of `TABLES` with its max relative error."""
    for name, (f, lo, hi, degrees, fixed) in TABLES.items():
        _report(name, f, lo, hi, list(degrees), fixed=fixed)


if __name__ == "__main__":
    main()
