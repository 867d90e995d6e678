"""IR passes: one module per pass, each with one `run(graph) -> graph`.

`autograph.tracer.passes.manager.run_passes` runs them by name, optionally verifying
the graph after each and printing it after a chosen pass.
"""
from .manager import PASSES, DEFAULT_PIPELINE, run_passes  # noqa: F401
