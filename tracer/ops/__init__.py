"""Op declarations: importing this package registers every op."""
from . import constant, control  # noqa: F401
from . import elementwise, cast, reductions, shapes, indexing, linalg  # noqa: F401
