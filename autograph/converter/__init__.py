"""The AutoGraph source converter: gast rewrites that route Python control flow
through the `ag__` operators (autograph.operators).

`convert_node` runs the passes in the order of the research notes (1.3):
asserts and exception handlers, functions, break, continue, return, item
assignment, calls, control flow, conditional expressions, logical
expressions.
"""
from __future__ import annotations

import gast

from . import (asserts, break_statements, call_trees, conditional_expressions, continue_statements,
    control_flow, functions, logical_expressions, return_statements, slices, try_statements)
from .checks import check_supported
from .errors import ConversionError, SourceUnavailableError
from .naming import Namer

__all__ = ["convert_node", "ConversionError", "SourceUnavailableError"]


def convert_node(node: gast.AST, filename: str, function: str) -> gast.AST:
    """Convert a gast FunctionDef or Lambda (mutated in place and returned)."""
    check_supported(node, filename, function)
    namer = Namer(node)
    node = asserts.transform(node)
    node = try_statements.transform(node, namer)
    conditional_expressions.record_sources(node)
    functions.strip_signature(node)
    if isinstance(node, gast.FunctionDef):
        functions.hoist_declarations(node)
        functions.explicit_super(node)
        node = break_statements.transform(node, namer)
        node = continue_statements.transform(node, namer)
        node = return_statements.transform(node, namer)
    node = slices.transform(node)
    if isinstance(node, gast.FunctionDef):
        control_flow.extract_loop_options(node)
    node = call_trees.transform(node)
    if isinstance(node, gast.FunctionDef):
        node = control_flow.transform(node, namer)
    node = conditional_expressions.transform(node)
    node = logical_expressions.transform(node)
    return node
