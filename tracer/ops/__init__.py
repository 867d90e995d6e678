"""Op declarations, one module per family: importing this package declares every op."""
from . import (constant, control, elementwise, cast, reduce, construct, shaping, slicing, update,  # noqa: F401
               linalg, scans, random, printing, variables)
