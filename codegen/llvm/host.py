"""What the host CPU offers, for the few IR choices that depend on it.

Kernels are compiled for the host (`jit/engine.py` asks LLVM for its CPU name
and features, and every cache key holds them), so IR may use an operation
that is fast here and a libm call elsewhere only after asking: `llvm.ldexp`
on vectors is one AVX-512 instruction (`vscalefps`/`vscalefpd`) and a call of
`ldexpf` per lane without AVX-512.
"""
from __future__ import annotations

import functools

__all__ = ["has_feature"]


@functools.lru_cache(maxsize=None)
def _features() -> frozenset:
    from llvmlite import binding as llvm
    return frozenset(f[1:] for f in llvm.get_host_cpu_features().flatten().split(",") if f.startswith("+"))


def has_feature(name: str) -> bool:
    """Whether the host CPU has LLVM target feature `name` (e.g. "avx512f")."""
    return name in _features()
