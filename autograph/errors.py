"""`ag.errors`: the exception types users catch."""
from tracer.errors import InvalidArgumentError  # noqa: F401

__all__ = ["InvalidArgumentError"]
