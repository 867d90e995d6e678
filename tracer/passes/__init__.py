"""IR passes: one module per pass, each with one `run(graph) -> graph`.

`autograph.tracer.passes.manager.run_passes` runs them by name (or as bound
`Pass`es), optionally verifying the graph after each and printing it after a
chosen pass; `optimize` copies a graph and runs the default pipeline
(constant folding, common-subexpression elimination, dead code elimination).
"""
from .manager import PASSES, DEFAULT_PIPELINE, Pass, optimize, run_passes  # noqa: F401
