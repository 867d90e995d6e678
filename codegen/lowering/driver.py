"""Lowering a graph to one LLVM function: the driver and the op registry.

The kernel ABI (independent of how Python calls it):

    i32 kernel(ptr args, ptr results, ptr err)

`args` is an array of 8-byte slots. For each graph input in order, a rank-0
input occupies one slot holding the value itself (bool as i8, int32/float32
and narrower values in the slot's low bytes; a complex128 takes two slots, real
part first: `abi.slots.scalar_slots`); a rank-r input occupies 1 + r slots: its data
pointer, then its r dims as i64. A resource input (a variable, `ref T`)
occupies one slot whatever its rank: the data pointer of the variable's
buffer, which the kernel reads and writes in place but never frees (its
shape is static; see `autograph.codegen.lowering.variables`). `results` uses the same layout
for the outputs: scalars by value; tensors as a `malloc`ed data pointer
(handed to the caller, who frees it) plus dims. `err` is `[site id, v0, ..., v6]` (i64);
the kernel returns 0 on success and 1 after filling `err`.

Ops are lowered by functions registered by op name (`autograph.codegen.lowering.registry`,
filled by `autograph.codegen.lowering.load_all`); each gets
the `Lowerer`, the op and its lowered operands, and returns the lowered
results (LLVM scalars for rank 0, `Tensor`s otherwise, or a fused node for
elementwise ops the block plan defers).

Error exits (`Lowerer.fail_if`) free every buffer the kernel holds at the
fault, each once: the buffers the blocks being lowered own (`_Frame.owned`),
the carried buffers of a loop whose condition or Ctrl-C poll is being
lowered (`Lowerer.holding`: the loop owns them, no block does), and the op's
pending buffers, allocated or taken over since the last op boundary, which
live in stack slots (`track_alloc`). See "The native ABI" in
docs/ARCHITECTURE.md.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Dict, List, Optional, Sequence, Set

from llvmlite import ir

from autograph.tracer.core.ir import Block, Graph, Op, Value, is_resource

from . import load_all, memory
from ..abi.slots import (scalar_slots, slot_count)  # noqa: F401  (part of this module's API; defined without llvmlite)
from .error_sites import ErrorTable
from ..llvm.ltypes import I1, I8, I32, I64, PTR, Tensor, check_supported, i64, mem_type
from .plan import BlockPlan, plan_block
from .registry import FUSABLE, FUSES_INTO, LOWERINGS

__all__ = ["Lowerer", "lower_graph"]


class _OwnedSet(dict):
    """The set operations `_Frame.owned` needs, in insertion order (so the
    frees an error exit emits come out in the same order on every run)."""

    __slots__ = ()

    def add(self, v) -> None:
        self[v] = None

    def discard(self, v) -> None:
        self.pop(v, None)

    def update(self, values) -> None:
        for v in values:
            self[v] = None

    def difference_update(self, values) -> None:
        for v in values:
            self.pop(v, None)


class _Frame:
    __slots__ = ("plan", "owned", "pos")

    def __init__(self, plan: BlockPlan):
        self.plan = plan
        self.owned: Set[Value] = _OwnedSet()   # type: ignore[assignment]
        self.pos = 0


class Lowerer:
    """State while lowering one graph into one LLVM function."""

    def __init__(self, graph: Graph, symbol: str, module_name: str, boundscheck: bool = True,
                 fastmath: bool = False):
        load_all()
        self.graph = graph
        self.boundscheck = boundscheck
        # ag.function(fastmath=True): float reductions may be regrouped (`parallel_for`)
        self.fastmath = fastmath
        self.errors = ErrorTable()
        self.module = ir.Module(name=module_name)
        fnty = ir.FunctionType(I32, [PTR, PTR, PTR])
        self.fn = ir.Function(self.module, fnty, symbol)
        self.fn.attributes.add("nounwind")
        for a, name in zip(self.fn.args, ("args", "results", "err")):
            a.name = name
            a.add_attribute("noalias")
        self.entry = self.fn.append_basic_block("entry")
        self.b = ir.IRBuilder(self.entry)
        self.env: Dict[Value, object] = {}
        # Op results that are views of memory the kernel does not own (a
        # variable's buffer): never freed or taken over, copied when yielded.
        self.borrowed: Set[Value] = set()
        self._frames: List[_Frame] = []
        self._range_md = None
        # Buffers allocated since the last op or block boundary, not owned by a
        # frame yet (an op's own result while it is computed): id(ptr) -> the
        # stack slot that holds the pointer at run time, null once handed on.
        self._pending: Dict[int, ir.Value] = {}
        # Carried buffers of the loops whose condition is being lowered (`holding`).
        self._held: List[List[Tensor]] = []

    # ------------------------------------------------------------ helpers

    @property
    def frame(self) -> _Frame:
        return self._frames[-1]

    def alloca(self, typ: ir.Type, name: str = "") -> ir.Value:
        """A stack slot in the entry block (promoted to registers by LLVM)."""
        b = self.b
        saved = b.block
        b.position_at_start(self.entry)
        slot = b.alloca(typ, name=name)
        b.position_at_end(saved)
        return slot

    def fail_if(self, bad, op: Optional[Op], template: str, values: Sequence[ir.Value] = (),
                literal: bool = False, site: Optional[int] = None) -> None:
        """Report an error site when the i1 `bad` is true (Python bools allowed).

        `template` may use `{op}` (the op's name) and `{0}`..`{6}` (the
        runtime `values`: integers of any width, or floats, shown as the
        NumPy scalar of their type); with `literal` it is the exact message.

        The error path frees every buffer the kernel holds at this point
        (`_free_owned`): those the blocks being lowered own, the carried
        buffers of the loops whose condition or poll is being lowered
        (`holding`), and those allocated or taken over by the op being
        lowered (`track_alloc`), so a failing call gives back what it had
        made, each buffer once, then returns. A fixed `site` id
        (`abi.interrupt.INTERRUPT_SITE`) replaces the table's site for
        `template`.
        """
        if bad is False:
            return
        b = self.b
        if literal:
            template = template.replace("{", "{{").replace("}", "}}")
        else:
            template = template.replace("{op}", op.name if op is not None else "kernel")
        kinds = [_value_kind(v) for v in values]
        sid = site if site is not None else self.errors.add(template, op.loc if op is not None else None, kinds)
        err_bb = self.fn.append_basic_block("error")
        ok_bb = self.fn.append_basic_block("ok")
        if bad is True:
            bad = ir.Constant(I1, 1)
        br = b.cbranch(bad, err_bb, ok_bb)
        br.set_weights([1, 1 << 20])
        b.position_at_end(err_bb)
        err = self.fn.args[2]
        slots = [i64(sid)] + [self._as_i64(v) for v in values]
        for k, v in enumerate(slots):
            b.store(v, b.gep(err, [i64(k)], source_etype=I64))
        self._free_owned()
        b.ret(ir.Constant(I32, 1))
        b.position_at_end(ok_bb)

    def _free_owned(self) -> None:
        """Free, at the builder's position (an error exit), every buffer the
        kernel holds now. Three disjoint sets, whose union is every live
        buffer: each frame's `owned` (exactly the buffers of that block live
        at this point: a donated one moved to the frame that may free it, a
        freed or taken-over one removed); the carried buffers of the loops
        whose condition (or interrupt poll) is being lowered (`_held`: a
        loop owns them, no block does there); and the pending slots of the
        op being lowered (its allocations and the buffers it took over).
        Frame and held pointers were computed before this point, so they
        dominate it; pending ones go through stack slots. A pointer object
        met twice is freed once."""
        seen = set()
        held = [x for group in self._held for x in group]
        owned = [self.env.get(v) for frame in self._frames for v in frame.owned]
        for x in owned + held:
            if isinstance(x, Tensor) and id(x.ptr) not in seen and id(x.ptr) not in self._pending:
                seen.add(id(x.ptr))
                memory.free(self, x.ptr)
        for slot in list(self._pending.values()):   # null where not allocated on this path: free(NULL)
            memory.free(self, self.b.load(slot, typ=PTR))

    @contextmanager
    def holding(self, values: Sequence[object]):
        """While lowering inside the `with`, an error exit also frees the
        `Tensor`s among `values`: a loop's carried buffers while its condition
        region (or its interrupt poll) is lowered, when the loop owns them and
        no block does. They must be distinct from every buffer a frame owns."""
        self._held.append([x for x in values if isinstance(x, Tensor)])
        try:
            yield
        finally:
            self._held.pop()

    def track_alloc(self, ptr: ir.Value) -> None:
        """Record a buffer `memory` just allocated: until the next op or block
        boundary (`_hand_on_pending`) or its `memory.free`, an error exit frees
        it. Its pointer goes through a stack slot (null from the entry on), as
        the allocation need not dominate the error exit."""
        b = self.b
        saved = b.block
        b.position_at_start(self.entry)
        slot = b.alloca(PTR, name="pending")
        b.store(ir.Constant(PTR, None), slot)
        b.position_at_end(saved)
        b.store(ptr, slot)
        self._pending[id(ptr)] = slot

    def untrack_alloc(self, ptr: ir.Value) -> None:
        """`ptr` is being freed (or moved by realloc): an error exit must not free it.

        Its slot becomes null on this path only; the entry stays until the
        next boundary, because an op may lower branches (`grow`: one arm frees
        its operand, the other reallocates it) and an exit lowered later, on a
        path where `ptr` is still live, must still find and free it."""
        slot = self._pending.get(id(ptr))
        if slot is not None:
            self.b.store(ir.Constant(PTR, None), slot)

    def _hand_on_pending(self) -> None:
        """At an op or block boundary: the buffers allocated since the last one
        are now results (owned by a frame or carried by the op), not pending."""
        for slot in self._pending.values():
            self.b.store(ir.Constant(PTR, None), slot)
        self._pending.clear()

    def _as_i64(self, v: ir.Value) -> ir.Value:
        if v.type == I64:
            return v
        if isinstance(v.type, ir.FloatType):
            v = self.b.fpext(v, ir.DoubleType())
        if isinstance(v.type, ir.DoubleType):
            return self.b.bitcast(v, I64)
        if v.type == I1:
            return self.b.zext(v, I64)
        if isinstance(v.type, ir.IntType):
            return self.b.sext(v, I64)
        raise TypeError(f"error values must be integers, got {v.type}")

    def take_over(self, op: Op, index: int) -> bool:
        """Transfer ownership of operand `index`'s buffer to `op` if the
        enclosing block would free it right after `op` anyway."""
        f = self.frame
        v = op.operands[index]
        if v in f.owned and f.plan.transferable(f.pos, op, index):
            f.owned.discard(v)
            x = self.env.get(v)
            if isinstance(x, Tensor):
                # Owned by no block until `op` hands it on as its result (or
                # frees or reallocates it): pending, so a fault of `op` frees it.
                self.track_alloc(x.ptr)
            return True
        return False

    def is_deferred(self, op: Op) -> bool:
        return self.frame.plan.is_deferred(op)

    def free(self, t: Tensor) -> None:
        memory.free(self, t.ptr)

    def dim_range_md(self):
        """`!range [0, 2**63-1)` metadata for loaded dims."""
        if self._range_md is None:
            self._range_md = self.module.add_metadata([i64(0), i64((1 << 63) - 1)])
        return self._range_md

    # ------------------------------------------------------------ blocks

    def lower_op(self, op: Op) -> list:
        for v in list(op.operands) + list(op.results):
            check_supported(v.type, f"a value of op {op.name}")
        fn = LOWERINGS.get(op.name)
        if _has_string(op):
            from .strings import lowering_for   # string operands/results: autograph.codegen.lowering.strings decides
            fn = lowering_for(op)
        if fn is None:
            raise NotImplementedError(f"codegen: no lowering for op {op.name!r}")
        outs = fn(self, op, [self.env[v] for v in op.operands])
        if len(outs) != len(op.results):
            raise AssertionError(f"lowering of {op.name} gave {len(outs)} results")
        return outs

    def lower_block(self, block: Block, args: Sequence[object] = (), passthrough: bool = False,
                    donated: Sequence[Value] = ()) -> list:
        """Lower `block` at the builder's position; return its yielded values.

        Tensor results are owned by the caller: values the block does not own
        (outer values, arguments, constants, repeats) are copied, except with
        `passthrough` (while bodies), where yielding argument i at position i
        hands the argument back unchanged.

        `donated` values (block arguments or outer values) are buffers the op
        that owns the block hands over to it: the block owns them like its
        own results (an op may update them in place, a yield hands them on
        without a copy) and frees them after their last use otherwise.
        """
        for a, v in zip(block.args, args):
            check_supported(a.type, "a block argument")
            self.env[a] = v
        # String ops are never fused (their elements are not register values).
        plan = plan_block(block, lambda o: o.name in FUSABLE and not _has_string(o),
                          lambda o: o.name in FUSES_INTO and not _has_string(o))
        frame = _Frame(plan)
        self._frames.append(frame)
        self._hand_on_pending()
        try:
            donated = [v for v in donated if isinstance(self.env.get(v), Tensor)]
            frame.owned.update(donated)
            for v in plan.donate(donated):   # donated but unused here: free at once
                self.free(self.env[v])
                frame.owned.discard(v)
            for pos, op in enumerate(block.ops):
                frame.pos = pos
                outs = self.lower_op(op)
                self._hand_on_pending()
                for r, x in zip(op.results, outs):
                    self.env[r] = x
                    if isinstance(x, Tensor) and op.name != "constant" and r not in self.borrowed:
                        frame.owned.add(r)
                for v in plan.free_after.get(pos, ()):
                    if v in frame.owned:
                        self.free(self.env[v])
                        frame.owned.discard(v)
            results = []
            handed: Set[Value] = set()
            for j, v in enumerate(block.results):
                x = self.env[v]
                if isinstance(x, Tensor):
                    if passthrough and j < len(block.args) and v is block.args[j] and v not in handed:
                        handed.add(v)
                    elif v in frame.owned and v not in handed:
                        handed.add(v)
                    else:
                        x = memory.copy_tensor(self, block.parent, x)
                elif not isinstance(x, ir.Value):
                    raise AssertionError(f"block yields an unmaterialised value {v}")
                results.append(x)
            return results
        finally:
            self._frames.pop()

    # ------------------------------------------------------------ graph

    def _unpack_inputs(self) -> List[object]:
        b = self.b
        args = self.fn.args[0]
        slot = 0
        out = []
        for v in self.graph.inputs:
            if is_resource(v):
                from .variables import Resource
                check_supported(v.type.value_type, f"variable {v.name_hint or ''}", strings=False)
                ptr = b.load(b.gep(args, [i64(slot)], source_etype=I64), typ=PTR)
                out.append(Resource(v.type.value_type, ptr))
                slot += 1
                continue
            check_supported(v.type, f"input {v.name_hint or ''}")
            t = v.type
            if t.shape == () and not _is_string(t):   # a string scalar is a buffer: one pointer slot
                p = b.gep(args, [i64(slot)], source_etype=I64)
                x = b.load(p, typ=mem_type(t.dtype))
                out.append(b.trunc(x, I1) if t.dtype.is_bool else x)
                slot += scalar_slots(t.dtype)
                continue
            ptr = b.load(b.gep(args, [i64(slot)], source_etype=I64), typ=PTR)
            dims = []
            for k, d in enumerate(t.shape):
                if d is not None:
                    dims.append(i64(d))
                else:
                    ld = b.load(b.gep(args, [i64(slot + 1 + k)], source_etype=I64), typ=I64)
                    ld.set_metadata("range", self.dim_range_md())
                    dims.append(ld)
            out.append(Tensor(t.dtype, ptr, dims))
            slot += 1 + len(t.shape)
        return out

    def _pack_outputs(self, values: Sequence[object]) -> None:
        b = self.b
        res = self.fn.args[1]
        slot = 0
        for v, x in zip(self.graph.outputs, values):
            t = v.type
            if t.shape == () and not _is_string(t):
                val = b.zext(x, I8) if t.dtype.is_bool else x
                b.store(val, b.gep(res, [i64(slot)], source_etype=I64))
                slot += scalar_slots(t.dtype)
                continue
            b.store(x.ptr, b.gep(res, [i64(slot)], source_etype=I64))
            for k, d in enumerate(x.dims):
                b.store(d, b.gep(res, [i64(slot + 1 + k)], source_etype=I64))
            slot += 1 + len(x.dims)

    def lower(self) -> ir.Module:
        """Emit the kernel function for the whole graph."""
        inputs = self._unpack_inputs()
        outs = self.lower_block(self.graph.body, inputs)
        for v in self.graph.outputs:
            check_supported(v.type, "a graph output")
        self._pack_outputs(outs)
        self.b.ret(ir.Constant(I32, 0))
        return self.module


def _is_string(t) -> bool:
    return t.dtype.name == "string"


def _has_string(op: Op) -> bool:
    """Does `op` take or give a string tensor (lowered by `autograph.codegen.lowering.strings`)?"""
    return any(_is_string(v.type) for v in op.operands) or any(_is_string(v.type) for v in op.results)


def _value_kind(v: ir.Value) -> str:
    if isinstance(v.type, ir.FloatType):
        return "f32"
    if isinstance(v.type, ir.DoubleType):
        return "f64"
    return "i"


def lower_graph(graph: Graph, symbol: str, module_name: str, boundscheck: bool = True,
                fastmath: bool = False):
    """Lower `graph`; returns (llvmlite ir.Module, ErrorTable)."""
    lw = Lowerer(graph, symbol, module_name, boundscheck, fastmath)
    module = lw.lower()
    return module, lw.errors
