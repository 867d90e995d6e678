"""The typed SSA IR: values, ops with nested regions, blocks and graphs.

Structured control flow in the manner of MLIR: a `cond` op owns two regions
("then", "else") that take no arguments and yield the op's results; a `while`
op owns a "cond" region (block arguments = loop-carried values, yields one
bool scalar) and a "body" region (same arguments, yields the next values).
Regions are single blocks and may use any value defined before their op
(implicit capture). A graph is a top-level block whose arguments are the
function's inputs and whose yielded values are its outputs.

A graph input may be a *resource*: a reference to a variable's mutable buffer
(type `ResourceType`, printed `ref float32[3]`). Only `read_variable` and
`assign_variable` take resources, and only graph inputs have that type, so
every op that touches mutable state names it explicitly and program order
is the order of effects.

Objects are slotted dataclasses with identity equality. Printing lives in
`autograph.tracer.core.printer`; `str(graph)` uses it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Union

from .types import TensorType

__all__ = ["Location", "ResourceType", "is_resource", "Value", "Op", "Block", "Graph"]


@dataclass(frozen=True, slots=True)
class Location:
    """Where in the user's source an op came from."""

    file: str
    line: int
    col: int = 0
    function: Optional[str] = None
    source: Optional[str] = None  # the text of that line, stripped

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"

    def describe(self) -> str:
        """A traceback-style two-line description that quotes the line."""
        fn = f", in {self.function}" if self.function else ""
        text = f'  File "{self.file}", line {self.line}{fn}'
        if self.source:
            text += f"\n    {self.source}"
        return text


@dataclass(frozen=True, slots=True)
class ResourceType:
    """The type of a resource graph input: a variable holding a `value_type`.

    The variable's buffer is mutable and shared by reference with the caller;
    its shape is always fully known. Not a `TensorType`, on purpose: no tensor
    op accepts a resource (the verifier says so), only `read_variable` and
    `assign_variable` do.
    """

    value_type: TensorType

    @property
    def dtype(self):
        return self.value_type.dtype

    @property
    def shape(self):
        return self.value_type.shape

    def __str__(self) -> str:
        return f"ref {self.value_type}"

    def __repr__(self) -> str:
        return f"ResourceType({self})"


def is_resource(x) -> bool:
    """True for a `ResourceType`, or a Value of that type."""
    return isinstance(getattr(x, "type", x), ResourceType)


@dataclass(slots=True, eq=False)
class Value:
    """An SSA value: the result of an op or an argument of a block."""

    type: Union[TensorType, ResourceType]
    owner: Union["Op", "Block", None] = None
    index: int = 0
    name_hint: Optional[str] = None

    @property
    def dtype(self):
        return self.type.dtype

    @property
    def shape(self):
        return self.type.shape

    def __repr__(self) -> str:
        return f"<Value {self.name_hint or ''}: {self.type}>"


@dataclass(slots=True, eq=False)
class Block:
    """A straight-line list of ops with arguments and yielded results."""

    args: List[Value] = field(default_factory=list)
    ops: List["Op"] = field(default_factory=list)
    results: List[Value] = field(default_factory=list)
    parent: Optional["Op"] = None

    def add_arg(self, type: TensorType, name_hint: Optional[str] = None) -> Value:
        v = Value(type, self, len(self.args), name_hint)
        self.args.append(v)
        return v

    def append(self, op: "Op") -> "Op":
        op.block = self
        self.ops.append(op)
        return op

    def walk(self) -> Iterator["Op"]:
        """Every op in this block and, depth first, in its ops' regions."""
        for op in self.ops:
            yield op
            for region in op.regions:
                yield from region.walk()


@dataclass(slots=True, eq=False)
class Op:
    """One operation: a registered op name, operands, results, attributes.

    `attrs` holds immutable values only (numbers, strings, tuples, dtypes,
    read-only NumPy arrays for constants); `regions` holds nested blocks for
    control flow.
    """

    name: str
    operands: List[Value]
    result_types: List[TensorType]
    attrs: Dict[str, Any] = field(default_factory=dict)
    regions: List[Block] = field(default_factory=list)
    loc: Optional[Location] = None
    results: List[Value] = field(default_factory=list)
    block: Optional[Block] = None

    def __post_init__(self):
        if not self.results:
            self.results = [Value(t, self, i) for i, t in enumerate(self.result_types)]
        for r in self.regions:
            r.parent = self

    @property
    def result(self) -> Value:
        if len(self.results) != 1:
            raise ValueError(f"op {self.name} has {len(self.results)} results, not one")
        return self.results[0]

    def __repr__(self) -> str:
        return f"<Op {self.name} at {self.loc}>"


class Graph:
    """A traced function: a named top-level block plus the function's name."""

    __slots__ = ("name", "body", "__weakref__")

    def __init__(self, name: str, body: Optional[Block] = None):
        self.name = name
        self.body = body if body is not None else Block()

    @property
    def inputs(self) -> List[Value]:
        return self.body.args

    @property
    def outputs(self) -> List[Value]:
        return self.body.results

    def walk(self) -> Iterator[Op]:
        return self.body.walk()

    def format(self, locations: bool = False) -> str:
        """The stable text form; with `locations=True` each op ends with `# file:line`."""
        from .printer import format_graph
        return format_graph(self, locations=locations)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"<Graph {self.name}: {len(self.inputs)} inputs, {len(self.outputs)} outputs>"

    def to_dot(self) -> str:
        """The Graphviz DOT text of this graph (`autograph.tracer.core.dot`)."""
        from .dot import format_dot
        return format_dot(self)

    def _repr_svg_(self):
        # Jupyter's rich display: the picture when Graphviz's `dot` is installed, else
        # None (Jupyter then shows the text form, __repr__).
        from .dot import svg_or_none
        return svg_or_none(self)
