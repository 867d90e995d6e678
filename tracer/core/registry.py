"""The op registry: every op is declared once, here, by name.

A declaration gives the op's type rule and its NumPy reference, and what the
rest of the library would otherwise copy by hand: the dtype kind its operands
accept, its public names, its NumPy counterparts and its docstring. Eager
execution, the IR interpreter and constant folding run the reference; codegen
registers a lowering for the same name in `codegen/`; the public functions
(`autograph.tracer.api.public`), the NumPy protocol and the generated parts of
docs/ops.md are built from the declarations.

    type_rule(types, attrs, consts) -> list[TensorType]
        types:  the operands' TensorTypes
        attrs:  the op's attributes (immutable values)
        consts: per operand, its NumPy value when known at trace time, else None
        Raises TypeError/ValueError with a message naming the op.
    reference(*arrays, **attrs) -> ndarray | tuple[ndarray, ...]
        Computes the op on NumPy arrays; may raise InvalidArgumentError for
        runtime faults (the compiled code raises the same).

Importing `autograph.tracer` (any module of it) imports `autograph.tracer.ops`,
which declares every op, so `get` never misses an op for want of an import.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Dict, Optional, Tuple

from .types import DType

__all__ = ["OpDef", "declare", "get", "REGISTRY", "KINDS", "accepts", "ops_where", "set_grad"]

# The dtype kinds an op's operands may accept: kind -> (test, what the error
# message says was expected).
KINDS: Dict[str, Tuple[Callable[[DType], bool], str]] = {
    # Ordered numbers: the signed and unsigned integers and the real floats.
    "numeric": (lambda d: d.is_numeric, "an int or float tensor"),
    "float": (lambda d: d.is_floating, "a float tensor"),
    "int": (lambda d: d.is_integer, "an integer tensor"),
    "bool": (lambda d: d.is_bool, "a bool tensor"),
    # Every number, complex too (arithmetic, sums and products).
    "number": (lambda d: d.is_numeric or d.is_complex, "an int, float or complex tensor"),
    # float or complex: exp, sqrt
    "inexact": (lambda d: d.is_floating or d.is_complex, "a float or complex tensor"),
    # equal/not_equal/where/fill: every dtype
    "any": (lambda d: True, "a tensor"),
    # add concatenates strings (API.md section 2)
    "numeric_or_string": (lambda d: d.is_numeric or d.name == "string", "an int, float or string tensor"),
    "number_or_string": (lambda d: d.is_numeric or d.is_complex or d.name == "string",
                         "an int, float, complex or string tensor"),
    # bool, int, float (argmax, cumsum): neither strings nor complex
    "plain": (lambda d: d.name != "string" and not d.is_complex, "a bool, int or float tensor"),
}

_ELEMENTWISE = (None, "unary", "binary", "ternary")


@dataclass(frozen=True)
class OpDef:
    """One op's declaration."""

    name: str
    type_rule: Callable
    reference: Optional[Callable]
    # "unary"/"binary"/"ternary" for elementwise ops (codegen lowers these
    # with one scalar function inside a shared broadcasting loop), else None.
    elementwise: Optional[str] = None
    # A stateful op (random numbers, printing) is never folded or run at trace time.
    stateful: bool = False
    # What the op computes; for an op with public names, the docstring of its
    # public function (the generated wrappers add the dtype rules to it).
    doc: str = ""
    # The dtype kind (a key of KINDS) its operands accept, when one kind says
    # it (the type rule checks it); None when the rule is more particular.
    kind: Optional[str] = None
    # Public names of its function: "tanh" is ag.tanh, "math.tanh" ag.math.tanh.
    public: Tuple[str, ...] = ()
    # NumPy's names of the same computation, dispatched to the public function
    # when they meet a tensor: a ufunc or function name ("tanh", "sum") or a
    # ufunc method ("add.reduce").
    numpy: Tuple[str, ...] = ()
    # Takes a variable's resource as operand 0 (the only ops that may).
    resource: bool = False
    # The gradient rule (reverse mode, autograph.tracer.autodiff):
    # grad(inputs, outputs, attrs, grads) -> one gradient (or None) per input,
    # written with the public ops so it runs eagerly and while tracing.
    grad: Optional[Callable] = None


REGISTRY: Dict[str, OpDef] = {}


def declare(name: str, type_rule: Callable, reference: Optional[Callable], *,
            elementwise: Optional[str] = None, stateful: bool = False, doc: str = "",
            kind: Optional[str] = None, public: Tuple[str, ...] = (), numpy: Tuple[str, ...] = (),
            resource: bool = False, grad: Optional[Callable] = None) -> OpDef:
    """Register op `name`; declaring the same name twice, or a malformed
    declaration (unknown kind, public names without a docstring), is a bug."""
    if name in REGISTRY:
        raise ValueError(f"op {name!r} is declared twice")
    if kind is not None and kind not in KINDS:
        raise ValueError(f"op {name!r}: unknown dtype kind {kind!r} (expected one of {sorted(KINDS)})")
    if elementwise not in _ELEMENTWISE:
        raise ValueError(f"op {name!r}: elementwise must be one of {_ELEMENTWISE}, got {elementwise!r}")
    for what, names in (("public", public), ("numpy", numpy)):
        if not isinstance(names, tuple) or not all(isinstance(n, str) and n for n in names):
            raise ValueError(f"op {name!r}: {what} must be a tuple of names, got {names!r}")
    if public and not doc:
        raise ValueError(f"op {name!r} has public names {public} but no doc for them")
    opdef = OpDef(name, type_rule, reference, elementwise, stateful, doc, kind, public, numpy,
                  resource, grad)
    REGISTRY[name] = opdef
    return opdef


def get(name: str) -> OpDef:
    """The declaration of op `name` (KeyError with the known names otherwise)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown op {name!r}") from None


def set_grad(name: str, rule: Callable) -> OpDef:
    """Give the declared op `name` its gradient rule (see `OpDef.grad`); the
    rules live in `autograph.tracer.autodiff`, which sits above the api that
    they are written with. Giving an op a second rule is a bug."""
    opdef = get(name)
    if opdef.grad is not None:
        raise ValueError(f"op {name!r} already has a gradient rule")
    REGISTRY[name] = opdef = replace(opdef, grad=rule)
    return opdef


def accepts(opdef: OpDef, dtype: DType) -> bool:
    """True when `opdef` declares a kind and `dtype` is of it."""
    return opdef.kind is not None and KINDS[opdef.kind][0](dtype)


def ops_where(**fields) -> Tuple[str, ...]:
    """The names of the declared ops whose fields equal `fields`, in declaration
    order: `ops_where(elementwise="unary", kind="float")` are the float-only
    unary ops. Tests and codegen ask this instead of keeping lists of names."""
    for f in fields:
        if f not in OpDef.__dataclass_fields__:
            raise TypeError(f"ops_where: OpDef has no field {f!r}")
    return tuple(n for n, d in REGISTRY.items()
                 if all(getattr(d, f) == v for f, v in fields.items()))


def run_reference(op, arrays) -> Optional[tuple]:
    """The results of `op` (an IR op, or anything with `.name`, `.attrs`, `.results`) on
    the NumPy `arrays`, by its declared reference; None when that cannot be done at
    trace time: no reference, a stateful op, or one that raises (it then fails when the
    code runs, with the user's line). Constant folding and trace-time values use it."""
    try:
        opdef = get(op.name)
    except KeyError:
        return None
    if opdef.stateful or opdef.reference is None:
        return None
    try:
        import numpy as np
        with np.errstate(all="ignore"):
            out = opdef.reference(*arrays, **op.attrs)
    except Exception:
        return None
    outs = out if isinstance(out, tuple) else (out,)
    return outs if len(outs) == len(op.results) else None
