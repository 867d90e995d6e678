"""Row fusion: reductions along the last axis evaluated per row, inside the
elementwise loop that broadcasts their results back over the same rows.

The block plan (`plan.py`, `row_reduction`) defers a last-axis `keepdims`
reduction whose uses all end in one elementwise root over the same rows; it
reaches the root as a `Fused` node whose op is the reduction. `softmax` is

    m = reduce_max(x, -1, keepdims)      e = exp(x - m)
    s = reduce_sum(e, -1, keepdims)      out = e / s       (the root)

and becomes one pass over the rows. For each row (rows split across
threads like `parallel_rows.py`, by the outermost axis not statically 1):

    loop 1:  m_r = max_j x[r, j]
    loop 2:  e_j = exp(x[r, j] - m_r); scratch_e[j] = e_j; s_r = sum_j e_j
    loop 3:  out[r, j] = scratch_e[j] / s_r

Each loop runs over a row while it is in L1. A reduction's loop evaluates
its input expression with the reductions computed before it as per-row
scalars; the root's loop evaluates the root's. A fused node that two loops
use (`e`) is stored in a per-thread *scratch row* by the first and loaded by
the others (computed once per element, as without row fusion), when its
last dim is that of both loops and the scratch rows fit `SCRATCH_BYTES`.

The chunk function is `noinline` and a row's values never depend on the
chunk bounds, so results are identical for any thread count. Against the
unfused code a float reduction of a row may round differently (both are
within the tolerance documented in `reduce.py`).

The unfused code remains for what row fusion cannot do, decided statically
or at run time: rows longer than the scratch allows, dims other than the
last that turn out to differ (`x` of shape (1, n) reduced, broadcast over
(m, n)), an expression that may fault (it needs the kernel's error exit:
integer division, integer mean), more than `SCALAR_LOOP_NODES` ops. It
materialises each deferred reduction (and each shared node) in order, then
runs the root's loop over them, as if nothing had been deferred.
"""
from __future__ import annotations

from typing import Dict, List, Set

from llvmlite import ir

from . import elementwise as ew
from . import memory
from ..llvm.irutil import add, and_all, eq, for_range, mul, product
from ..llvm.ltypes import I8, PTR, Tensor, const_int, i64, load_elem, mem_type, store_elem
from .parallel import _free_values, min_elements
from .parallel_rows import _Transport, _nest, _outline, _probe, _split_axis
from .extreme import float_extreme
from .fixup import loop_with_fixup
from .reduce import REDUCTIONS, _combine, _identity, _mean, lower_reduce

__all__ = ["SCRATCH_BYTES", "has_row_reductions", "materialize_rows"]

# The scratch rows of one chunk (a stack array): well inside L2, and small next
# to a worker thread's stack.
SCRATCH_BYTES = 64 * 1024


def _is_reduction(x) -> bool:
    return isinstance(x, ew.Fused) and x.op.name in REDUCTIONS


def _walk(node) -> List[object]:
    """Every Fused node and Tensor under `node`, each once, dependencies first."""
    out, done = [], set()
    stack = [(node, False)]
    while stack:
        x, ready = stack.pop()
        if id(x) in done or not isinstance(x, (ew.Fused, Tensor)):
            continue
        if ready or isinstance(x, Tensor):
            done.add(id(x))
            out.append(x)
            continue
        stack.append((x, True))
        for a in reversed(x.args):
            if id(a) not in done:
                stack.append((a, False))
    return out


def has_row_reductions(node) -> bool:
    """Does the expression `node` hold a deferred (row) reduction?"""
    return isinstance(node, ew.Fused) and any(_is_reduction(x) for x in _walk(node))


def _parts(expr, stops: Set[int]):
    """(fused nodes, tensors) `expr` reaches without entering a node in `stops`
    (the reductions, and nodes an earlier loop keeps in scratch)."""
    fused, leaves, seen = [], [], set()
    stack = [expr]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, Tensor):
            leaves.append(x)
        elif isinstance(x, ew.Fused) and id(x) not in stops:
            fused.append(x)
            stack.extend(x.args)
    return fused, leaves


def _dims_of(x) -> List[ir.Value]:
    return list(x.dims)


def _same_dim(a, b) -> bool:
    return a is b or (const_int(a) is not None and const_int(a) == const_int(b))


class _Plan:
    """The loops of one root: each reduction (dependencies first), then the root."""

    def __init__(self, root):
        self.root = root
        self.reductions = [x for x in _walk(root) if _is_reduction(x)]
        red_ids = {id(r) for r in self.reductions}
        # loop k: (its reduction or None for the root, its expression, its domain)
        self.loops = [(r, r.args[0], _dims_of(r.args[0])) for r in self.reductions]
        self.loops.append((None, root, _dims_of(root)))
        # The fused nodes each loop evaluates (a reduction's expression may itself
        # be a reduction: that loop then reads its row value).
        members = [_parts(expr, red_ids)[0] for _, expr, _ in self.loops]
        first: Dict[int, int] = {}
        count: Dict[int, int] = {}
        nodes: Dict[int, object] = {}
        for k, fused in enumerate(members):
            for x in fused:
                first.setdefault(id(x), k)
                count[id(x)] = count.get(id(x), 0) + 1
                nodes[id(x)] = x
        self.shared = [nodes[i] for i in first if count[i] > 1]
        # Kept in scratch: shared nodes whose last dim is every using loop's.
        self.scratch = []
        for x in self.shared:
            uses = [k for k, fused in enumerate(members) if any(y is x for y in fused)]
            if all(_same_dim(x.dims[-1], self.loops[k][2][-1]) for k in uses if x.dims):
                self.scratch.append(x)
        self.first = {id(x): first[id(x)] for x in self.shared}

    def computed_in(self, k: int, nodes) -> list:
        return [x for x in nodes if self.first[id(x)] == k]


def _scratch(clw, nbytes: int) -> ir.Value:
    """A stack array of `nbytes` in the chunk's entry block, as an opaque pointer."""
    slot = clw.alloca(ir.ArrayType(I8, nbytes), name="scratch")
    saved = clw.b.block
    clw.b.position_after(slot)
    # llvmlite types the alloca's pointer; LLVM's are opaque (see parallel.py)
    p = clw.b.gep(slot, [i64(0), i64(0)], source_etype=slot.allocated_type)
    p.type = PTR
    clw.b.position_at_end(saved)
    return p


def _rebuild_all(root, leaves_map: Dict[int, Tensor], values_map: Dict[int, ir.Value]) -> Dict[int, object]:
    """Copies of every node under `root` over the chunk's leaves and scalars, by id."""
    memo: Dict[int, object] = {}
    for x in _walk(root):
        if isinstance(x, Tensor):
            memo[id(x)] = leaves_map[id(x)]
            continue
        args = [memo[id(a)] if isinstance(a, (ew.Fused, Tensor)) else values_map.get(id(a), a)
                for a in x.args]
        memo[id(x)] = ew.Fused(x.op, args, x.dtype, x.dims)
    return memo


def _substitute(root, subst: Dict[int, Tensor]):
    """`root` with the nodes in `subst` replaced by their materialised tensors."""
    memo: Dict[int, object] = dict(subst)
    for x in _walk(root):
        if id(x) in memo or isinstance(x, Tensor):
            continue
        args = [memo.get(id(a), a) for a in x.args]
        memo[id(x)] = ew.Fused(x.op, args, x.dtype, x.dims)
    return memo.get(id(root), root)


def _unfused(lw, op, plan: _Plan, out: Tensor) -> None:
    """The kernel-side code: materialise the deferred reductions and shared nodes
    in order, then fill `out` from the root over them; free them."""
    subst: Dict[int, Tensor] = {}
    temps: List[Tensor] = []
    for k, (red, expr, _) in enumerate(plan.loops[:-1]):
        for x in plan.computed_in(k, plan.shared):
            t = ew.materialize(lw, x.op, _substitute(x, subst))
            subst[id(x)] = t
            temps.append(t)
        (t,) = lower_reduce(lw, red.op, [_substitute(expr, subst)], defer=False)
        subst[id(red)] = t
        temps.append(t)
    ew.fill(lw, op, _substitute(plan.root, subst), out)
    for t in temps:
        memory.free(lw, t.ptr)


def _conditions(lw, plan: _Plan):
    """Python bool or i1: may the rows be fused (outer dims equal, scratch fits)?"""
    b = lw.b
    conds = []
    outer = plan.loops[-1][2][:-1]
    for _, _, dims in plan.loops[:-1]:
        if len(dims) != len(outer) + 1:
            return False
        conds.extend(eq(b, x, y) for x, y in zip(dims[:-1], outer))
    if plan.scratch:
        budget = SCRATCH_BYTES // len(plan.scratch)
        for x in plan.scratch:
            limit = budget // x.dtype.itemsize
            c = const_int(x.dims[-1])
            if c is not None:
                if c > limit:
                    return False
            else:
                conds.append(b.icmp_unsigned("<=", x.dims[-1], i64(limit)))
    return and_all(b, conds)


def materialize_rows(lw, op, node, out: Tensor) -> None:
    """out[:] = node, a root holding deferred row reductions (see the module
    docstring): rows fused on the thread pool, or the unfused code."""
    plan = _Plan(node)
    b = lw.b
    ok = _conditions(lw, plan)
    if ok is not False and ew.fused_size(node) <= ew.SCALAR_LOOP_NODES:
        emit_call = _prepare(lw, op, plan, out)
        if emit_call is not None:
            if ok is True:
                emit_call()
                return
            with b.if_else(ok, likely=True) as (then, otherwise):
                with then:
                    emit_call()
                with otherwise:
                    _unfused(lw, op, plan, out)
            return
    _unfused(lw, op, plan, out)


def _prepare(lw, op, plan: _Plan, out: Tensor):
    """A function emitting the fused rows' chunk and its call, or None when the
    chunk cannot be outlined (a value too wide for a ctx slot, or a fault)."""
    root = plan.root
    dims = list(root.dims)
    leaves = ew.leaves_of(root)
    free = _free_values(root)
    transport = _Transport()
    transport.add_tensor(out)
    for t in leaves:
        transport.add_tensor(t)
    for _, _, ldims in plan.loops:
        for d in ldims:
            transport.add(d)
    for v in free:
        transport.add(v)
    if not transport.fits():
        return None
    outer = dims[:-1]
    split = _split_axis(outer, [True] * len(outer))
    red_ids = {id(r) for r in plan.reductions}

    def emit(clw, local, lo, hi):
        cb = clw.b
        lleaves = {id(t): local.tensor(t) for t in leaves}
        copy = _rebuild_all(root, lleaves, {id(v): local(v) for v in free})
        louter = local.dims(outer)
        lout = local.tensor(out)
        budget = SCRATCH_BYTES // max(len(plan.scratch), 1)
        rows_of = {id(x): _scratch(clw, budget) for x in plan.scratch}
        leaf_list = list(leaves)
        full = louter + [i64(1)]
        # Each leaf's strides along the outer axes (the same in every loop: the
        # loops' outer dims are the root's) and, per loop, along the last one.
        outer_st = [ew.leaf_strides(cb, lleaves[id(t)], full)[:-1] for t in leaf_list]
        streams = [ew.contiguous_strides(cb, local.dims(dims))[:-1]] + outer_st
        loop_info = []
        for k, (red, expr, ldims) in enumerate(plan.loops):
            stops = red_ids | {id(x) for x in plan.scratch if plan.first[id(x)] < k}
            _, lv = _parts(expr, stops)
            ld = local.dims(ldims)
            last = {id(t): ew.leaf_strides(cb, lleaves[id(t)], ld)[-1] for t in lv}
            mine = plan.computed_in(k, plan.scratch)
            earlier = [x for x in plan.scratch if plan.first[id(x)] < k]
            loop_info.append((red, expr, ld[-1], lv, last, mine, earlier))

        def row(offsets):
            base = {id(t): off for t, off in zip(leaf_list, offsets[1:])}
            row_vals: Dict[int, ir.Value] = {}

            def point(j, expr, lv, last, mine, earlier):
                loaded = {id(copy[i]): v for i, v in row_vals.items()}
                for x in earlier:
                    loaded[id(copy[id(x)])] = load_elem(cb, rows_of[id(x)], j, x.dtype)
                offs = [add(cb, base[id(t)], mul(cb, j, last[id(t)])) for t in lv]
                loaded.update(ew.load_leaves(clw, [lleaves[id(t)] for t in lv], offs))
                v = ew.evaluate(clw, copy[id(expr)], loaded)
                for x in mine:
                    store_elem(cb, loaded[id(copy[id(x)])], rows_of[id(x)], j, x.dtype)
                return v

            for red, expr, count, lv, last, mine, earlier in loop_info:
                if red is None:
                    with for_range(cb, count, name="rrow", interleave=1, unroll=False) as j:
                        v = point(j, expr, lv, last, mine, earlier)
                        store_elem(cb, v, lout.ptr, add(cb, offsets[0], j), lout.dtype)
                    continue
                name = red.op.name
                dtype = red.op.operands[0].type.dtype
                if name in ("reduce_max", "reduce_min") and dtype.is_floating:
                    total = float_extreme(clw, name, dtype, count,
                                          lambda j: point(j, expr, lv, last, mine, earlier))
                else:
                    acc = clw.alloca(mem_type(dtype), name="rowred")
                    store_elem(cb, _identity(name, dtype), acc, i64(0), dtype)
                    with for_range(cb, count, name="rred") as j:
                        v = point(j, expr, lv, last, mine, earlier)
                        old = load_elem(cb, acc, i64(0), dtype)
                        store_elem(cb, _combine(clw, name, dtype, old, v), acc, i64(0), dtype)
                    total = load_elem(cb, acc, i64(0), dtype)
                if name == "reduce_mean":
                    total = _mean(clw, red.op, dtype, total, count)
                row_vals[id(red)] = total

        # sin/cos/tan: the fast routines, the whole chunk re-run exactly only for
        # huge arguments (it only reads leaves and rewrites its rows and scratch)
        loop_with_fixup(clw, copy[id(root)], lambda: _nest(clw, louter, streams, split, lo, hi, row))

    if not _probe(lw, transport, emit):
        return None
    b = lw.b

    def emit_call():
        n = product(b, dims)
        rows = dims[split] if split is not None else i64(1)
        _outline(lw, transport, emit, rows, n, min_elements(root), 1, "rowfuse")

    return emit_call
