"""Binding native entries (`autograph.codegen.entry.emit`) to Python: per-process layout
checks, binding tables and the builtins made from them.

`layout()` verifies, once per process, every fact about CPython's and
NumPy's object layout that the entry code relies on (the offsets in
`autograph.codegen.entry.emit`, NumPy's C API table), calling the NumPy functions once to
be sure they are what the table says; if anything differs, `Layout.ok` is
False and no entry is ever used. `NativeEntry.of(kernel)` finds a kernel's
entry in the JIT; `NativeEntry.bind` fills a binding table for one way of
calling it and makes the METH_FASTCALL builtin (`PyCFunction_NewEx`) with
the table as `self`. The PyMethodDefs live for the process, like the
machine code they point to.
"""
from __future__ import annotations

import ctypes
import threading
from typing import List, Optional, Sequence

import numpy as np

from .emit import (_AR_DATA, _AR_DESCR, _AR_DIMS, _AR_FLAGS, _AR_ND, _AR_WEAKREFS, _ALIGNED,
    _C_CONTIGUOUS, _CF_ML, _CF_SELF, _DTYPES, _METH_FASTCALL, _ML_FLAGS, _OB_TYPE, _SCALAR_VALUE,
    _WRITEABLE, H_ARRAY_TYPE, H_COUNT, H_DESCR, H_FLAG, H_MISS, H_MODE, H_NARGS, H_NCHECKS,
    H_NEW_DESCR, H_RAISER, H_RESULT_OBJ, H_SCALAR, H_SET_BASE, H_SIZE, H_TENSOR_ALLOC, H_TENSOR_OFF,
    H_TENSOR_TYPE, H_VAR_OFF, H_VAR_TYPE, MODE_SINGLE, entry_symbol, supported)

__all__ = ["Layout", "layout", "NativeEntry", "slot_offset", "calls"]

_read_ptr = ctypes.c_void_p.from_address


class _MethodDef(ctypes.Structure):
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


class _Table(np.ndarray):
    """A binding table: int64 slots, plus `keep`, the Python objects whose
    addresses are in it (held as long as the builtin holding the table lives),
    and `recycle`, the (start, count) of the slots holding references to cached
    results, which native code owns and this releases."""

    def __del__(self):
        start, count = getattr(self, "recycle", (0, 0))
        try:
            for i in range(start, start + count):
                address = int(self[i])
                if address:
                    self[i] = 0
                    _decref(address)
        except Exception:   # interpreter shutdown: leak rather than fail
            pass


_decref = ctypes.pythonapi.Py_DecRef
_decref.argtypes = [ctypes.c_void_p]
_decref.restype = None


# PyMethodDefs live for the process, like the machine code they point to: a
# builtin made from one may outlive every Python object of its kernel.
_DEFS: List[_MethodDef] = []
_lock = threading.Lock()


class Layout:
    """Per-process facts the entries depend on, probed once (`layout()`).

    `ok` is False (with `reason`) when this interpreter or NumPy lays out its
    objects differently from what the entry code reads; then no entry is used.
    """

    def __init__(self) -> None:
        self.ok = False
        self.reason = ""
        try:
            self._probe()
            self.ok = True
        except Exception as exc:   # an exotic interpreter/NumPy: stay on the slow path
            self.reason = f"{type(exc).__name__}: {exc}"

    def _probe(self) -> None:
        import sys

        if ctypes.sizeof(ctypes.c_void_p) != 8 or sys.byteorder != "little":
            raise RuntimeError("native entries need a 64-bit little-endian interpreter")
        import sysconfig
        if sysconfig.get_config_var("Py_GIL_DISABLED"):   # objects are laid out differently
            raise RuntimeError("free-threaded CPython is not supported by native entries")
        a = np.ones((3, 5), np.float32)
        if _read_ptr(id(a) + _OB_TYPE).value != id(np.ndarray):
            raise RuntimeError("ob_type is not at offset 8")
        if _read_ptr(id(a) + _AR_DATA).value != a.ctypes.data:
            raise RuntimeError("PyArrayObject.data is not at offset 16")
        if ctypes.c_int.from_address(id(a) + _AR_ND).value != 2:
            raise RuntimeError("PyArrayObject.nd is not at offset 24")
        dims = _read_ptr(id(a) + _AR_DIMS).value
        if (ctypes.c_int64.from_address(dims).value, ctypes.c_int64.from_address(dims + 8).value) != (3, 5):
            raise RuntimeError("PyArrayObject.dimensions is not at offset 32")
        if _read_ptr(id(a) + _AR_DESCR).value != id(a.dtype):
            raise RuntimeError("PyArrayObject.descr is not at offset 56")
        fl = ctypes.c_int.from_address(id(a) + _AR_FLAGS)
        if fl.value != a.flags.num:
            raise RuntimeError("PyArrayObject.flags is not at offset 64")
        a.setflags(write=False)
        if fl.value != a.flags.num or fl.value & _WRITEABLE:
            raise RuntimeError("NPY_ARRAY_WRITEABLE is not 0x400")
        import weakref
        if _read_ptr(id(a) + _AR_WEAKREFS).value:
            raise RuntimeError("PyArrayObject.weakreflist is not at offset 72")
        ref = weakref.ref(a)
        if not _read_ptr(id(a) + _AR_WEAKREFS).value:
            raise RuntimeError("PyArrayObject.weakreflist is not at offset 72")
        del ref
        if sys.getrefcount(a) != 2 or ctypes.c_ssize_t.from_address(id(a)).value != 1:
            raise RuntimeError("ob_refcnt is not at offset 0")
        b = np.ones(4, np.float64)[::2]
        if ctypes.c_int.from_address(id(b) + _AR_FLAGS).value & (_C_CONTIGUOUS | _ALIGNED) != _ALIGNED:
            raise RuntimeError("unexpected NumPy contiguity flags")
        self.descrs = [np.dtype(d) for d in _DTYPES]
        if any(np.zeros(1, d).dtype is not d for d in self.descrs):
            raise RuntimeError("NumPy arrays do not share the canonical dtype objects")
        self.scalar_types = [np.bool_, np.int32, np.int64, np.float32, np.float64]
        for t, d in zip(self.scalar_types, self.descrs):
            s = t(1)
            raw = ctypes.string_at(id(s) + _SCALAR_VALUE, d.itemsize)
            if np.frombuffer(raw, d)[0] != 1 or np.dtype(t) != d:
                raise RuntimeError(f"the value of a NumPy {d} scalar is not at offset 16")
        try:
            import numpy._core._multiarray_umath as mu
        except ImportError:  # NumPy 1.x
            import numpy.core._multiarray_umath as mu
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype = ctypes.c_void_p
        get.argtypes = [ctypes.py_object, ctypes.c_char_p]
        api = get(mu._ARRAY_API, None)
        if not api:
            raise RuntimeError("NumPy's _ARRAY_API capsule is empty")
        table = (ctypes.c_void_p * 300).from_address(api)
        if table[2] != id(np.ndarray):
            raise RuntimeError("NumPy's C API table does not start as expected")
        self.array_type = id(np.ndarray)
        self.new_from_descr = table[94]
        self.set_base_object = table[282]
        self._check_api(table)
        self.miss = NotImplemented
        import builtins
        ml = _read_ptr(id(abs) + _CF_ML).value
        if (type(abs).__name__ != "builtin_function_or_method" or ctypes.string_at(_read_ptr(ml).value) != b"abs"
                or _read_ptr(id(abs) + _CF_SELF).value != id(builtins)
                or ctypes.c_int.from_address(ml + _ML_FLAGS).value != 0x8):   # METH_O
            raise RuntimeError("unexpected PyCFunctionObject/PyMethodDef layout")
        get_slot = ctypes.pythonapi.PyType_GetSlot
        get_slot.restype = ctypes.c_void_p
        get_slot.argtypes = [ctypes.py_object, ctypes.c_int]
        self._get_slot = get_slot

    @staticmethod
    def _check_api(table) -> None:
        """Call the two NumPy functions once (holding the GIL): they must be what
        the C API table says they are."""
        new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                ctypes.c_void_p)(table[94])
        set_base = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.py_object)(table[282])
        incref = ctypes.pythonapi.Py_IncRef
        incref.argtypes = [ctypes.py_object]
        d = np.dtype(np.float64)
        owner = np.arange(3, dtype=np.float64)
        dims = (ctypes.c_int64 * 1)(3)
        incref(d)   # stolen by PyArray_NewFromDescr
        arr = new(id(np.ndarray), id(d), 1, ctypes.addressof(dims), None, owner.ctypes.data,
                  _C_CONTIGUOUS | _ALIGNED, None)
        if not (type(arr) is np.ndarray and arr.shape == (3,) and arr.dtype is d
                and arr.base is None and not arr.flags.writeable and arr[2] == 2.0):
            raise RuntimeError("PyArray_NewFromDescr is not at index 94 of NumPy's C API")
        incref(owner)   # stolen by PyArray_SetBaseObject
        if set_base(arr, owner) != 0 or arr.base is not owner:
            raise RuntimeError("PyArray_SetBaseObject is not at index 282 of NumPy's C API")

    def alloc_of(self, cls) -> int:
        """The tp_alloc of type `cls`."""
        return self._get_slot(cls, 47)   # Py_tp_alloc


_layout: Optional[Layout] = None


def layout() -> Layout:
    """The process's `Layout` (probed on first use)."""
    global _layout
    if _layout is None:
        with _lock:
            if _layout is None:
                _layout = Layout()
    return _layout


def slot_offset(obj, attr: str) -> int:
    """Byte offset of the `__slots__` member `attr` in `obj`'s object layout,
    found by looking for the attribute's value; -1 if not found exactly once."""
    value = getattr(obj, attr)
    size = type(obj).__basicsize__
    hits = [o for o in range(16, size, 8) if _read_ptr(id(obj) + o).value == id(value)]
    return hits[0] if len(hits) == 1 else -1


def _entry_address(symbol: str) -> int:
    from ..jit import engine as jit

    with jit.LOCK:
        return jit._get_state().engine.get_function_address(entry_symbol(symbol))


class NativeEntry:
    """The native entry of one `CompiledKernel`; `bind` makes builtins of it."""

    def __init__(self, kernel, address: int):
        self.kernel = kernel
        self.address = address
        self._def = _MethodDef(entry_symbol(kernel.symbol).encode(), address, _METH_FASTCALL,
                               f"native entry of {kernel.name}".encode())
        with _lock:
            _DEFS.append(self._def)
        new = ctypes.pythonapi.PyCFunction_NewEx
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p]
        self._new = new
        errors = kernel._errors

        def fault(site, *values):
            # Called by the entry with the kernel's error slots; the same exception as
            # CompiledKernel.__call__ raises.
            raise errors.error(site, list(values))
        self._fault = fault
        self.n_inputs = len(kernel.graph.inputs)
        self.n_outputs = len(kernel.graph.outputs)

    @classmethod
    def of(cls, kernel) -> Optional["NativeEntry"]:
        """The entry of `kernel`, or None (no entry in its code, or the layout check failed)."""
        entry = getattr(kernel, "_native_entry", False)
        if entry is not False:
            return entry
        from ..jit.kernel import CompiledKernel

        entry = None
        if type(kernel) is CompiledKernel and layout().ok and supported(kernel.graph):
            address = _entry_address(kernel.symbol)
            if address:
                entry = cls(kernel, address)
        kernel._native_entry = entry
        return entry

    def bind(self, nargs: int, sources: Sequence[int], fixed: Sequence[Optional[np.ndarray]],
             checks: Sequence[tuple], mode: int, result=None, *, tensor_type=None,
             tensor_offset: int = 0, variable_type=None, variable_offset: int = 0,
             trace_flag: Optional[np.ndarray] = None):
        """A builtin running the kernel for calls with `nargs` positional arguments.

        `sources[j]` is the argument feeding graph input j, or -1 for a fixed
        buffer `fixed[j]` (a captured variable's, held by the table); `checks`
        are (argument index, Python value) pairs the arguments must equal with
        the value's exact type; `mode`/`result` say what is returned (MODE_*);
        `tensor_type` wraps results (its `__slots__` `_array` at
        `tensor_offset`), else plain ndarrays are returned; `variable_type` is
        the one accepted for variable inputs; `trace_flag`, an int64 array
        non-zero while a trace is active, makes the entry step aside then.
        The builtin returns NotImplemented for any call it does not take.
        """
        lay = layout()
        if len(sources) != self.n_inputs or len(fixed) != self.n_inputs:
            raise ValueError("one source per graph input is needed")
        keep: list = [lay.miss, self._fault]
        recycle = H_SIZE + 2 * self.n_inputs
        n = recycle + 2 * self.n_outputs + 3 * len(checks)
        tab = np.zeros(n, np.int64).view(_Table)

        def put(i, obj):
            keep.append(obj)
            tab[i] = 0 if obj is None else id(obj)

        tab[H_NARGS] = nargs
        if trace_flag is not None:
            keep.append(trace_flag)
            tab[H_FLAG] = trace_flag.ctypes.data
        put(H_MISS, lay.miss)
        tab[H_ARRAY_TYPE] = lay.array_type
        if tensor_type is not None:
            put(H_TENSOR_TYPE, tensor_type)
            tab[H_TENSOR_OFF] = tensor_offset
            tab[H_TENSOR_ALLOC] = lay.alloc_of(tensor_type)
        if variable_type is not None:
            put(H_VAR_TYPE, variable_type)
            tab[H_VAR_OFF] = variable_offset
        tab[H_NEW_DESCR] = lay.new_from_descr
        tab[H_SET_BASE] = lay.set_base_object
        if mode == MODE_SINGLE and self.n_outputs != 1:
            raise ValueError("MODE_SINGLE needs exactly one output")
        tab[H_MODE] = mode
        keep.append(result)
        tab[H_RESULT_OBJ] = id(result)   # None too: the constant result of MODE_CONST
        put(H_RAISER, self._fault)
        tab[H_NCHECKS] = len(checks)
        for k, d in enumerate(lay.descrs):
            put(H_DESCR + k, d)
        for k, t in enumerate(lay.scalar_types):
            put(H_SCALAR + k, t)
        for j, (src, buf) in enumerate(zip(sources, fixed)):
            tab[H_SIZE + 2 * j] = src
            if src < 0:
                if not (type(buf) is np.ndarray and buf.flags.c_contiguous and buf.flags.writeable
                        and buf.flags.aligned):
                    raise ValueError("a fixed input must be a writeable, aligned, C-contiguous ndarray")
                keep.append(buf)
                tab[H_SIZE + 2 * j + 1] = buf.ctypes.data
            elif not 0 <= src < nargs:
                raise ValueError(f"input {j} reads argument {src} of {nargs}")
        base = recycle + 2 * self.n_outputs
        for k, (i, value) in enumerate(checks):
            if not 0 <= i < nargs:
                raise ValueError(f"check of argument {i} of {nargs}")
            tab[base + 3 * k] = i
            put(base + 3 * k + 1, type(value))
            put(base + 3 * k + 2, value)
        tab.keep = keep
        tab.recycle = (recycle, 2 * self.n_outputs)
        tab.kernel = self.kernel   # the code lives for the process; its Python side with the table
        return self._new(ctypes.addressof(self._def), tab, None)


def calls(builtin) -> int:
    """How many calls the builtin made by `NativeEntry.bind` has run."""
    return int(builtin.__self__[H_COUNT])
