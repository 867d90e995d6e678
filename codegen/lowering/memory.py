"""Heap buffers of compiled code: allocate (checked), free, copy.

Native code allocates with the C library's `malloc` (resolved from the
process by the JIT) and Python frees outputs with the same library's `free`.
Every allocation asks for max(nbytes, 1) bytes, so an empty tensor still has
a unique, freeable pointer. The byte count is computed with overflow checks
and a failed allocation is reported as an InvalidArgumentError, never
dereferenced. Each allocation is reported to the lowerer (`track_alloc`),
so an error exit before the buffer has an owner frees it. (LLVM may merge `malloc` + zero fill into `calloc`: the same
allocator, freed with the same `free`.)
"""
from __future__ import annotations

from typing import Sequence

from llvmlite import ir

from autograph.tracer.core.types import DType

from ..llvm.irutil import declare, mul, product
from ..llvm.ltypes import I1, I64, PTR, VOID, Tensor, const_int, i64

__all__ = ["alloc", "alloc_zeroed", "realloc", "free", "copy_tensor", "numel", "memcpy", "memset_zero",
           "fits_int32"]

_OVF = ir.LiteralStructType([I64, I1])
_MAX_BYTES = 2 ** 63 - 1


def _checked_mul(lw, x, y, ovf):
    cx, cy = const_int(x), const_int(y)
    if cx is not None and cy is not None:
        return i64(cx * cy), ovf
    fn = declare(lw.module, "llvm.umul.with.overflow.i64", _OVF, [I64, I64])
    r = lw.b.call(fn, [x, y])
    flag = lw.b.extract_value(r, 1)
    return lw.b.extract_value(r, 0), (flag if ovf is None else lw.b.or_(ovf, flag))


def numel(lw, dims: Sequence[ir.Value]) -> ir.Value:
    """Number of elements of a tensor with these (valid) dims."""
    return product(lw.b, dims)


def _alloc_size(lw, op, dtype: DType, dims: Sequence[ir.Value]) -> ir.Value:
    """max(1, bytes of a `dtype` tensor of `dims`), checked for overflow."""
    b = lw.b
    itemsize = dtype.itemsize
    # As NumPy: the product of the dimensions other than 0, times the item size,
    # must not pass 2**63 - 1 (even for an empty tensor). The dimensions known at
    # trace time are multiplied in Python: in an i64 constant that product would wrap
    # and allocate a tiny buffer that the op's loops then overrun.
    static, empty = itemsize, False
    dynamic = []
    for d in dims:
        c = const_int(d)
        if c is None:
            dynamic.append(d)
        elif c == 0:
            empty = True
        else:
            static *= c
    message = "{op}: the result's size overflows (a tensor of more than 2**63 bytes)"
    if static > _MAX_BYTES:
        lw.fail_if(True, op, message)
        return i64(1)
    nbytes, ovf, zero = i64(static), None, False
    for d in dynamic:
        isz = b.icmp_unsigned("==", d, ir.Constant(d.type, 0))
        zero = isz if zero is False else b.or_(zero, isz)
        nbytes, ovf = _checked_mul(lw, nbytes, b.select(isz, ir.Constant(d.type, 1), d), ovf)
    if ovf is not None:
        # No allocator hands out more than 2**63 - 1 bytes (NumPy's sizes are signed):
        # a product past it is an overflow too, not a negative size to malloc.
        lw.fail_if(b.or_(ovf, b.icmp_signed("<", nbytes, i64(0))), op, message)
    if empty:
        return i64(1)
    if zero is not False:   # nbytes is at least 1 otherwise
        return b.select(zero, i64(1), nbytes)
    c = const_int(nbytes)
    if c is not None:
        return i64(max(c, 1))
    return b.select(b.icmp_unsigned("<", nbytes, i64(1)), i64(1), nbytes)


def alloc(lw, op, dtype: DType, dims: Sequence[ir.Value]) -> ir.Value:
    """A fresh buffer for a C-contiguous tensor of `dtype` and `dims`.

    `dims` must be non-negative; their product is checked for overflow.
    """
    b = lw.b
    size = _alloc_size(lw, op, dtype, dims)
    malloc = declare(lw.module, "malloc", PTR, [I64])
    ptr = b.call(malloc, [size])
    lw.fail_if(b.icmp_unsigned("==", ptr, ir.Constant(PTR, None)), op,
               "{op}: failed to allocate {0} bytes for the result", [size])
    lw.track_alloc(ptr)
    return ptr


def alloc_zeroed(lw, op, dtype: DType, dims: Sequence[ir.Value]) -> ir.Value:
    """Like `alloc`, but zero-filled (`calloc`: large buffers get fresh zero
    pages from the OS, so nothing is written twice)."""
    b = lw.b
    size = _alloc_size(lw, op, dtype, dims)
    fn = declare(lw.module, "calloc", PTR, [I64, I64])
    ptr = b.call(fn, [i64(1), size])
    lw.fail_if(b.icmp_unsigned("==", ptr, ir.Constant(PTR, None)), op,
               "{op}: failed to allocate {0} bytes for the result", [size])
    lw.track_alloc(ptr)
    return ptr


def realloc(lw, op, ptr: ir.Value, dtype: DType, dims: Sequence[ir.Value]) -> ir.Value:
    """Resize the owned buffer `ptr` (from `alloc`) to hold a `dtype` tensor
    of `dims`, keeping its leading bytes; returns the (maybe moved) buffer."""
    b = lw.b
    size = _alloc_size(lw, op, dtype, dims)
    fn = declare(lw.module, "realloc", PTR, [PTR, I64])
    new = b.call(fn, [ptr, size])
    lw.fail_if(b.icmp_unsigned("==", new, ir.Constant(PTR, None)), op,
               "{op}: failed to allocate {0} bytes for the result", [size])
    # Moved. A failed realloc leaves `ptr` where it was: the error exit above frees it,
    # as `ptr` is pending (the op took it over: `Lowerer.take_over`).
    lw.untrack_alloc(ptr)
    lw.track_alloc(new)
    return new


def memset_zero(lw, dst, nbytes) -> None:
    """Zero `nbytes` bytes at `dst`."""
    fn = declare(lw.module, "llvm.memset.p0.i64", VOID, [PTR, ir.IntType(8), I64, I1])
    lw.b.call(fn, [dst, ir.Constant(ir.IntType(8), 0), nbytes, ir.Constant(I1, 0)])


def free(lw, ptr: ir.Value) -> None:
    lw.untrack_alloc(ptr)
    fn = declare(lw.module, "free", VOID, [PTR])
    lw.b.call(fn, [ptr])


def memcpy(lw, dst, src, nbytes) -> None:
    fn = declare(lw.module, "llvm.memcpy.p0.p0.i64", VOID, [PTR, PTR, I64, I1])
    lw.b.call(fn, [dst, src, nbytes, ir.Constant(I1, 0)])


def copy_tensor(lw, op, t: Tensor) -> Tensor:
    """A freshly allocated copy of `t` (same dims)."""
    if t.dtype.name == "string":   # entries + bytes: the size is in the buffer
        from .strings import copy_strings
        return copy_strings(lw, op, t)
    ptr = alloc(lw, op, t.dtype, t.dims)
    nbytes = mul(lw.b, numel(lw, t.dims), i64(t.dtype.itemsize))
    memcpy(lw, ptr, t.ptr, nbytes)
    return Tensor(t.dtype, ptr, list(t.dims))


def fits_int32(lw, op, n, template: str, extra=()) -> None:
    """Fail with `template` ({0} is `n`) when the i64 `n` exceeds int32's range
    (sizes are never negative, so only the upper bound is checked)."""
    c = const_int(n)
    bad = c > 2 ** 31 - 1 if c is not None else lw.b.icmp_signed(">", n, i64(2 ** 31 - 1))
    if bad is not False:
        lw.fail_if(bad, op, template, [n, *extra])
