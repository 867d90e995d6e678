"""The tracer: dtypes and tensor types, the typed IR, op declarations, tracing.

This package imports none of `autograph`, `runtime` or `codegen`; they build on it.

Importing it (any module of it) declares every op (`ops`) and installs the
public op functions behind the tensors' Python operators and NumPy protocol
(`api`), so no module needs to import those for their side effects.
"""
from . import ops  # noqa: F401  (declares every op)
from . import api  # noqa: F401  (installs the functions behind the tensor operators)
