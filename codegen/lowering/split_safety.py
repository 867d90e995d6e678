"""May a counted loop's iterations run on several threads? The graph-level proof.

`split_plan(op, fastmath)` looks at a counted `while` (`for k in range(k0,
n)` after conversion: `counted.counted_index`) and returns a `SplitPlan`
when its iterations are independent, so that running them in any order, in
pieces on several threads, gives exactly what the serial loop gives; else
None and the reason, in words (logged by `parallel_for`). The rule:

* Every carried value other than the counter is one of
  - *unchanged*: the body yields its argument back;
  - a *row-written tensor*: every use in the body is `out[..., k, ...] = v`
    (`set_item`, every axis indexed by one integer, a scalar value) or a read
    `out[..., k, ...]` (`strided_slice`, all integers, a scalar result), with
    the loop's counter k itself as the index along one and the same axis, so
    iteration k touches only its own row; the buffer may pass through `cond`
    branches and nested loops on the way, one version at a time;
  - a *reduction*: the accumulator is only combined with values that do not
    depend on it, by one associative and commutative operation whose result
    does not depend on the grouping: integer `+ - * min max & | ^` (two's
    complement wrap-around keeps integer + and * associative), bool `and or
    xor`, and float `+ - * min max` only under `fastmath=True` (which allows
    reassociation; without it a float accumulator is never split). The chain
    may go through `cond` branches and nested loops (K3's `total += 1` sits
    in an inner `while`), but nothing else may read the accumulator: no
    branch condition, no other value, depends on it.
* No op in the body may raise, or the first error in sequential order could
  not be told (nor the values it reports): an index is *proven* in bounds
  when it is a counter of this loop or of a counted loop inside it, running
  from a constant >= 0 to a bound that is a constant no larger than the
  axis's static size or that axis's `shape` entry itself (`len(x)`), or a
  constant inside the axis; an integer division or modulo is proven safe by
  a nonzero constant divisor. A bound that is a value from before the loop
  (`range(n)` with `x[k]`) is checked at run time instead (`SplitPlan.guards`:
  `n <= len(x)`; when it fails the serial loop runs, and raises at its first
  bad index). The ops so proven are listed in
  `SplitPlan.proven`; any other op that has an error exit makes the
  lowering (`parallel_for`, which emits the body into a chunk function whose
  `fail_if` refuses every unproven site) keep the loop serial. So do
  assertions (`check`), printing, random numbers, variables and every
  stateful op, which this module refuses first, by name.
* Ctrl-C is no error site: the chunk polls the SIGINT epoch and stops.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from autograph.tracer.core.ir import Block, Op, Value, is_resource
from autograph.tracer.core.registry import REGISTRY

from .counted import counted_bound, counted_index

__all__ = ["SplitPlan", "Reduction", "Guard", "split_plan", "REDUCTION_KINDS"]

# op name -> (reduction kind, which operand may be the accumulator: "either" or "first")
_REDUCING = {
    "add": ("add", "either"), "subtract": ("add", "first"), "multiply": ("mul", "either"),
    "maximum": ("max", "either"), "minimum": ("min", "either"),
    "bitwise_and": ("and", "either"), "bitwise_or": ("or", "either"),
    "bitwise_xor": ("xor", "either"), "logical_and": ("and", "either"),
    "logical_or": ("or", "either"), "logical_xor": ("xor", "either"),
}
REDUCTION_KINDS = ("add", "mul", "max", "min", "and", "or", "xor")
_FLOAT_KINDS = ("add", "mul", "max", "min")   # only with fastmath
# Ops refused outright: effects a reordering would show, or errors by design.
_REFUSED = frozenset({"print", "check", "check_values", "assign_variable", "read_variable",
                      "assign_add_variable", "assign_sub_variable"})
_INT_DIVISIONS = frozenset({"floordiv", "mod", "truncatediv", "truncatemod", "fmod"})


@dataclass
class Reduction:
    """A carried accumulator: position `index` among the carried values, combined by `kind`."""

    index: int
    kind: str
    dtype: object


@dataclass
class Guard:
    """A run-time condition of the split: `bound <= dim(tensor, axis)`, where
    `tensor` is defined before the loop (`size`: that dim when static)."""

    bound: Value
    tensor: Value
    axis: int
    size: Optional[int]


@dataclass
class SplitPlan:
    """What `split_plan` proved about a counted loop (see the module docstring)."""

    counter: int                                   # position of k among the carried values
    reductions: List[Reduction] = field(default_factory=list)
    written: List[int] = field(default_factory=list)      # row-written tensors
    unchanged: List[int] = field(default_factory=list)
    proven: Set[int] = field(default_factory=set)  # id(op): error sites proven unreachable
    guards: List[Guard] = field(default_factory=list)     # ... provided these hold at run time


class _Refused(Exception):
    """The loop stays serial; the message says why."""


def _const(v: Value) -> Optional[int]:
    owner = v.owner
    if getattr(owner, "name", None) != "constant" or v.type.shape != ():
        return None
    value = owner.attrs.get("value")
    try:
        if value.dtype.kind not in "iub":
            return None
        return int(value)
    except (AttributeError, TypeError, ValueError):
        return None


def _where(op: Op) -> str:
    return f"{op.name} at {op.loc}" if op.loc is not None else op.name


class _Analysis:
    def __init__(self, loop: Op, fastmath: bool):
        self.loop = loop
        self.fastmath = fastmath
        self.ranges: Dict[Value, Tuple[Optional[int], Value]] = {}   # counter -> (start, bound)
        self.proven: Set[int] = set()
        self.guards: List[Guard] = []
        self.uses: Dict[Value, List[Tuple[Op, int]]] = {}   # value -> (user op or yield, position)
        self.yields: Dict[Value, List[Tuple[Block, int]]] = {}

    # ---------------------------------------------------------------- uses
    def index_uses(self, block: Block) -> None:
        for op in block.ops:
            for i, v in enumerate(op.operands):
                self.uses.setdefault(v, []).append((op, i))
            for region in op.regions:
                self.index_uses(region)
        for j, v in enumerate(block.results):
            self.yields.setdefault(v, []).append((block, j))

    # ---------------------------------------------------------------- ops
    def check_ops(self, block: Block) -> None:
        """Refuse effects; record counted loops' counters; prove index and division sites."""
        for op in block.ops:
            opdef = REGISTRY.get(op.name)
            if op.name in _REFUSED or (opdef is not None and (opdef.stateful or opdef.resource)):
                raise _Refused(f"the body has {_where(op)}, which has an effect or may raise")
            if any(is_resource(v) for v in op.operands) or any(
                    v.type.dtype.name == "string" for v in list(op.operands) + list(op.results)):
                raise _Refused(f"the body has {_where(op)} on a variable or a string")
            if op.name == "while":
                q = counted_index(op)
                if q is not None:
                    bound = counted_bound(op)
                    start = _const(op.operands[q])
                    self.ranges[op.regions[1].args[q]] = (start, bound)
            for region in op.regions:
                self.check_ops(region)
            if op.name in ("strided_slice", "set_item") and self.indices_in_bounds(op):
                self.proven.add(id(op))
            elif op.name in _INT_DIVISIONS and op.operands[0].type.dtype.is_integer:
                d = _const(op.operands[1])
                if d is not None and d != 0:
                    self.proven.add(id(op))

    def indices_in_bounds(self, op: Op) -> bool:
        spec = tuple(op.attrs.get("spec", ()))
        target = op.operands[0]
        shape = target.type.shape
        idx = op.operands[2:] if op.name == "set_item" else op.operands[1:]
        if shape is None or len(spec) != len(shape) or any(s != "i" for s in spec):
            return False
        if op.name == "set_item" and op.operands[1].type.shape != ():
            return False
        before = len(self.guards)
        if all(self.in_bounds(v, target, axis) for axis, v in enumerate(idx)):
            return True
        del self.guards[before:]
        return False

    def in_bounds(self, v: Value, target: Value, axis: int) -> bool:
        size = target.type.shape[axis]
        c = _const(v)
        if c is not None:
            return size is not None and -size <= c < size
        found = self.ranges.get(v)
        if found is None:
            return False
        start, bound = found
        if start is None or start < 0:
            return False
        cb = _const(bound)
        if cb is not None and size is not None:
            return cb <= size
        if _is_dim(bound, target, axis):
            return True
        # bound <= size checked at run time, before the loop: the serial loop
        # runs (and raises at the first bad index) when it does not hold
        origin = self.origin(target)
        if self.outside(bound) and origin is not None:
            self.guards.append(Guard(bound, origin, axis, size))
            return True
        return False

    def outside(self, v: Value) -> bool:
        """Is `v` defined outside the loop being split (available before it)?"""
        owner = v.owner
        block = owner if isinstance(owner, Block) else getattr(owner, "block", None)
        while block is not None:
            parent = block.parent
            if parent is self.loop:
                return False
            block = parent.block if parent is not None else None
        return True

    def origin(self, v: Value) -> Optional[Value]:
        """A value defined outside the loop with `v`'s run-time shape (`v`
        itself, or what it is a version of: a loop's initial value, the
        tensor a `set_item` wrote), or None."""
        for _ in range(1000):
            if self.outside(v):
                return v
            owner = v.owner
            if isinstance(owner, Block) and getattr(owner.parent, "name", None) == "while":
                v = owner.parent.operands[v.index]
            elif getattr(owner, "name", None) == "set_item":
                v = owner.operands[0]
            elif getattr(owner, "name", None) == "while":
                v = owner.operands[v.index]
            else:
                return None
        return None

    # ---------------------------------------------------------------- carried values
    def sites(self, v: Value, block: Block) -> List[tuple]:
        """The uses of `v` inside `block` (at any depth): (holder, site) where
        holder is None for a site directly in `block`, else the op of `block`
        whose region holds it; a site is ("op", user, operand position) or
        ("yield", block, result position)."""
        out = []
        for user, pos in self.uses.get(v, ()):
            h = _holder(user.block, block)
            if h is not _OUTSIDE:
                out.append((h, ("op", user, pos)))
        for blk, j in self.yields.get(v, ()):
            h = _holder(blk, block)
            if h is not _OUTSIDE:
                out.append((h, ("yield", blk, j)))
        return out

    def follow(self, block: Block, v: Value, step, skip=None, kinds=None) -> Optional[int]:
        """Follow the versions of `v` through `block`: each must have exactly
        one consuming site (besides those `skip(user, pos)` accepts as plain
        reads): `step(user, pos)` gives the next version or None (refused); a
        `cond` holding the sites carries it on when each branch yields it at
        the same position; the block's yield ends it. Returns that yield
        position, or None. With `kinds` (a bool accumulator), a `cond` on `v`
        itself that yields `v` from one branch and never reads it in the
        other is `v or e` / `v and e` (how `acc = acc or e` traces), added
        to `kinds`."""
        while True:
            sites = [(h, s) for h, s in self.sites(v, block)
                     if not (skip is not None and s[0] == "op" and skip(s[1], s[2]))]
            if not sites:
                return None
            if kinds is not None:
                nxt = self._short_circuit(v, sites, kinds)
                if nxt is not None:
                    v = nxt
                    continue
            holders = {id(h) for h, _ in sites}
            if len(holders) != 1:
                return None
            holder, site = sites[0]
            if holder is None:
                if len(sites) != 1:
                    return None
                if site[0] == "yield":
                    return site[2]
                v = step(site[1], site[2])
                if v is None:
                    return None
                continue
            if holder.name != "cond":
                return None          # read inside a loop that does not carry it
            ends = {self.follow(region, v, step, skip, kinds) for region in holder.regions}
            if len(ends) != 1 or None in ends or len(holder.regions) != 2:
                return None
            v = holder.results[ends.pop()]

    def _short_circuit(self, v: Value, sites, kinds: Set[str]) -> Optional[Value]:
        """The `cond` result that is `v or e` / `v and e`, or None (see `follow`)."""
        direct = [s for h, s in sites if h is None]
        if len(direct) != 1 or direct[0][0] != "op" or direct[0][2] != 0:
            return None
        c = direct[0][1]
        if c.name != "cond" or len(c.regions) != 2 or v.type.dtype.name != "bool":
            return None
        if any(h is not c for h, s in sites if h is not None):
            return None
        inner = [[s for h, s in self.sites(v, region) if h is None and s[0] == "yield"]
                 for region in c.regions]
        counts = [len(self.sites(v, region)) for region in c.regions]
        for which, kind in ((0, "or"), (1, "and")):
            other = 1 - which
            if counts[which] == 1 and len(inner[which]) == 1 and counts[other] == 0:
                j = inner[which][0][2]
                if c.results[j].type == v.type:
                    kinds.add(kind)
                    return c.results[j]
        return None

    def reduction(self, body: Block, arg: Value, end: int, dtype) -> Optional[str]:
        """The kind of the accumulator `arg` of `body` (carried at `end`), or
        None when it is not a reduction (see the module docstring)."""
        kinds: Set[str] = set()

        def step(user: Op, pos: int) -> Optional[Value]:
            if user.name in _REDUCING:
                kind, where = _REDUCING[user.name]
                if (where == "first" and pos != 0) or user.results[0].type != arg.type:
                    return None
                if user.operands[0] is user.operands[1]:
                    return None
                kinds.add(kind)
                return user.results[0]
            if user.name == "while" and len(user.regions) == 2:
                cond, inner = user.regions
                if self.sites(cond.args[pos], cond):
                    return None                # the loop's condition reads the accumulator
                if self.follow(inner, inner.args[pos], step, kinds=bools) != pos:
                    return None
                return user.results[pos]
            return None

        bools = kinds if dtype.is_bool else None
        if self.follow(body, arg, step, kinds=bools) != end or len(kinds) > 1:
            return None
        kind = kinds.pop() if kinds else "add"
        if dtype.is_complex or not (dtype.is_floating or dtype.is_integer or dtype.is_bool):
            return None
        if dtype.is_floating and (not self.fastmath or kind not in _FLOAT_KINDS):
            return None
        if dtype.is_bool and kind not in ("and", "or", "xor"):
            return None
        return kind

    def written(self, body: Block, arg: Value, end: int, counter: Value) -> bool:
        """Is tensor `arg` of `body` (carried at `end`) read and written only at
        the counter's row (see the module docstring)?"""
        axis: List[int] = []

        def row_read(user: Op, pos: int) -> bool:
            return (user.name == "strided_slice" and pos == 0 and id(user) in self.proven
                    and _at_row(user.operands[1:], counter, axis))

        def step(user: Op, pos: int) -> Optional[Value]:
            if user.name == "set_item" and pos == 0:
                if id(user) not in self.proven or not _at_row(user.operands[2:], counter, axis):
                    return None
                return user.results[0]
            if user.name == "while" and len(user.regions) == 2:
                cond, inner = user.regions
                if any(s[0] != "op" or not row_read(s[1], s[2]) for _, s in self.sites(cond.args[pos], cond)):
                    return None
                if self.follow(inner, inner.args[pos], step, row_read) != pos:
                    return None
                return user.results[pos]
            return None

        return self.follow(body, arg, step, row_read) == end


_OUTSIDE = object()


def _holder(site_block: Block, block: Block):
    """None when `site_block` is `block`; the op of `block` whose region
    (at any depth) is `site_block`; `_OUTSIDE` when it is not inside `block`."""
    if site_block is block:
        return None
    b = site_block
    while b is not None:
        op = b.parent
        if op is None:
            return _OUTSIDE
        if op.block is block:
            return op
        b = op.block
    return _OUTSIDE


def _at_row(idx, counter: Value, axis: List[int]) -> bool:
    """Is `counter` the index along the axis of the first access (then fixed)?"""
    if not axis:
        hits = [a for a, v in enumerate(idx) if v is counter]
        if not hits:
            return False
        axis.append(hits[0])
    return axis[0] < len(idx) and idx[axis[0]] is counter


def _is_dim(bound: Value, target: Value, axis: int) -> bool:
    """Is `bound` `shape(target)[axis]` (how `len(x)` / `x.shape[k]` traces)?"""
    owner = bound.owner
    if getattr(owner, "name", None) != "strided_slice" or len(owner.operands) != 2:
        return False
    shape_op = owner.operands[0].owner
    if getattr(shape_op, "name", None) != "shape" or shape_op.operands[0] is not target:
        return False
    k = _const(owner.operands[1])
    rank = len(target.type.shape)
    return k is not None and (k if k >= 0 else k + rank) == axis


def split_plan(op: Op, fastmath: bool) -> Tuple[Optional[SplitPlan], str]:
    """(the plan, "") when the counted loop `op` may run its iterations on
    several threads, else (None, why). See the module docstring."""
    idx = counted_index(op)
    if idx is None:
        return None, "not a counted loop"
    an = _Analysis(op, fastmath)
    body = op.regions[1]
    counter = body.args[idx]
    an.ranges[counter] = (_const(op.operands[idx]), counted_bound(op))
    try:
        an.check_ops(body)
    except _Refused as exc:
        return None, str(exc)
    an.index_uses(body)
    plan = SplitPlan(idx, proven=an.proven, guards=an.guards)
    for p, (arg, res) in enumerate(zip(body.args, body.results)):
        if p == idx:
            continue
        if res is arg:
            plan.unchanged.append(p)
            continue
        t = arg.type
        if t.shape is None:
            return None, f"carried value {p} has an unknown rank"
        if t.shape == ():
            kind = an.reduction(body, arg, p, t.dtype)
            if kind is None:
                why = ("a float accumulator is split only with fastmath=True"
                       if t.dtype.is_floating and not fastmath else
                       "it is neither unchanged nor a reduction by one associative operation")
                return None, f"carried value {p} ({t}): {why}"
            plan.reductions.append(Reduction(p, kind, t.dtype))
        elif not an.written(body, arg, p, counter):
            return None, (f"carried tensor {p} ({t}) is not only read and written at the counter's "
                          "row, with every index proven in bounds")
        else:
            plan.written.append(p)
    return plan, ""
