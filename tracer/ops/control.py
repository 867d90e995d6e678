"""Structured control flow and checks: `cond`, `while`, `check`.

Their type rules only restate what the tracer built (results are declared by
`autograph.tracer.tracing.control_flow`); the interpreter and codegen handle their regions.
"""
from __future__ import annotations

from ..core.registry import declare


def _declared_by_builder(types, attrs, consts):
    raise TypeError("cond and while are built by autograph.tracer.tracing.control_flow, not applied with bind()")


def _check_type(types, attrs, consts):
    (t,) = types
    if not (t.dtype.is_bool and t.shape == ()):
        raise TypeError(f"check expects a bool scalar, got {t}")
    return []


declare("cond", _declared_by_builder, None,
        doc="cond(pred) {then() {...} else() {...}}: results are what the taken branch yields")
declare("while", _declared_by_builder, None,
        doc="while(init...) {cond(args) {yield bool} body(args) {yield next...}}")
declare("check", _check_type, None, stateful=True,
        doc="check[message=str](pred): raise InvalidArgumentError(message) when pred is false")
