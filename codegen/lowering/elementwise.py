"""Elementwise ops: broadcasting, fusion and the shared loop nest.

An elementwise op on scalars is its scalar lowering (`autograph.codegen.lowering.scalar`). On
tensors, the result dims are the NumPy broadcast of the operands' dims, with
run-time checks where dims are unknown. The op becomes a `Fused` node: the
op plus its lowered operands (scalars, tensors, or other `Fused` nodes the
block plan chose not to materialise). Materialising a node runs one loop
nest over its dims that loads each tensor leaf, evaluates the whole
expression tree with the scalar lowerings, and stores the result: a chain
like `x**2*3 + y` is one loop with no temporaries.

When every leaf has exactly the result's dims (known statically or checked
at run time) the loop is a flat 1-D loop that LLVM vectorises; otherwise a
nest with per-leaf strides (0 along broadcast dimensions). A nest chosen
statically (e.g. `[m, n] + [n]`) is vectorised too; the nest that only
backs up a run-time shape check is kept scalar and compact. Map loops ask
for one vector per iteration and no unrolling: they are memory bound, and
that keeps compile time low.

Fused evaluation note: a fused op is evaluated per element of its
consumer, so under broadcasting it may run more than once per element of
its own result (it is pure, so results are the same), and a fault it would
raise for elements its consumer never visits (an empty consumer) is not
raised.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

from llvmlite import ir

from autograph.tracer.core.ir import Op
from autograph.tracer.core.types import DType

from . import memory
from ..llvm.irutil import add, and_all, eq, for_range, mul, opaque
from .registry import register
from ..llvm.ltypes import Tensor, const_int, i64, load_elem, store_elem
from .scalar import SCALAR
from .views import View, flat_condition
from . import scalar_dtypes

scalar_dtypes.install()   # unsigned and complex forms, conj/real/imag/angle: before the register below

__all__ = ["Fused", "broadcast_dims", "leaves_of", "evaluate", "strided_nest",
           "leaf_strides", "contiguous_strides", "same_shape", "materialize", "fill"]


@dataclass(slots=True, eq=False)
class Fused:
    """An elementwise op evaluated lazily, per element, inside a consumer's loop."""

    op: Op
    args: list
    dtype: DType
    dims: List[ir.Value]

    @property
    def rank(self) -> int:
        return len(self.dims)


def _dims_of(x) -> List[ir.Value]:
    return x.dims if isinstance(x, (Tensor, Fused)) else []


def broadcast_dims(lw, op: Op, operands: Sequence[object]) -> List[ir.Value]:
    """The broadcast result dims of `operands`, checked at run time where unknown."""
    b = lw.b
    rank = max((len(_dims_of(x)) for x in operands), default=0)
    out_shape = op.results[0].type.shape
    dims: List[ir.Value] = []
    for k in range(rank):
        entries = []
        for x in operands:
            d = _dims_of(x)
            a = k - (rank - len(d))
            if a >= 0:
                entries.append(d[a])
        static = [const_int(d) for d in entries if const_int(d) is not None and const_int(d) != 1]
        dynamic = [d for d in entries if const_int(d) is None]
        if static:
            size = i64(static[0])
            for d in dynamic:
                ok = b.or_(b.icmp_signed("==", d, size), b.icmp_signed("==", d, i64(1)))
                lw.fail_if(b.not_(ok), op, _BCAST_MSG, [i64(k), d, size])
        else:
            size = i64(1)
            for d in dynamic:
                if const_int(size) == 1:
                    size = d
                    continue
                ok = b.or_(b.or_(b.icmp_signed("==", d, size), b.icmp_signed("==", d, i64(1))),
                           b.icmp_signed("==", size, i64(1)))
                lw.fail_if(b.not_(ok), op, _BCAST_MSG, [i64(k), d, size])
                size = b.select(b.icmp_signed("==", d, i64(1)), size, d)
        if out_shape is not None and k < len(out_shape) and out_shape[k] is not None:
            size = i64(out_shape[k])
        dims.append(size)
    return dims


_BCAST_MSG = ("{op}: incompatible shapes for broadcasting: dimension {0} of the result has "
              "size {1} in one operand and {2} in another")


def leaves_of(node) -> List[Tensor]:
    """The distinct materialised tensors a node reads (in first-use order).

    A fused value may feed several ops of one expression (the block plan
    fuses a value all of whose uses end in the same consumer), so the
    expression is a DAG: each node is visited once, without recursion (an
    unrolled Python loop makes chains thousands of nodes deep)."""
    out: List[Tensor] = []
    seen = set()
    stack = [node]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, Tensor):
            out.append(x)
        elif isinstance(x, Fused):
            stack.extend(reversed(x.args))
    return out


def evaluate(lw, node, loaded: Dict[int, ir.Value]) -> ir.Value:
    """The node's value at one point, given its leaves' loaded elements.

    Each fused node is evaluated once per point: its value is kept in
    `loaded` (keyed by the node's id) for its other uses in the same DAG.
    Iterative, post-order: chains may be thousands of nodes deep."""
    if isinstance(node, Tensor):
        return loaded[id(node)]
    if not isinstance(node, Fused):
        return node
    stack = [(node, False)]
    while stack:
        x, ready = stack.pop()
        if id(x) in loaded:
            continue
        if ready:
            vals = [loaded[id(a)] if isinstance(a, (Tensor, Fused)) else a for a in x.args]
            loaded[id(x)] = SCALAR[x.op.name](lw, x.op, vals)
            continue
        stack.append((x, True))
        for a in reversed(x.args):
            if isinstance(a, Fused) and id(a) not in loaded:
                stack.append((a, False))
    return loaded[id(node)]


def load_leaves(lw, leaves: Sequence[Tensor], offsets: Sequence[ir.Value]) -> Dict[int, ir.Value]:
    return {id(t): load_elem(lw.b, t.ptr, off, t.dtype) for t, off in zip(leaves, offsets)}


def contiguous_strides(b: ir.IRBuilder, dims: Sequence[ir.Value]) -> List[ir.Value]:
    """Row-major element strides of a C-contiguous tensor."""
    out = [i64(1)] * len(dims)
    acc = i64(1)
    for k in range(len(dims) - 1, -1, -1):
        out[k] = acc
        acc = mul(b, acc, dims[k])
    return out


def leaf_strides(b: ir.IRBuilder, leaf: Tensor, dims: Sequence[ir.Value]) -> List[ir.Value]:
    """Strides of `leaf` along each axis of the broadcast domain `dims` (0 where broadcast)."""
    rank = len(dims)
    # a view (views.py) is read through its own strides: a slice in place
    own = leaf.strides if isinstance(leaf, View) else contiguous_strides(b, leaf.dims)
    out = []
    for k in range(rank):
        a = k - (rank - leaf.rank)
        if a < 0:
            out.append(i64(0))
            continue
        d = leaf.dims[a]
        c = const_int(d)
        if c == 1:
            out.append(i64(0))
        elif c is not None:
            out.append(own[a])
        else:
            out.append(opaque(b, b.select(b.icmp_signed("==", d, i64(1)), i64(0), own[a])))
    return out


def same_shape(b: ir.IRBuilder, leaves: Sequence[Tensor], dims: Sequence[ir.Value]):
    """Python bool or i1: every leaf has exactly `dims` (and a view among them,
    `views.View`, is known to be laid out contiguously: read by flat position).

    A leaf with a static 1 where the domain's dim is unknown counts as a
    mismatch (it is broadcast unless that dim is 1, which the nest handles
    too): the broadcasting nest is then the only loop emitted.
    """
    conds = []
    for t in leaves:
        if isinstance(t, View):             # a slice read in place: contiguous layout needed
            ok, more = flat_condition(b, t, dims)
            if not ok:
                return False
            conds.extend(more)
            continue
        if t.rank != len(dims):
            return False
        for x, y in zip(t.dims, dims):
            if const_int(x) == 1 and const_int(y) != 1:
                return False
            conds.append(eq(b, x, y))
    return and_all(b, conds)


def strided_nest(lw, dims: Sequence[ir.Value], streams: Sequence[Sequence[ir.Value]],
                 body: Callable[[List[ir.Value]], None], cold: bool = False,
                 interleave: Optional[int] = None) -> None:
    """Row-major loops over `dims`; `streams[s][k]` is stream s's stride along
    axis k; `body(offsets)` runs in the innermost loop with each stream's offset.
    `cold`: no vectorisation or unrolling; `interleave`: for the innermost loop."""
    b = lw.b

    def level(k: int, offsets: List[ir.Value]) -> None:
        if k == len(dims):
            body(offsets)
            return
        inner = k == len(dims) - 1
        with for_range(b, dims[k], name=f"ax{k}", cold=cold,
                       interleave=interleave if inner else None,
                       unroll=not (inner and interleave == 1)) as i:
            level(k + 1, [add(b, off, mul(b, i, st[k])) for off, st in zip(offsets, streams)])

    level(0, [i64(0)] * len(streams))


def for_each_point(lw, dims: Sequence[ir.Value], leaves: Sequence[Tensor],
                   body: Callable[[ir.Value, List[ir.Value]], None],
                   interleave: Optional[int] = 1, scalar: bool = False) -> None:
    """Visit every point of the domain `dims` in row-major order.

    `body(linear_index, leaf_offsets)` gets the point's index into a
    C-contiguous tensor of `dims` and each leaf's element offset there.
    `scalar`: the loops are neither vectorised nor unrolled (for huge bodies).
    """
    b = lw.b
    flat = same_shape(b, leaves, dims)

    def flat_loop():
        n = memory.numel(lw, dims)
        strided_nest(lw, [n], [[i64(1)]], lambda offs: body(offs[0], [offs[0]] * len(leaves)),
                     interleave=interleave, cold=scalar)

    def nest_loop(cold=scalar):
        streams = [contiguous_strides(b, dims)] + [leaf_strides(b, t, dims) for t in leaves]
        strided_nest(lw, dims, streams, lambda offs: body(offs[0], offs[1:]), cold=cold,
                     interleave=interleave)

    if flat is True or len(dims) == 0:
        flat_loop()
    elif flat is False:
        nest_loop()
    else:
        # Unknown dims: the flat loop when the shapes turn out equal (the
        # common case), else a compact broadcasting nest (not vectorised, to
        # keep compile time and code size down).
        with b.if_else(flat, likely=True) as (then, otherwise):
            with then:
                flat_loop()
            with otherwise:
                nest_loop(cold=True)


# A fused expression of more nodes than this is computed by a scalar loop: LLVM's loop
# vectoriser takes time superlinear in the size of a loop body (an unrolled Python loop
# fused into one loop of 5,000 ops took seconds), and a body that large is bound by its
# own arithmetic and calls, not by the loop, so vectors gain little. Results are the same.
SCALAR_LOOP_NODES = 256


def fused_nodes(node):
    """Each distinct fused op of `node`'s expression, once (none for a tensor); iterative,
    as an unrolled Python loop makes chains thousands of nodes deep."""
    seen = set()
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, Fused) and id(x) not in seen:
            seen.add(id(x))
            yield x
            stack.extend(x.args)


def fused_size(node) -> int:
    """The number of distinct fused ops in `node`'s expression (0 for a tensor)."""
    return sum(1 for _ in fused_nodes(node))


# Vector maths routines are long dependency chains: two vectors in flight per iteration
# (interleave 2) keep the FMA units busy, measured 5-15% faster for log/tan/tanh/pow;
# cheap bodies stay at one vector (smaller code, no gain).
_TRANSCENDENTAL = frozenset({"exp", "log", "log1p", "expm1", "tanh", "sin", "cos", "tan", "pow",
                             "sigmoid", "exp2", "log2", "log10", "sinh", "cosh", "atan", "atan2"})


def _has_transcendental(node) -> bool:
    return any(x.op.name in _TRANSCENDENTAL for x in fused_nodes(node))


def materialize(lw, op: Op, node) -> Tensor:
    """A fresh C-contiguous tensor holding `node` (a Fused node or Tensor)."""
    if isinstance(node, Tensor):
        return memory.copy_tensor(lw, op, node)
    out = Tensor(node.dtype, memory.alloc(lw, op, node.dtype, node.dims), list(node.dims))
    from . import rowfuse                        # reductions evaluated per row (plan.py)
    if rowfuse.has_row_reductions(node):
        rowfuse.materialize_rows(lw, op, node, out)
    else:
        fill(lw, op, node, out)
    return out


def fill(lw, op: Op, node, out: Tensor) -> None:
    """out[:] = node, for a Fused node of out's dims with no row reductions."""
    leaves = leaves_of(node)

    def body(idx, offsets):
        v = evaluate(lw, node, load_leaves(lw, leaves, offsets))
        store_elem(lw.b, v, out.ptr, idx, out.dtype)

    def loops():
        # sin/cos/tan: the fast reduction, re-run exactly only for huge arguments
        scalar = fused_size(node) > SCALAR_LOOP_NODES
        interleave = 2 if not scalar and _has_transcendental(node) else 1
        loop_with_fixup(lw, node, lambda: for_each_point(lw, node.dims, leaves, body, scalar=scalar,
                                                         interleave=interleave),
                        vectorised=not scalar)

    from .fixup import loop_with_fixup
    from .parallel import materialize_parallel   # large flat loops: on the thread pool
    from .parallel_rows import map_rows          # large broadcasting ones: by rows
    if not (materialize_parallel(lw, op, node, out, leaves, loops)
            or map_rows(lw, op, node, out, leaves)):
        loops()


@register(*SCALAR, fusable=True, fuses_into=True)
def lower_elementwise(lw, op: Op, args: list) -> list:
    if op.results[0].type.shape == ():
        return [SCALAR[op.name](lw, op, args)]
    node = Fused(op, list(args), op.results[0].type.dtype, broadcast_dims(lw, op, args))
    if lw.is_deferred(op):
        return [node]
    return [materialize(lw, op, node)]
