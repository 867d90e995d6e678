"""Op declarations: importing this package registers every op."""
from . import constant, control  # noqa: F401
from . import (elementwise, cast, reduce as reductions, construct as shapes, slicing as indexing,
    linalg)  # noqa: F401
from . import shaping as shapes2, scans, random, printing  # noqa: F401
from . import variables  # noqa: F401
from . import update  # noqa: F401  (set_item, grow, check_values)
