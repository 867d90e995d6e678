"""Calling a compiled kernel from Python (through ctypes, for now).

`CompiledKernel.__call__` packs the inputs into the kernel's `args` frame,
calls the native function (ctypes releases the GIL during the call), turns
a non-zero status into `InvalidArgumentError`, and wraps each tensor output
buffer as a NumPy array without copying. The buffer is freed exactly once,
with the C library's `free` (the same library whose `malloc` native code
used), when the array and all its views are gone.

Frames (args/results/err buffers) are preallocated and pooled, so a call
allocates nothing but its outputs, and concurrent calls from several
threads each use their own frame.

A resource input (a variable) takes the variable's own buffer, never a copy:
an `ag.Variable` or a writeable, C-contiguous NumPy array of exactly its
dtype and shape, whose data pointer fills the input's one slot; the kernel
writes into it in place.
"""
from __future__ import annotations

import ctypes
import weakref
from typing import List

import numpy as np

from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.core.ir import Graph, is_resource
from autograph.tracer.core.types import format_shape

from ..abi import strings as string_abi
from ..abi.slots import ERR_SLOTS, scalar_slots, slot_count  # not .lowering: a cache hit needs no llvmlite.ir
from ..lowering.error_sites import ErrorTable

__all__ = ["CompiledKernel"]

_libc = ctypes.CDLL(None)
_free = _libc.free
_free.argtypes = [ctypes.c_void_p]
_free.restype = None
_KERNEL_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_read_ptr = ctypes.c_void_p.from_address


def _probe_data_offset() -> int:
    """Offset of `data` in PyArrayObject (16 on regular 64-bit CPython), or -1."""
    probe = np.zeros(3)
    try:
        if _read_ptr(id(probe) + 16).value == probe.ctypes.data:
            return 16
    except Exception:  # pragma: no cover - exotic interpreters
        pass
    return -1


_DATA_OFFSET = _probe_data_offset()


def _data_pointer(a: np.ndarray) -> int:
    if _DATA_OFFSET >= 0:
        return _read_ptr(id(a) + _DATA_OFFSET).value or 0
    return a.ctypes.data


class _Frame:
    __slots__ = ("args", "args_addr", "res", "res_addr", "err", "err_addr", "views_in", "views_out")

    def __init__(self, n_in: int, n_out: int):
        self.args = np.zeros(max(n_in, 1), np.int64)
        self.res = np.zeros(max(n_out, 1), np.int64)
        self.err = np.zeros(ERR_SLOTS, np.int64)
        self.args_addr = self.args.ctypes.data
        self.res_addr = self.res.ctypes.data
        self.err_addr = self.err.ctypes.data
        self.views_in = _views(self.args)
        self.views_out = _views(self.res)


def _views(buf: np.ndarray) -> dict:
    """Typed views of an i64 slot buffer, with the index scale of each dtype
    (the value of a scalar at slot k is view[k * scale], in the slot's low
    bytes). complex128 spans two slots: `_Wide` reads and writes it."""
    views = {"bool": (buf.view(np.uint8), 8), "int64": (buf, 1)}
    for name in ("int8", "int16", "int32", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64", "complex64"):
        dt = np.dtype(name)
        views[name] = (buf.view(dt), 8 // dt.itemsize)
    views["complex128"] = (_Wide(buf, np.complex128), 1)
    return views


class _Wide:
    """A complex128 "view" of an i64 slot buffer indexed by slot: the value at
    slot k occupies slots k and k+1 (k need not be even)."""

    __slots__ = ("buf", "dtype")

    def __init__(self, buf: np.ndarray, dtype):
        self.buf, self.dtype = buf, np.dtype(dtype)

    def __getitem__(self, slot: int):
        return self.buf[slot:slot + 2].view(self.dtype)[0]

    def __setitem__(self, slot: int, value) -> None:
        self.buf[slot:slot + 2].view(self.dtype)[0] = value


_UNSET = object()
_REF = "ref"   # the dtype-name slot of a resource input in a kernel's input plan
_STR = "string"  # string tensors (any rank): packed into / read from the native layout (string_abi)


def _wrap_output(ptr: int, shape: tuple, dtype: np.dtype) -> np.ndarray:
    count = 1
    for d in shape:
        count *= d
    nbytes = count * dtype.itemsize
    buf = (ctypes.c_char * max(nbytes, 1)).from_address(ptr)
    weakref.finalize(buf, _free, ptr)
    return np.frombuffer(buf, dtype, count=count).reshape(shape)


class CompiledKernel:
    """A graph compiled to native code; call it with one ndarray per input.

    It holds its `JitModule`, which owns the code: the code is freed when
    the last kernel object using it is gone (`autograph.codegen.jit.engine`).
    """

    def __init__(self, graph: Graph, jit_module, errors: ErrorTable, name: str, timings: dict):
        self.graph = graph
        self.name = name
        self.timings = timings
        self._jit = jit_module
        self._errors = errors
        self._in_types = [v.type for v in graph.inputs]
        self._out_types = [v.type for v in graph.outputs]
        self._in_names = [v.name_hint or f"input {i}" for i, v in enumerate(graph.inputs)]
        self._n_in = slot_count(self._in_types)
        self._n_out = slot_count(self._out_types)
        self._cfunc = _KERNEL_TYPE(jit_module.address)
        self._pool: List[_Frame] = []
        self._in_plan = self._plan(self._in_types)
        self._out_plan = self._plan(self._out_types)
        self._entry = _UNSET   # the native entry, looked up on first use

    @staticmethod
    def _plan(types) -> list:
        plan, slot = [], 0
        for t in types:
            if is_resource(t):   # one slot: the data pointer of the variable's buffer
                plan.append((slot, _REF, t.dtype.np_dtype, t.shape))
                slot += 1
                continue
            if t.dtype.name == _STR:   # a buffer whatever the rank: pointer + dims
                plan.append((slot, _STR, t.dtype.np_dtype, t.shape))
                slot += 1 + len(t.shape)
                continue
            plan.append((slot, t.dtype.name, t.dtype.np_dtype, t.shape))
            slot += scalar_slots(t.dtype) if t.shape == () else 1 + len(t.shape)
        return plan

    # ------------------------------------------------------------ calling

    def _coerce(self, i: int, a) -> np.ndarray:
        slot, dname, npdt, shape = self._in_plan[i]
        if not isinstance(a, np.ndarray):
            a = np.asarray(a, dtype=npdt) if not hasattr(a, "dtype") else np.asarray(a)
        if a.dtype != npdt and a.dtype.newbyteorder("=") == npdt:
            a = a.astype(npdt)          # same dtype, other byte order
        if a.dtype != npdt:
            raise InvalidArgumentError(
                f"{self._in_names[i]} of {self.name}: expected a tensor of dtype {npdt}, got {a.dtype}")
        if len(shape) != a.ndim or any(d is not None and d != s for d, s in zip(shape, a.shape)):
            raise InvalidArgumentError(
                f"{self._in_names[i]} of {self.name}: expected shape {format_shape(shape)}, "
                f"got {format_shape(a.shape)}")
        if not (a.flags.c_contiguous and a.flags.aligned):
            a = np.array(a, order="C")     # a fresh, aligned, C-contiguous copy
        return a

    def _resource(self, i: int, a) -> np.ndarray:
        """The buffer of variable input `i`: written in place, so never converted or copied."""
        slot, _, npdt, shape = self._in_plan[i]
        buf = a._buffer if getattr(a, "_ag_variable", False) and hasattr(a, "_buffer") else a
        if not (type(buf) is np.ndarray and buf.dtype == npdt and buf.shape == shape):
            got = (f"an array of dtype {buf.dtype} and shape {format_shape(buf.shape)}"
                   if isinstance(buf, np.ndarray) else type(a).__name__)
            raise InvalidArgumentError(
                f"{self._in_names[i]} of {self.name} is a variable of dtype {npdt} and shape "
                f"{format_shape(shape)}: expected an ag.Variable or a writeable array of that dtype "
                f"and shape, got {got}")
        fl = buf.flags
        if not (fl.writeable and fl.c_contiguous and fl.aligned):
            raise InvalidArgumentError(
                f"{self._in_names[i]} of {self.name} is a variable: its array must be writeable, "
                f"aligned and C-contiguous (compiled code writes into it in place)")
        return buf

    def __call__(self, *inputs) -> List[np.ndarray]:
        if len(inputs) != len(self._in_plan):
            raise TypeError(f"{self.name} takes {len(self._in_plan)} inputs, got {len(inputs)}")
        try:
            frame = self._pool.pop()
        except IndexError:
            frame = _Frame(self._n_in, self._n_out)
        keep = []
        try:
            args = frame.args
            views = frame.views_in
            for i, a in enumerate(inputs):
                slot, dname, npdt, shape = self._in_plan[i]
                if dname is _REF:
                    a = self._resource(i, a)
                    args[slot] = _data_pointer(a)
                    keep.append(a)
                    continue
                if dname is _STR:
                    a, dims = string_abi.pack_argument(a, shape, self._in_names[i], self.name)
                    args[slot] = a.ctypes.data
                    args[slot + 1: slot + 1 + len(dims)] = dims
                    keep.append(a)
                    continue
                if type(a) is not np.ndarray or a.dtype != npdt or a.ndim != len(shape):
                    a = self._coerce(i, a)
                elif shape:
                    fl = a.flags
                    if not (fl.c_contiguous and fl.aligned):
                        a = self._coerce(i, a)
                if not shape:
                    view, scale = views[dname]
                    view[slot * scale] = a
                    continue
                for k, d in enumerate(shape):
                    if d is not None and a.shape[k] != d:
                        a = self._coerce(i, a)
                    args[slot + 1 + k] = a.shape[k]
                args[slot] = _data_pointer(a)
                keep.append(a)
            rc = self._cfunc(frame.args_addr, frame.res_addr, frame.err_addr)
            if rc != 0:
                err = frame.err
                raise self.fault_error(int(err[0]), [int(v) for v in err[1:ERR_SLOTS]])
            return self._unpack(frame)
        finally:
            self._pool.append(frame)

    def _unpack(self, frame: _Frame) -> List[np.ndarray]:
        res = frame.res
        views = frame.views_out
        outs = []
        for slot, dname, npdt, shape in self._out_plan:
            if dname is _STR:   # copied into bytes objects; the buffer is freed at once
                dims = tuple(int(d) for d in res[slot + 1: slot + 1 + len(shape)])
                outs.append(string_abi.unpack(int(res[slot]), dims, _free))
                continue
            if not shape:
                view, scale = views[dname]
                outs.append(np.array(view[slot * scale], dtype=npdt))
                continue
            dims = tuple(int(d) for d in res[slot + 1: slot + 1 + len(shape)])
            outs.append(_wrap_output(int(res[slot]), dims, npdt))
        return outs

    def fault_error(self, site: int, values) -> InvalidArgumentError:
        """The exception for a fault the kernel reported: error site `site` with
        its run-time values (the `err` frame after the site id)."""
        return self._errors.error(site, values)

    # ------------------------------------------------------------ native entry

    @property
    def native_entry(self):
        """The kernel's native entry (`autograph.codegen.entry.native.NativeEntry`),
        or None when its code has none or this process cannot use one; found on
        first use. Builtins made by its `bind` call the kernel without Python."""
        entry = self._entry
        if entry is _UNSET:
            from ..entry.native import NativeEntry
            entry = self._entry = NativeEntry.of(self)
        return entry

    def address_of(self, symbol: str) -> int:
        """The address of `symbol` in this kernel's code (0 if missing): the
        kernel's module also holds its native entry and dispatcher. The code
        lives as long as this kernel (its JitModule owns it): whoever keeps
        such an address must keep the kernel."""
        return self._jit.address_of(symbol)

    # ------------------------------------------------------------ inspection

    def llvm_ir(self, optimized: bool = False) -> str:
        """The kernel's LLVM IR text, before or after optimisation (without the
        CPython glue that shares its module: autograph.codegen.entry)."""
        from ..entry.glue import strip_glue_ir
        return strip_glue_ir(self._jit.optimized_ir() if optimized else self._jit.ir_text, self.symbol)

    def asm(self) -> str:
        """The kernel's native assembly text (without the CPython glue)."""
        from ..entry.glue import strip_glue_asm
        return strip_glue_asm(self._jit.asm(), self.symbol)

    @property
    def cache_key(self):
        """The disk-cache key of this kernel's code (64 hex digits), or None when
        its graph is not cacheable."""
        return getattr(self._jit, "cache_key", None)

    @property
    def symbol(self) -> str:
        """The kernel function's symbol (its glue symbols add a suffix to it)."""
        return self._jit.symbol

    def __repr__(self) -> str:
        return f"<CompiledKernel {self.name} ({self._jit.symbol})>"
