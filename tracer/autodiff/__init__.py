"""Reverse-mode automatic differentiation: `GradientTape` and the ops' gradient rules.

`tape` records what `bind` applies while a tape is active; `backprop` walks the
records backwards with each op's rule (`OpDef.grad`, given to the ops by
`rules_math`, `rules_numpy`, `rules_shape`, `rules_linalg` and `rules_control`); `replay` re-applies the ops
of a traced region or graph through `bind`, which is how `cond`, `while` and
calls of compiled functions are differentiated (see docs/ARCHITECTURE.md,
"Gradients").
"""
from __future__ import annotations

from . import rules_control, rules_math, rules_numpy, rules_shape  # noqa: F401  (give the ops their gradient rules)
from . import rules_scatter  # noqa: F401  (a[idx] = v, np.add.at)
from . import rules_linalg  # noqa: F401  (inv, solve, det, slogdet, cholesky)
from .tape import GradientTape
from .tape_state import stop_recording

__all__ = ["GradientTape", "stop_recording"]
