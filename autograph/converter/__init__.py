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
    control_flow, functions, lists, logical_expressions, return_statements, slices,
    try_statements, write_notes)
from . import array_reads, inplace_calls, multi_targets
from .checks import check_supported
from .errors import ConversionError, SourceUnavailableError
from .naming import Namer

__all__ = ["convert_node", "ConversionError", "SourceUnavailableError", "GENERATED_NAMES_ATTR",
           "HELPER_LAMBDA"]

GENERATED_NAMES_ATTR = "__ag_generated_names"


def convert_node(node: gast.AST, filename: str, function: str) -> gast.AST:
    """Convert a gast FunctionDef or Lambda (mutated in place and returned)."""
    check_supported(node, filename, function)
    user_lambdas = [n for n in gast.walk(node) if isinstance(n, gast.Lambda)]
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
    node = multi_targets.transform(node, namer)   # a[i] = b[j] = v; a[i], b[j] = f()
    node = write_notes.transform(node, function)
    node = slices.transform(node)
    node = inplace_calls.transform(node)   # np.add.at(a, i, v): a = ag__.numpy_inplace(...)
    node = array_reads.transform(node)     # TABLE[i] of a captured NumPy array: ag__.get_item
    if isinstance(node, gast.FunctionDef):
        control_flow.extract_loop_options(node)
    node = lists.transform(node, namer)
    node = call_trees.transform(node)
    if isinstance(node, gast.FunctionDef):
        node = control_flow.transform(node, namer)
    node = conditional_expressions.transform(node)
    node = logical_expressions.transform(node)
    # The helper functions generated here (loop_body, if_body, get_state, ...):
    # impl gives their code objects the user's function name, so that no
    # traceback or error message names a generated helper.
    _mark_generated_lambdas(node, {id(n) for n in user_lambdas})
    setattr(node, GENERATED_NAMES_ATTR, frozenset(namer.generated) | {HELPER_LAMBDA})
    return node


# A keyword-only parameter every generated lambda gets (`lambda *, __ag_helper=None: x`):
# it tells impl which `<lambda>` code objects are the converter's thunks.
HELPER_LAMBDA = "__ag_helper"


def _mark_generated_lambdas(node, user) -> None:
    for n in gast.walk(node):
        if isinstance(n, gast.Lambda) and id(n) not in user:
            n.args.kwonlyargs.append(gast.Name(id=HELPER_LAMBDA, ctx=gast.Param(),
                                               annotation=None, type_comment=None))
            n.args.kw_defaults.append(gast.Constant(value=None, kind=None))
