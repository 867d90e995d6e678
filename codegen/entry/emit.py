"""The native entry point of a compiled kernel: a cached call in tens of ns.

`emit_entry` adds to the kernel's own LLVM module a CPython-API function

    PyObject *<symbol>__entry(PyObject *self, PyObject *const *args, Py_ssize_t nargs)

that `autograph.codegen.entry.native.NativeEntry.bind` turns into a builtin
(`PyCFunction_NewEx`, METH_FASTCALL). It takes the caller's positional
arguments as they are, checks them itself (`.arguments`), fills the
kernel's `args` frame on its stack, calls the kernel and returns the results
as `ag.Tensor`s or plain ndarrays (`.results`). When an argument is not
exactly what the kernel was compiled for, it returns `NotImplemented` (a
*miss*) with no side effect, and Python (`autograph.runtime.fastpath`, then
the slow path) takes over; the slow path produces every error message, so a
miss is never an error. `autograph.codegen.entry.dispatcher` adds, in the
same module, the native `__call__` that calls an entry without a Python frame.

Because the entry sits in the kernel's module, it is compiled, stored in the
disk cache and loaded with the kernel (usually with the kernel inlined into
it): no extra LLVM work per process. No process-specific address is baked
into the code: whatever differs between processes (type objects, NumPy's C
API, the objects Python values are compared with) comes from the *binding
table* passed as `self` (layout: `autograph.codegen.abi.binding`). A kernel
has one entry and any number of tables, one per way of calling it.

The steps: the number of arguments; no trace active in any thread (the
table's flag); the Python-value checks; each input; the table's call counter
is incremented; the kernel runs; a fault (status != 0) calls the table's
fault callable with the error slots, which raises `InvalidArgumentError`
with the same message as the slow path; otherwise the results are returned.
The GIL is released around the kernel call when the graph has a `while`
loop, or an input or output has at least `NOGIL_ELEMENTS` elements (checked
on the dims), as Numba's `nogil` does.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from autograph.tracer.core.ir import is_resource

from ..abi.binding import AR_DATA, H_COUNT, H_MISS, H_NARGS, H_RAISER, NOGIL_ELEMENTS, entry_symbol, supported
from ..abi.slots import ERR_SLOTS, slot_count
from .arguments import ArgumentChecks
from .dispatcher import emit_dispatcher
from .results import Results

__all__ = ["emit_entry"]


def emit_entry(module, graph, symbol: str) -> Optional[str]:
    """Add the native entry of kernel `symbol` (already in `module`) and the
    dispatcher (`emit_dispatcher`); return the entry's symbol, or None when the
    graph's types have no entry (`autograph.codegen.abi.binding.supported`)."""
    if not supported(graph):
        return None
    if _has_loops(graph):
        # Else LLVM inlines the kernel into the entry and optimises and emits its loops
        # twice: K4's cold first call took 214-285 ms with it inlined, 142-170 without (a
        # loaded 2-core machine), for 3 ns more per call (70 against 73 ns on 8 elements).
        module.get_global(symbol).attributes.add("noinline")
    name = _Emitter(module, graph, symbol).emit()
    emit_dispatcher(module, symbol)
    return name


def _has_loops(graph) -> bool:
    """A region op (`while`, `cond`), or a value that may not be a scalar (its ops are
    loops): any shape but `()`, an unknown rank (shape None) included."""
    def non_scalar(v):
        return getattr(v.type, "shape", ()) != ()

    for op in graph.walk():
        if op.regions or any(non_scalar(r) for r in op.results):
            return True
    return any(non_scalar(v) for v in graph.inputs)


def _releases_gil_always(graph) -> bool:
    """A `while` loop, or an input or output with at least NOGIL_ELEMENTS static elements."""
    if any(op.name == "while" for op in graph.walk()):
        return True
    for v in list(graph.inputs) + list(graph.outputs):
        t = v.type.value_type if is_resource(v.type) else v.type
        if t.shape and all(d is not None for d in t.shape) and int(np.prod(t.shape)) >= NOGIL_ELEMENTS:
            return True
    return False


class _Emitter(ArgumentChecks, Results):
    """One entry: the checks (ArgumentChecks), the call, the results (Results)."""

    def emit(self) -> str:
        """Emit the entry function; return its symbol."""
        ir, I64, PTR = self.ir, self.I64, self.PTR
        name = entry_symbol(self.symbol)
        nargs = self.begin(name)

        in_types = [v.type for v in self.graph.inputs]
        out_types = [v.type for v in self.graph.outputs]
        n_in_slots = max(slot_count(in_types), 1)
        n_out_slots = max(slot_count(out_types), 1)
        self.args_frame = self.entry_alloca(n_in_slots, "args")
        self.res_frame = self.entry_alloca(n_out_slots, "results")
        self.err_frame = self.entry_alloca(ERR_SLOTS, "err")
        self.tab = self.at(self.self_arg, AR_DATA, PTR)

        self.guard(self.b.icmp_signed("==", nargs, self.slot(H_NARGS)), "nargs_ok")
        self.check_tracing()
        self.check_python_values(len(in_types), len(out_types))
        big = self.unpack_inputs(in_types)
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
        self.declare_destructor()
        self.results(out_types)
        self._miss()
        return name

    def _miss(self):
        """The miss block: return the table's miss object (NotImplemented), new reference."""
        b = self.b
        b.position_at_end(self.miss_bb)
        obj = self.slot(H_MISS, self.PTR)
        b.call(self.decl("Py_IncRef", self.VOID, [self.PTR]), [obj])
        b.ret(obj)

    def _call_kernel(self, big):
        """Call the kernel on the three frames, without the GIL when the graph
        always releases it or the i1 `big` holds; return its status."""
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
        """Return what the table's fault callable returns for the error slots
        (it raises: NULL with the exception set)."""
        ir, b, I64, PTR = self.ir, self.b, self.I64, self.PTR
        tuple_new = self.decl("PyTuple_New", PTR, [I64])
        set_item = self.decl("PyTuple_SetItem", ir.IntType(32), [PTR, I64, PTR])
        from_ll = self.decl("PyLong_FromLongLong", PTR, [I64])
        decref = self.decl("Py_DecRef", self.VOID, [PTR])
        call = self.decl("PyObject_CallObject", PTR, [PTR, PTR])
        fail = self.new_block("fault_oom")
        tup = b.call(tuple_new, [self.c(ERR_SLOTS)])
        nxt = self.new_block("fault_tuple")
        b.cbranch(self.peq(tup, self.null()), fail, nxt)
        b.position_at_end(nxt)
        for k in range(ERR_SLOTS):
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
