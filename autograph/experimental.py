"""`ag.autograph.experimental`: TensorFlow's loop options, as
`tf.autograph.experimental.set_loop_options`.

As in TensorFlow, the converter reads `maximum_iterations` from a call that
is a statement at the top level of a `while`/`for` body and passes it to the
loop (autograph/converter/control_flow.py, `extract_loop_options`). The rest
of the call runs as a plain call at trace time (once per trace of the body,
and on every iteration eagerly), so it checks what it is given but cannot
change the loop already being built: options that would change the loop are
refused with NotImplementedError rather than ignored.
"""
from __future__ import annotations

import numbers
from typing import Any, Optional, Sequence, Tuple

from autograph.tracer.api.tensor_shape import TensorShape
from autograph.tracer.tracing.symbolic import is_traced

__all__ = ["set_loop_options"]


def set_loop_options(parallel_iterations: Optional[int] = None, swap_memory: Optional[bool] = None,
                     maximum_iterations: Any = None,
                     shape_invariants: Optional[Sequence[Tuple[Any, Any]]] = None) -> None:
    """Accept TensorFlow's per-loop options inside a loop body.

    Call it as a statement at the top level of the body of a converted loop.

    Args:
        parallel_iterations: accepted and ignored (it tunes TensorFlow's
            executor, not the results).
        swap_memory: accepted and ignored, likewise.
        maximum_iterations: the loop stops after that many iterations (compiled
            or in Python). Anywhere but a statement at the top level of a
            converted loop body it would be ignored, which would change results,
            so it raises; use `ag.while_loop(..., maximum_iterations=n)` or put
            the bound into the loop condition there.
        shape_invariants: `[(var, shape), ...]`, checked against each
            variable's shape before the loop. As a statement at the top level
            of a converted loop body, a compiled loop carries `var` with that
            shape (a None dimension may change from one iteration to the next;
            an unknown rank keeps the rank and leaves every dimension unknown),
            and the converter evaluates the pairs before the loop. Anywhere
            else an invariant that would relax a known dimension to None is
            refused while tracing; eagerly shapes change freely.

    Returns:
        None.

    Raises:
        ValueError: a shape invariant that does not fit its variable.
        NotImplementedError: `maximum_iterations` where it cannot be honoured,
            or an invariant relaxing a known dimension while tracing.

    Example:
        >>> @ag.function
        ... def count(n):
        ...     i = ag.constant(0)
        ...     while i < n:
        ...         ag.autograph.experimental.set_loop_options(maximum_iterations=3)
        ...         i += 1
        ...     return i
        >>> print(count(ag.constant(10)))
        ag.Tensor(3, shape=(), dtype=int32)
    """
    if maximum_iterations is not None:
        raise NotImplementedError(
            "set_loop_options(maximum_iterations=...) is only honoured as a statement at the top "
            "level of the body of a converted loop (in an ag.function); elsewhere use "
            "ag.while_loop(cond, body, loop_vars, maximum_iterations=n) or add `and i < n` to the "
            "loop condition")
    if parallel_iterations is not None and (isinstance(parallel_iterations, bool) or
                                            not isinstance(parallel_iterations, numbers.Integral)):
        raise TypeError(f"set_loop_options: parallel_iterations must be an int, got "
                        f"{parallel_iterations!r}")
    for k, (var, want, have) in enumerate(check_shape_invariants(shape_invariants)):
        # (eagerly there is no compiled loop: shapes change freely, as in TF's eager mode)
        if is_traced(var) and _relaxes(want, have):
            raise NotImplementedError(
                f"set_loop_options: shape_invariants[{k}]: the invariant {want} is less specific "
                f"than the variable's shape {have} before the loop; relaxing a loop variable's "
                f"shape this way is supported only when set_loop_options is a statement at the "
                f"top level of the body of a converted loop (a dimension may vary in a compiled "
                f"loop only where it is unknown, e.g. an input with a TensorSpec dimension None)")


def check_shape_invariants(shape_invariants: Optional[Sequence[Tuple[Any, Any]]]) -> list:
    """Check `[(var, shape), ...]`: pairs of a tensor and a shape it fits.

    Returns [(var, invariant TensorShape, var's TensorShape), ...]; raises
    TypeError for a malformed pair and ValueError for a shape that does not fit.
    """
    out = []
    for k, pair in enumerate(shape_invariants or ()):
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
            raise TypeError(f"set_loop_options: shape_invariants[{k}] must be a (variable, shape) "
                            f"pair, got {pair!r}")
        var, shape = pair
        have = getattr(var, "shape", None)
        if have is None and not hasattr(var, "dtype"):
            raise TypeError(f"set_loop_options: shape_invariants[{k}]: expected a tensor, got "
                            f"{type(var).__name__} {var!r}")
        want, have = TensorShape(shape), TensorShape(have)
        if not want.is_compatible_with(have):
            raise ValueError(f"set_loop_options: shape_invariants[{k}]: the variable has shape "
                             f"{have}, which does not fit the invariant {want}")
        out.append((var, want, have))
    return out


def _relaxes(want, have) -> bool:
    """True when `want` leaves unknown a dimension (or the rank) `have` knows."""
    if want.rank is None:
        return have.rank is not None
    if have.rank is None:
        return False
    return any(w is None and h is not None for w, h in zip(want.as_list(), have.as_list()))
