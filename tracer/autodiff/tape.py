"""`GradientTape`: reverse-mode differentiation by recording the ops `bind` applies.

While a tape is active, `autograph.tracer.tracing.symbolic.bind` hands every op
application to `_record` (the module-level `tape_hook`, installed only while
some tape is active). A tape records an application when one of its operands
is *tracked*: watched (`tape.watch`, or a trainable variable read while
`watch_accessed_variables`), or a float result of an op already recorded. A
tape belongs to the trace it was opened in (None: eager), and records only
that trace's ops, so an eager tape ignores the ops of a function being traced
under it and a tape inside a decorated function sees symbolic tensors.

`gradient` walks the records backwards, applying each op's gradient rule
(`OpDef.grad`, rules in `autograph.tracer.autodiff.rules_*`) to the upstream
gradients. The rules are written with the public ops, so the same walk runs
eagerly on eager tensors, or, inside a trace, emits the backward ops into the
graph being traced; an enclosing tape records them too (second derivatives).

Tensors are identified by their IR value while tracing and by object identity
eagerly (the tape keeps them alive); variables by identity.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, List, Optional


from ..core import nest
from ..tracing import symbolic
from ..tracing.symbolic import SymbolicTensor, current_builder
from ..core import forksafe
from .tape_state import (active_tapes, differentiable, key_of, note_variable, region_inputs,
                         tapes)

__all__ = ["GradientTape", "record", "record_read",
           "is_tracked"]

_count_lock = forksafe.lock()   # a fork child gets it back unlocked
_active_count = 0


class _Record:
    __slots__ = ("name", "grad", "inputs", "in_keys", "outputs", "out_keys", "attrs")

    def __init__(self, name, grad, inputs, in_keys, outputs, out_keys, attrs):
        self.name, self.grad, self.inputs, self.in_keys = name, grad, inputs, in_keys
        self.outputs, self.out_keys, self.attrs = outputs, out_keys, attrs


def _record(opdef, operands, result, attrs) -> None:
    """The `bind` hook: offer one op application to this thread's active tapes."""
    stack = active_tapes()
    if not stack:
        return
    outs = result if isinstance(result, tuple) else (result,)
    if "op" in attrs and opdef.name in ("cond", "while"):
        # A region op comes whole (tracing/control_flow.py, loop.py): its inputs are
        # its operands and the values its regions use from outside.
        builder = current_builder()
        if not any(t._recording and t._builder is builder for t in stack):
            return
        operands = region_inputs(attrs["op"])
    record(opdef.name, opdef.grad, operands, outs, attrs)


def record(name: str, grad: Optional[Callable], inputs, outputs, attrs) -> None:
    """Record an op application on every active tape of the current trace that
    tracks one of `inputs`. `grad(inputs, outputs, attrs, grads)` gives one
    gradient (or None) per input; `outputs` is a sequence."""
    stack = active_tapes()
    if not stack:
        return
    builder = current_builder()
    if builder is not None:
        for x in inputs:
            if getattr(x, "_ag_variable", False):
                note_variable(builder, x)
    in_keys = None
    for tape in stack:
        if not tape._recording or tape._builder is not builder:
            continue
        if in_keys is None:
            in_keys = [key_of(x) for x in inputs]
        tracked = tape._tracked
        hit = False
        for x, k in zip(inputs, in_keys):
            if k is None:
                continue
            if k in tracked:
                hit = True
            elif tape._watch_accessed and getattr(x, "_ag_variable", False) \
                    and getattr(x, "trainable", True):
                tape._track(x)
                hit = True
        if not hit:
            continue
        out_keys = [key_of(y) if differentiable(y) else None for y in outputs]
        for y, k in zip(outputs, out_keys):
            if k is not None:
                tape._track(y)
        tape._records.append(_Record(name, grad, tuple(inputs), in_keys, tuple(outputs), out_keys,
                                     attrs))


def _identity_grad(inputs, outputs, attrs, grads):
    return [grads[0]]


def record_read(variable, value) -> None:
    """Record `value = variable.read_value()` (a read outside `bind`) on the active tapes."""
    record("read_variable", _identity_grad, (variable,), (value,), {})


def is_tracked(x) -> bool:
    """True when an active tape of the current trace tracks `x`."""
    k = key_of(x)
    builder = current_builder()
    return k is not None and any(t._recording and t._builder is builder and
                                 (k in t._tracked or (t._watch_accessed and
                                                      getattr(x, "_ag_variable", False)))
                                 for t in tapes())


def _activate(delta: int) -> None:
    global _active_count
    with _count_lock:
        _active_count += delta
        symbolic.tape_hook = _record if _active_count > 0 else None


class GradientTape:
    """Records operations for reverse-mode differentiation (as `tf.GradientTape`).

    Args:
        persistent: allow several `gradient` calls (otherwise a second call
            raises RuntimeError).
        watch_accessed_variables: watch every trainable `ag.Variable` that an
            op reads while the tape is active.

    Example:
        >>> x = ag.constant(3.0)
        >>> with ag.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> float(tape.gradient(y, x))
        6.0
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._records: List[_Record] = []
        self._tracked: set = set()
        self._alive: List[Any] = []       # keeps eager objects alive: their ids are keys
        self._variables: Dict[int, Any] = {}
        self._recording = False
        self._builder = None
        self._used = False
        self._bumped = False

    # -- recording ------------------------------------------------------------
    def __enter__(self) -> "GradientTape":
        self._builder = current_builder()
        self._recording = True
        tapes().append(self)
        _activate(1)
        if self._builder is None:
            # Native entry points of compiled functions step aside while this is
            # non-zero, so that a call under an eager tape reaches Python and is
            # recorded (autograph.runtime.gradient_call).
            with symbolic._active_lock:
                symbolic.ACTIVE_TRACES[0] += 1
            self._bumped = True
        return self

    def __exit__(self, *exc) -> None:
        self._recording = False
        stack = tapes()
        if self in stack:
            stack.remove(self)
        _activate(-1)
        if self._bumped:
            with symbolic._active_lock:
                symbolic.ACTIVE_TRACES[0] -= 1
            self._bumped = False

    def _track(self, x) -> None:
        k = key_of(x)
        if k is None:
            return
        if k not in self._tracked:
            self._tracked.add(k)
            if not isinstance(x, SymbolicTensor):
                self._alive.append(x)
            if getattr(x, "_ag_variable", False):
                self._variables[k] = x

    def watch(self, tensor) -> None:
        """Track `tensor` (a tensor, a variable, or a nested list/tuple/dict of
        them) so that gradients with respect to it can be taken.

        Raises:
            ValueError: a leaf is not a tensor or a variable.
        """
        for x in nest.flatten(tensor)[0]:
            if key_of(x) is None or not hasattr(x, "dtype"):
                raise ValueError(f"GradientTape.watch: expected tensors or variables, got "
                                 f"{type(x).__name__} {x!r}")
            if isinstance(x, SymbolicTensor) and x.builder is not current_builder():
                raise ValueError("GradientTape.watch: the tensor belongs to another trace")
            self._track(x)

    @contextlib.contextmanager
    def stop_recording(self):
        """Context manager: this tape records nothing inside it.

        Example:
            >>> with ag.GradientTape() as tape:
            ...     with tape.stop_recording():
            ...         y = x * 2.0      # not recorded
        """
        was = self._recording
        self._recording = False
        try:
            yield
        finally:
            self._recording = was

    def watched_variables(self) -> tuple:
        """The variables this tape watches, in the order they were first watched."""
        return tuple(self._variables.values())

    def reset(self) -> None:
        """Forget everything recorded so far (the tape keeps recording if active)."""
        self._records.clear()
        self._tracked.clear()
        self._alive.clear()
        self._variables.clear()
        self._used = False

    # -- differentiating ------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """The gradient of `target` with respect to `sources`.

        Args:
            target: a tensor, or a nested structure of tensors (their gradients
                add up); a non-scalar target stands for the sum of its elements.
            sources: a tensor, a variable, or a nested list/tuple/dict of them.
            output_gradients: the upstream gradient of each target (same
                structure as `target`), default ones.
            unconnected_gradients: "none" (a source the target does not depend
                on gives None) or "zero" (zeros of the source's shape).

        Returns:
            the gradients in the structure of `sources`; None for sources that
            the target does not depend on, and for integer or bool sources.

        Raises:
            RuntimeError: a second call on a non-persistent tape.
            LookupError: an op on the path has no gradient rule.

        Example:
            >>> v = ag.Variable(2.0)
            >>> with ag.GradientTape() as tape:
            ...     y = v * v * v
            >>> float(tape.gradient(y, v))
            12.0
        """
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set "
                               "of gradients; use ag.GradientTape(persistent=True) for several")
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(f"GradientTape.gradient: unconnected_gradients must be 'none' or "
                             f"'zero', got {unconnected_gradients!r}")
        self._used = True
        from . import backprop   # the walk needs the public ops, which sit above the tracing
        targets = nest.flatten(target)[0]
        seeds = None if output_gradients is None else nest.flatten(output_gradients)[0]
        if seeds is not None and len(seeds) != len(targets):
            raise ValueError(f"GradientTape.gradient: {len(seeds)} output_gradients given for "
                             f"{len(targets)} targets")
        src_leaves, src_def = nest.flatten(sources)
        was = self._recording
        self._recording = False    # never record our own backward ops (outer tapes do)
        try:
            grads = backprop.run(self._records, targets, seeds, src_leaves, self._tracked)
            if unconnected_gradients == "zero":
                grads = [backprop.zeros_like(s) if g is None else g for g, s in zip(grads, src_leaves)]
        finally:
            self._recording = was
        if not self._persistent:   # (ids of the freed objects may be reused: forget them)
            self._records = []
            self._alive = []
            self._tracked = set()
        return nest.unflatten(src_def, grads)

    def __repr__(self) -> str:
        return (f"<GradientTape persistent={self._persistent} "
                f"watch_accessed_variables={self._watch_accessed} records={len(self._records)}>")

