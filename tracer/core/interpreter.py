"""The IR interpreter: runs a graph on NumPy arrays with each op's reference.

It is the semantic yardstick for codegen: every compiled result can be
checked against `run_graph` in tests. Ops are dispatched by name through a
dict (in the manner of torch.fx's Interpreter): `cond`, `while`, `check` and
`constant` have handlers here; every other op runs its registered NumPy
reference. Each result is cast to its declared dtype and its shape checked
against its declared type.

A resource input (`ref T`, a variable) is bound to the variable's mutable
buffer itself, not to a copy: `read_variable` copies the buffer and
`assign_variable` writes into it in place (their references, in
`autograph.tracer.ops.variables`), so running a graph updates its variables as the
compiled code does.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Sequence

import numpy as np

from . import registry
from .convert import to_numpy
from .errors import InvalidArgumentError, with_location
from .ir import Block, Graph, Op, Value, is_resource
from .types import format_shape, shape_compatible

__all__ = ["Interpreter", "run_graph"]

# handler(op, operand arrays, environment) -> one array per result
Handler = Callable[[Op, List[np.ndarray], Dict[Value, np.ndarray]], Sequence]


def run_graph(graph: Graph, inputs: Sequence) -> List[np.ndarray]:
    """Evaluate `graph` on `inputs` (arrays or numbers, one per graph input).

    A resource input takes an `ag.Variable` or a writeable NumPy array of
    exactly its dtype and shape, which the graph's assigns update in place.
    Returns one array per graph output, of the declared dtypes. Faults
    (failed `check`s, errors raised by op references) raise
    InvalidArgumentError naming the op's source line.
    """
    return Interpreter(graph).run(inputs)


class Interpreter:
    """Runs one graph; subclass and extend `handlers` to change how an op runs."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.handlers: Dict[str, Handler] = {
            "constant": self.run_constant,
            "cond": self.run_cond,
            "while": self.run_while,
            "check": self.run_check,
        }

    def run(self, inputs: Sequence) -> List[np.ndarray]:
        """Run the graph on `inputs`; see `run_graph`."""
        params = self.graph.inputs
        if len(inputs) != len(params):
            raise InvalidArgumentError(f"graph @{self.graph.name} takes {len(params)} inputs, "
                                       f"got {len(inputs)}")
        arrays = []
        for i, (x, p) in enumerate(zip(inputs, params)):
            if is_resource(p):
                arrays.append(self._resource_buffer(i, x, p))
                continue
            try:
                arr = to_numpy(x, p.type.dtype)
            except TypeError as e:
                raise InvalidArgumentError(f"input {i} of graph @{self.graph.name}: {e}") from None
            if not shape_compatible(arr.shape, p.type.shape):
                raise InvalidArgumentError(
                    f"input {i} of graph @{self.graph.name} has shape {format_shape(arr.shape)}, "
                    f"expected {p.type}")
            arrays.append(arr)
        env: Dict[Value, np.ndarray] = {}
        # The references define the semantics (integer wrap-around, inf from x/0.0),
        # so NumPy's warnings about them are noise here.
        with np.errstate(all="ignore"):
            outs = self.run_block(self.graph.body, arrays, env)
        # Constants are read-only; hand the caller arrays it may write to.
        return [o if o.flags.writeable else o.copy() for o in outs]

    def _resource_buffer(self, i: int, x, p: Value) -> np.ndarray:
        """The mutable buffer bound to resource input `i` (never a copy)."""
        buf = x._buffer if getattr(x, "_ag_variable", False) and hasattr(x, "_buffer") else x
        t = p.type.value_type
        if not (isinstance(buf, np.ndarray) and buf.dtype == t.dtype.np_dtype
                and buf.shape == t.shape and buf.flags.writeable):
            got = (f"a {'writeable' if buf.flags.writeable else 'read-only'} array of dtype "
                   f"{buf.dtype} and shape {format_shape(buf.shape)}"
                   if isinstance(buf, np.ndarray) else type(x).__name__)
            raise InvalidArgumentError(f"input {i} of graph @{self.graph.name} is a variable of type "
                                       f"{p.type}: expected an ag.Variable or a writeable array of "
                                       f"that dtype and shape, got {got}")
        return buf

    def run_block(self, block: Block, args: Sequence[np.ndarray],
                  env: Dict[Value, np.ndarray]) -> List[np.ndarray]:
        """Bind `args` to the block's arguments, run its ops, return what it yields.

        One environment serves all nesting levels: SSA names are unique, so a
        region sees the values of its enclosing blocks directly.
        """
        for a, x in zip(block.args, args):
            env[a] = x
        for op in block.ops:
            self.run_op(op, env)
        return [env[v] for v in block.results]

    def run_op(self, op: Op, env: Dict[Value, np.ndarray]) -> None:
        """Run one op and store its results in `env`."""
        operands = [env[v] for v in op.operands]
        handler = self.handlers.get(op.name, self.run_reference)
        try:
            outs = handler(op, operands, env)
        except InvalidArgumentError as e:
            raise with_location(e, op.loc) from None
        except Exception as e:
            e.add_note(f"While interpreting op '{op.name}'" + (f" at {op.loc}" if op.loc else ""))
            raise
        if len(outs) != len(op.results):
            raise RuntimeError(f"op '{op.name}' produced {len(outs)} values for "
                               f"{len(op.results)} results")
        for r, out in zip(op.results, outs):
            # (a bytes scalar must not become NumPy's fixed-width 'S', which drops trailing NULs)
            arr = np.asarray(out, dtype=object) if r.type.dtype.np_dtype.kind == "O" else np.asarray(out)
            if arr.dtype != r.type.dtype.np_dtype:
                arr = arr.astype(r.type.dtype.np_dtype)
            if not shape_compatible(arr.shape, r.type.shape):
                raise with_location(InvalidArgumentError(
                    f"op '{op.name}' produced a value of shape {format_shape(arr.shape)}, "
                    f"which does not fit its type {r.type}"), op.loc)
            env[r] = arr

    # ------------------------------------------------------------ handlers

    def run_reference(self, op: Op, operands: List[np.ndarray], env) -> Sequence:
        """Any op without a handler: its registered NumPy reference."""
        reference = registry.get(op.name).reference
        if reference is None:
            raise NotImplementedError(f"op '{op.name}' has no NumPy reference to interpret")
        out = reference(*operands, **op.attrs)
        return out if isinstance(out, tuple) else (out,)

    def run_constant(self, op: Op, operands, env) -> Sequence:
        return (op.attrs["value"],)

    def run_check(self, op: Op, operands, env) -> Sequence:
        if not bool(operands[0]):
            raise InvalidArgumentError(op.attrs.get("message", "check failed"))
        return ()

    def run_cond(self, op: Op, operands, env) -> Sequence:
        then_block, else_block = op.regions
        return self.run_block(then_block if bool(operands[0]) else else_block, (), env)

    def run_while(self, op: Op, operands, env) -> Sequence:
        cond_block, body = op.regions
        values = list(operands)
        while bool(self.run_block(cond_block, values, env)[0]):
            # Yielded values were cast to their declared dtypes when computed, and
            # the verifier guarantees those are the loop variables' dtypes.
            values = self.run_block(body, values, env)
        return values
