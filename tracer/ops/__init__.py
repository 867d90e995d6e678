"""Op declarations, one module per family: importing this package declares every op."""
from . import (constant, control, elementwise, cast, reduce, construct, shaping, slicing, update,  # noqa: F401
               linalg, scans, random, printing, variables)
from . import complex  # noqa: F401,E402  (conj, real, imag, angle)
from . import mathfuncs, bitwise, sorting  # noqa: F401  (NumPy kernels' functions, API.md section 9)
from . import special  # noqa: F401  (math.erf, erfc, lgamma, gamma)
from . import scatter  # noqa: F401  (a[idx] = v, np.add.at, bincount)
