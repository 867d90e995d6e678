"""`matmul`: [m,k] @ [k,n].

Floats: a register-blocked micro-kernel written with explicit LLVM vectors.
The output is cut into tiles of `_MR` rows by `_NV` vectors of `_VW`
elements; each tile keeps its `_MR * _NV` vector accumulators in registers
over the whole k loop (a broadcast of a[i, p] times a vector load of row p of
b, fused with `llvm.fmuladd`, which lets the backend use FMA as BLAS does),
then stores them once. The rows and columns left over at the edges use the
plain i-k-j loop, as do integer matmuls (vectorised along j by LLVM).
The summation over k is sequential in every case.
"""
from __future__ import annotations

from llvmlite import ir

from tracer.ir import Op

from . import memory
from .irutil import eq, for_range, intrinsic, mul
from .lowering import register
from .ltypes import I32, I64, Tensor, const, i64, load_elem, mem_type, store_elem

_MR = 6      # rows per tile
_NV = 2      # vectors per tile row
_VECTOR_BYTES = 32   # AVX2


@register("matmul")
def lower_matmul(lw, op: Op, args: list) -> list:
    a, w = args
    b = lw.b
    m, k = a.dims
    k2, n = w.dims
    same = eq(b, k, k2)
    if same is not True:
        lw.fail_if(True if same is False else b.not_(same), op,
                   "{op}: the inner dimensions do not match: a has shape ({0}, {1}) and b has "
                   "shape ({2}, {3})", [m, k, k2, n])
    dtype = op.results[0].type.dtype
    out = Tensor(dtype, memory.alloc(lw, op, dtype, [m, n]), [m, n])
    zero = const(dtype, 0)
    with for_range(b, memory.numel(lw, [m, n]), name="mm.zero") as i:
        store_elem(b, zero, out.ptr, i, dtype)
    if not dtype.is_floating:
        _ikj(lw, a, w, out, i64(0), m, i64(0), n, k, dtype)
        return [out]
    vw = _VECTOR_BYTES // dtype.itemsize
    tile_n = vw * _NV
    m_full = b.mul(b.udiv(m, i64(_MR)), i64(_MR))
    n_full = b.mul(b.udiv(n, i64(tile_n)), i64(tile_n))
    _tiles(lw, a, w, out, m_full, n_full, k, dtype, vw)
    _ikj(lw, a, w, out, i64(0), m_full, n_full, n, k, dtype)     # right edge
    _ikj(lw, a, w, out, m_full, m, i64(0), n, k, dtype)          # bottom edge
    return [out]


def _ikj(lw, a, w, out, i_lo, i_hi, j_lo, j_hi, k, dtype) -> None:
    """out[i, j] += sum_p a[i, p] * w[p, j] for i in [i_lo, i_hi), j in [j_lo, j_hi)."""
    b = lw.b
    n = out.dims[1]
    with for_range(b, i_hi, start=i_lo, name="mm.i") as i:
        arow = mul(b, i, k)
        orow = mul(b, i, n)
        with for_range(b, k, name="mm.k") as p:
            av = load_elem(b, a.ptr, b.add(arow, p), dtype)
            wrow = mul(b, p, n)
            with for_range(b, j_hi, start=j_lo, name="mm.j") as j:
                wv = load_elem(b, w.ptr, b.add(wrow, j), dtype)
                oi = b.add(orow, j)
                acc = load_elem(b, out.ptr, oi, dtype)
                if dtype.is_floating:
                    v = intrinsic(b, "fmuladd", [av, wv, acc])
                else:
                    v = b.add(acc, b.mul(av, wv))
                store_elem(b, v, out.ptr, oi, dtype)


def _vload(b, ptr, index, vt, et, align):
    p = b.gep(ptr, [index], inbounds=True, source_etype=et)
    v = b.load(p, typ=vt)
    v.align = align
    return v


def _vstore(b, value, ptr, index, et, align):
    p = b.gep(ptr, [index], inbounds=True, source_etype=et)
    s = b.store(value, p)
    s.align = align


def _tiles(lw, a, w, out, m_full, n_full, k, dtype, vw) -> None:
    """The register-blocked part: rows [0, m_full) x columns [0, n_full)."""
    b = lw.b
    et = mem_type(dtype)
    vt = ir.VectorType(et, vw)
    align = dtype.itemsize
    n = out.dims[1]
    accs = [[lw.alloca(vt, name=f"acc{r}_{c}") for c in range(_NV)] for r in range(_MR)]
    zero_v = ir.Constant(vt, [0.0] * vw)
    mask = ir.Constant(ir.VectorType(I32, vw), [0] * vw)
    undef_v = ir.Constant(vt, ir.Undefined)
    tile_n = vw * _NV
    n_tiles = b.udiv(n_full, i64(tile_n))
    m_tiles = b.udiv(m_full, i64(_MR))
    # Column panels outermost: one panel of w (k x tile_n) is reused by every row tile.
    with for_range(b, n_tiles, name="mm.jt") as jt:
        j0 = b.mul(jt, i64(tile_n))
        with for_range(b, m_tiles, name="mm.it") as it:
            i0 = b.mul(it, i64(_MR))
            for row in accs:
                for slot in row:
                    b.store(zero_v, slot)
            with for_range(b, k, name="mm.kk") as p:
                wbase = b.add(b.mul(p, n), j0)
                wv = [_vload(b, w.ptr, b.add(wbase, i64(c * vw)), vt, et, align) for c in range(_NV)]
                for r in range(_MR):
                    av = load_elem(b, a.ptr, b.add(b.mul(b.add(i0, i64(r)), k), p), dtype)
                    splat = b.shuffle_vector(b.insert_element(undef_v, av, ir.Constant(I32, 0)),
                                             undef_v, mask)
                    for c in range(_NV):
                        acc = b.load(accs[r][c], typ=vt)
                        b.store(intrinsic(b, "fmuladd", [splat, wv[c], acc]), accs[r][c])
            for r in range(_MR):
                obase = b.add(b.mul(b.add(i0, i64(r)), n), j0)
                for c in range(_NV):
                    _vstore(b, b.load(accs[r][c], typ=vt), out.ptr, b.add(obase, i64(c * vw)), et, align)
