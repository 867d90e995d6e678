"""`EntryBuilder`: the LLVM IR helpers shared by the parts of the native entry
(`autograph.codegen.entry.emit`, `.arguments`, `.results`).

One builder emits one entry function: it holds the IR builder, the
function's miss block, its stack frames and the binding table's pointer,
and offers loads at byte offsets of CPython objects, loads of table slots
and "continue if, else miss" guards.
"""
from __future__ import annotations

from llvmlite import ir

from ..llvm.irutil import declare
from ..llvm.ltypes import I8, I32, I64, PTR, VOID

__all__ = ["EntryBuilder"]


class EntryBuilder:
    """State and helpers while emitting one entry into `module` for `graph`,
    whose kernel function `symbol` is already in the module.

    Set by `begin`: `fn` (the entry), `b` (the IR builder), `argv` (the
    caller's argument vector), `tab` (the binding table's slots) and
    `miss_bb` (the block returning the table's miss object).
    """

    ir = ir
    I8, I32, I64, PTR, VOID = I8, I32, I64, PTR, VOID

    def __init__(self, module, graph, symbol: str):
        self.module = module
        self.graph = graph
        self.symbol = symbol
        self.kernel = module.globals[symbol]

    def begin(self, name: str):
        """Create the entry function `name` (`PyObject *(self, args, nargs)`) and
        its first block; return its `nargs` argument."""
        self.fn = ir.Function(self.module, ir.FunctionType(PTR, [PTR, PTR, I64]), name)
        self.fn.attributes.add("nounwind")
        self_arg, self.argv, nargs = self.fn.args
        entry_bb = self.fn.append_basic_block("entry")
        self.miss_bb = self.new_block("miss")
        self.b = ir.IRBuilder(entry_bb)
        self.self_arg = self_arg
        return nargs

    # ------------------------------------------------------------ values

    def decl(self, name, ret, args):
        """Declare (once) the external function `name`."""
        return declare(self.module, name, ret, args)

    def c(self, v):
        """An i64 constant."""
        return ir.Constant(I64, int(v))

    def null(self):
        """The null pointer."""
        return ir.Constant(PTR, None)

    def peq(self, x, y):
        """i1: the two pointers (or integers) are equal."""
        return self.b.icmp_unsigned("==", x, y)

    # ------------------------------------------------------------ memory

    def at(self, base, offset, typ):
        """Load `typ` at byte `offset` (int or i64 value) from pointer `base`."""
        off = self.c(offset) if isinstance(offset, int) else offset
        return self.b.load(self.b.gep(base, [off], source_etype=I8), typ=typ)

    def at_ptr(self, base, offset):
        """The pointer stored at byte `offset` of `base`."""
        return self.at(base, offset, PTR)

    def slot(self, index, typ=None):
        """Load table slot `index` (int or i64 value) as `typ` (i64 by default)."""
        idx = self.c(index) if isinstance(index, int) else index
        return self.b.load(self.b.gep(self.tab, [idx], source_etype=I64), typ=typ or I64)

    def tab_ptr(self, index: int):
        """Address of table slot `index`."""
        return self.b.gep(self.tab, [self.c(index)], source_etype=I64)

    def frame_ptr(self, frame, slot: int):
        """Address of 8-byte slot `slot` of a stack array from `entry_alloca`."""
        return self.b.gep(frame, [self.c(slot)], source_etype=I64)

    def entry_alloca(self, count: int, name: str):
        """`count` 8-byte slots on the stack (an opaque pointer), allocated in the entry block."""
        b = self.b
        saved = b.block
        b.position_at_start(self.fn.entry_basic_block)
        slot = b.alloca(I64, size=self.c(count), name=name)
        # An opaque pointer, like the kernel's own frames (function arguments): the
        # slots hold values of several types (f32, i8, ptr), which llvmlite only
        # stores through an opaque pointer.
        slot.type = PTR
        b.position_at_end(saved)
        return slot

    # ------------------------------------------------------------ control

    def new_block(self, name):
        """A new basic block of the entry."""
        return self.fn.append_basic_block(name)

    def guard(self, ok, name="ok"):
        """Continue when the i1 `ok` holds, else miss."""
        nxt = self.new_block(name)
        br = self.b.cbranch(ok, nxt, self.miss_bb)
        br.set_weights([1 << 20, 1])
        self.b.position_at_end(nxt)

    def fail_if_null(self, v, cleanup):
        """Continue when pointer `v` is not null, else branch to `cleanup`."""
        nxt = self.new_block("nonnull")
        br = self.b.cbranch(self.peq(v, self.null()), cleanup, nxt)
        br.set_weights([1, 1 << 20])
        self.b.position_at_end(nxt)
