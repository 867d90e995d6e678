"""Buffers a counted loop overwrites entirely before anything reads them.

`out = np.empty_like(x)` (a `fill` of zeros in the graph) followed by
`for i in range(len(x)): ...; out[i] = v`, and a TensorArray of size n
written at every `i` of `range(n)`, zero a buffer whose every element the
loop writes before any is read. On this machine the zeroing (a `calloc` that
must clear recycled heap memory) was the whole gap between K10 and Numba
(0.53 against 0.47 ms for 1M float64), whose `np.empty_like` does not zero.

`fill_overwritten(op)` and `grow_overwritten(op)` prove, from the graph
alone, that a `fill` result or the rows a `grow` adds are never read before
being written; the lowering then allocates without zeroing.
`loop_overwrites(w, slot)` is the same proof for a loop's initial value that
the loop would copy (a constant, or a buffer still used later): the loop
gets a fresh buffer without the copy. The proof: the
buffer goes (its only use) into a counted `while` (`counted.counted_index`:
condition exactly `k < n`, body yielding `k + 1`, so no `break`) whose counter
starts at the constant 0, the buffer has n rows, and the body's only use of
it is one top-level `set_item(buf, v, k)` (spec `('i',)`: all of row k),
whose result is only yielded back into the same slot. Every iteration
k = 0 .. n-1 then writes row k before the next one starts, the condition
never reads the buffer, and a fault or Ctrl-C leaves through the error exit,
which frees the buffer unread. Anything else keeps the zeroing.
"""
from __future__ import annotations

from typing import Optional

from autograph.tracer.core.ir import Block, Op, Value

__all__ = ["fill_overwritten", "grow_overwritten", "loop_overwrites"]


def _refs(block: Block, v: Value) -> list:
    """(op, direct) for every reference to `v` from `block`: direct operands of
    its ops, uses inside their regions (direct=False), and (None, True) when
    the block yields it."""
    from .plan import region_uses
    out = []
    for o in block.ops:
        out.extend((o, True) for a in o.operands if a is v)
        out.extend((o, False) for a in region_uses(o) if a is v)
    out.extend((None, True) for r in block.results if r is v)
    return out


def _const_int(v: Value) -> Optional[int]:
    owner = v.owner
    if getattr(owner, "name", None) != "constant" or v.type.shape != ():
        return None
    try:
        return int(owner.attrs["value"])
    except (KeyError, TypeError, ValueError):
        return None


def _same_count(a: Value, b: Value) -> bool:
    """Do `a` and `b` hold the same integer (the same value, or equal constants)?"""
    if a is b:
        return True
    ca, cb = _const_int(a), _const_int(b)
    return ca is not None and ca == cb


def _row_writer(body: Block, arg: Value, k: Value) -> Optional[Op]:
    """The one top-level `set_item(arg, v, k)` writing row k of `arg`, if that is
    the body's only use of `arg` and its result is only yielded, else None."""
    refs = _refs(body, arg)
    if len(refs) != 1 or not refs[0][1] or refs[0][0] is None:
        return None
    s = refs[0][0]
    if (s.name != "set_item" or tuple(s.attrs.get("spec", ())) != ("i",) or len(s.operands) != 3
            or s.operands[0] is not arg or s.operands[2] is not k or s.operands[1] is arg):
        return None
    out = _refs(body, s.results[0])
    if len(out) != 1 or out[0][0] is not None:
        return None
    return s


def _counted_from_zero(w: Op):
    """(counter index, loop bound n) of a counted `while` whose counter starts at 0."""
    from .counted import counted_bound, counted_index
    if w.name != "while":
        return None
    idx = counted_index(w)
    if idx is None or _const_int(w.operands[idx]) != 0:
        return None
    return idx, counted_bound(w)


def loop_overwrites(w: Op, slot: int) -> bool:
    """Does the `while` `w` write every row of its carried value `slot` before
    reading any (so its initial contents never matter)?"""
    found = _counted_from_zero(w)
    if found is None or slot == found[0]:
        return False
    idx, n = found
    init = w.operands[slot]
    shape = init.type.shape
    if not shape:
        return False
    owner = init.owner
    rows_ok = (isinstance(shape[0], int) and _const_int(n) == shape[0]) or (
        getattr(owner, "name", None) == "fill" and _same_count(owner.operands[0], n))
    if not rows_ok:
        return False
    body = w.regions[1]
    s = _row_writer(body, body.args[slot], body.args[idx])
    return s is not None and body.results[slot] is s.results[0]


def fill_overwritten(op: Op) -> bool:
    """Is the `fill` `op`'s buffer entirely written by a loop before any read?"""
    block = op.block
    r = op.results[0]
    if block is None or not r.type.shape or len(op.operands) != len(r.type.shape) + 1:
        return False
    refs = _refs(block, r)
    if len(refs) != 1 or not refs[0][1] or refs[0][0] is None or refs[0][0].name != "while":
        return False
    w = refs[0][0]
    return loop_overwrites(w, next(i for i, a in enumerate(w.operands) if a is r))


def grow_overwritten(op: Op) -> bool:
    """Are the rows the `grow` `op` adds all written before any read? True for
    `ta.write(i, v)` in `for i in range(n)` on a TensorArray of size n: the
    body grows the carried buffer (empty on entry) to the loop-invariant size
    n, then writes row i."""
    body = op.block
    w = getattr(body, "parent", None)
    if w is None or len(w.regions) != 2 or body is not w.regions[1] or len(op.operands) != 2:
        return False
    found = _counted_from_zero(w)
    if found is None:
        return False
    idx, n = found
    arg, size = op.operands
    slot = next((i for i, a in enumerate(body.args) if a is arg), None)
    if slot is None or w.operands[slot].type.shape[:1] != (0,):
        return False      # a buffer with rows on entry: grow keeps them, and may add more than n
    # The size: a body argument yielded unchanged (loop-invariant) entering as n, or n itself.
    if any(size is a for a in body.args):
        j = next(i for i, a in enumerate(body.args) if a is size)
        if body.results[j] is not size or not _same_count(w.operands[j], n):
            return False
    elif not _same_count(size, n):
        return False
    refs = _refs(body, arg)
    if len(refs) != 1 or refs[0][0] is not op or not refs[0][1]:
        return False
    s = _row_writer(body, op.results[0], body.args[idx])
    return s is not None and body.results[slot] is s.results[0]
