"""The native layout of string tensors, on the Python side (NumPy only).

Compiled code holds a string tensor of any rank (a scalar too) in one heap
buffer, so it is allocated, copied and freed exactly like a numeric
tensor's buffer (one `malloc`, one `free`; see `autograph.codegen.lowering.memory` and
`autograph.codegen.lowering.plan`):

    i64 entry[n + 1]      entry k = o_k - 8*k
    u8  data[o_n - o_0]   the elements' bytes, back to back, in row-major order

for a tensor of n elements, where o_k is the byte offset of element k from
the start of the buffer (o_0 = 8*(n+1), the end of the entries) and o_n is
the end of the data. Entry k is at byte 8*k, so *the address of entry k
plus its value is the address of element k's first byte*: an entry's
address alone identifies an element and its length (8 + entry[k+1] -
entry[k]), whatever buffer it lives in. The buffer holds no absolute
address, so a plain `memcpy` copies it and its bytes can be a constant in
the object file; its size is 8*n + entry[n].

Python passes inputs as NumPy-owned buffers in this layout (`pack`); an
output buffer is read into an object array of `bytes` (as eager string
tensors are stored) and freed at once (`unpack`).
"""
from __future__ import annotations

import ctypes
from typing import Callable, Sequence

import numpy as np

from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.core.types import format_shape

__all__ = ["pack", "pack_argument", "unpack", "read", "encode_elements"]


def encode_elements(flat: Sequence) -> list:
    """The elements of a flat sequence as `bytes` (str is UTF-8 encoded, as
    TensorFlow does); TypeError naming the first element that is neither."""
    out = []
    for x in flat:
        if isinstance(x, bytes):
            out.append(x)
        elif isinstance(x, str):
            out.append(x.encode("utf-8"))
        else:
            raise TypeError(f"expected bytes or str elements in a string tensor, "
                            f"found {type(x).__name__} {x!r}")
    return out


def pack(arr: np.ndarray) -> np.ndarray:
    """An aligned uint8 array holding `arr` (object/bytes/str array) in the
    native layout (see the module doc)."""
    flat = np.asarray(arr).reshape(-1).tolist()
    try:
        data = b"".join(flat)          # all bytes already (eager string tensors are)
    except TypeError:
        flat = encode_elements(flat)
        data = b"".join(flat)
    n = len(flat)
    header = 8 * (n + 1)
    lens = np.fromiter(map(len, flat), np.int64, n)
    offsets = np.empty(n + 1, np.int64)
    offsets[0] = header
    np.cumsum(lens, out=offsets[1:])
    offsets[1:] += header
    offsets -= 8 * np.arange(n + 1, dtype=np.int64)
    size = header + len(data)
    # int64 words: 8-byte aligned for the entries the kernel loads.
    words = np.empty((size + 7) // 8, np.int64)
    words[:n + 1] = offsets
    buf = words.view(np.uint8)
    buf[header:size] = np.frombuffer(data, np.uint8)
    return buf


def pack_argument(a, shape: Sequence, name: str, kernel: str):
    """(buffer, dims) for string input `name` of `kernel`, declared `shape`.

    InvalidArgumentError when `a` is not a string array of a fitting shape.
    """
    if not isinstance(a, np.ndarray):
        a = np.asarray(a, dtype=object)
    if a.dtype.kind not in "OSU":
        raise InvalidArgumentError(f"{name} of {kernel}: expected a tensor of dtype string, got {a.dtype}")
    if len(shape) != a.ndim or any(d is not None and d != s for d, s in zip(shape, a.shape)):
        raise InvalidArgumentError(f"{name} of {kernel}: expected shape {format_shape(shape)}, "
                                   f"got {format_shape(a.shape)}")
    try:
        return pack(a), a.shape
    except TypeError as e:
        raise InvalidArgumentError(f"{name} of {kernel}: {e}") from None


def read(ptr: int, dims: Sequence[int]) -> np.ndarray:
    """An object array of `bytes` read from a native string buffer (not freed)."""
    n = 1
    for d in dims:
        n *= int(d)
    entries = np.frombuffer((ctypes.c_int64 * (n + 1)).from_address(ptr), np.int64)
    offsets = (entries + 8 * np.arange(n + 1, dtype=np.int64)).tolist()
    raw = ctypes.string_at(ptr, offsets[n])
    out = np.empty(n, dtype=object)
    out[:] = [raw[a:b] for a, b in zip(offsets, offsets[1:])]
    return out.reshape(tuple(int(d) for d in dims))


def unpack(ptr: int, dims: Sequence[int], free: Callable[[int], None]) -> np.ndarray:
    """`read` a kernel's output buffer, then free it (exactly once)."""
    try:
        return read(ptr, dims)
    finally:
        free(ptr)
