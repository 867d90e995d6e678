"""`ag.errors`: the exception types users catch."""
from autograph.tracer.core.errors import InvalidArgumentError  # noqa: F401

__all__ = ["InvalidArgumentError", "OutOfRangeError"]


class OutOfRangeError(ValueError):
    """TensorFlow's error for reading past the end of a sequence (an iterator,
    a queue). Defined so that TensorFlow code catching it runs unchanged:
    autograph itself raises `InvalidArgumentError` for out-of-range indices
    and reads, so nothing in the library raises this one."""
