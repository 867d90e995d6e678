"""The native `__call__` of PolymorphicFunction and ConcreteFunction, in LLVM IR.

`emit_dispatcher` puts a small METH_FASTCALL | METH_KEYWORDS function into
every kernel module that has an entry (so no module is compiled for it
alone); `autograph.runtime.fastpath` installs the first one loaded as the
classes' `__call__` (`autograph.codegen.entry.dispatch.install_call`). A call
`f(x)` then reaches native code without a Python frame: the dispatcher calls
the instance's `_native_call` entry directly and only on a miss (or with
keyword arguments) calls the instance's `_call_python`.
"""
from __future__ import annotations

from llvmlite import ir

from ..abi.binding import (CF_ML, CF_SELF, DISPATCH_SLOT, FALLBACK_METHOD, GLUE_GLOBALS, METH_FASTCALL, ML_FLAGS,
    ML_METH, OB_TYPE, dispatch_symbol)
from ..llvm.irutil import declare
from ..llvm.ltypes import I8, I32, I64, PTR, VOID

__all__ = ["emit_dispatcher"]


def emit_dispatcher(module, symbol: str) -> None:
    """Add to the module of kernel `symbol` the dispatcher
    `PyObject *<symbol>__dispatch(self, args, nargs, kwnames)`, a METH_FASTCALL |
    METH_KEYWORDS method that `autograph.runtime.fastpath` installs as the `__call__` of
    PolymorphicFunction and ConcreteFunction (the same code in every kernel
    module, so no extra module is compiled; the first one loaded is used).

    Without keyword arguments it reads the instance's `_native_call` slot (at
    `DISPATCH_SLOT`, verified per process) and, if it holds a METH_FASTCALL
    builtin, calls its C function directly; any result but NotImplemented is
    the call's result. Otherwise it calls the instance's `_call_python`
    method (FALLBACK_METHOD) with the same arguments: the Python path, unchanged.
    """
    name = dispatch_symbol(symbol)

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
    is_cfunc = b.icmp_unsigned("==", at(e, OB_TYPE), b.bitcast(extern("PyCFunction_Type"), PTR))
    ml = at(e, CF_ML)
    b.cbranch(is_cfunc, blocks["fastcall"], blocks["python"])
    b.position_at_end(blocks["fastcall"])
    flags = at(ml, ML_FLAGS, I32)
    call_bb = fn.append_basic_block("call")
    b.cbranch(b.icmp_signed("==", flags, ir.Constant(I32, METH_FASTCALL)), call_bb, blocks["python"])
    b.position_at_end(call_bb)
    meth = at(ml, ML_METH, ir.FunctionType(PTR, [PTR, PTR, I64]).as_pointer())
    r = b.call(meth, [at(e, CF_SELF), args, nargs])
    ret_bb = fn.append_basic_block("ret")
    b.cbranch(b.icmp_unsigned("==", r, b.bitcast(extern("_Py_NotImplementedStruct"), PTR)),
              blocks["miss"], ret_bb)
    b.position_at_end(ret_bb)
    b.ret(r)
    b.position_at_end(blocks["miss"])
    b.call(declare(module, "Py_DecRef", VOID, [PTR]), [r])
    b.branch(blocks["python"])
    # self.<FALLBACK_METHOD>(*args, **kwargs): a bound method called with the same vector.
    b.position_at_end(blocks["python"])
    text = bytearray(FALLBACK_METHOD.encode() + b"\0")
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
