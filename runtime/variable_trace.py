"""Variables while tracing: lifted initial values and variable arguments.

* `lift_initial_value`: a variable created inside an `ag.function` (first
  trace only) is created eagerly, so a traced initial value is evaluated at
  once with the IR interpreter, when it is computed from constants, static
  shapes and captured variables only; anything that needs the function's
  inputs is a ValueError saying to create the variable outside the function.
* `SymbolicVariable`: what the traced function sees for a variable argument
  (a resource input of the graph at the argument's position), with the
  methods of `ag.Variable`; `VariableSpec` records it in the
  ConcreteFunction's signature (dtype and exact shape).
"""
from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np

from autograph.tracer.core.errors import with_location
from autograph.tracer.core.ir import Block, Op, Value
from autograph.tracer.core.location import user_location
from autograph.tracer.tracing.symbolic import GraphBuilder, SymbolicTensor, TracingError
from autograph.tracer.core.types import TensorType

from .spec import TensorSpec
from .variable import Variable, _VariableBase, _where

__all__ = ["lift_initial_value", "depends_on_inputs_error", "SymbolicVariable", "VariableSpec",
           "is_variable_leaf", "trace_argument"]


# ----------------------------------------------------------------- lifted initial values

def depends_on_inputs_error(what: Optional[str]) -> ValueError:
    """The error for an initial value that needs the inputs of the function being traced."""
    uses = f" (it uses {what!r})" if what else ""
    return with_location(ValueError(
        f"ag.Variable: the initial value depends on the inputs of the ag.function being traced{uses}, "
        f"but a variable is created once, when the function is first traced, so its initial value "
        f"must be known then. Create the variable outside the function (and pass it in or capture "
        f"it), or initialize it from constants or static shapes (e.g. ag.ones_like(x) where x has "
        f"a fully known shape)."), user_location())


def lift_initial_value(t: SymbolicTensor) -> np.ndarray:
    """Evaluate traced `t` now, with the IR interpreter, if it depends on constants only.

    Walks the ops that compute `t`; reads of captured variables use their
    current values. Anything that depends on a graph input, a region
    argument (a loop variable) or a compiled cond/while raises ValueError.
    """
    from autograph.tracer.core.interpreter import Interpreter

    builder = t.builder
    order: List[Op] = []
    seen: Dict[int, bool] = {}
    env: Dict[Value, np.ndarray] = {}

    def visit(v: Value) -> None:
        owner = v.owner
        if isinstance(owner, Block) or owner is None:
            var = builder.captured_variable(v)
            if var is None or not isinstance(var, Variable):
                raise depends_on_inputs_error(v.name_hint)
            env[v] = var._buffer
            return
        if id(owner) in seen:
            return
        seen[id(owner)] = True
        if owner.regions:
            raise with_location(ValueError(
                f"ag.Variable: the initial value is computed by a compiled {owner.name} (it depends "
                f"on traced values); create the variable outside the function, or initialize it "
                f"from constants or static shapes"), user_location())
        for operand in owner.operands:
            visit(operand)
        order.append(owner)

    visit(t.value)
    interp = Interpreter(builder.graph)
    with np.errstate(all="ignore"):
        for op in order:
            interp.run_op(op, env)
    return np.array(env[t.value], copy=True)


# ----------------------------------------------------------------- arguments

class SymbolicVariable(_VariableBase):
    """A variable argument inside a trace: a resource input of the graph.

    It reads and assigns like a Variable (as ops of the trace); its value is
    only known when the compiled code runs with the caller's variable.
    """

    __slots__ = ("_builder", "_resource", "_dtype", "_shape", "_name", "__weakref__")

    def __init__(self, builder: GraphBuilder, resource: Value, name: Optional[str]):
        self._builder = builder
        self._resource = resource
        self._dtype = resource.type.dtype
        self._shape = tuple(resource.type.shape)
        self._name = name or "variable"

    def _ag_resource(self, builder: GraphBuilder) -> Value:
        if builder is not self._builder:
            raise TracingError(f"the variable argument {self._name!r} of a trace was used outside "
                               f"that trace{_where()}")
        return self._resource

    def _traced_error(self, what: str) -> TypeError:
        return TypeError(f"{what} of the variable argument {self._name!r} is only known when the "
                         f"compiled code runs; use it in tensor expressions instead{_where()}")

    def _read_eager(self):
        raise TracingError(f"the variable argument {self._name!r} of a trace was used outside "
                           f"that trace{_where()}")

    def _assign_eager(self, what: str, value) -> None:
        self._read_eager()   # raises: outside its trace there is nothing to assign

    def numpy(self):
        raise self._traced_error("numpy()")

    def __array__(self, dtype=None, copy=None):
        raise self._traced_error("converting to a NumPy array")

    def __bool__(self):
        raise self._traced_error("bool()")

    def __int__(self):
        raise self._traced_error("int()")

    def __float__(self):
        raise self._traced_error("float()")

    def __index__(self):
        raise self._traced_error("using as an index")

    def __repr__(self) -> str:
        return f"<ag.Variable {self._name!r} shape={self._shape} dtype={self._dtype.name} (traced argument)>"

    __str__ = __repr__


class VariableSpec(TensorSpec):
    """The spec of a variable argument of a trace: its dtype and exact shape."""

    __slots__ = ()
    _ag_variable_spec = True

    def __repr__(self):
        return "VariableSpec" + super().__repr__()[len("TensorSpec"):]


def is_variable_leaf(x) -> bool:
    """An argument that is passed to compiled code as a variable (by reference)."""
    return getattr(x, "_ag_variable", False) or getattr(x, "_ag_variable_spec", False)


def trace_argument(builder: GraphBuilder, leaf, name: str):
    """(VariableSpec, SymbolicVariable) for variable argument `leaf` of a trace."""
    spec = VariableSpec(tuple(leaf.shape), leaf.dtype, name)
    resource = builder.add_resource_input(TensorType(spec.dtype, spec.shape), name)
    return spec, SymbolicVariable(builder, resource, name)
