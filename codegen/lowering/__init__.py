"""Lowering a typed graph to one LLVM function: the driver, the registry, and
one module per op family (the same family names as `autograph.tracer.ops`).

`load_all` fills the registry (`registry.LOWERINGS`) by importing every
family module; the driver calls it before lowering. It is a function, not
an import of this package, so that the modules that need no llvmlite
(`error_sites`, read on a disk-cache hit) stay cheap to import.
"""
from __future__ import annotations

__all__ = ["load_all"]


def load_all() -> None:
    """Import every family module: each registers the lowerings of its ops."""
    from . import construct, control, elementwise, linalg, printing, random  # noqa: F401
    from . import reduce, scans, shaping, slicing, update, variables  # noqa: F401
    from . import mathfuncs, sorting  # noqa: F401  (NumPy kernels' functions: API.md section 9)
    from . import lapack_call  # noqa: F401  (np.linalg by LAPACK)
    from . import scatter  # noqa: F401  (a[idx] = v, np.add.at, bincount)
