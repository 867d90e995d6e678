"""`ag.linalg`: the public functions under TensorFlow's `tf.linalg` names.

Built from the table of public functions (`autograph.tracer.api.public`): the
names "linalg.*" that `@public` gives. The modules imported here are the
ones that register such names (`tf_linalg`: inv, solve, det, slogdet,
cholesky, eigh, eigvalsh, qr, svd, pinv).
"""
from __future__ import annotations

from . import tf_linalg as _tf_linalg  # noqa: F401  (register linalg.*)
from .public import namespace as _namespace

globals().update(_namespace("linalg"))

__all__ = list(_namespace("linalg"))
