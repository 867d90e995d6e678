"""The IR verifier: checks a graph's invariants after tracing and after every pass.

What a verified graph guarantees:

* SSA: every value is defined once; every operand and yielded value is
  defined earlier in its own block or in an enclosing one (region ops may
  use values of the blocks around them; an op's results are not visible in
  its own regions); the graph's outputs are defined in its body.
* Bookkeeping: each op's `block` is the block that holds it, each result's
  `owner`/`index` point back at its op, `result_types` match the results.
* Every op name is registered, and for ops other than `constant`, `cond` and
  `while` the declared result types are what the op's type rule gives for
  the operand types (and constant operand values). By default a declared
  shape may be *less* specific than the rule's (a pass may have made an
  operand constant, which can sharpen a rule's answer; the old type is still
  sound); `strict=True` requires equality, which holds right after tracing.
* `constant`: no operands, a read-only ndarray `value` whose dtype and shape
  are the result type.
* `cond`: one bool scalar operand; regions then/else without arguments that
  yield values of the result dtypes, with shapes at least as specific as the
  results'.
* `while`: the operands (initial values) fit the result types; both regions
  take arguments of exactly the result types; `cond` yields one bool scalar,
  `body` yields values that fit the result types.
* `check`: one bool scalar operand and a string `message`.
* No other op has regions.
* Resources (`ref T`, variables captured by reference): only graph inputs
  have a resource type, with a fully known shape; a resource is used only as
  operand 0 of `read_variable` / `assign_variable`, and is never an op
  result, a region argument, a yielded value or a graph output.
"""
from __future__ import annotations

from typing import List, Optional, Set

import numpy as np

from . import registry
from .ir import Block, Graph, Op, Value, is_resource
from .types import TensorType, as_dtype, shape_compatible

__all__ = ["VerificationError", "verify"]


def _takes_resource(name: str) -> bool:
    """Whether op `name` is declared to take a variable's resource as operand 0."""
    opdef = registry.REGISTRY.get(name)
    return opdef is not None and opdef.resource


class VerificationError(ValueError):
    """A graph breaks an IR invariant; the message names the op and the problem."""


def verify(graph: Graph, *, strict: bool = False) -> Graph:
    """Check `graph` (see the module doc); return it, or raise VerificationError."""
    _Verifier(graph, strict).run()
    return graph


def _fits(actual: TensorType, expected: TensorType) -> bool:
    """`actual` has `expected`'s dtype and a shape at least as specific."""
    return actual.dtype is expected.dtype and shape_compatible(actual.shape, expected.shape)


def _constant_operand(v: Value) -> Optional[np.ndarray]:
    owner = v.owner
    if isinstance(owner, Op) and owner.name == "constant":
        return owner.attrs.get("value")
    return None


class _Verifier:
    def __init__(self, graph: Graph, strict: bool):
        self.graph = graph
        self.strict = strict
        self.scopes: List[Set[int]] = []
        self.defined: Set[int] = set()
        # Every value defined anywhere, to tell "used too early / out of scope" from "foreign".
        self.everywhere: Set[int] = {id(a) for a in graph.inputs}
        for op in graph.walk():
            self.everywhere.update(id(r) for r in op.results)
            for region in op.regions:
                self.everywhere.update(id(a) for a in region.args)
        self.checks = {"constant": self.check_constant, "cond": self.check_cond,
                       "while": self.check_while, "check": self.check_check}

    def run(self) -> None:
        self.block(self.graph.body, f"graph @{self.graph.name}", "graph output")

    # ------------------------------------------------------------ helpers

    def fail(self, where: str, msg: str, op: Optional[Op] = None) -> VerificationError:
        loc = f" (at {op.loc})" if op is not None and op.loc is not None else ""
        return VerificationError(f"{where}{loc}: {msg}")

    def define(self, v: Value, where: str, op: Optional[Op] = None) -> None:
        if id(v) in self.defined:
            raise self.fail(where, f"value {v!r} is defined twice (an op or block appears "
                                   f"twice in the graph)", op)
        self.defined.add(id(v))
        self.scopes[-1].add(id(v))

    def check_visible(self, v: Value, what: str, where: str, op: Optional[Op]) -> None:
        if any(id(v) in s for s in self.scopes):
            return
        if id(v) in self.everywhere:
            msg = (f"{what} ({v.type}) is used before it is defined, or outside the "
                   f"region that defines it")
        else:
            msg = f"{what} ({v.type}) is not defined anywhere in this graph"
        raise self.fail(where, msg, op)

    # ------------------------------------------------------------ walking

    def block(self, block: Block, where: str, yield_what: str) -> None:
        self.scopes.append(set())
        try:
            for i, a in enumerate(block.args):
                if a.owner is not block or a.index != i:
                    raise self.fail(where, f"argument {i} does not point back at its block")
                if is_resource(a):
                    self.check_resource_arg(a, i, block, where)
                self.define(a, where)
            for k, op in enumerate(block.ops):
                self.op(op, block, f"op {k} '{op.name}' in {where}")
            for i, v in enumerate(block.results):
                self.check_visible(v, f"{yield_what} {i}", where, None)
                if is_resource(v):
                    raise self.fail(where, f"{yield_what} {i} is a variable ({v.type}); only "
                                           f"values can be yielded or returned (read_variable it)")
        finally:
            self.scopes.pop()

    def op(self, op: Op, block: Block, where: str) -> None:
        if op.block is not block:
            raise self.fail(where, "op.block is not the block that holds the op", op)
        for i, v in enumerate(op.operands):
            self.check_visible(v, f"operand {i}", where, op)
            if is_resource(v) and not (i == 0 and _takes_resource(op.name)):
                raise self.fail(where, f"operand {i} is a variable ({v.type}); only operand 0 of "
                                       f"read_variable and assign_variable may be one", op)
        try:
            opdef = registry.get(op.name)
        except KeyError:
            raise self.fail(where, f"op '{op.name}' is not registered", op) from None
        if len(op.results) != len(op.result_types):
            raise self.fail(where, f"{len(op.results)} results but {len(op.result_types)} "
                                   f"result types", op)
        for i, (r, t) in enumerate(zip(op.results, op.result_types)):
            if r.owner is not op or r.index != i:
                raise self.fail(where, f"result {i} does not point back at its op", op)
            if r.type != t:
                raise self.fail(where, f"result {i} has type {r.type} but result_types "
                                       f"says {t}", op)
            if is_resource(r):
                raise self.fail(where, f"result {i} is a variable ({r.type}); resources are "
                                       f"graph inputs only", op)
        check = self.checks.get(op.name)
        if check is not None:
            check(op, where)
        else:
            if op.regions:
                raise self.fail(where, f"only cond and while ops have regions, not '{op.name}'", op)
            self.check_type_rule(op, opdef, where)
        for r in op.results:
            self.define(r, where, op)

    def check_type_rule(self, op: Op, opdef, where: str) -> None:
        types = [v.type for v in op.operands]
        consts = [_constant_operand(v) for v in op.operands]
        try:
            expected = list(opdef.type_rule(types, dict(op.attrs), consts))
        except Exception as e:  # a rule may raise anything on operands it never expected
            raise self.fail(where, f"the type rule rejects operands "
                                   f"({', '.join(map(str, types))}): {e}", op) from None
        declared = op.result_types
        ok = len(expected) == len(declared) and all(
            (d == e) if self.strict else (e.dtype is d.dtype and shape_compatible(e.shape, d.shape))
            for d, e in zip(declared, expected))
        if not ok:
            raise self.fail(where, f"declared result types ({', '.join(map(str, declared))}) "
                                   f"but the type rule gives ({', '.join(map(str, expected))})", op)

    def check_resource_arg(self, a: Value, i: int, block: Block, where: str) -> None:
        """A resource argument: a graph input whose variable has a fully known shape."""
        if block is not self.graph.body:
            raise self.fail(where, f"argument {i} is a variable ({a.type}); resources are "
                                   f"graph inputs only, not region arguments")
        if not a.type.value_type.is_fully_static:
            raise self.fail(where, f"input {i} is a variable of type {a.type}; a variable's "
                                   f"shape must be fully known")

    # ------------------------------------------------------------ special ops

    def check_constant(self, op: Op, where: str) -> None:
        if op.operands or op.regions:
            raise self.fail(where, "a constant has no operands and no regions", op)
        value = op.attrs.get("value")
        if not isinstance(value, np.ndarray):
            raise self.fail(where, f"the value attribute must be an ndarray, "
                                   f"not {type(value).__name__}", op)
        if value.flags.writeable:
            raise self.fail(where, "the value array must be read-only "
                                   "(attributes are immutable)", op)
        try:
            t = TensorType(as_dtype(value.dtype), value.shape)
        except TypeError as e:
            raise self.fail(where, str(e), op) from None
        if op.result_types != [t]:
            raise self.fail(where, f"the value is {t} but the result types are "
                                   f"({', '.join(map(str, op.result_types))})", op)

    def check_bool_scalar(self, v: Value, what: str, where: str, op: Op) -> None:
        if not (v.type.dtype.is_bool and v.type.shape == ()):
            raise self.fail(where, f"{what} must be a bool scalar, got {v.type}", op)

    def check_yields(self, region: Block, types: List[TensorType], label: str,
                     where: str, op: Op) -> None:
        if len(region.results) != len(types):
            raise self.fail(where, f"the {label} region yields {len(region.results)} values "
                                   f"for {len(types)} results", op)
        for i, (v, t) in enumerate(zip(region.results, types)):
            if not _fits(v.type, t):
                raise self.fail(where, f"the {label} region yields {v.type} as value {i}, "
                                       f"which does not fit the result type {t}", op)

    def check_cond(self, op: Op, where: str) -> None:
        if len(op.operands) != 1:
            raise self.fail(where, f"cond takes one predicate operand, got {len(op.operands)}", op)
        self.check_bool_scalar(op.operands[0], "the predicate", where, op)
        if len(op.regions) != 2:
            raise self.fail(where, f"cond has 2 regions (then, else), got {len(op.regions)}", op)
        for label, region in zip(("then", "else"), op.regions):
            if region.args:
                raise self.fail(where, f"the {label} region takes no arguments", op)
            self.block(region, f"the {label} region of {where}", "yielded value")
            self.check_yields(region, op.result_types, label, where, op)

    def check_while(self, op: Op, where: str) -> None:
        types = op.result_types
        if len(op.regions) != 2:
            raise self.fail(where, f"while has 2 regions (cond, body), got {len(op.regions)}", op)
        if len(op.operands) != len(types):
            raise self.fail(where, f"{len(op.operands)} initial values for "
                                   f"{len(types)} results", op)
        for i, (v, t) in enumerate(zip(op.operands, types)):
            if not _fits(v.type, t):
                raise self.fail(where, f"initial value {i} has type {v.type}, which does not fit "
                                       f"the loop variable type {t}", op)
        for label, region in zip(("cond", "body"), op.regions):
            arg_types = [a.type for a in region.args]
            if arg_types != types:
                raise self.fail(where, f"the {label} region's arguments "
                                       f"({', '.join(map(str, arg_types))}) must be the loop "
                                       f"variable types ({', '.join(map(str, types))})", op)
            self.block(region, f"the {label} region of {where}", "yielded value")
        cond_region, body = op.regions
        if len(cond_region.results) != 1:
            raise self.fail(where, f"the cond region yields {len(cond_region.results)} values, "
                                   f"not one bool scalar", op)
        self.check_bool_scalar(cond_region.results[0], "the cond region's yielded value", where, op)
        self.check_yields(body, types, "body", where, op)

    def check_check(self, op: Op, where: str) -> None:
        if op.regions or op.results:
            raise self.fail(where, "check has no regions and no results", op)
        if len(op.operands) != 1:
            raise self.fail(where, f"check takes one operand, got {len(op.operands)}", op)
        self.check_bool_scalar(op.operands[0], "the checked predicate", where, op)
        if not isinstance(op.attrs.get("message"), str):
            raise self.fail(where, "check needs a string 'message' attribute", op)
