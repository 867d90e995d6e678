"""The public op functions: what `ag.*` exports and what tensor operators call.

Each function normalises Python arguments (weak Python numbers, arrays,
lists, axes, dtypes) and applies one op with `autograph.tracer.tracing.symbolic.bind`,
which records it while tracing or runs its NumPy reference eagerly; composite
functions (`zeros_like`, `ag.nn.softmax`, ...) are compositions of these.
The functions live in small modules by topic, are registered in one table
(`public`) from which `ag`, `ag.math`, `ag.nn`, `ag.random` and the NumPy
protocol are built, and are gathered here.

Importing this package also installs the functions behind the tensors'
Python operators and NumPy protocol (`autograph.tracer.tracing.tensor_ops`):
tracing sits below the api and cannot import it.
"""
from __future__ import annotations

import sys

from .. import ops  # noqa: F401  (declares every op)
from .elementwise import *  # noqa: F401,F403
from .elementwise import __all__ as _elementwise_all
from .slicing import getitem, setitem
from .reduce import *  # noqa: F401,F403
from .reduce import __all__ as _reduce_all
from .construct import *  # noqa: F401,F403
from .construct import __all__ as _shapes_all
from .shaping import *  # noqa: F401,F403
from .shaping import __all__ as _shapes2_all
from .scans import *  # noqa: F401,F403
from .scans import __all__ as _scans_all
from .sorting import *  # noqa: F401,F403
from .sorting import __all__ as _sorting_all
from .clipping import clip_by_value  # noqa: F401
from . import numpy_functions, numpy_linalg, numpy_creation, numpy_statistics  # noqa: F401  (register ag.roll, ag.norm, ag.broadcast_to, ...)
from . import ndarray_methods  # noqa: F401  (the array methods of tensors: x.sum(), x.T, ...)
from . import math, nn, printing, random, toplevel, bitwise, linalg  # noqa: F401  (the namespaces; complete the table)
from .numpy_protocol import array_function, array_ufunc
from ..tracing.symbolic import is_traced
from ..tracing import tensor_ops

__all__ = [*_elementwise_all, *_reduce_all, *_shapes_all, *_shapes2_all, *_scans_all, *_sorting_all,
           "clip_by_value", "getitem",
           "setitem", "is_traced"]

# The tensor operators (`x + y`, `x[i]`, `np.exp(x)`) call the functions of this package.
tensor_ops.install(sys.modules[__name__])
