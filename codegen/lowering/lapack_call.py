"""`np.linalg` by LAPACK: inv, solve, det, slogdet, cholesky, eigh, qr, svd, lstsq.

Each op calls, through the process table `autograph_lapack_table`
(`abi/lapack.py`: an external global resolved when the code is loaded), the
double-precision routine `numpy.linalg` itself calls, with the same
arguments, so compiled results are NumPy's bit for bit:

* NumPy computes float32 in float64 and rounds the results
  (`numpy.linalg._commonType`); so does every op here;
* NumPy hands LAPACK each matrix in column-major order (its "linearize"
  copy); here too: the input is copied transposed into a float64 scratch
  buffer (LAPACK overwrites it), and results are copied back transposed
  (and rounded). The copies are O(n^2) against the routines' O(n^3);
* workspaces are sized by the same query (`lwork = -1`) NumPy makes, since
  LAPACK's blocking depends on the workspace it is given;
* det is sign * exp(sum(log|u_ii|)) from `dgetrf`, as NumPy computes it
  (not the product of the diagonal): bit-exact, and no overflow.

Matrices may carry leading batch dims (one call per matrix; scratch
buffers are allocated once per op). Sizes known only at run time are
checked there (square, matching rows). A run-time failure (singular
matrix, not positive definite, no convergence, no LAPACK in the process)
is an InvalidArgumentError with NumPy's LinAlgError message and the user's
line (`Lowerer.fail_if`, which also frees every buffer the kernel holds),
never a crash or a garbage result.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir

from autograph.tracer.core.ir import Op
from autograph.tracer.core.types import float64, int64

from . import memory
from ..abi import lapack
from .blas_call import _Callee
from ..llvm.irutil import declare, eq, for_range, mul, product, smax, smin
from ..llvm.ltypes import F32, F64, I8, I32, I64, PTR, VOID, Tensor, i64, load_elem, store_elem
from .registry import register

__all__ = ["lower_inverse", "lower_solve", "lower_det", "lower_slogdet", "lower_cholesky",
           "lower_eigh", "lower_qr", "lower_svd", "lower_lstsq"]

_FT = {   # Fortran prototypes: every argument by pointer, then the hidden lengths of chars
    lapack.GETRF: ir.FunctionType(VOID, [PTR] * 6),
    lapack.GESV: ir.FunctionType(VOID, [PTR] * 8),
    lapack.POTRF: ir.FunctionType(VOID, [PTR] * 5 + [I64]),
    lapack.SYEVD: ir.FunctionType(VOID, [PTR] * 11 + [I64] * 2),
    lapack.GEQRF: ir.FunctionType(VOID, [PTR] * 8),
    lapack.ORGQR: ir.FunctionType(VOID, [PTR] * 9),
    lapack.GESDD: ir.FunctionType(VOID, [PTR] * 14 + [I64]),
    lapack.GELSD: ir.FunctionType(VOID, [PTR] * 14),
}


class _Call:
    """One op's LAPACK calls: the routines (checked non-null), and pointers
    to argument values (Fortran passes everything by reference)."""

    def __init__(self, lw, op: Op, name: str):
        self.lw, self.op, self.name = lw, op, name
        self.info = lw.alloca(I64, name="lapack.info")

    def routine(self, slot: int):
        lw = self.lw
        table = lw.module.globals.get(lapack.TABLE_SYMBOL)
        ty = ir.ArrayType(PTR, lapack.SLOTS)
        if table is None:
            table = ir.GlobalVariable(lw.module, ty, lapack.TABLE_SYMBOL)
            table.align = 8        # external: resolved when the code is loaded
        b = lw.b
        fn = b.load(b.gep(table, [i64(0), i64(slot)], inbounds=True, source_etype=ty), typ=PTR,
                    name=f"lapack.{lapack.NAMES[slot]}")
        lw.fail_if(b.icmp_unsigned("==", fn, ir.Constant(PTR, None)), self.op,
                   lapack.NOT_FOUND.replace("{op}", self.name), literal=True)
        return _Callee(fn, _FT[slot])

    def ref(self, value, typ=I64):
        """A stack slot holding `value` (an i64, or a char as I8)."""
        slot = self.lw.alloca(typ)
        if typ is I8:
            value = ir.Constant(I8, ord(value))
        self.lw.b.store(value, slot)
        return slot

    def call(self, fn, args) -> ir.Value:
        """Call `fn` with `args` (the info slot is added by the caller); the info value."""
        b = self.lw.b
        b.store(i64(0), self.info)
        b.call(fn, args)
        return b.load(self.info, typ=I64)

    def check(self, info, message: str) -> None:
        """info > 0 is `message` (NumPy's LinAlgError); info < 0 an argument LAPACK refused."""
        b, lw = self.lw.b, self.lw
        lw.fail_if(b.icmp_signed(">", info, i64(0)), self.op, f"{self.name}: {message}", literal=True)
        self.illegal(info)

    def illegal(self, info) -> None:
        self.lw.fail_if(self.lw.b.icmp_signed("<", info, i64(0)), self.op,
                        self.name + ": LAPACK refused argument {0} (a bug in autograph)",
                        [self.lw.b.neg(info)])

    def query(self, fn, args_before, args_after):
        """The workspace size LAPACK asks for (a call with lwork = -1), as NumPy queries it."""
        lw, b = self.lw, self.lw.b
        size = lw.alloca(F64, name="lapack.lwork")
        b.store(ir.Constant(F64, 0.0), size)
        args = list(args_before) + [size, self.ref(i64(-1))] + list(args_after)
        self.illegal(self.call(fn, args))
        return b.fptosi(b.load(size, typ=F64), I64)


def _check_square(lw, op, name: str, rows, cols) -> None:
    same = eq(lw.b, rows, cols)
    if same is not True:
        lw.fail_if(True if same is False else lw.b.not_(same), op,
                   name + ": Last 2 dimensions of the array must be square (got {0} x {1})",
                   [rows, cols])


def _scratch(lw, op, count, dtype=float64):
    return memory.alloc(lw, op, dtype, [count])


def _to_fortran(lw, x: Tensor, offset, rows, cols, dst, ld) -> None:
    """dst[j*ld + i] = float64(x[offset + i*cols + j]): one matrix, column-major."""
    b = lw.b
    with for_range(b, rows, name="r") as i:
        row = b.add(offset, mul(b, i, cols))
        with for_range(b, cols, name="c") as j:
            v = load_elem(b, x.ptr, b.add(row, j), x.dtype)
            if x.dtype.itemsize != 8:
                v = b.fpext(v, F64)
            store_elem(b, v, dst, b.add(mul(b, j, ld), i), float64)


def _from_fortran(lw, src, ld, rows, cols, out: Tensor, offset, keep=None) -> None:
    """out[offset + i*cols + j] = src[j*ld + i] rounded to out's dtype; where
    `keep(i, j)` (an i1) is false, 0 instead (a triangle)."""
    b = lw.b
    with for_range(b, rows, name="r") as i:
        row = b.add(offset, mul(b, i, cols))
        with for_range(b, cols, name="c") as j:
            v = load_elem(b, src, b.add(mul(b, j, ld), i), float64)
            if keep is not None:
                v = b.select(keep(i, j), v, ir.Constant(F64, 0.0))
            if out.dtype.itemsize != 8:
                v = b.fptrunc(v, F32)
            store_elem(b, v, out.ptr, b.add(row, j), out.dtype)


def _identity(lw, dst, n) -> None:
    """dst[:n*n] = the n x n identity (float64)."""
    b = lw.b
    memory.memset_zero(lw, dst, mul(b, mul(b, n, n), i64(8)))
    with for_range(b, n, name="d") as i:
        store_elem(b, ir.Constant(F64, 1.0), dst, b.mul(i, b.add(n, i64(1))), float64)


def _round(lw, v, dtype):
    return lw.b.fptrunc(v, F32) if dtype.itemsize != 8 else v


def _each_matrix(lw, count, body) -> None:
    """body(t) for t in range(count) (straight-line code when count is 1)."""
    if count is None:
        body(i64(0))
        return
    with for_range(lw.b, count, name="mat", cold=True) as t:
        body(t)


def _count(lw, dims):
    return product(lw.b, dims) if dims else None


@register("matrix_inverse")
def lower_inverse(lw, op: Op, args: list) -> list:
    (a,) = args
    b = lw.b
    call = _Call(lw, op, "inv")
    n, n2 = a.dims[-2:]
    _check_square(lw, op, "inv", n, n2)
    gesv = call.routine(lapack.GESV)
    dtype = op.results[0].type.dtype
    out = Tensor(dtype, memory.alloc(lw, op, dtype, a.dims), list(a.dims))
    nn = mul(b, n, n)
    work_a, work_x, ipiv = _scratch(lw, op, nn), _scratch(lw, op, nn), _scratch(lw, op, n, int64)
    pn, pld = call.ref(n), call.ref(smax(b, n, i64(1)))

    def body(t):
        offset = mul(b, t, nn)
        _to_fortran(lw, a, offset, n, n, work_a, n)
        _identity(lw, work_x, n)   # NumPy's inv solves A X = I
        info = call.call(gesv, [pn, pn, work_a, pld, ipiv, work_x, pld, call.info])
        call.check(info, "Singular matrix")
        _from_fortran(lw, work_x, n, n, n, out, offset)

    _each_matrix(lw, _count(lw, a.dims[:-2]), body)
    for p in (work_a, work_x, ipiv):
        memory.free(lw, p)
    return [out]


@register("matrix_solve")
def lower_solve(lw, op: Op, args: list) -> list:
    a, rhs = args
    b = lw.b
    call = _Call(lw, op, "solve")
    n, n2 = a.dims[-2:]
    _check_square(lw, op, "solve", n, n2)
    rows, k = rhs.dims[-2:]
    for i, (da, db) in enumerate(zip(list(a.dims[:-2]) + [n], list(rhs.dims[:-2]) + [rows])):
        same = eq(b, da, db)
        if same is not True:
            lw.fail_if(True if same is False else b.not_(same), op,
                       "solve: a and b do not match: dimension %d of a is {0}, of b {1}" % i,
                       [da, db])
    gesv = call.routine(lapack.GESV)
    dtype = op.results[0].type.dtype
    out = Tensor(dtype, memory.alloc(lw, op, dtype, rhs.dims), list(rhs.dims))
    nn, nk = mul(b, n, n), mul(b, n, k)
    work_a, work_x, ipiv = _scratch(lw, op, nn), _scratch(lw, op, nk), _scratch(lw, op, n, int64)
    pn, pk, pld = call.ref(n), call.ref(k), call.ref(smax(b, n, i64(1)))

    def body(t):
        _to_fortran(lw, a, mul(b, t, nn), n, n, work_a, n)
        _to_fortran(lw, rhs, mul(b, t, nk), n, k, work_x, n)
        info = call.call(gesv, [pn, pk, work_a, pld, ipiv, work_x, pld, call.info])
        call.check(info, "Singular matrix")
        _from_fortran(lw, work_x, n, n, k, out, mul(b, t, nk))

    _each_matrix(lw, _count(lw, a.dims[:-2]), body)
    for p in (work_a, work_x, ipiv):
        memory.free(lw, p)
    return [out]


def _libm(lw, name: str):
    return declare(lw.module, name, F64, [F64])


def _slogdet(lw, op: Op, a: Tensor, name: str, each):
    """For each matrix t of `a`: each(t, sign, logabsdet) (float64 values),
    computed as NumPy's `slogdet_single_element` does."""
    b = lw.b
    call = _Call(lw, op, name)
    n, n2 = a.dims[-2:]
    _check_square(lw, op, name, n, n2)
    getrf = call.routine(lapack.GETRF)
    nn = mul(b, n, n)
    work_a, ipiv = _scratch(lw, op, nn), _scratch(lw, op, n, int64)
    pn, pld = call.ref(n), call.ref(smax(b, n, i64(1)))
    sign_slot, log_slot = lw.alloca(F64, "slogdet.sign"), lw.alloca(F64, "slogdet.log")
    log = _libm(lw, "log")

    def body(t):
        _to_fortran(lw, a, mul(b, t, nn), n, n, work_a, n)
        info = call.call(getrf, [pn, pn, work_a, pld, ipiv, call.info])
        call.illegal(info)
        # the permutation's sign: one swap per pivot that is not its own row (1-based)
        b.store(ir.Constant(F64, 1.0), sign_slot)
        b.store(ir.Constant(F64, 0.0), log_slot)
        with for_range(b, n, name="p", cold=True) as i:
            piv = load_elem(b, ipiv, i, int64)
            s = b.load(sign_slot, typ=F64)
            swapped = b.icmp_signed("!=", piv, b.add(i, i64(1)))
            b.store(b.select(swapped, b.fneg(s), s), sign_slot)
        # sum of log|u_ii| in order (a cold loop: never vectorised, so never reassociated)
        with for_range(b, n, name="u", cold=True) as i:
            d = load_elem(b, work_a, b.mul(i, b.add(n, i64(1))), float64)
            neg = b.fcmp_ordered("<", d, ir.Constant(F64, 0.0))
            s = b.load(sign_slot, typ=F64)
            b.store(b.select(neg, b.fneg(s), s), sign_slot)
            d = b.select(neg, b.fneg(d), d)
            b.store(b.fadd(b.load(log_slot, typ=F64), b.call(log, [d])), log_slot)
        singular = b.icmp_signed(">", info, i64(0))    # an exactly zero pivot: NumPy's (0, -inf)
        sign = b.select(singular, ir.Constant(F64, 0.0), b.load(sign_slot, typ=F64))
        logdet = b.select(singular, ir.Constant(F64, -math.inf), b.load(log_slot, typ=F64))
        each(t, sign, logdet)

    _each_matrix(lw, _count(lw, a.dims[:-2]), body)
    for p in (work_a, ipiv):
        memory.free(lw, p)


def _scalar_results(lw, op: Op, a: Tensor, count: int):
    """Result buffers for `count` per-matrix scalars (None each when unbatched)."""
    lead = list(a.dims[:-2])
    if not lead:
        return [None] * count
    dtype = op.results[0].type.dtype
    return [Tensor(dtype, memory.alloc(lw, op, dtype, lead), lead) for _ in range(count)]


@register("matrix_determinant")
def lower_det(lw, op: Op, args: list) -> list:
    (a,) = args
    b = lw.b
    dtype = op.results[0].type.dtype
    (out,) = _scalar_results(lw, op, a, 1)
    slot = lw.alloca(F64, "det")
    exp = _libm(lw, "exp")

    def each(t, sign, logdet):
        det = _round(lw, b.fmul(sign, b.call(exp, [logdet])), dtype)
        if out is None:
            b.store(b.fpext(det, F64) if dtype.itemsize != 8 else det, slot)
        else:
            store_elem(b, det, out.ptr, t, dtype)

    _slogdet(lw, op, a, "det", each)
    if out is None:
        return [_round(lw, b.load(slot, typ=F64), dtype)]
    return [out]


@register("log_matrix_determinant")
def lower_slogdet(lw, op: Op, args: list) -> list:
    (a,) = args
    b = lw.b
    dtype = op.results[0].type.dtype
    outs = _scalar_results(lw, op, a, 2)
    slots = [lw.alloca(F64, "slogdet.s"), lw.alloca(F64, "slogdet.l")]

    def each(t, sign, logdet):
        for out, slot, v in zip(outs, slots, (sign, logdet)):
            if out is None:
                b.store(v, slot)
            else:
                store_elem(b, _round(lw, v, dtype), out.ptr, t, dtype)

    _slogdet(lw, op, a, "slogdet", each)
    if outs[0] is None:
        return [_round(lw, b.load(s, typ=F64), dtype) for s in slots]
    return outs


@register("cholesky")
def lower_cholesky(lw, op: Op, args: list) -> list:
    (a,) = args
    b = lw.b
    upper = bool(op.attrs["upper"])
    call = _Call(lw, op, "cholesky")
    n, n2 = a.dims[-2:]
    _check_square(lw, op, "cholesky", n, n2)
    potrf = call.routine(lapack.POTRF)
    dtype = op.results[0].type.dtype
    out = Tensor(dtype, memory.alloc(lw, op, dtype, a.dims), list(a.dims))
    nn = mul(b, n, n)
    work_a = _scratch(lw, op, nn)
    puplo, pn, pld = call.ref("U" if upper else "L", I8), call.ref(n), call.ref(smax(b, n, i64(1)))

    def keep(i, j):   # the factor's triangle; LAPACK leaves the input in the other one
        return b.icmp_signed(">=" if upper else "<=", j, i)

    def body(t):
        offset = mul(b, t, nn)
        _to_fortran(lw, a, offset, n, n, work_a, n)
        info = call.call(potrf, [puplo, pn, work_a, pld, call.info, i64(1)])
        call.check(info, "Matrix is not positive definite")
        _from_fortran(lw, work_a, n, n, n, out, offset, keep)

    _each_matrix(lw, _count(lw, a.dims[:-2]), body)
    memory.free(lw, work_a)
    return [out]


@register("self_adjoint_eig")
def lower_eigh(lw, op: Op, args: list) -> list:
    (a,) = args
    b = lw.b
    vectors = bool(op.attrs["compute_v"])
    name = "eigh" if vectors else "eigvalsh"
    call = _Call(lw, op, name)
    n, n2 = a.dims[-2:]
    _check_square(lw, op, name, n, n2)
    syevd = call.routine(lapack.SYEVD)
    dtype = op.results[0].type.dtype
    lead = list(a.dims[:-2])
    w_out = Tensor(dtype, memory.alloc(lw, op, dtype, lead + [n]), lead + [n])
    v_out = Tensor(dtype, memory.alloc(lw, op, dtype, a.dims), list(a.dims)) if vectors else None
    nn = mul(b, n, n)
    work_a, w = _scratch(lw, op, nn), _scratch(lw, op, smax(b, n, i64(1)))
    pjobz = call.ref("V" if vectors else "N", I8)
    puplo = call.ref("L" if op.attrs["lower"] else "U", I8)
    pn, pld = call.ref(n), call.ref(smax(b, n, i64(1)))
    # workspace query (both sizes at once), as NumPy's init_syevd
    wq, iwq = lw.alloca(F64, "syevd.lwork"), lw.alloca(I64, "syevd.liwork")
    b.store(ir.Constant(F64, 0.0), wq)
    b.store(i64(0), iwq)
    minus_one = call.ref(i64(-1))
    call.illegal(call.call(syevd, [pjobz, puplo, pn, work_a, pld, w, wq, minus_one, iwq, minus_one,
                                   call.info, i64(1), i64(1)]))
    lwork = smax(b, b.fptosi(b.load(wq, typ=F64), I64), i64(1))
    liwork = smax(b, b.load(iwq, typ=I64), i64(1))
    work, iwork = _scratch(lw, op, lwork), _scratch(lw, op, liwork, int64)
    plwork, pliwork = call.ref(lwork), call.ref(liwork)

    def body(t):
        offset = mul(b, t, nn)
        _to_fortran(lw, a, offset, n, n, work_a, n)
        info = call.call(syevd, [pjobz, puplo, pn, work_a, pld, w, work, plwork, iwork, pliwork,
                                 call.info, i64(1), i64(1)])
        call.check(info, "Eigenvalues did not converge")
        with for_range(b, n, name="w") as i:
            v = load_elem(b, w, i, float64)
            store_elem(b, _round(lw, v, dtype), w_out.ptr, b.add(mul(b, t, n), i), dtype)
        if vectors:   # column j of the Fortran matrix is the j-th eigenvector: v[:, j]
            _from_fortran(lw, work_a, n, n, n, v_out, offset)

    _each_matrix(lw, _count(lw, lead), body)
    for p in (work_a, w, work, iwork):
        memory.free(lw, p)
    return [w_out, v_out] if vectors else [w_out]


@register("qr")
def lower_qr(lw, op: Op, args: list) -> list:
    """NumPy's qr: dgeqrf (`qr_r_raw`), then dorgqr on the factored matrix
    (`qr_reduced`, or `qr_complete` when mode='complete' and m > n)."""
    (a,) = args
    b = lw.b
    full = bool(op.attrs["full"])
    call = _Call(lw, op, "qr")
    m, n = a.dims[-2:]
    geqrf, orgqr = call.routine(lapack.GEQRF), call.routine(lapack.ORGQR)
    dtype = op.results[0].type.dtype
    lead = list(a.dims[:-2])
    k = smin(b, m, n)
    mc = m if full else k        # Q's columns and R's rows (m when complete: m > n or m == k)
    q_out = Tensor(dtype, memory.alloc(lw, op, dtype, lead + [m, mc]), lead + [m, mc])
    r_out = Tensor(dtype, memory.alloc(lw, op, dtype, lead + [mc, n]), lead + [mc, n])
    ld = smax(b, m, i64(1))
    mn, mmc = mul(b, m, n), mul(b, m, mc)
    work_a, tau = _scratch(lw, op, mn), _scratch(lw, op, smax(b, k, i64(1)))
    work_q = _scratch(lw, op, mmc)
    pm, pn, pk, pmc, pld = call.ref(m), call.ref(n), call.ref(k), call.ref(mc), call.ref(ld)
    # workspaces: max(1, columns, the query), as NumPy's init_geqrf / init_gqr
    q1 = call.query(geqrf, [pm, pn, work_a, pld, tau], [call.info])
    q2 = call.query(orgqr, [pm, pmc, pk, work_q, pld, tau], [call.info])
    lwork1 = smax(b, smax(b, q1, n), i64(1))
    lwork2 = smax(b, smax(b, q2, mc), i64(1))
    work = _scratch(lw, op, smax(b, lwork1, lwork2))
    pl1, pl2 = call.ref(lwork1), call.ref(lwork2)

    def body(t):
        _to_fortran(lw, a, mul(b, t, mn), m, n, work_a, ld)
        call.illegal(call.call(geqrf, [pm, pn, work_a, pld, tau, work, pl1, call.info]))
        # R: the upper triangle of the first mc rows
        _from_fortran(lw, work_a, ld, mc, n, r_out, mul(b, t, mul(b, mc, n)),
                      lambda i, j: b.icmp_signed(">=", j, i))
        # Q starts as the reflectors (the first min(n, mc) columns of the factored matrix)
        memory.memset_zero(lw, work_q, mul(b, mmc, i64(8)))
        memory.memcpy(lw, work_q, work_a, mul(b, mul(b, ld, smin(b, n, mc)), i64(8)))
        call.illegal(call.call(orgqr, [pm, pmc, pk, work_q, pld, tau, work, pl2, call.info]))
        _from_fortran(lw, work_q, ld, m, mc, q_out, mul(b, t, mmc))

    _each_matrix(lw, _count(lw, lead), body)
    for p in (work_a, tau, work_q, work):
        memory.free(lw, p)
    return [q_out, r_out]


@register("svd")
def lower_svd(lw, op: Op, args: list) -> list:
    """NumPy's svd: dgesdd with jobz 'A' (full_matrices), 'S' or 'N' (no u, vh)."""
    (a,) = args
    b = lw.b
    full, uv = bool(op.attrs["full_matrices"]), bool(op.attrs["compute_uv"])
    call = _Call(lw, op, "svd")
    m, n = a.dims[-2:]
    gesdd = call.routine(lapack.GESDD)
    dtype = op.results[0].type.dtype
    lead = list(a.dims[:-2])
    k = smin(b, m, n)
    ucols, vrows = (m, n) if full else (k, k)
    ld = smax(b, m, i64(1))
    ldvt = smax(b, vrows, i64(1))
    s_out = Tensor(dtype, memory.alloc(lw, op, dtype, lead + [k]), lead + [k])
    if uv:
        u_out = Tensor(dtype, memory.alloc(lw, op, dtype, lead + [m, ucols]), lead + [m, ucols])
        v_out = Tensor(dtype, memory.alloc(lw, op, dtype, lead + [vrows, n]), lead + [vrows, n])
        work_u, work_v = _scratch(lw, op, mul(b, m, ucols)), _scratch(lw, op, mul(b, vrows, n))
    else:
        work_u = work_v = _scratch(lw, op, i64(1))
    mn = mul(b, m, n)
    work_a, s = _scratch(lw, op, mn), _scratch(lw, op, smax(b, k, i64(1)))
    iwork = _scratch(lw, op, smax(b, mul(b, k, i64(8)), i64(1)), int64)
    pjobz = call.ref(("A" if full else "S") if uv else "N", I8)
    pm, pn, pld = call.ref(m), call.ref(n), call.ref(ld)
    pldu, pldvt = call.ref(ld if uv else i64(1)), call.ref(ldvt if uv else i64(1))
    head = [pjobz, pm, pn, work_a, pld, s, work_u, pldu, work_v, pldvt]
    lwork = smax(b, call.query(gesdd, head, [iwork, call.info, i64(1)]), i64(1))
    work = _scratch(lw, op, lwork)
    plwork = call.ref(lwork)

    def body(t):
        _to_fortran(lw, a, mul(b, t, mn), m, n, work_a, ld)
        if uv and full:   # an empty matrix (dgesdd returns at once): identities, as NumPy
            _identity(lw, work_u, m)
            _identity(lw, work_v, n)
        info = call.call(gesdd, head + [work, plwork, iwork, call.info, i64(1)])
        call.check(info, "SVD did not converge")
        with for_range(b, k, name="s") as i:
            v = load_elem(b, s, i, float64)
            store_elem(b, _round(lw, v, dtype), s_out.ptr, b.add(mul(b, t, k), i), dtype)
        if uv:
            _from_fortran(lw, work_u, ld, m, ucols, u_out, mul(b, t, mul(b, m, ucols)))
            _from_fortran(lw, work_v, ldvt, vrows, n, v_out, mul(b, t, mul(b, vrows, n)))

    _each_matrix(lw, _count(lw, lead), body)
    for p in {id(x): x for x in (work_a, s, iwork, work, work_u, work_v)}.values():
        memory.free(lw, p)
    return [u_out, s_out, v_out] if uv else [s_out]


@register("lstsq")
def lower_lstsq(lw, op: Op, args: list) -> list:
    """NumPy's lstsq (`_umath_linalg.lstsq`): dgelsd on a (m x n) and b copied
    into a max(m, n) x k buffer (zeroed: m == 0 gives x = 0, as NumPy sets);
    residuals are the column sums of squares of rows n.. of the solution
    buffer when the rank is n and m > n (NumPy drops them otherwise)."""
    a, rhs = args
    b = lw.b
    call = _Call(lw, op, "lstsq")
    m, n = a.dims
    m2, k = rhs.dims
    same = eq(b, m, m2)
    if same is not True:
        lw.fail_if(True if same is False else b.not_(same), op,
                   "lstsq: Incompatible dimensions (a has {0} rows, b {1})", [m, m2])
    gelsd = call.routine(lapack.GELSD)
    dtype = op.results[0].type.dtype
    mx, kk = smax(b, m, n), smin(b, m, n)
    lda, ldb = smax(b, m, i64(1)), smax(b, mx, i64(1))
    work_a, work_b = _scratch(lw, op, mul(b, m, n)), _scratch(lw, op, mul(b, ldb, k))
    s = _scratch(lw, op, smax(b, kk, i64(1)))
    rcond_slot = lw.alloca(F64, "lstsq.rcond")
    rcond = op.attrs["rcond"]
    if rcond is None:   # NumPy: finfo(float64).eps * max(n, m), in float64
        rcond_v = b.fmul(ir.Constant(F64, float(np.finfo(np.float64).eps)), b.sitofp(mx, F64))
    else:
        rcond_v = ir.Constant(F64, float(rcond))
    b.store(rcond_v, rcond_slot)
    rank_slot = lw.alloca(I64, "lstsq.rank")
    b.store(i64(0), rank_slot)
    pm, pn, pk, plda, pldb = call.ref(m), call.ref(n), call.ref(k), call.ref(lda), call.ref(ldb)
    head = [pm, pn, pk, work_a, plda, work_b, pldb, s, rcond_slot, rank_slot]
    wq, iwq = lw.alloca(F64, "gelsd.lwork"), lw.alloca(I64, "gelsd.liwork")
    b.store(ir.Constant(F64, 0.0), wq)
    b.store(i64(0), iwq)
    call.illegal(call.call(gelsd, head + [wq, call.ref(i64(-1)), iwq, call.info]))
    lwork = smax(b, b.fptosi(b.load(wq, typ=F64), I64), i64(1))
    liwork = smax(b, b.load(iwq, typ=I64), i64(1))
    work, iwork = _scratch(lw, op, lwork), _scratch(lw, op, liwork, int64)
    _to_fortran(lw, a, i64(0), m, n, work_a, lda)
    memory.memset_zero(lw, work_b, mul(b, mul(b, ldb, k), i64(8)))
    _to_fortran(lw, rhs, i64(0), m, k, work_b, ldb)
    info = call.call(gelsd, head + [work, call.ref(lwork), iwork, call.info])
    call.check(info, "SVD did not converge in Linear Least Squares")
    x_out = Tensor(dtype, memory.alloc(lw, op, dtype, [n, k]), [n, k])
    _from_fortran(lw, work_b, ldb, n, k, x_out, i64(0))
    rank = b.load(rank_slot, typ=I64)
    s_out = Tensor(dtype, memory.alloc(lw, op, dtype, [kk]), [kk])
    with for_range(b, kk, name="s") as i:
        store_elem(b, _round(lw, load_elem(b, s, i, float64), dtype), s_out.ptr, i, dtype)
    full = b.and_(b.icmp_signed(">", m, n), b.icmp_signed("==", rank, n))
    count = b.select(full, k, i64(0))
    r_out = Tensor(dtype, memory.alloc(lw, op, dtype, [count]), [count])
    excess = b.sub(m, n)
    acc = lw.alloca(F64, "lstsq.resid")
    with for_range(b, count, name="rc", cold=True) as j:
        b.store(ir.Constant(F64, 0.0), acc)
        col = b.add(mul(b, j, ldb), n)
        with for_range(b, excess, name="ri", cold=True) as i:   # NumPy's abs2: in order
            v = load_elem(b, work_b, b.add(col, i), float64)
            b.store(b.fadd(b.load(acc, typ=F64), b.fmul(v, v)), acc)
        store_elem(b, _round(lw, b.load(acc, typ=F64), dtype), r_out.ptr, j, dtype)
    for p in (work_a, work_b, s, work, iwork):
        memory.free(lw, p)
    return [x_out, r_out, b.trunc(rank, I32), s_out]
