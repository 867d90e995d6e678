"""The lowering registry: which function lowers each op, by op name.

The family modules (`construct`, `elementwise`, ...) register into it with
`register` when imported; `autograph.codegen.lowering.load_all` imports them
all; the driver (`autograph.codegen.lowering.driver`) looks lowerings up here.
"""
from __future__ import annotations

from typing import Callable, Dict, Set

__all__ = ["register", "Lowering", "LOWERINGS", "FUSABLE", "FUSES_INTO"]

# (lowerer, op, lowered operands) -> lowered results
Lowering = Callable[[object, object, list], list]
LOWERINGS: Dict[str, Lowering] = {}
FUSABLE: Set[str] = set()      # elementwise ops that may be evaluated inside a consumer
FUSES_INTO: Set[str] = set()   # ops that can evaluate fused operands per element


def register(*names: str, fusable: bool = False, fuses_into: bool = False):
    """Decorator registering a lowering for op `names` (`fusable`: the op may be
    evaluated per element inside its consumer; `fuses_into`: the op can evaluate
    fused operands per element)."""
    def deco(fn: Lowering) -> Lowering:
        for n in names:
            if n in LOWERINGS:
                raise ValueError(f"lowering for {n!r} registered twice")
            LOWERINGS[n] = fn
            if fusable:
                FUSABLE.add(n)
            if fuses_into:
                FUSES_INTO.add(n)
        return fn
    return deco
