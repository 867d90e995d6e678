"""The tracer: dtypes and tensor types, the typed IR, op declarations, tracing.

This package imports none of `autograph`, `runtime` or `codegen`; they build on it.
"""
