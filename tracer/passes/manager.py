"""The pass manager: runs passes in order over a graph.

A pass is a function `run(graph) -> graph` that changes the graph in place
(or returns a new one) and states in its docstring what it guarantees.
Passes are named in `PASSES`; adding one is a module with a `run` and one
entry here. A pass that needs parameters (such as `specialize_rank`, which
needs the new input types) is given as a `Pass`, the parameters bound:
`specialize_rank.pass_for(types)`; `run_passes` accepts names and `Pass`es.

`DEFAULT_PIPELINE` is what every trace goes through (`optimize`, called at
the end of tracing by `autograph.runtime.polymorphic`), and every rank
specialisation after re-typing (`autograph.codegen.jit.ranked`).

With `verify=True` the verifier checks the graph before the first pass and
after each one, so a broken invariant is blamed on the pass that broke it.
`verify=None` (the default) means: when the environment variable
`AUTOGRAPH_VERIFY_PASSES` is `1`, as the test suite sets it.
"""
from __future__ import annotations

import gc
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Optional, Sequence, TextIO, Union

from ..core.clone import clone_graph
from ..core.ir import Graph
from ..core.verifier import VerificationError, verify as verify_graph
from . import constant_folding, cse, dce

__all__ = ["PASSES", "DEFAULT_PIPELINE", "VERIFY_ENV", "Pass", "run_passes", "optimize", "verifying"]

PASSES: Dict[str, Callable[[Graph], Graph]] = {
    "constant_folding": constant_folding.run,
    "cse": cse.run,
    "dce": dce.run,
}

# Passes that need parameters, and how to make one (for the error message).
PARAMETRISED = {"specialize_rank": "autograph.tracer.passes.specialize_rank.pass_for(input_types)"}

# Folding first: it makes new constants (merged by cse with the ones already
# there) and leaves the folded ops' operands unused; cse leaves nothing dead
# (it drops the ops it merges), dce then removes what folding left unused.
DEFAULT_PIPELINE = ("constant_folding", "cse", "dce")

VERIFY_ENV = "AUTOGRAPH_VERIFY_PASSES"


@dataclass(frozen=True)
class Pass:
    """A pass with its parameters bound: `name` (for messages and
    `print_after`) and `run(graph) -> graph`."""

    name: str
    run: Callable[[Graph], Graph]


def _resolve(p: Union[str, Pass]) -> Pass:
    if isinstance(p, Pass):
        return p
    fn = PASSES.get(p)
    if fn is not None:
        return Pass(p, fn)
    if p in PARAMETRISED:
        raise ValueError(f"pass {p!r} takes parameters: give {PARAMETRISED[p]} instead of its name")
    raise ValueError(f"unknown pass {p!r}; known passes: {', '.join(sorted(PASSES))}")


def run_passes(graph: Graph, names: Optional[Sequence[Union[str, Pass]]] = None,
               verify: Optional[bool] = None,
               print_after: Union[str, Iterable[str], None] = None,
               file: Optional[TextIO] = None) -> Graph:
    """Run the passes `names` (default `DEFAULT_PIPELINE`) over `graph`, in order.

    Each item is a name in `PASSES` or a `Pass`. `verify=True` runs the
    verifier before the first pass and after every pass (VerificationError
    names the pass); `None` follows `AUTOGRAPH_VERIFY_PASSES`. `print_after`
    is a pass name, a list of names, or "all": the IR is printed to `file`
    (stdout) after those passes. Returns the resulting graph.
    """
    passes = [_resolve(p) for p in (DEFAULT_PIPELINE if names is None else names)]
    if isinstance(print_after, str):
        print_after = {p.name for p in passes} if print_after == "all" else {print_after}
    print_after = set(print_after or ())
    bad = print_after - set(PASSES) - set(PARAMETRISED) - {p.name for p in passes}
    if bad:
        raise ValueError(f"print_after names unknown pass {sorted(bad)[0]!r}; "
                         f"known passes: {', '.join(sorted(PASSES))}")
    if verify is None:
        verify = verifying()
    with _gc_paused():
        if verify:
            _verify(graph, "before the first pass")
        for p in passes:
            graph = p.run(graph)
            if verify:
                _verify(graph, f"after pass {p.name!r}")
            if p.name in print_after:
                out = file if file is not None else sys.stdout
                print(f"// IR after {p.name}", file=out)
                print(graph, file=out, end="")
    return graph


def optimize(graph: Graph, names: Optional[Sequence[Union[str, Pass]]] = None) -> Graph:
    """A copy of `graph` run through the passes `names` (default `DEFAULT_PIPELINE`);
    `graph` itself is left as it is."""
    with _gc_paused():
        return run_passes(clone_graph(graph), names)


def verifying() -> bool:
    """Whether passes are verified by default: `AUTOGRAPH_VERIFY_PASSES=1` (tests set it)."""
    return os.environ.get(VERIFY_ENV) == "1"


@contextmanager
def _gc_paused():
    """Pause the cyclic garbage collector, if it is on, for the duration.

    Copying and rewriting a graph allocates many small objects in reference
    cycles (op <-> value <-> block), all of them alive: each collection that
    this triggers walks the whole heap and frees nothing. On a 9,000-op
    graph that made the copy and the passes several times slower.
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _verify(graph: Graph, when: str) -> None:
    try:
        verify_graph(graph)
    except VerificationError as e:
        raise VerificationError(f"{when}: {e}") from e
