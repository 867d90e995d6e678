"""The op registry: every op is declared once, here, by name.

A declaration gives the op's type rule and its NumPy reference. Eager
execution, the IR interpreter and constant folding run the reference; codegen
registers a lowering for the same name in `codegen/`.

    type_rule(types, attrs, consts) -> list[TensorType]
        types:  the operands' TensorTypes
        attrs:  the op's attributes (immutable values)
        consts: per operand, its NumPy value when known at trace time, else None
        Raises TypeError/ValueError with a message naming the op.
    reference(*arrays, **attrs) -> ndarray | tuple[ndarray, ...]
        Computes the op on NumPy arrays; may raise InvalidArgumentError for
        runtime faults (the compiled code raises the same).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Optional

__all__ = ["OpDef", "declare", "get", "REGISTRY"]


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
    doc: str = ""


REGISTRY: Dict[str, OpDef] = {}


def declare(name: str, type_rule: Callable, reference: Optional[Callable], *,
            elementwise: Optional[str] = None, stateful: bool = False, doc: str = "") -> OpDef:
    """Register op `name`; declaring the same name twice is a bug."""
    if name in REGISTRY:
        raise ValueError(f"op {name!r} is declared twice")
    opdef = OpDef(name, type_rule, reference, elementwise, stateful, doc)
    REGISTRY[name] = opdef
    return opdef


def get(name: str) -> OpDef:
    """The declaration of op `name` (KeyError with the known names otherwise)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown op {name!r}") from None
