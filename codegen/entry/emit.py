"""The native entry point of a compiled kernel: a cached call in tens of ns.

`emit_entry` adds to the kernel's own LLVM module a CPython-API function

    PyObject *<symbol>__entry(PyObject *self, PyObject *const *args, Py_ssize_t nargs)

that `autograph.codegen.entry.native.NativeEntry.bind` turns into a builtin
(`PyCFunction_NewEx`, METH_FASTCALL). It takes the caller's positional
arguments as they are, checks them itself, fills the kernel's `args` frame
on its stack, calls the kernel and returns the results as `ag.Tensor`s (or
plain ndarrays). When an argument is not exactly what the kernel was
compiled for, it returns `NotImplemented` (a *miss*) with no side effect,
and Python (`autograph.runtime.fastpath`, then the slow path) takes over; the slow
path produces every error message, so a miss is never an error.
`autograph.codegen.entry.dispatch` adds, in the same module, the native `__call__` that
calls an entry without a Python frame.

Because the entry sits in the kernel's module, it is compiled, stored in the
disk cache and loaded with the kernel (usually with the kernel inlined into
it): no extra LLVM work per process. No process-specific address is baked
into the code: whatever differs between processes (type objects, NumPy's C
API, the objects Python values are compared with) comes from the *binding
table*, an int64 ndarray passed as `self`, whose data pointer the entry
reads at offset 16. A kernel has one entry and any number of tables, one
per way of calling it.

The table (i64 slots):

    header      (H_* below) nargs expected; address of an int64 "traces
                active" counter (0: no check); a call counter the entry
                increments; the miss object; PyArray_Type; ag.Tensor's type,
                its `_array` slot offset and tp_alloc (type 0: return plain
                ndarrays); ag.Variable's type and `_buffer` offset; NumPy's
                PyArray_NewFromDescr and PyArray_SetBaseObject; the result
                mode and its object; the fault callable; the number of
                Python-value checks; per dtype the canonical descr and the
                NumPy scalar type
    inputs      per graph input: (index of the argument that feeds it, or
                -1 and a fixed data pointer: a captured variable's buffer)
    recycle     per output, two references to earlier 0-d results (owned by
                the table, released by `_Table.__del__`)
    checks      (argument index, exact type, object): an argument that is a
                Python value the trace baked in must have exactly that type
                and compare equal (`PyObject_RichCompareBool`), as the trace
                cache's key does

Checks per tensor input: the argument is an `ag.Tensor` (its `_array` is
used), an ndarray or, for rank 0, a NumPy scalar of the input's dtype; an
ndarray must be exactly `PyArray_Type` with the canonical descr of the dtype
(so no byte-swapped or odd dtypes), C-contiguous, aligned, of the rank and
every static dimension. A variable argument must be exactly an
`ag.Variable` whose buffer passes the same checks and is writeable. The
object offsets used here are verified in each process by
`autograph.codegen.entry.native.layout()` before any entry is bound; if one differs, no
entry is used.

Results: a tensor output becomes an ndarray over the buffer the kernel
malloc'ed, with a PyCapsule base whose destructor frees it: handed over
without a copy and freed exactly once. A 0-d output becomes a 0-d ndarray
(`PyArray_NewFromDescr`), unless one of the two previous results of that
output is unreferenced (refcount 1: only the table holds it, its array is
referenced only by it and not weakly): then the new value is written into
it and it is returned again, which nothing can observe and saves two
allocations. Arrays are read-only and wrapped as `ag.Tensor`s natively.
The mode says what is returned: the single result, a tuple of the results,
a Python callable applied to that tuple (any other output structure), or a
constant object (no outputs: None).

A fault in the kernel (status != 0) calls the table's fault callable with
the eight i64 error slots, which raises `InvalidArgumentError` with the same
message as the slow path. The GIL is released around the kernel call when
the graph has a `while` loop, or an input or output has at least
`NOGIL_ELEMENTS` elements (checked on the dims), as Numba's `nogil` does.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

__all__ = ["emit_entry", "entry_symbol", "supported", "NOGIL_ELEMENTS"]

NOGIL_ELEMENTS = 1 << 16

# Header slots of the binding table.
H_NARGS, H_FLAG, H_COUNT, H_MISS = 0, 1, 2, 3
H_ARRAY_TYPE, H_TENSOR_TYPE, H_TENSOR_OFF, H_TENSOR_ALLOC = 4, 5, 6, 7
H_VAR_TYPE, H_VAR_OFF, H_NEW_DESCR, H_SET_BASE = 8, 9, 10, 11
H_MODE, H_RESULT_OBJ, H_RAISER, H_NCHECKS = 12, 13, 14, 15
H_DESCR, H_SCALAR = 16, 21          # five slots each, in _DTYPES order
H_SIZE = 32

MODE_SINGLE, MODE_TUPLE, MODE_CALL, MODE_CONST = 0, 1, 2, 3
_METH_FASTCALL, _METH_KEYWORDS = 0x80, 0x02

_DTYPES = ("bool", "int32", "int64", "float32", "float64")

# PyArrayObject (NumPy >= 1.20, 64-bit CPython): verified by `layout()`.
_OB_TYPE, _AR_DATA, _AR_ND, _AR_DIMS, _AR_DESCR, _AR_FLAGS, _AR_WEAKREFS = 8, 16, 24, 32, 56, 64, 72
_SCALAR_VALUE = 16                  # obval of NumPy scalars, ob_fval of float64
# PyCFunctionObject.m_ml / m_self; PyMethodDef.ml_meth / ml_flags (CPython 3.x, 64-bit).
_CF_ML, _CF_SELF, _ML_METH, _ML_FLAGS = 16, 24, 8, 16
DISPATCH_SLOT = 16                  # the `_native_call` slot of the dispatching classes
_C_CONTIGUOUS, _ALIGNED, _WRITEABLE = 0x1, 0x100, 0x400


def entry_symbol(symbol: str) -> str:
    """The entry's symbol for kernel `symbol` (renamed with it by the disk cache,
    which rewrites every occurrence of the kernel symbol in the object)."""
    return symbol + "__entry"


def supported(graph) -> bool:
    """Whether `emit_entry` gives this graph an entry (a pure function of the
    graph, so code loaded from the disk cache is known to have one)."""
    from autograph.tracer.core.ir import is_resource

    for v in list(graph.inputs) + list(graph.outputs):
        t = v.type.value_type if is_resource(v.type) else v.type
        if t.dtype.name not in _DTYPES or t.shape is None:
            return False
    return not any(is_resource(v.type) for v in graph.outputs)


def _releases_gil_always(graph) -> bool:
    from autograph.tracer.core.ir import is_resource

    if any(op.name == "while" for op in graph.walk()):
        return True
    for v in list(graph.inputs) + list(graph.outputs):
        t = v.type.value_type if is_resource(v.type) else v.type
        if t.shape and all(d is not None for d in t.shape) and int(np.prod(t.shape)) >= NOGIL_ELEMENTS:
            return True
    return False


# ====================================================================== emission

def emit_entry(module, graph, symbol: str) -> Optional[str]:
    """Add the native entry of kernel `symbol` (already in `module`) and the
    dispatcher (`emit_dispatcher`); return the entry's symbol, or None when the
    graph's types have no entry (`supported`)."""
    if not supported(graph):
        return None
    name = _Emitter(module, graph, symbol).emit()
    from .dispatch import dispatch_symbol, emit_dispatcher
    emit_dispatcher(module, dispatch_symbol(symbol))
    return name


class _Emitter:
    def __init__(self, module, graph, symbol: str):
        from llvmlite import ir

        from ..llvm.ltypes import I8, I32, I64, PTR, VOID

        self.ir = ir
        self.I8, self.I32, self.I64, self.PTR, self.VOID = I8, I32, I64, PTR, VOID
        self.module = module
        self.graph = graph
        self.symbol = symbol
        self.kernel = module.globals[symbol]

    # ------------------------------------------------------------ helpers

    def decl(self, name, ret, args):
        from ..llvm.irutil import declare
        return declare(self.module, name, ret, args)

    def c(self, v):
        return self.ir.Constant(self.I64, int(v))

    def at(self, base, offset, typ):
        """Load `typ` at byte `offset` (int or i64 value) from pointer `base`."""
        off = self.c(offset) if isinstance(offset, int) else offset
        return self.b.load(self.b.gep(base, [off], source_etype=self.I8), typ=typ)

    def slot(self, index, typ=None):
        """Load table slot `index` (int or i64 value) as `typ` (i64 by default)."""
        idx = self.c(index) if isinstance(index, int) else index
        return self.b.load(self.b.gep(self.tab, [idx], source_etype=self.I64), typ=typ or self.I64)

    def new_block(self, name):
        return self.fn.append_basic_block(name)

    def guard(self, ok, name="ok"):
        """Continue when the i1 `ok` holds, else miss."""
        nxt = self.new_block(name)
        br = self.b.cbranch(ok, nxt, self.miss_bb)
        br.set_weights([1 << 20, 1])
        self.b.position_at_end(nxt)

    def peq(self, x, y):
        return self.b.icmp_unsigned("==", x, y)

    def null(self):
        return self.ir.Constant(self.PTR, None)

    # ------------------------------------------------------------ the function

    def emit(self) -> str:
        ir, I64, PTR = self.ir, self.I64, self.PTR
        from ..abi.slots import slot_count
        from autograph.tracer.core.ir import is_resource

        name = entry_symbol(self.symbol)
        self.fn = ir.Function(self.module, ir.FunctionType(PTR, [PTR, PTR, I64]), name)
        self.fn.attributes.add("nounwind")
        self_arg, self.argv, nargs = self.fn.args
        entry_bb = self.fn.append_basic_block("entry")
        self.miss_bb = self.new_block("miss")
        self.b = ir.IRBuilder(entry_bb)

        in_types = [v.type for v in self.graph.inputs]
        out_types = [v.type for v in self.graph.outputs]
        n_in_slots = max(slot_count(in_types), 1)
        n_out_slots = max(slot_count(out_types), 1)
        self.args_frame = self._entry_alloca(n_in_slots, "args")
        self.res_frame = self._entry_alloca(n_out_slots, "results")
        self.err_frame = self._entry_alloca(8, "err")
        self.tab = self.at(self_arg, _AR_DATA, PTR)

        self.guard(self.b.icmp_signed("==", nargs, self.slot(H_NARGS)), "nargs_ok")
        self._check_tracing()
        self._check_python_values(len(in_types), len(out_types))
        big = self._unpack_inputs(in_types, is_resource)
        counter = self.b.gep(self.tab, [self.c(H_COUNT)], source_etype=I64)
        self.b.store(self.b.add(self.b.load(counter, typ=I64), self.c(1)), counter)
        rc = self._call_kernel(big)
        fault_bb = self.new_block("fault")
        ok_bb = self.new_block("ran")
        br = self.b.cbranch(self.b.icmp_signed("!=", rc, ir.Constant(self.I32, 0)), fault_bb, ok_bb)
        br.set_weights([1, 1 << 20])
        self.b.position_at_end(fault_bb)
        self._fault()
        self.b.position_at_end(ok_bb)
        self._declare_destructor()
        self._results(out_types)
        self._miss()
        return name

    def _miss(self):
        b = self.b
        b.position_at_end(self.miss_bb)
        obj = self.slot(H_MISS, self.PTR)
        b.call(self.decl("Py_IncRef", self.VOID, [self.PTR]), [obj])
        b.ret(obj)

    def _check_tracing(self):
        # While any thread traces, calls must go through Python (a call inside
        # a trace is inlined into it, never run).
        b = self.b
        flag = self.slot(H_FLAG, self.PTR)
        has = self.new_block("has_flag")
        cont = self.new_block("not_tracing")
        b.cbranch(self.peq(flag, self.null()), cont, has)
        b.position_at_end(has)
        active = b.load(flag, typ=self.I64)
        br = b.cbranch(b.icmp_signed("==", active, self.c(0)), cont, self.miss_bb)
        br.set_weights([1 << 20, 1])
        b.position_at_end(cont)

    def _check_python_values(self, n_inputs: int, n_outputs: int):
        ir, b, I64, PTR = self.ir, self.b, self.I64, self.PTR
        n = self.slot(H_NCHECKS)
        pre = b.block
        head = self.new_block("check_head")
        body = self.new_block("check_body")
        done = self.new_block("checks_done")
        b.branch(head)
        b.position_at_end(head)
        k = b.phi(I64, name="k")
        k.add_incoming(self.c(0), pre)
        b.cbranch(b.icmp_signed("<", k, n), body, done)
        b.position_at_end(body)
        base = b.add(self.c(H_SIZE + 2 * n_inputs + 2 * n_outputs), b.mul(k, self.c(3)))
        idx = self.slot(base)
        obj = b.load(b.gep(self.argv, [idx], source_etype=PTR), typ=PTR)
        self.guard(self.peq(self.at(obj, _OB_TYPE, PTR), self.slot(b.add(base, self.c(1)), PTR)), "type_ok")
        want = self.slot(b.add(base, self.c(2)), PTR)
        same = self.new_block("same")
        compare = self.new_block("compare")
        b.cbranch(self.peq(obj, want), same, compare)
        b.position_at_end(compare)
        rich = self.decl("PyObject_RichCompareBool", ir.IntType(32), [PTR, PTR, ir.IntType(32)])
        r = b.call(rich, [obj, want, ir.Constant(ir.IntType(32), 2)])   # Py_EQ
        err = self.new_block("compare_error")
        not_equal = self.new_block("not_equal")
        b.cbranch(b.icmp_signed("==", r, ir.Constant(ir.IntType(32), 1)), same, not_equal)
        b.position_at_end(not_equal)
        b.cbranch(b.icmp_signed("<", r, ir.Constant(ir.IntType(32), 0)), err, self.miss_bb)
        b.position_at_end(err)
        b.call(self.decl("PyErr_Clear", self.VOID, []), [])
        b.branch(self.miss_bb)
        b.position_at_end(same)
        k_next = b.add(k, self.c(1))
        k.add_incoming(k_next, same)
        b.branch(head)
        b.position_at_end(done)

    # ------------------------------------------------------------ inputs

    def _array_checks(self, arr, dtype_name: str, shape, writeable: bool, frame_slot: Optional[int]):
        """Check ndarray `arr` (known to be exactly PyArray_Type); store its dims
        into the frame (unknown dims only); return (data pointer, [dims])."""
        b, I32, I64, PTR = self.b, self.I32, self.I64, self.PTR
        descr = self.slot(H_DESCR + _DTYPES.index(dtype_name), PTR)
        self.guard(self.peq(self.at(arr, _AR_DESCR, PTR), descr), "descr_ok")
        nd = self.at(arr, _AR_ND, I32)
        self.guard(b.icmp_signed("==", nd, self.ir.Constant(I32, len(shape))), "nd_ok")
        need = _C_CONTIGUOUS | _ALIGNED | (_WRITEABLE if writeable else 0)
        flags = self.at(arr, _AR_FLAGS, I32)
        self.guard(b.icmp_signed("==", b.and_(flags, self.ir.Constant(I32, need)),
                                 self.ir.Constant(I32, need)), "flags_ok")
        dims = []
        if shape:
            dptr = self.at(arr, _AR_DIMS, PTR)
            for k, d in enumerate(shape):
                v = b.load(b.gep(dptr, [self.c(k)], source_etype=I64), typ=I64)
                if d is not None:
                    self.guard(b.icmp_signed("==", v, self.c(d)), "dim_ok")
                    dims.append(self.c(d))
                else:
                    if frame_slot is not None:
                        b.store(v, self.frame_ptr(self.args_frame, frame_slot + 1 + k))
                    dims.append(v)
        return self.at(arr, _AR_DATA, PTR), dims

    def frame_ptr(self, frame, slot: int):
        """Address of 8-byte slot `slot` of a stack array from `_entry_alloca`."""
        return self.b.gep(frame, [self.c(slot)], source_etype=self.I64)

    def _unpack_inputs(self, in_types, is_resource):
        """Check every input and fill the args frame; return the i1 "a big input"."""
        from ..llvm.ltypes import mem_type
        from ..llvm.irutil import product

        b, PTR = self.b, self.PTR
        big = self.ir.Constant(self.ir.IntType(1), 0)
        slot = 0
        for j, t in enumerate(in_types):
            src = self.slot(H_SIZE + 2 * j)
            if is_resource(t):
                vt = t.value_type
                ptr = self._variable_input(j, src, vt)
                b.store(ptr, self.frame_ptr(self.args_frame, slot))
                slot += 1
                continue
            obj = b.load(b.gep(self.argv, [src], source_etype=PTR), typ=PTR)
            obj = self._unwrap_tensor(obj)
            typ = self.at(obj, _OB_TYPE, PTR)
            is_array = self.peq(typ, self.slot(H_ARRAY_TYPE, PTR))
            if t.shape == ():
                mt = mem_type(t.dtype)
                arr_bb = self.new_block("array0")
                scalar_bb = self.new_block("scalar0")
                join = self.new_block("value0")
                b.cbranch(is_array, arr_bb, scalar_bb)
                b.position_at_end(arr_bb)
                data, _ = self._array_checks(obj, t.dtype.name, (), False, None)
                v_arr = b.load(data, typ=mt)
                arr_end = b.block
                b.branch(join)
                b.position_at_end(scalar_bb)
                want = self.slot(H_SCALAR + _DTYPES.index(t.dtype.name), PTR)
                self.guard(self.peq(typ, want), "scalar_ok")
                v_sc = self.at(obj, _SCALAR_VALUE, mt)
                sc_end = b.block
                b.branch(join)
                b.position_at_end(join)
                v = b.phi(mt)
                v.add_incoming(v_arr, arr_end)
                v.add_incoming(v_sc, sc_end)
                b.store(v, self.frame_ptr(self.args_frame, slot))
                slot += 1
                continue
            self.guard(is_array, "is_array")
            data, dims = self._array_checks(obj, t.dtype.name, t.shape, False, slot)
            b.store(data, self.frame_ptr(self.args_frame, slot))
            if any(d is None for d in t.shape):
                big = b.or_(big, b.icmp_signed(">=", product(b, dims), self.c(NOGIL_ELEMENTS)))
            slot += 1 + len(t.shape)
        return big

    def _unwrap_tensor(self, obj):
        """`obj._array` if `obj` is exactly an ag.Tensor, else `obj`."""
        b, PTR = self.b, self.PTR
        pre = b.block
        unwrap = self.new_block("tensor")
        cont = self.new_block("unwrapped")
        b.cbranch(self.peq(self.at(obj, _OB_TYPE, PTR), self.slot(H_TENSOR_TYPE, PTR)), unwrap, cont)
        b.position_at_end(unwrap)
        inner = self.at(obj, self.slot(H_TENSOR_OFF), PTR)
        self.guard(b.icmp_unsigned("!=", inner, self.null()), "has_array")
        end = b.block
        b.branch(cont)
        b.position_at_end(cont)
        phi = b.phi(PTR)
        phi.add_incoming(obj, pre)
        phi.add_incoming(inner, end)
        return phi

    def _variable_input(self, j, src, vt):
        """The buffer pointer of resource input `j`: a fixed (captured) one, or an argument's."""
        b, PTR = self.b, self.PTR
        fixed_bb = self.new_block("captured")
        arg_bb = self.new_block("variable_arg")
        join = self.new_block("variable")
        b.cbranch(b.icmp_signed("<", src, self.c(0)), fixed_bb, arg_bb)
        b.position_at_end(fixed_bb)
        p_fixed = self.slot(H_SIZE + 2 * j + 1, PTR)
        b.branch(join)
        b.position_at_end(arg_bb)
        obj = b.load(b.gep(self.argv, [src], source_etype=PTR), typ=PTR)
        self.guard(self.peq(self.at(obj, _OB_TYPE, PTR), self.slot(H_VAR_TYPE, PTR)), "is_variable")
        buf = self.at(obj, self.slot(H_VAR_OFF), PTR)
        self.guard(b.icmp_unsigned("!=", buf, self.null()), "has_buffer")
        self.guard(self.peq(self.at(buf, _OB_TYPE, PTR), self.slot(H_ARRAY_TYPE, PTR)), "buffer_is_array")
        p_arg, _ = self._array_checks(buf, vt.dtype.name, vt.shape, True, None)
        arg_end = b.block
        b.branch(join)
        b.position_at_end(join)
        phi = b.phi(PTR)
        phi.add_incoming(p_fixed, fixed_bb)
        phi.add_incoming(p_arg, arg_end)
        return phi

    # ------------------------------------------------------------ the call

    def _call_kernel(self, big):
        ir, b, PTR = self.ir, self.b, self.PTR
        always = _releases_gil_always(self.graph)
        release = ir.Constant(ir.IntType(1), 1) if always else big
        save = self.decl("PyEval_SaveThread", PTR, [])
        restore = self.decl("PyEval_RestoreThread", self.VOID, [PTR])
        pre = b.block
        save_bb = self.new_block("release_gil")
        call_bb = self.new_block("call")
        b.cbranch(release, save_bb, call_bb)
        b.position_at_end(save_bb)
        ts_saved = b.call(save, [])
        b.branch(call_bb)
        b.position_at_end(call_bb)
        ts = b.phi(PTR)
        ts.add_incoming(self.null(), pre)
        ts.add_incoming(ts_saved, save_bb)
        rc = b.call(self.kernel, [self.frame_ptr(self.args_frame, 0), self.frame_ptr(self.res_frame, 0),
                                  self.frame_ptr(self.err_frame, 0)])
        restore_bb = self.new_block("take_gil")
        after = self.new_block("after_call")
        b.cbranch(self.peq(ts, self.null()), after, restore_bb)
        b.position_at_end(restore_bb)
        b.call(restore, [ts])
        b.branch(after)
        b.position_at_end(after)
        return rc

    def _fault(self):
        """Call the table's fault callable with the 8 error slots (it raises)."""
        ir, b, I64, PTR = self.ir, self.b, self.I64, self.PTR
        tuple_new = self.decl("PyTuple_New", PTR, [I64])
        set_item = self.decl("PyTuple_SetItem", ir.IntType(32), [PTR, I64, PTR])
        from_ll = self.decl("PyLong_FromLongLong", PTR, [I64])
        decref = self.decl("Py_DecRef", self.VOID, [PTR])
        call = self.decl("PyObject_CallObject", PTR, [PTR, PTR])
        fail = self.new_block("fault_oom")
        tup = b.call(tuple_new, [self.c(8)])
        nxt = self.new_block("fault_tuple")
        b.cbranch(self.peq(tup, self.null()), fail, nxt)
        b.position_at_end(nxt)
        for k in range(8):
            v = b.load(self.frame_ptr(self.err_frame, k), typ=I64)
            o = b.call(from_ll, [v])
            nxt = self.new_block("fault_item")
            bad = self.new_block("fault_item_oom")
            b.cbranch(self.peq(o, self.null()), bad, nxt)
            b.position_at_end(bad)
            b.call(decref, [tup])
            b.branch(fail)
            b.position_at_end(nxt)
            b.call(set_item, [tup, self.c(k), o])
        r = b.call(call, [self.slot(H_RAISER, PTR), tup])
        b.call(decref, [tup])
        b.ret(r)
        b.position_at_end(fail)
        b.ret(self.null())

    # ------------------------------------------------------------ results

    def _results(self, out_types):
        from ..llvm.ltypes import mem_type

        ir, b, I32, I64, PTR = self.ir, self.b, self.I32, self.I64, self.PTR
        n = len(out_types)
        decref = self.decl("Py_DecRef", self.VOID, [PTR])
        incref = self.decl("Py_IncRef", self.VOID, [PTR])
        free = self.decl("free", self.VOID, [PTR])
        # NumPy's C API and tp_alloc are called through pointers from the table.
        new_descr_t = ir.FunctionType(PTR, [PTR, PTR, I32, PTR, PTR, PTR, I32, PTR]).as_pointer()
        set_base_t = ir.FunctionType(I32, [PTR, PTR]).as_pointer()
        alloc_t = ir.FunctionType(PTR, [PTR, I64]).as_pointer()
        capsule_new = self.decl("PyCapsule_New", PTR, [PTR, PTR, PTR])

        # objs[j]: the result object made so far; pending[j]: a buffer no object owns yet.
        objs = self._entry_alloca(max(n, 1), "objs")
        pending = self._entry_alloca(max(n, 1), "pending")
        dims_buf = self._entry_alloca(max([len(t.shape) for t in out_types] + [1]), "dims")
        slot = 0
        slots = []
        for j, t in enumerate(out_types):
            b.store(self.null(), self.gep_arr(objs, j))
            if t.shape == ():
                b.store(self.null(), self.gep_arr(pending, j))
            else:
                b.store(b.load(self.frame_ptr(self.res_frame, slot), typ=PTR), self.gep_arr(pending, j))
            slots.append(slot)
            slot += 1 if t.shape == () else 1 + len(t.shape)

        cleanup = self.new_block("results_failed")
        new_descr = self.slot(H_NEW_DESCR, new_descr_t)
        set_base = self.slot(H_SET_BASE, set_base_t)
        alloc = self.slot(H_TENSOR_ALLOC, alloc_t)
        array_type = self.slot(H_ARRAY_TYPE, PTR)
        tensor_type = self.slot(H_TENSOR_TYPE, PTR)
        n_in = len(self.graph.inputs)
        for j, t in enumerate(out_types):
            descr = self.slot(H_DESCR + _DTYPES.index(t.dtype.name), PTR)
            made = self.new_block("made")
            recycle = H_SIZE + 2 * n_in + 2 * j     # two cached 0-d results of this output
            if t.shape == ():
                mt = mem_type(t.dtype)
                v = b.load(self.frame_ptr(self.res_frame, slots[j]), typ=mt)
                create = self.new_block("create0")
                try0 = self.new_block("recycle0")
                try1 = self.new_block("recycle1")
                b.cbranch(self.peq(tensor_type, self.null()), create, try0)
                b.position_at_end(try0)
                self._try_reuse(recycle, descr, v, objs, j, made, try1)
                b.position_at_end(try1)
                self._try_reuse(recycle + 1, descr, v, objs, j, made, create)
                b.position_at_end(create)
            b.call(incref, [descr])        # PyArray_NewFromDescr steals it
            if t.shape == ():
                arr = b.call(new_descr, [array_type, descr, ir.Constant(I32, 0), self.null(), self.null(),
                                         self.null(), ir.Constant(I32, 0), self.null()])
                self._fail_if_null(arr, cleanup)
                b.store(arr, self.gep_arr(objs, j))
                b.store(v, self.at_ptr(arr, _AR_DATA))
            else:
                ptr = b.load(self.gep_arr(pending, j), typ=PTR)
                for k in range(len(t.shape)):
                    d = b.load(self.frame_ptr(self.res_frame, slots[j] + 1 + k), typ=I64)
                    b.store(d, self.frame_ptr(dims_buf, k))
                dims0 = self.frame_ptr(dims_buf, 0)
                arr = b.call(new_descr, [array_type, descr, ir.Constant(I32, len(t.shape)), dims0, self.null(),
                                         ptr, ir.Constant(I32, _C_CONTIGUOUS | _ALIGNED), self.null()])
                self._fail_if_null(arr, cleanup)
                b.store(arr, self.gep_arr(objs, j))
                cap = b.call(capsule_new, [ptr, self.null(), self._destructor])
                self._fail_if_null(cap, cleanup)
                b.store(self.null(), self.gep_arr(pending, j))   # the capsule owns it now
                rc = b.call(set_base, [arr, cap])   # steals cap, also on failure
                nxt = self.new_block("base_set")
                b.cbranch(b.icmp_signed("!=", rc, ir.Constant(I32, 0)), cleanup, nxt)
                b.position_at_end(nxt)
            flags_p = b.gep(arr, [self.c(_AR_FLAGS)], source_etype=self.I8)
            flags = b.load(flags_p, typ=I32)
            b.store(b.and_(flags, ir.Constant(I32, ~_WRITEABLE & 0xFFFFFFFF)), flags_p)
            # Wrap as ag.Tensor when the table names its type.
            wrap = self.new_block("wrap")
            b.cbranch(self.peq(tensor_type, self.null()), made, wrap)
            b.position_at_end(wrap)
            tobj = b.call(alloc, [tensor_type, self.c(0)])
            self._fail_if_null(tobj, cleanup)
            b.store(arr, b.gep(tobj, [self.slot(H_TENSOR_OFF)], source_etype=self.I8))
            b.store(tobj, self.gep_arr(objs, j))
            if t.shape == ():
                # Keep the new result as a recycling candidate (the older of the two goes).
                c0 = self.tab_ptr(recycle)
                c1 = self.tab_ptr(recycle + 1)
                b.call(decref, [b.load(c0, typ=PTR)])
                b.store(b.load(c1, typ=PTR), c0)
                b.call(incref, [tobj])
                b.store(tobj, c1)
            b.branch(made)
            b.position_at_end(made)
        self._return_results(n, objs, cleanup, decref, incref)
        # cleanup: release what was made, free what nobody owns.
        b.position_at_end(cleanup)
        for j in range(n):
            b.call(decref, [b.load(self.gep_arr(objs, j), typ=PTR)])
            b.call(free, [b.load(self.gep_arr(pending, j), typ=PTR)])
        b.ret(self.null())

    def tab_ptr(self, index: int):
        """Address of table slot `index`."""
        return self.b.gep(self.tab, [self.c(index)], source_etype=self.I64)

    def _try_reuse(self, index: int, descr, value, objs, j: int, made, otherwise):
        """Reuse the cached 0-d result in table slot `index` if nothing else refers
        to it: a Tensor whose only reference is the table's, holding a 0-d array of
        the output's dtype that only it references and nothing weakly references.
        Such an object cannot be observed, so writing the new value into it and
        returning it is the same as making a new one, without two allocations."""
        b, I32, I64, PTR = self.b, self.I32, self.I64, self.PTR

        def need(cond, name):
            nxt = self.new_block(name)
            b.cbranch(cond, nxt, otherwise)
            b.position_at_end(nxt)

        c = b.load(self.tab_ptr(index), typ=PTR)
        need(b.icmp_unsigned("!=", c, self.null()), "cached")
        need(b.icmp_signed("==", b.load(c, typ=I64), self.c(1)), "tensor_free")
        a = self.at(c, self.slot(H_TENSOR_OFF), PTR)
        need(b.icmp_unsigned("!=", a, self.null()), "has_array")
        need(b.icmp_signed("==", b.load(a, typ=I64), self.c(1)), "array_free")
        need(self.peq(self.at(a, _OB_TYPE, PTR), self.slot(H_ARRAY_TYPE, PTR)), "is_array")
        need(self.peq(self.at(a, _AR_WEAKREFS, PTR), self.null()), "no_weakrefs")
        need(self.peq(self.at(a, _AR_DESCR, PTR), descr), "same_dtype")
        need(b.icmp_signed("==", self.at(a, _AR_ND, I32), self.ir.Constant(I32, 0)), "rank0")
        b.store(value, self.at(a, _AR_DATA, PTR))
        b.call(self.decl("Py_IncRef", self.VOID, [PTR]), [c])
        b.store(c, self.gep_arr(objs, j))
        b.branch(made)

    def _return_results(self, n, objs, cleanup, decref, incref):
        b, I32, I64, PTR = self.b, self.I32, self.I64, self.PTR
        mode = self.slot(H_MODE)
        tuple_new = self.decl("PyTuple_New", PTR, [I64])
        set_item = self.decl("PyTuple_SetItem", I32, [PTR, I64, PTR])
        call = self.decl("PyObject_CallObject", PTR, [PTR, PTR])
        single = self.new_block("single")
        const = self.new_block("const")
        make_tuple = self.new_block("tuple")
        sw = b.switch(mode, make_tuple)
        sw.add_case(self.c(MODE_SINGLE), single if n == 1 else const)
        sw.add_case(self.c(MODE_CONST), const)
        b.position_at_end(single)
        b.ret(b.load(self.gep_arr(objs, 0), typ=PTR))
        b.position_at_end(const)
        for j in range(n):   # outputs computed but not returned (a constant result)
            b.call(decref, [b.load(self.gep_arr(objs, j), typ=PTR)])
        r = self.slot(H_RESULT_OBJ, PTR)
        b.call(incref, [r])
        b.ret(r)
        b.position_at_end(make_tuple)
        tup = b.call(tuple_new, [self.c(n)])
        self._fail_if_null(tup, cleanup)
        for j in range(n):
            b.call(set_item, [tup, self.c(j), b.load(self.gep_arr(objs, j), typ=PTR)])   # steals
        as_call = self.new_block("call_result")
        ret_tuple = self.new_block("ret_tuple")
        b.cbranch(b.icmp_signed("==", mode, self.c(MODE_CALL)), as_call, ret_tuple)
        b.position_at_end(ret_tuple)
        b.ret(tup)
        b.position_at_end(as_call)
        holder = b.call(tuple_new, [self.c(1)])
        ok = self.new_block("holder_ok")
        bad = self.new_block("holder_failed")
        b.cbranch(self.peq(holder, self.null()), bad, ok)
        b.position_at_end(bad)
        b.call(decref, [tup])
        b.ret(self.null())
        b.position_at_end(ok)
        b.call(set_item, [holder, self.c(0), tup])
        r = b.call(call, [self.slot(H_RESULT_OBJ, PTR), holder])
        b.call(decref, [holder])
        b.ret(r)

    def _fail_if_null(self, v, cleanup):
        nxt = self.new_block("nonnull")
        br = self.b.cbranch(self.peq(v, self.null()), cleanup, nxt)
        br.set_weights([1, 1 << 20])
        self.b.position_at_end(nxt)

    def _entry_alloca(self, count: int, name: str):
        """`count` 8-byte slots on the stack (an opaque pointer), allocated in the entry block."""
        b = self.b
        saved = b.block
        b.position_at_start(self.fn.entry_basic_block)
        slot = b.alloca(self.I64, size=self.c(count), name=name)
        # An opaque pointer, like the kernel's own frames (function arguments): the
        # slots hold values of several types (f32, i8, ptr), which llvmlite only
        # stores through an opaque pointer.
        slot.type = self.PTR
        b.position_at_end(saved)
        return slot

    def gep_arr(self, arr, j):
        return self.frame_ptr(arr, j)

    def at_ptr(self, base, offset):
        """The pointer stored at byte `offset` of `base`."""
        return self.at(base, offset, self.PTR)

    def _declare_destructor(self):
        """`void <symbol>__free(PyObject *capsule)`: frees the buffer a result capsule owns."""
        ir, PTR = self.ir, self.PTR
        fn = ir.Function(self.module, ir.FunctionType(self.VOID, [PTR]), self.symbol + "__free")
        fn.linkage = "internal"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        get = self.decl("PyCapsule_GetPointer", PTR, [PTR, PTR])
        p = b.call(get, [fn.args[0], ir.Constant(PTR, None)])
        b.call(self.decl("free", self.VOID, [PTR]), [p])
        b.ret_void()
        self._destructor = fn




# ====================================================================== inspection

GLUE_SUFFIXES = ("__entry", "__dispatch", "__free")
GLUE_GLOBALS = ("ag.dispatch.method",)   # private constants of the glue (autograph.codegen.entry.dispatch)


def _glue_names(symbol: str):
    return {symbol + s for s in GLUE_SUFFIXES}


def strip_glue_ir(text: str, symbol: str) -> str:
    """`text` (LLVM IR of kernel `symbol`'s module) without the definitions of
    the entry, dispatcher and capsule destructor: inspection shows the kernel."""
    names = _glue_names(symbol)
    out, skipping = [], False
    for line in text.splitlines(keepends=True):
        if skipping:
            skipping = line.rstrip("\n") != "}"
            continue
        if line.startswith("define ") and any(f'@"{n}"(' in line or f"@{n}(" in line for n in names):
            skipping = not line.rstrip().endswith("}")
            continue
        if line.startswith("@") and any(line.startswith((f'@"{g}"', f"@{g} ")) for g in GLUE_GLOBALS):
            continue
        out.append(line)
    return "".join(out)


def strip_glue_asm(text: str, symbol: str) -> str:
    """Assembly text of kernel `symbol`'s module without the glue functions and
    constants (from each one's `.globl`/`.type` line to its `.size` line)."""
    names = _glue_names(symbol) | {".L" + g for g in GLUE_GLOBALS}
    out, skipping, after = [], None, False
    for line in text.splitlines(keepends=True):
        words = line.replace(",", " ").split()
        if skipping is not None:
            if len(words) >= 2 and words[0] == ".size" and words[1] == skipping:
                skipping, after = None, True
            continue
        if after and words == [".cfi_endproc"]:   # may follow the .size of a function
            after = False
            continue
        after = False
        if len(words) >= 2 and words[0] in (".globl", ".type") and words[1] in names:
            skipping = words[1]
            continue
        out.append(line)
    return "".join(out)
