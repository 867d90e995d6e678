"""The native `__call__` of PolymorphicFunction and ConcreteFunction.

`emit_dispatcher` puts a small METH_FASTCALL | METH_KEYWORDS function into
every kernel module that has an entry (so no module is compiled for it
alone); `autograph.runtime.fastpath` installs the first one loaded as the classes'
`__call__` (`install_call`, a method descriptor from `PyDescr_NewMethod`).
A call `f(x)` then reaches native code without a Python frame: the
dispatcher calls the instance's `_native_call` entry directly and only on a
miss (or with keyword arguments) calls the instance's `_call_python`.
"""
from __future__ import annotations

import ctypes

from .emit import (GLUE_GLOBALS, _CF_ML, _CF_SELF, _METH_FASTCALL, _METH_KEYWORDS, _ML_FLAGS,
    _ML_METH, _OB_TYPE, DISPATCH_SLOT)
from .native import _DEFS, _MethodDef, _lock, NativeEntry

__all__ = ["dispatch_symbol", "emit_dispatcher", "dispatch_address", "install_call", "DISPATCH_SLOT"]


def dispatch_symbol(symbol: str) -> str:
    """The dispatcher's symbol in the module of kernel `symbol`."""
    return symbol + "__dispatch"


def emit_dispatcher(module, name: str) -> None:
    """Add `PyObject *name(self, args, nargs, kwnames)`, a METH_FASTCALL |
    METH_KEYWORDS method that `autograph.runtime.fastpath` installs as the `__call__` of
    PolymorphicFunction and ConcreteFunction (the same code in every kernel
    module, so no extra module is compiled; the first one loaded is used).

    Without keyword arguments it reads the instance's `_native_call` slot (at
    `DISPATCH_SLOT`, verified per process) and, if it holds a METH_FASTCALL
    builtin, calls its C function directly; any result but NotImplemented is
    the call's result. Otherwise it calls the instance's `_call_python`
    method with the same arguments: the Python path, unchanged.
    """
    from llvmlite import ir

    from ..llvm.irutil import declare
    from ..llvm.ltypes import I8, I32, I64, PTR, VOID

    def c(v):
        return ir.Constant(I64, v)

    fn = ir.Function(module, ir.FunctionType(PTR, [PTR, PTR, I64, PTR]), name)
    fn.attributes.add("nounwind")
    self_, args, nargs, kwnames = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    blocks = {k: fn.append_basic_block(k) for k in ("no_kw", "has_entry", "fastcall", "miss", "python")}

    def at(p, off, typ=PTR):
        return b.load(b.gep(p, [c(off)], source_etype=I8), typ=typ)

    def extern(nm):
        g = module.globals.get(nm)
        if g is None:
            g = ir.GlobalVariable(module, I8, nm)   # declared only: resolved in the process
        return g

    null = ir.Constant(PTR, None)
    b.cbranch(b.icmp_unsigned("==", kwnames, null), blocks["no_kw"], blocks["python"])
    b.position_at_end(blocks["no_kw"])
    e = at(self_, DISPATCH_SLOT)
    b.cbranch(b.icmp_unsigned("==", e, null), blocks["python"], blocks["has_entry"])
    b.position_at_end(blocks["has_entry"])
    is_cfunc = b.icmp_unsigned("==", at(e, _OB_TYPE), b.bitcast(extern("PyCFunction_Type"), PTR))
    ml = at(e, _CF_ML)
    b.cbranch(is_cfunc, blocks["fastcall"], blocks["python"])
    b.position_at_end(blocks["fastcall"])
    flags = at(ml, _ML_FLAGS, I32)
    call_bb = fn.append_basic_block("call")
    b.cbranch(b.icmp_signed("==", flags, ir.Constant(I32, _METH_FASTCALL)), call_bb, blocks["python"])
    b.position_at_end(call_bb)
    meth = at(ml, _ML_METH, ir.FunctionType(PTR, [PTR, PTR, I64]).as_pointer())
    r = b.call(meth, [at(e, _CF_SELF), args, nargs])
    ret_bb = fn.append_basic_block("ret")
    b.cbranch(b.icmp_unsigned("==", r, b.bitcast(extern("_Py_NotImplementedStruct"), PTR)),
              blocks["miss"], ret_bb)
    b.position_at_end(ret_bb)
    b.ret(r)
    b.position_at_end(blocks["miss"])
    b.call(declare(module, "Py_DecRef", VOID, [PTR]), [r])
    b.branch(blocks["python"])
    # self._call_python(*args, **kwargs): a bound method called with the same vector.
    b.position_at_end(blocks["python"])
    text = bytearray(b"_call_python\0")
    g = ir.GlobalVariable(module, ir.ArrayType(I8, len(text)), GLUE_GLOBALS[0])
    g.global_constant = True
    g.linkage = "private"
    g.initializer = ir.Constant(ir.ArrayType(I8, len(text)), text)
    decref = declare(module, "Py_DecRef", VOID, [PTR])
    meth_name = b.call(declare(module, "PyUnicode_InternFromString", PTR, [PTR]), [b.bitcast(g, PTR)])
    fail = fn.append_basic_block("failed")
    got_name = fn.append_basic_block("got_name")
    b.cbranch(b.icmp_unsigned("==", meth_name, null), fail, got_name)
    b.position_at_end(got_name)
    bound = b.call(declare(module, "PyObject_GetAttr", PTR, [PTR, PTR]), [self_, meth_name])
    b.call(decref, [meth_name])
    call_py = fn.append_basic_block("call_python")
    b.cbranch(b.icmp_unsigned("==", bound, null), fail, call_py)
    b.position_at_end(call_py)
    out = b.call(declare(module, "PyObject_Vectorcall", PTR, [PTR, PTR, I64, PTR]), [bound, args, nargs, kwnames])
    b.call(decref, [bound])
    b.ret(out)
    b.position_at_end(fail)
    b.ret(null)


def dispatch_address(kernel) -> int:
    """Address of the dispatcher in `kernel`'s code (0 if it has none)."""
    entry = NativeEntry.of(kernel)
    if entry is None:
        return 0
    from ..jit import engine as jit

    with jit.LOCK:
        return jit._get_state().engine.get_function_address(dispatch_symbol(kernel.symbol))


def install_call(cls, address: int) -> None:
    """Make the dispatcher at `address` the `__call__` of `cls`, whose instances
    have their `_native_call` slot at `DISPATCH_SLOT` (the caller checks)."""
    d = _MethodDef(b"__call__", address, _METH_FASTCALL | _METH_KEYWORDS,
                   b"Call the function (native dispatcher: autograph.runtime.fastpath).")
    with _lock:
        _DEFS.append(d)   # the descriptor points at it for the process's life
    new = ctypes.pythonapi.PyDescr_NewMethod
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.py_object, ctypes.c_void_p]
    cls.__call__ = new(cls, ctypes.addressof(d))


