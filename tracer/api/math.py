"""`ag.math`: the public functions under TensorFlow's `tf.math` names.

Built from the table of public functions (`autograph.tracer.api.public`): the
names "math.*" that op declarations and `@public` give. The modules imported
here are the ones that register such names.
"""
from __future__ import annotations

from . import elementwise as _elementwise, reduce as _reduce, scans as _scans  # noqa: F401  (register math.*)
from .public import namespace as _namespace

globals().update(_namespace("math"))

__all__ = list(_namespace("math"))
