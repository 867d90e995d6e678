"""The pass manager: runs named passes in order over a graph.

Passes are looked up by name in `PASSES`; adding a pass is one module with a
`run(graph) -> graph` and one entry here. With `verify=True` (as tests run
it) the verifier checks the graph before the first pass and after each one,
so a broken invariant is blamed on the pass that broke it.
"""
from __future__ import annotations

import sys
from typing import Callable, Dict, Iterable, Optional, Sequence, TextIO, Union

from ..core.ir import Graph
from ..core.verifier import VerificationError, verify as verify_graph
from . import constant_folding, dce

__all__ = ["PASSES", "DEFAULT_PIPELINE", "run_passes"]

PASSES: Dict[str, Callable[[Graph], Graph]] = {
    "constant_folding": constant_folding.run,
    "dce": dce.run,
}

# Folding first: it leaves the folded ops' operands unused for dce to remove.
DEFAULT_PIPELINE = ("constant_folding", "dce")


def run_passes(graph: Graph, names: Optional[Sequence[str]] = None, verify: bool = False,
               print_after: Union[str, Iterable[str], None] = None,
               file: Optional[TextIO] = None) -> Graph:
    """Run the passes `names` (default `DEFAULT_PIPELINE`) over `graph`, in order.

    `verify=True` runs the verifier before the first pass and after every
    pass (VerificationError names the pass). `print_after` is a pass name, a
    list of names, or "all": the IR is printed to `file` (stdout) after
    those passes. Returns the resulting graph.
    """
    names = DEFAULT_PIPELINE if names is None else tuple(names)
    unknown = [n for n in names if n not in PASSES]
    if unknown:
        raise ValueError(f"unknown pass {unknown[0]!r}; known passes: {', '.join(sorted(PASSES))}")
    if isinstance(print_after, str):
        print_after = set(names) if print_after == "all" else {print_after}
    print_after = set(print_after or ())
    bad = print_after - set(PASSES)
    if bad:
        raise ValueError(f"print_after names unknown pass {sorted(bad)[0]!r}; "
                         f"known passes: {', '.join(sorted(PASSES))}")
    if verify:
        _verify(graph, "before the first pass")
    for name in names:
        graph = PASSES[name](graph)
        if verify:
            _verify(graph, f"after pass {name!r}")
        if name in print_after:
            out = file if file is not None else sys.stdout
            print(f"// IR after {name}", file=out)
            print(graph, file=out, end="")
    return graph


def _verify(graph: Graph, when: str) -> None:
    try:
        verify_graph(graph)
    except VerificationError as e:
        raise VerificationError(f"{when}: {e}") from e
