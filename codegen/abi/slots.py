"""The slot layout of the kernel ABI (see `autograph.codegen.lowering.driver`), without llvmlite.

Lowering emits this layout and `CompiledKernel` packs it; the count lives
here so that loading cached code (`autograph.codegen.jit.disk_cache`) imports no `llvmlite.ir`.
"""
from __future__ import annotations

from autograph.tracer.core.ir import is_resource

__all__ = ["slot_count"]


def slot_count(types) -> int:
    """Number of 8-byte ABI slots for values of these TensorTypes."""
    return sum(1 if t.shape == () or is_resource(t) else 1 + len(t.shape) for t in types)
