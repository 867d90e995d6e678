"""The slot layout of the kernel ABI (see `codegen.lowering`), without llvmlite.

Lowering emits this layout and `CompiledKernel` packs it; the count lives
here so that loading cached code (`codegen.cache`) imports no `llvmlite.ir`.
"""
from __future__ import annotations

from tracer.ir import is_resource

__all__ = ["slot_count"]


def slot_count(types) -> int:
    """Number of 8-byte ABI slots for values of these TensorTypes."""
    return sum(1 if t.shape == () or is_resource(t) else 1 + len(t.shape) for t in types)
