"""`ag.errors`: the exception types users catch."""
from autograph.tracer.core.errors import InvalidArgumentError  # noqa: F401

__all__ = ["InvalidArgumentError"]
