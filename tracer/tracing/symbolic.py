"""Tracing: running Python on symbolic tensors to record a typed graph.

While a `GraphBuilder` is active, every op applied through `bind` is recorded
into the innermost open block (constant inputs become `constant` ops) and
returns `SymbolicTensor`s. With no builder active, `bind` runs the op's NumPy
reference eagerly and wraps the result with the eager wrapper that `runtime`
installs (`set_eager_wrapper`).

Variables (objects with `_ag_variable`, see `autograph.runtime.variable`) are captured
by reference: the first use in a trace adds a resource input for the variable
(`capture_variable`), and every use as an operand emits a `read_variable` at
that point in program order, so reads see the assigns recorded before them.
"""
from __future__ import annotations

import contextlib
import sys
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from ..core import registry
from ..core.convert import to_numpy
from ..core.errors import with_location
from ..core.ir import Block, Graph, Location, Op, ResourceType, Value
from ..core.location import user_location
from .tensor_ops import TensorOperators
from .array_methods import LIBRARY_CODES, user_shape
from ..core.types import TensorType, as_dtype, format_shape
from ..core import forksafe

__all__ = ["GraphBuilder", "SymbolicTensor", "bind", "current_builder", "is_traced",
           "set_eager_wrapper", "constant_value", "TracingError"]


class TracingError(ValueError):
    """A traced tensor was used where it cannot be (outside its trace or region)."""


_local = threading.local()


def _stack() -> List["GraphBuilder"]:
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


# The number of GraphBuilders active in all threads. Native entry points of
# compiled code (autograph.codegen.entry.emit) read it and step aside while it is non-zero,
# so that a call made while tracing goes through Python and is inlined.
ACTIVE_TRACES = np.zeros(1, np.int64)
_active_lock = forksafe.lock()   # a fork child gets it back unlocked


def current_builder() -> Optional["GraphBuilder"]:
    """The innermost active GraphBuilder of this thread, or None (eager)."""
    s = _stack()
    return s[-1] if s else None


def _identity(a: np.ndarray) -> Any:
    return a


# How an eager result is wrapped: the runtime installs Tensor._from_array (set_eager_wrapper).
_eager_wrap: Callable[[np.ndarray], Any] = _identity


def set_eager_wrapper(fn: Callable[[np.ndarray], Any]) -> None:
    """Install the function that wraps eager results (runtime's Tensor)."""
    global _eager_wrap
    _eager_wrap = fn


def wrap_eager(arr: np.ndarray):
    """Wrap a NumPy result as an eager tensor."""
    return _eager_wrap(arr)


# Set by the converter's operators (autograph.operators.advice): given what a
# traced tensor was used as ("bool", "int", ...), the advice for converted code
# (where autograph is already on), or None outside it.
conversion_advice: Optional[Callable[[str], Optional[str]]] = None


class SymbolicTensor(TensorOperators):
    """A tensor inside a trace: a handle on one IR value."""

    __slots__ = ("value", "builder", "__weakref__")

    def __init__(self, value: Value, builder: "GraphBuilder"):
        self.value = value
        self.builder = builder

    @property
    def dtype(self):
        return self.value.type.dtype

    @property
    def shape(self):
        # User code gets int32 scalars for dimensions known only at run time
        # (`n = x.shape[0]`), the library the static tuple with None; the
        # library reads shapes constantly, so its callers are answered first.
        shape = self.value.type.shape
        code = sys._getframe(1).f_code
        if LIBRARY_CODES.get(id(code)) is code:
            return shape
        return user_shape(self, shape)

    @property
    def ndim(self):
        return self.value.type.rank

    @property
    def type(self) -> TensorType:
        return self.value.type

    def __repr__(self) -> str:
        shape = "<unknown>" if self.shape is None else str(self.shape)
        name = f'"{self.value.name_hint}", ' if self.value.name_hint else ""
        return f"Tensor({name}shape={shape}, dtype={self.dtype.name})"

    __str__ = __repr__

    def _bool_error(self, what: str) -> TypeError:
        loc = user_location()
        where = f"\n{loc.describe()}" if loc else ""
        advice = conversion_advice(what) if conversion_advice is not None else None
        if advice is None:
            advice = ("Use @ag.function(autograph=True) so that `if`/`while` on tensors compile, "
                      "or write the control flow with ag.cond / ag.while_loop.")
        return TypeError(
            f"using a traced tensor as a Python {what} is not allowed: its value is only known "
            f"when the compiled code runs.{where}\n{advice}")

    def __bool__(self):
        raise self._bool_error("bool")

    def __index__(self):
        raise self._bool_error("integer (e.g. as an index or range bound)")

    def __int__(self):
        raise self._bool_error("int")

    def __float__(self):
        raise self._bool_error("float")

    def __array__(self, dtype=None, copy=None):
        loc = user_location()
        where = f"\n{loc.describe()}" if loc else ""
        raise TypeError(f"cannot convert a traced tensor to a NumPy array: its value is only known "
                        f"when the compiled code runs.{where}")

    def __len__(self):
        if self.shape is None or not self.shape:
            raise TypeError(f"len() of a tensor of shape {format_shape(self.shape)} is not defined")
        if self.shape[0] is None:
            raise TypeError("len() of a traced tensor whose first dimension is unknown needs "
                            "autograph=True (which makes len() a traced value)")
        return self.shape[0]

    def __iter__(self):
        n = len(self)
        return (self[i] for i in range(n))


class WeakSymbolicTensor(SymbolicTensor):
    """Stands in for a Python number while a loop body is traced to learn the
    dtypes it produces: like the number, it adopts the dtype of the tensors
    it meets (autograph.tracer.tracing.weak.unify_operands), but its value stays unknown, so
    the body cannot branch or index on the Python value."""

    __slots__ = ()
    _ag_weak = True


class StaticDimTensor(WeakSymbolicTensor):
    """A dimension known at trace time, as converted code reads it from
    `x.shape` (a weak int32 constant, tracing/array_methods.py). Python code
    that needs an int of it (`operator.index`, `int()`: NumPy's own C
    functions given `x.shape`, such as `np.ravel_multi_index(idx, x.shape)`)
    gets that static int; arithmetic and comparisons stay traced."""

    __slots__ = ()

    def _static(self) -> int:
        return int(constant_value(self.value))

    def __index__(self):
        return self._static()

    def __int__(self):
        return self._static()


class WeakIntTensor(WeakSymbolicTensor):
    """A traced int standing for a Python int whose value is only known at run
    time: what a compiled `if` (or `a if c else b`) gives when both branches
    are Python ints (`cost = 0 if a[i] == b[j] else 1`), and arithmetic of it
    with Python ints. Like the Python int it adopts the dtype of the tensors it
    meets (by an exact cast from int32, or int64 for values beyond int32), and
    it is int32 where it meets none. Unlike a loop's weak placeholder it keeps
    its dtype when a loop re-types its body (tracing/retype.py)."""

    __slots__ = ()
    _ag_weak_int = True


def is_traced(x) -> bool:
    """True when `x` is a symbolic tensor of an active trace."""
    return isinstance(x, SymbolicTensor)


def constant_value(v: Value) -> Optional[np.ndarray]:
    """The NumPy value of `v` when a `constant` op defines it, else None."""
    owner = v.owner
    if isinstance(owner, Op) and owner.name == "constant":
        return owner.attrs["value"]
    return None


def _value_block(v: Value) -> Optional[Block]:
    owner = v.owner
    if isinstance(owner, Block):
        return owner
    if isinstance(owner, Op):
        return owner.block
    return None


class GraphBuilder:
    """Builds one Graph; use as a context manager around the traced call."""

    def __init__(self, name: str):
        self.graph = Graph(name)
        self.blocks: List[Block] = [self.graph.body]
        self._scratch_depth = 0
        # Variables used by the trace, in the order of their resource inputs
        # (the caller passes their buffers after the user's inputs).
        self.captures: List[tuple] = []          # (variable, resource input Value)
        self._captured: Dict[int, Value] = {}    # id(variable) -> its resource input
        # How values computed from weak placeholders came about (see
        # `note_weak`): a compiled loop body is traced once with weak
        # placeholders and then re-typed from this (tracing/retype.py).
        self.weak_origins: Dict[Value, tuple] = {}

    def __enter__(self) -> "GraphBuilder":
        with _active_lock:
            ACTIVE_TRACES[0] += 1
        _stack().append(self)
        return self

    def __exit__(self, *exc) -> None:
        with _active_lock:
            ACTIVE_TRACES[0] -= 1
        popped = _stack().pop()
        assert popped is self

    @property
    def block(self) -> Block:
        return self.blocks[-1]

    @property
    def in_scratch(self) -> bool:
        """True while tracing a throw-away copy of a loop body (type inference)."""
        return self._scratch_depth > 0

    def note_weak(self, value: Value, origin: tuple) -> None:
        """Record how `value` was computed from weak placeholders:
        `("op", operands)` for an elementwise op applied to the original
        operands (Python numbers included), `("adopt", x)` for the cast of the
        weak value `x` to the dtype of the tensors it met, `("number", v)` for
        the constant a compiled `if` made of the Python number `v` one branch
        gave a weak variable."""
        self.weak_origins[value] = origin

    def add_input(self, type: TensorType, name: Optional[str] = None) -> SymbolicTensor:
        """Add a graph input of `type`; returns its symbolic tensor."""
        return SymbolicTensor(self.graph.body.add_arg(type, name), self)

    def add_resource_input(self, type: TensorType, name: Optional[str] = None) -> Value:
        """Add a graph input that refers to a variable holding a `type` value."""
        return self.graph.body.add_arg(ResourceType(type), name)

    def capture_variable(self, var) -> Value:
        """The resource input of variable `var` in this graph, added on first use.

        One input per variable per graph: later uses (in any region) reuse it.
        The builder keeps `var` alive until the trace becomes a function.
        """
        v = self._captured.get(id(var))
        if v is None:
            name = getattr(var, "name", None)
            v = self.add_resource_input(TensorType(var.dtype, var.shape),
                                        name if isinstance(name, str) and name.isidentifier() else None)
            self.captures.append((var, v))
            self._captured[id(var)] = v
        return v

    def captured_variable(self, v: Value):
        """The variable captured as resource input `v`, or None."""
        for var, value in self.captures:
            if value is v:
                return var
        return None

    def read_variable(self, var) -> Value:
        """Emit `read_variable` of `var` (captured or an argument) here; returns the value."""
        res = var._ag_resource(self)
        return self.emit("read_variable", [res], [res.type.value_type]).results[0]

    def assign_variable(self, var, value: Value, accumulate: Optional[str] = None) -> Op:
        """Emit `assign_variable(var, value)`; the type rule checks dtype and shape.

        With `accumulate="add"` or `"sub"`, `value` is a delta (broadcast to the
        variable's shape) added to or subtracted from the variable atomically.
        """
        res = var._ag_resource(self)
        attrs = {} if accumulate is None else {"accumulate": accumulate}
        registry.get("assign_variable").type_rule([res.type, value.type], attrs, [None, None])
        return self.emit("assign_variable", [res, value], [], attrs)

    @contextlib.contextmanager
    def region(self, arg_types: Sequence[TensorType] = (), scratch: bool = False):
        """Open a new block (for a region of a cond/while op); yields the Block.

        Ops applied inside go into this block. With `scratch=True` the block
        is thrown away afterwards (used to learn the types a loop body gives).
        """
        block = Block()
        for t in arg_types:
            block.add_arg(t)
        self.blocks.append(block)
        if scratch:
            self._scratch_depth += 1
        try:
            yield block
        finally:
            self.blocks.pop()
            if scratch:
                self._scratch_depth -= 1

    @contextlib.contextmanager
    def reenter(self, block: Block):
        """Append ops to an already built `block` (e.g. constants a branch yields)."""
        self.blocks.append(block)
        try:
            yield block
        finally:
            self.blocks.pop()

    def wrap(self, v: Value) -> SymbolicTensor:
        return SymbolicTensor(v, self)

    def value_of(self, x, dtype=None) -> Value:
        """The IR value for operand `x`; non-traced values become constants."""
        if isinstance(x, SymbolicTensor):
            if x.builder is not self:
                raise TracingError(
                    "a traced tensor from another trace (or a previous call) was used here; "
                    "tensors created inside an ag.function cannot be kept and reused outside it"
                    + _where())
            if _value_block(x.value) not in self.blocks:
                raise TracingError(
                    "a tensor computed inside a compiled branch or loop body is used outside it; "
                    "assign it to a variable that is defined before the branch or loop"
                    + _where())
            if dtype is not None and x.dtype is not dtype:
                raise TypeError(f"expected a tensor of dtype {dtype.name}, got {x.dtype.name}" + _where())
            return x.value
        if getattr(x, "_ag_variable", False):
            # A variable operand is read where it is used, not frozen as a constant.
            if dtype is not None and x.dtype is not dtype:
                raise TypeError(f"expected a tensor of dtype {dtype.name}, got a variable of dtype "
                                f"{x.dtype.name}" + _where())
            return self.read_variable(x)
        arr = to_numpy(x, dtype)
        return self.constant(arr)

    def constant(self, arr: np.ndarray) -> Value:
        """Emit a `constant` op holding a read-only copy of `arr`."""
        arr = np.array(arr, copy=True)
        arr.setflags(write=False)
        t = TensorType(as_dtype(arr.dtype), arr.shape)
        return self.emit("constant", [], [t], {"value": arr}).results[0]

    def emit(self, name: str, operands: List[Value], result_types: List[TensorType],
             attrs: Optional[Dict[str, Any]] = None, regions: Sequence[Block] = (),
             loc: Optional[Location] = None) -> Op:
        """Append op `name` to the current block and return it."""
        op = Op(name, list(operands), list(result_types), dict(attrs or {}), list(regions),
                loc if loc is not None else user_location())
        self.block.append(op)
        return op

    def finish(self, outputs: Sequence[Value]) -> Graph:
        """Set the graph's outputs and return the graph."""
        self.graph.body.results = list(outputs)
        return self.graph


def _where() -> str:
    loc = user_location()
    return f"\n{loc.describe()}" if loc else ""


def _operand_types_and_consts(builder, operands):
    values = [builder.value_of(o) for o in operands]
    types = [v.type for v in values]
    consts = [constant_value(v) for v in values]
    return values, types, consts


def bind(name: str, *operands, **attrs):
    """Apply op `name` to `operands`: record it (tracing) or run it (eager).

    Returns one result, or a tuple when the op has several.
    """
    opdef = registry.get(name)
    builder = current_builder()
    traced = any(isinstance(o, SymbolicTensor) for o in operands)
    if builder is None:
        if traced:
            raise TracingError(f"{name}: a traced tensor was used outside of its trace" + _where())
        out = _bind_eager(opdef, operands, attrs)
        if tape_hook is not None:
            tape_hook(opdef, operands, out, attrs)
        return out
    try:
        values, types, consts = _operand_types_and_consts(builder, operands)
        result_types = opdef.type_rule(types, attrs, consts)
    except (TypeError, ValueError) as e:
        raise with_location(e, user_location()) from None
    op = builder.emit(name, values, result_types, attrs)
    results = tuple(SymbolicTensor(r, builder) for r in op.results)
    out = results[0] if len(results) == 1 else results
    if tape_hook is not None:
        tape_hook(opdef, operands, out, attrs)
    return out


# While a gradient tape is active (autograph.tracer.autodiff.tape), the function
# that records each op application `bind` makes: hook(opdef, operands, result,
# attrs). None otherwise, so bind pays one global lookup when no tape is active.
tape_hook: Optional[Callable] = None


def _bind_eager(opdef, operands, attrs):
    arrays = [to_numpy(o) for o in operands]
    types = [TensorType(as_dtype(a.dtype), a.shape) for a in arrays]
    result_types = opdef.type_rule(types, attrs, arrays)
    out = opdef.reference(*arrays, **attrs)
    outs = out if isinstance(out, tuple) else (out,)
    wrapped = []
    for arr, t in zip(outs, result_types):
        # (a bytes scalar must not become NumPy's fixed-width 'S', which drops trailing NULs)
        arr = np.asarray(arr, dtype=object) if t.dtype.np_dtype.kind == "O" else np.asarray(arr)
        if arr.dtype != t.dtype.np_dtype:
            arr = arr.astype(t.dtype.np_dtype)
        wrapped.append(_eager_wrap(arr))
    return wrapped[0] if len(wrapped) == 1 else tuple(wrapped)
