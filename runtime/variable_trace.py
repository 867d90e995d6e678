"""Variable arguments while tracing.

`SymbolicVariable` is what the traced function sees for a variable argument
(a resource input of the graph at the argument's position), with the
methods of `ag.Variable`; `VariableSpec` records it in the
ConcreteFunction's signature (dtype and exact shape). (Lifting a variable's
initial value out of a trace is `autograph.runtime.variable_lift`.)
"""
from __future__ import annotations

from typing import Optional

from autograph.tracer.core.ir import Value
from autograph.tracer.tracing.symbolic import GraphBuilder, TracingError
from autograph.tracer.core.types import TensorType

from .spec import TensorSpec
from .variable import VariableBase, where_suffix

__all__ = ["SymbolicVariable", "VariableSpec", "is_variable_leaf", "trace_argument"]


# ----------------------------------------------------------------- arguments

class SymbolicVariable(VariableBase):
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
                               f"that trace{where_suffix()}")
        return self._resource

    def _traced_error(self, what: str) -> TypeError:
        return TypeError(f"{what} of the variable argument {self._name!r} is only known when the "
                         f"compiled code runs; use it in tensor expressions instead{where_suffix()}")

    def _read_eager(self):
        raise TracingError(f"the variable argument {self._name!r} of a trace was used outside "
                           f"that trace{where_suffix()}")

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
