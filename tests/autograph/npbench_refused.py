"""npbench kernels whose published NumPy form needs what the contract refuses.

In our own words, same algorithms and NumPy calls as the published NumPy
kernels. Each runs as plain NumPy (it works there) and, through
`ag.function`, raises the clear error the contract (docs/API.md) gives:

* azimint_hist: `float64 / int64` (histogram counts are int64), and hist
  (image processing): the float64 histogram density plus float32 colour
  planes: §3's TypeError naming the cast NumPy would have made;
* mandelbrot1, mandelbrot2: `float64 tensor * 1j`: §2, a Python complex
  with a non-complex tensor is a TypeError suggesting `ag.cast` (mandelbrot2
  would next meet `np.multiply(Z, Z, Z)`, whose `out` argument §9 refuses:
  tensors are immutable, assign the result);
* crc16: a loop variable that starts as a Python int becomes int32 and meets
  the uint8 data: §3's TypeError (with the loop-variable advice); NumPy
  keeps `crc` a Python int of any size;
* contour_integral: `np.linalg.inv` of a complex matrix (§9, LAPACK on
  complex matrices is not supported);
* banded_mmt: a loop counter over `range(A.shape[0])` (int32, as `len`,
  §9) minus an element of an int64 array: §3's TypeError (NumPy's counter
  is a Python int). Its size checks (`if not A.shape[0] == B.shape[0]:
  print(...); return None`) run as Python, the shapes being static.

`ERROR_CASES` maps a name to `(kernel, make_args, exception, regex)`;
`CASES` holds azimint_hist, hist and mandelbrot1 with the casts their
errors name, which then compile and match NumPy.
"""
import numpy as np


def azimint_hist(data, radius, npt):
    histu = np.histogram(radius, npt)[0]
    histw = np.histogram(radius, npt, weights=data)[0]
    return histw / histu


def crc16(data, poly=0x8408):
    crc = 0xFFFF
    for b in data:
        cur_byte = 0xFF & b
        for _ in range(0, 8):
            if (crc & 0x0001) ^ (cur_byte & 0x0001):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            cur_byte >>= 1
    crc = (~crc & 0xFFFF)
    crc = (crc << 8) | ((crc >> 8) & 0xFF)
    return crc & 0xFFFF


def mandelbrot1(xmin, xmax, ymin, ymax, xn, yn, maxiter, horizon=2.0):
    X = np.linspace(xmin, xmax, xn, dtype=np.float64)
    Y = np.linspace(ymin, ymax, yn, dtype=np.float64)
    C = X + Y[:, None] * 1j
    N = np.zeros(C.shape, dtype=np.int64)
    Z = np.zeros(C.shape, dtype=np.complex128)
    for n in range(maxiter):
        I = np.less(abs(Z), horizon)  # noqa: E741  (the published kernel's name)
        N[I] = n
        Z[I] = Z[I]**2 + C[I]
    N[N == maxiter - 1] = 0
    return Z, N


def mandelbrot2(xmin, xmax, ymin, ymax, xn, yn, itermax, horizon=2.0):
    Xi, Yi = np.mgrid[0:xn, 0:yn]
    X = np.linspace(xmin, xmax, xn, dtype=np.float64)[Xi]
    Y = np.linspace(ymin, ymax, yn, dtype=np.float64)[Yi]
    C = X + Y * 1j
    N_ = np.zeros(C.shape, dtype=np.int64)
    Z_ = np.zeros(C.shape, dtype=np.complex128)
    Xi = np.reshape(Xi, (xn * yn))
    Yi = np.reshape(Yi, (xn * yn))
    C = np.reshape(C, (xn * yn))
    Z = np.zeros(C.shape, np.complex128)
    for i in range(itermax):
        if not len(Z):
            break
        np.multiply(Z, Z, Z)
        np.add(Z, C, Z)
        I = abs(Z) > horizon  # noqa: E741  (the published kernel's name)
        N_[Xi[I], Yi[I]] = i + 1
        Z_[Xi[I], Yi[I]] = Z[I]
        np.logical_not(I, I)
        Z = Z[I]
        Xi, Yi = Xi[I], Yi[I]
        C = C[I]
    return Z_.T, N_.T


def contour_integral(NR, NM, slab_per_bc, Ham, int_pts, Y):
    P0 = np.zeros((NR, NM), dtype=np.complex128)
    P1 = np.zeros((NR, NM), dtype=np.complex128)
    for z in int_pts:
        Tz = np.zeros((NR, NR), dtype=np.complex128)
        for n in range(slab_per_bc + 1):
            zz = np.power(z, slab_per_bc / 2 - n)
            Tz += zz * Ham[n]
        if NR == NM:
            X = np.linalg.inv(Tz)
        else:
            X = np.linalg.solve(Tz, Y)
        if abs(z) < 1.0:
            X = -X
        P0 += X
        P1 += z * X
    return P0, P1


def band_transpose(A, below, above):
    # A holds row i's band (columns i - below ... i + above) left-aligned
    n, width = A.shape[0], A.shape[1]
    out = np.zeros([n, width])
    first = np.array(list(map(lambda r: max(r - above, 0), range(0, n))))
    for r in range(0, n):
        lo = max(r - below, 0)
        hi = min(n, r + above + 1)
        for c in range(0, hi - lo):
            col = c + lo
            out[col][r - first[col]] = A[r][c]
    return out


def band_times_transpose(A, a_below, a_above, B, b_below, b_above):
    if not A.shape[0] == B.shape[0]:
        print(f"banded product: sizes {A.shape[0]} and {B.shape[0]} differ")
        return None
    n = A.shape[0]
    below = max(-n, min(a_below + b_above, n - 1))
    above = max(-n, min(a_above + b_below, n - 1))
    out = np.zeros([n, min(n, 1 + below + above)])
    for r in range(0, n):
        lo = max(r - below, 0)
        hi = min(n, r + above + 1)
        a_first = max(0, r - a_below)
        a_count = 1 + min(n - r - 1, a_above) + min(r, a_below)
        for c in range(lo, hi):
            b_first = max(0, c - b_below)
            b_count = 1 + min(n - c - 1, b_above) + min(c, b_below)
            skip_a = a_first - b_first if a_first >= b_first else 0
            skip_b = b_first - a_first if a_first < b_first else 0
            span = min(a_count - skip_b, b_count - skip_a)
            out[r][c - lo] = A[r][skip_b:skip_b + span] @ B[c][skip_a:skip_a + span]
    return out, below, above


def banded_mmt(A, a_below, a_above, B, b_below, b_above):
    # A @ B @ A.T for banded A and B stored by their bands
    if not A.shape[0] == B.shape[0]:
        print(f"banded product: sizes {A.shape[0]} and {B.shape[0]} differ")
        return None
    Bt = band_transpose(B, b_below, b_above)
    AB, below, above = band_times_transpose(A, a_below, a_above, Bt, b_above, b_below)
    return band_times_transpose(AB, below, above, A, a_below, a_above)


def hist(image, output):
    image = image.astype(np.float32)
    gray = np.empty(image.shape[:2], dtype=np.float32)
    gray[:, :] = 0.299 * image[:, :, 0] + 0.587 * image[:, :, 1] + 0.114 * image[:, :, 2]
    Cr = (image[:, :, 0] - gray) * 0.713 + 128
    Cb = (image[:, :, 2] - gray) * 0.564 + 128
    binned_gray = np.clip(gray, 0, 255).astype(np.uint8)
    hist, bins = np.histogram(binned_gray, bins=np.arange(257), density=True)
    cdf = np.cumsum(hist)
    eq = cdf[binned_gray]
    eq = eq * 255.0
    eq = np.clip(eq, 0, 255)
    output[:, :, 0] = np.clip(eq + (Cr - 128) * 1.4, 0, 255).astype(np.uint8)
    output[:, :, 1] = np.clip(eq - 0.343 * (Cb - 128) - 0.711 * (Cr - 128), 0, 255).astype(np.uint8)
    output[:, :, 2] = np.clip(eq + 1.765 * (Cb - 128), 0, 255).astype(np.uint8)
    return output  # published: writes output and returns it


# Kernels above as their errors suggest (the casts they name): they
# then compile and match NumPy (CASES).

def hist_cast(image, output):
    image = image.astype(np.float32)
    gray = np.empty(image.shape[:2], dtype=np.float32)
    gray[:, :] = 0.299 * image[:, :, 0] + 0.587 * image[:, :, 1] + 0.114 * image[:, :, 2]
    Cr = (image[:, :, 0] - gray) * 0.713 + 128
    Cb = (image[:, :, 2] - gray) * 0.564 + 128
    binned_gray = np.clip(gray, 0, 255).astype(np.uint8)
    hist, bins = np.histogram(binned_gray, bins=np.arange(257), density=True)
    cdf = np.cumsum(hist)
    eq = cdf[binned_gray]
    eq = eq * 255.0
    eq = np.clip(eq, 0, 255).astype(np.float32)   # the cast the TypeError names
    output[:, :, 0] = np.clip(eq + (Cr - 128) * 1.4, 0, 255).astype(np.uint8)
    output[:, :, 1] = np.clip(eq - 0.343 * (Cb - 128) - 0.711 * (Cr - 128), 0, 255).astype(np.uint8)
    output[:, :, 2] = np.clip(eq + 1.765 * (Cb - 128), 0, 255).astype(np.uint8)
    return output  # published: writes output and returns it


def azimint_hist_cast(data, radius, npt):
    histu = np.histogram(radius, npt)[0]
    histw = np.histogram(radius, npt, weights=data)[0]
    return histw / histu.astype(np.float64)   # the cast the TypeError names


def mandelbrot1_cast(xmin, xmax, ymin, ymax, xn, yn, maxiter, horizon=2.0):
    X = np.linspace(xmin, xmax, xn, dtype=np.float64)
    Y = np.linspace(ymin, ymax, yn, dtype=np.float64)
    # the cast the TypeError names, for both float operands
    C = X.astype(np.complex128) + Y[:, None].astype(np.complex128) * 1j
    N = np.zeros(C.shape, dtype=np.int64)
    Z = np.zeros(C.shape, dtype=np.complex128)
    for n in range(maxiter):
        I = np.less(abs(Z), horizon)  # noqa: E741  (the published kernel's name)
        N[I] = n
        Z[I] = Z[I]**2 + C[I]
    N[N == maxiter - 1] = 0
    return Z, N


def _c(rng, *shape):
    return rng.random(shape) + 1j * rng.random(shape)


ERROR_CASES = {
    "azimint_hist": (azimint_hist, lambda g: (g.random(40), g.random(40), 5), TypeError,
                     r"divide: the operands have different dtypes float64 and int64; NumPy would "
                     r"have promoted to float64.*ag\.cast\(x, ag\.float64\)"),
    "hist": (hist, lambda g: (g.integers(0, 256, (5, 6, 3)).astype(np.uint8),
                              np.zeros((5, 6, 3), np.uint8)), TypeError,
             r"add: the operands have different dtypes float64 and float32; NumPy would have "
             r"promoted to float64"),
    "crc16": (crc16, lambda g: (g.integers(0, 256, 10).astype(np.uint8),), TypeError,
              r"bitwise_xor: the operands have different dtypes int32 and uint8.*"
              r"start it as a tensor of that dtype"),
    "mandelbrot1": (mandelbrot1, lambda g: (-2.0, 0.5, -1.25, 1.25, 7, 6, 8), TypeError,
                    r"multiply: cannot use the complex 1j with a tensor of dtype float64; use "
                    r"ag\.cast\(x, ag\.complex128\)"),
    "mandelbrot2": (mandelbrot2, lambda g: (-2.0, 0.5, -1.25, 1.25, 7, 6, 8), TypeError,
                    r"multiply: cannot use the complex 1j with a tensor of dtype float64"),
    "contour_integral": (contour_integral, lambda g: (
        3, 3, 2, _c(g, 3, 3, 3), np.exp(1j * np.linspace(0, 3, 4)) * 1.2, _c(g, 3, 3)),
        TypeError, r"np\.linalg\.inv: complex matrices has no autograph equivalent"),
    "banded_mmt": (banded_mmt, lambda g: (g.random((10, 8)), 3, 4, g.random((10, 8)), 5, 2),
                   TypeError, r"subtract: the operands have different dtypes int32 and int64"),
}

CASES = {
    "azimint_hist_cast": (azimint_hist_cast, ERROR_CASES["azimint_hist"][1]),
    "mandelbrot1_cast": (mandelbrot1_cast, ERROR_CASES["mandelbrot1"][1]),
    "hist_cast": (hist_cast, ERROR_CASES["hist"][1]),
}
