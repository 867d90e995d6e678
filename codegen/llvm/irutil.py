"""Small LLVM IR building helpers: declarations, counted loops, integer math.

Loops are emitted in the canonical form LLVM's loop passes expect
(preheader -> header with an i64 induction phi -> body -> latch), so the
loop vectoriser and LSR handle them without help.
"""
from __future__ import annotations

import contextlib
from typing import Iterator, List, Optional, Sequence

from llvmlite import ir

from .ltypes import I1, I32, I64, const_int, i64


def declare(module: ir.Module, name: str, ret: ir.Type, args: Sequence[ir.Type]) -> ir.Function:
    """The function `name` of `module`, declared with this signature if new."""
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, list(args)), name)
    return fn


def _suffix(t: ir.Type) -> str:
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{_suffix(t.element)}"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    if isinstance(t, ir.FloatType):
        return "f32"
    if isinstance(t, ir.DoubleType):
        return "f64"
    raise TypeError(t)


def intrinsic(b: ir.IRBuilder, name: str, args: Sequence[ir.Value], ret: ir.Type = None,
              extra: Sequence[ir.Value] = ()) -> ir.Value:
    """Call `llvm.<name>.<type of first arg>(args..., extra...)`."""
    t = args[0].type
    full = f"llvm.{name}.{_suffix(t)}"
    fn = declare(b.module, full, ret or t, [a.type for a in args] + [e.type for e in extra])
    return b.call(fn, list(args) + list(extra))


class _LoopID(ir.values.MDValue):
    """A distinct, self-referential `!llvm.loop` node carrying loop hints."""

    def descr(self, buf):
        ops = [self.get_reference()] + [o.get_reference() for o in self.operands]
        buf += ("distinct !{{ {0} }}".format(", ".join(ops)), "\n")

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


def horner(b: ir.IRBuilder, x: ir.Value, coeffs: Sequence[float]) -> ir.Value:
    """sum(coeffs[i] * x**i) by Horner's rule with `llvm.fmuladd` (an FMA where the
    host has one), the coefficients as constants of x's type (lowest degree first)."""
    acc = ir.Constant(x.type, coeffs[-1])
    for cf in reversed(coeffs[:-1]):
        acc = intrinsic(b, "fmuladd", [x, acc, ir.Constant(x.type, cf)])
    return acc


def loop_hints(module: ir.Module, vectorize: bool = True, unroll: bool = True,
               interleave: Optional[int] = None):
    """Loop metadata: disable vectorisation and/or unrolling, fix the
    interleave count (None: no metadata needed)."""
    if vectorize and unroll and interleave is None:
        return None
    ops = []
    if interleave is not None:
        ops.append(module.add_metadata([ir.MetaDataString(module, "llvm.loop.interleave.count"),
                                        ir.Constant(I32, interleave)]))
    if not vectorize:
        ops.append(module.add_metadata([ir.MetaDataString(module, "llvm.loop.vectorize.enable"),
                                        ir.Constant(I1, 0)]))
    if not unroll:
        ops.append(module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.disable")]))
    return _LoopID(module, ops, name=str(len(module.metadata)))


@contextlib.contextmanager
def for_range(b: ir.IRBuilder, count: ir.Value, start: ir.Value = None,
              name: str = "i", cold: bool = False,
              interleave: Optional[int] = None, unroll: bool = True) -> Iterator[ir.Value]:
    """`for (i = start; i < count; ++i) { <with body> }`; yields `i` (i64).

    The body may create blocks of its own; the loop continues from whatever
    block the builder is in when the `with` body ends. A `cold` loop is
    neither vectorised nor unrolled (for rarely taken paths: less code);
    `interleave=1` asks the vectoriser for one vector per iteration (no
    interleaving, hence no epilogue loop) and `unroll=False` keeps the
    scalar remainder compact: right for memory-bound maps.

    The loop is emitted already rotated (a guard, then a body whose latch
    tests `i + 1 < count`), the form LLVM's LoopRotate would give it: that
    pass costs time in the size of the whole function for every loop it
    rotates, so a kernel of thousands of loops (an unrolled Python loop)
    compiled in time quadratic in its size. `i` is defined only inside the
    body (after the loop, the trip count is `count`).
    """
    fn = b.function
    pre = b.block
    body = fn.append_basic_block(f"{name}.body")
    end = fn.append_basic_block(f"{name}.end")
    first = start if start is not None else i64(0)
    b.cbranch(b.icmp_signed("<", first, count), body, end)
    b.position_at_end(body)
    idx = b.phi(I64, name=name)
    idx.add_incoming(first, pre)
    yield idx
    nxt = b.add(idx, i64(1), flags=("nsw", "nuw"))
    idx.add_incoming(nxt, b.block)
    latch = b.cbranch(b.icmp_signed("<", nxt, count), body, end)
    md = loop_hints(b.module, vectorize=False, unroll=False) if cold else \
        loop_hints(b.module, interleave=interleave, unroll=unroll)
    if md is not None:
        latch.set_metadata("llvm.loop", md)
    b.position_at_end(end)


def product(b: ir.IRBuilder, values: Sequence[ir.Value]) -> ir.Value:
    """The i64 product of `values` (constant-folded where static)."""
    static = 1
    dynamic: List[ir.Value] = []
    for v in values:
        c = const_int(v)
        if c is None:
            dynamic.append(v)
        else:
            static *= c
    if static == 0:
        return i64(0)
    out = i64(static) if (static != 1 or not dynamic) else None
    for v in dynamic:
        out = v if out is None else b.mul(out, v)
    return out


def mul(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    cx, cy = const_int(x), const_int(y)
    if cx is not None and cy is not None:
        return i64(cx * cy)
    if cx == 1:
        return y
    if cy == 1:
        return x
    if cx == 0 or cy == 0:
        return i64(0)
    return b.mul(x, y)


def add(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    cx, cy = const_int(x), const_int(y)
    if cx is not None and cy is not None:
        return i64(cx + cy)
    if cx == 0:
        return y
    if cy == 0:
        return x
    return b.add(x, y)


def eq(b: ir.IRBuilder, x: ir.Value, y: ir.Value):
    """i1 `x == y`, or a Python bool when both are constants."""
    cx, cy = const_int(x), const_int(y)
    if cx is not None and cy is not None:
        return cx == cy
    return b.icmp_signed("==", x, y)


def and_all(b: ir.IRBuilder, conds) -> object:
    """AND of i1 values and Python bools: a Python bool when all are static."""
    out = True
    for c in conds:
        if c is True:
            continue
        if c is False:
            return False
        out = c if out is True else b.and_(out, c)
    return out


def smax(b: ir.IRBuilder, x, y):
    return b.select(b.icmp_signed(">", x, y), x, y)


def smin(b: ir.IRBuilder, x, y):
    return b.select(b.icmp_signed("<", x, y), x, y)


def to_i64(b: ir.IRBuilder, v: ir.Value, unsigned: bool = False) -> ir.Value:
    """Sign-extend (zero-extend when `unsigned`) an integer scalar to i64."""
    if v.type.width == 64:
        return v
    if isinstance(v, ir.Constant):
        c = v.constant
        return i64(c % (1 << v.type.width) if unsigned else c)
    return b.zext(v, I64) if unsigned else b.sext(v, I64)


def opaque(b: ir.IRBuilder, v: ir.Value) -> ir.Value:
    """The same i64 value, passed through an empty inline asm so that LLVM
    cannot see where it comes from.

    Used on broadcasting strides (`select(d == 1, 0, s)`): otherwise
    InstCombine folds the select into the loop body and loop unswitching
    clones each loop once per combination of broadcast operands (code size
    and compile time explode). Costs one register move outside the loop.
    """
    if isinstance(v, ir.Constant):
        return v
    fnty = ir.FunctionType(v.type, [v.type])
    return b.asm(fnty, "", "=r,0", [v], side_effect=False)


def routine(b: ir.IRBuilder, name: str, x: ir.Value, define, inline: bool = True) -> ir.Value:
    """A call of `name`, an internal function of one argument of x's type defined once per
    module by `define(builder, argument)`: the vector maths routines' shape. Always
    inlined (so the loop vectoriser widens plain arithmetic), or never (`inline=False`)."""
    fn = b.module.globals.get(name)
    if fn is None:
        fn = ir.Function(b.module, ir.FunctionType(x.type, [x.type]), name)
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline" if inline else "noinline")
        fn.attributes.add("nounwind")
        fb = ir.IRBuilder(fn.append_basic_block("entry"))
        fb.ret(define(fb, fn.args[0]))
    return b.call(fn, [x])
