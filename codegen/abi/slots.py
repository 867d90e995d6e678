"""The slot layout of the kernel ABI (see `autograph.codegen.lowering.driver`), without llvmlite.

    i32 kernel(ptr args, ptr results, ptr err)

Lowering emits this layout, `CompiledKernel` and the native entry pack it;
it lives here so that loading cached code (`autograph.codegen.jit.disk_cache`)
imports no `llvmlite.ir`.
"""
from __future__ import annotations

from autograph.tracer.core.ir import is_resource

__all__ = ["slot_count", "ERR_SLOTS"]

# The `err` frame: the fault site's id, then up to seven run-time values (i64 each).
ERR_SLOTS = 8


def slot_count(types) -> int:
    """Number of 8-byte ABI slots for values of these TensorTypes."""
    return sum(1 if t.shape == () or is_resource(t) else 1 + len(t.shape) for t in types)
