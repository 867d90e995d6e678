"""Lifting a variable's initial value out of a trace.

A variable created inside an `ag.function` (first trace only) is created
eagerly, so a traced initial value is evaluated at once with the IR
interpreter (`lift_initial_value`), when it is computed from constants,
static shapes and captured variables only; anything that needs the
function's inputs is a ValueError saying to create the variable outside the
function (`depends_on_inputs_error`).
"""
from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np

from autograph.tracer.core.errors import with_location
from autograph.tracer.core.ir import Block, Op, Value
from autograph.tracer.core.location import user_location
from autograph.tracer.tracing.symbolic import SymbolicTensor

__all__ = ["lift_initial_value", "depends_on_inputs_error"]


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
            # A captured `ag.Variable` (only they are captured): its current value.
            buf = getattr(builder.captured_variable(v), "_buffer", None)
            if not isinstance(buf, np.ndarray):
                raise depends_on_inputs_error(v.name_hint)
            env[v] = buf
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
