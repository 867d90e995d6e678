"""Gradients of `cond` and `while`: their regions replayed under inner tapes.

A tape records a `cond`/`while` op as one application whose inputs are the
predicate or initial values and the *free values* of its regions (outer
values, and captured variables, that the regions use).

* `cond`: a new `cond` on the same predicate whose branches replay each
  region under a tape and return the region's vector-Jacobian product.
* `while`: the forward loop is run again (replayed) carrying, besides its own
  values, a counter and one growing buffer per loop-carried value in which
  every iteration saves the values it starts from. A backward loop then runs
  as many iterations in reverse, reading the saved values of its step and
  applying the VJP of the body (replayed under a tape) to the carried
  gradients, summing the gradients of the free values. The trip count may
  depend on the data (it is whatever the replayed loop counted).
"""
from __future__ import annotations


import numpy as np

from .. import api as A
from ..core.registry import set_grad
from ..core.types import int64
from ..tracing.control_flow import cond as _cond
from ..tracing.loop import while_loop as _while_loop
from ..tracing.symbolic import bind, current_builder
from .backprop import zeros_like
from .replay import relax, replay
from .tape import GradientTape
from .tape_state import differentiable, free_inputs

__all__ = ["shape_only_args"]


def _zero(x):
    return zeros_like(x)


def _vjp_region(block, env, targets_idx, sources, ups):
    """Replay `block` under a tape watching `sources` (the float ones); returns
    the gradients of the block results `targets_idx` (weighted by `ups`)
    for each source, zeros where unconnected."""
    live = [s for s in sources if differentiable(s)]
    with GradientTape(watch_accessed_variables=False) as t:
        t.watch(live) if live else None
        outs = replay(block, env)
    targets = [outs[i] for i in targets_idx]
    grads = t.gradient(targets, live, output_gradients=ups) if live and targets else [None] * len(live)
    it = iter(grads)
    out = []
    for s in sources:
        if differentiable(s):
            g = next(it)
            out.append(_zero(s) if g is None else g)
        else:
            out.append(None)
    return out


def _cond_grad(inputs, outputs, attrs, grads):
    op = attrs["op"]
    builder = current_builder()
    values, free = free_inputs(op, builder)
    idx = [i for i, y in enumerate(outputs) if differentiable(y)]
    ups = [grads[i] if grads[i] is not None else _zero(outputs[i]) for i in idx]
    float_free = [k for k, s in enumerate(free) if differentiable(s)]

    def branch(block):
        def fn():
            env = dict(zip(values, free))
            g = _vjp_region(block, env, idx, free, ups)
            return [g[k] for k in float_free]
        return fn

    result = _cond(inputs[0], branch(op.regions[0]), branch(op.regions[1])) if float_free else []
    out = [None] * len(free)
    for k, g in zip(float_free, list(result)):
        out[k] = g
    return [None] + out


class _Fixed:
    """Saves a value of static shape S per iteration: one buffer [None, *S]."""

    def __init__(self, x):
        self.shape = tuple(x.shape)
        self.dtype = x.dtype

    def init(self):
        return (bind("grow", A.zeros((1,) + self.shape, self.dtype), np.int32(1)),)

    def save(self, state, k, v):
        return (bind("set_item", bind("grow", state[0], A.add(k, 1)), v, k, spec=("i",)),)

    def load(self, state, j):
        return bind("strided_slice", state[0], j, spec=("i",))


class _Ragged:
    """Saves a value of known rank whose shape may change from one iteration to
    the next (a growing TensorArray buffer, say): its elements are appended to
    one flat buffer, with each iteration's offset and shape."""

    def __init__(self, x):
        self.rank = len(x.shape)
        self.dtype = x.dtype

    def init(self):
        return (bind("grow", A.zeros((1,), self.dtype), np.int32(1)),
                bind("grow", A.zeros((1, self.rank), int64), np.int32(1)),
                bind("grow", A.zeros((1,), int64), np.int32(1)),
                np.int64(0))

    def save(self, state, k, v):
        data, shapes, offs, total = state
        flat = A.reshape(v, [-1])
        end = A.add(total, A.cast(A.size(v), int64))
        data = bind("set_item", bind("grow", data, end), flat, total, end, spec=("s110",))
        shapes = bind("set_item", bind("grow", shapes, A.add(k, 1)), A.shape(v, out_type=int64), k,
                      spec=("i",))
        offs = bind("set_item", bind("grow", offs, A.add(k, 1)), total, k, spec=("i",))
        return (data, shapes, offs, end)

    def load(self, state, j):
        data, shapes, offs, _ = state
        shape = bind("strided_slice", shapes, j, spec=("i",))
        start = bind("strided_slice", offs, j, spec=("i",))
        end = A.add(start, A.reduce_prod(shape))
        return A.reshape(bind("strided_slice", data, start, end, spec=("s110",)), shape)


class _ShapeOnly:
    """Saves only the shape of a loop value whose elements the body never reads
    (a buffer it only grows and writes, as `TensorArray.write` in a loop does):
    the backward body gets zeros of that shape, which is all the rules of
    `grow`/`set_item` look at. Memory is linear in the trip count, not quadratic."""

    def __init__(self, x):
        self.rank = len(x.shape)
        self.dtype = x.dtype

    def init(self):
        return (bind("grow", A.zeros((1, self.rank), int64), np.int32(1)),)

    def save(self, state, k, v):
        return (bind("set_item", bind("grow", state[0], A.add(k, 1)), A.shape(v, out_type=int64), k,
                     spec=("i",)),)

    def load(self, state, j):
        return A.zeros(bind("strided_slice", state[0], j, spec=("i",)), self.dtype)


# Ops whose operand 0 may be a loop value the body never reads: its shape is all they
# (and their gradient rules) use; grow/set_item pass the buffer on to their result.
_SHAPE_USES = {"grow": True, "set_item": True, "shape": False, "size": False, "rank": False}


def shape_only_args(block) -> set:
    """The indices of `block`'s arguments whose elements no op of the block reads."""
    uses = {}
    for op in block.ops:
        for pos, v in enumerate(op.operands):
            uses.setdefault(v, []).append((op, pos))
    nested = {v for op in block.ops for r in op.regions for inner in r.walk() for v in inner.operands}
    nested |= {v for op in block.ops for r in op.regions for v in r.results}
    out = set()
    for i, arg in enumerate(block.args):
        if arg.type.shape is None:
            continue
        frontier, ok = [arg], True
        while frontier and ok:
            v = frontier.pop()
            if v in nested:
                ok = False
                break
            for op, pos in uses.get(v, ()):
                passes = _SHAPE_USES.get(op.name)
                if passes is None or pos != 0:
                    ok = False
                    break
                if passes:
                    frontier.append(op.results[0])
        if ok:
            out.add(i)
    return out


def _saver(x, shape_only=False):
    shape = x.shape
    if shape_only and shape is not None and None in tuple(shape):
        return _ShapeOnly(x)
    if shape is None:
        raise NotImplementedError(
            "gradient of a while loop: a loop-carried value of unknown rank cannot be saved per "
            "iteration")
    return _Fixed(x) if None not in tuple(shape) else _Ragged(x)


def _while_grad(inputs, outputs, attrs, grads):
    op = attrs["op"]
    builder = current_builder()
    n = len(op.operands)
    inits = [relax(x, r.type) for x, r in zip(inputs[:n], op.results)]
    values, free = free_inputs(op, builder)
    cond_b, body_b = op.regions
    fidx = [i for i in range(n) if differentiable(outputs[i])]
    ffree = [k for k, s in enumerate(free) if differentiable(s)]
    if not fidx:
        return [None] * len(inputs)

    # Forward again, saving every iteration's starting values.
    def fcond(k, *rest):
        env = dict(zip(values, free))
        env.update(zip(cond_b.args, rest[:n]))
        return replay(cond_b, env)[0]

    unread = shape_only_args(body_b)
    savers = [_saver(x, i in unread) for i, x in enumerate(inits)]
    widths = [4 if isinstance(sv, _Ragged) else 1 for sv in savers]

    def split(flat):
        out, pos = [], 0
        for w in widths:
            out.append(tuple(flat[pos:pos + w]))
            pos += w
        return out

    def fbody(k, *rest):
        vals, states = rest[:n], split(rest[n:])
        saved = [x for sv, st, v in zip(savers, states, vals) for x in sv.save(st, k, v)]
        env = dict(zip(values, free))
        env.update(zip(body_b.args, vals))
        new = replay(body_b, env)
        return (A.add(k, 1), *new, *saved)

    start = (np.int32(0), *inits, *[x for sv in savers for x in sv.init()])
    res = _while_loop(fcond, fbody, start)
    count, states = res[0], split(res[1 + n:])

    # Backward: the body's VJP applied from the last iteration to the first.
    gs0 = tuple(grads[i] if grads[i] is not None else _zero(outputs[i]) for i in fidx)
    gf0 = tuple(_zero(free[k]) for k in ffree)

    def bcond(j, *rest):
        return A.greater_equal(j, 0)

    def bbody(j, *rest):
        gs, gf = rest[:len(fidx)], rest[len(fidx):]
        vals = [sv.load(st, j) for sv, st in zip(savers, states)]
        env = dict(zip(values, free))
        env.update(zip(body_b.args, vals))
        sources = [vals[i] for i in fidx] + [free[k] for k in ffree]
        g = _vjp_region(body_b, env, fidx, sources, list(gs))
        new_gs = g[:len(fidx)]
        new_gf = [A.add(a, b) for a, b in zip(gf, g[len(fidx):])]
        return (A.subtract(j, 1), *new_gs, *new_gf)

    back = _while_loop(bcond, bbody, (A.subtract(count, 1), *gs0, *gf0))
    out = [None] * len(inputs)
    for i, g in zip(fidx, back[1:1 + len(fidx)]):
        out[i] = g
    for k, g in zip(ffree, back[1 + len(fidx):]):
        out[n + k] = g
    return out


set_grad("cond", _cond_grad)
set_grad("while", _while_grad)

