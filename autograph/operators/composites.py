"""Reading and writing composite names (`x['b']`, `self.n`) as control-flow state.

`get_state` reads each composite an `if` or loop writes with `ld_composite`,
and `set_state` writes it back with `store_composite` (see
autograph/converter/composites.py). A missing item or attribute reads as
`Undefined` (so a compiled `if` that sets it in one branch only is an error
naming it, as for a plain variable), and storing `Undefined` removes it
again, so each branch starts from the state before the `if`.

The object holding carried items (the dict `x` of `x['b']`) is itself a
variable of the statement (`x = ag__.set_item(x, 'b', v)` rebinds it), but
compiled control flow must not look inside it: its items are carried one by
one, and it is the same object before and after. `hold_containers` passes it
through as one opaque `Held` value.

Items of a tensor (or a NumPy array, a variable, a TensorArray) are not
state of their own: `x[i] = v` rebinds `x` to an updated tensor, and `x` is carried as a
plain variable. For those, reading gives `NOT_STATE`, which passes through
branches and loops unchanged, and storing it does nothing.
"""
from __future__ import annotations

from . import _tracer
from .variables import Undefined

__all__ = ["ld_composite", "store_composite", "NOT_STATE", "Held", "hold_containers"]


class _NotState:
    """The state of a composite whose container manages its own items."""

    __slots__ = ()

    def __repr__(self):
        return "NOT_STATE"


NOT_STATE = _NotState()


def _own_items(container) -> bool:
    """Tensors, NumPy arrays and variables: their items are updated through
    the container's name, not one by one."""
    if _tracer.is_traced(container) or getattr(container, "_ag_variable", False):
        return True
    if hasattr(container, "_array"):
        return True
    from autograph.tracer.api.tensor_array import TensorArray
    if isinstance(container, TensorArray):   # also a list a compiled loop carries as one
        return True
    import numpy as np
    return isinstance(container, (np.ndarray, np.generic))


def ld_composite(container_fn, key, is_attr: bool, name: str):
    """The value of `container.key` / `container[key]`, `Undefined(name)` if
    there is none yet, or `NOT_STATE` for a container that owns its items."""
    try:
        container = container_fn()
    except Exception:   # the container itself does not exist (yet): nothing to carry
        return Undefined(name)
    if isinstance(container, Undefined):
        return Undefined(name)
    if _own_items(container) and not is_attr:
        return NOT_STATE
    try:
        return getattr(container, key) if is_attr else container[key]
    except Exception:   # missing; the user's own statement raises the real error, if any
        return Undefined(name)


def store_composite(container_fn, key, is_attr: bool, value) -> None:
    """Set `container.key` / `container[key]` to `value`; remove it for an
    `Undefined` value (it did not exist); do nothing for `NOT_STATE`."""
    if value is NOT_STATE:
        return
    try:
        container = container_fn()
    except Exception:
        if isinstance(value, Undefined):
            return
        raise
    if isinstance(value, Undefined):
        try:
            if is_attr:
                delattr(container, key)
            elif isinstance(container, dict):
                container.pop(key, None)
        except (AttributeError, TypeError):
            pass
        return
    if is_attr:
        setattr(container, key, value)
    else:
        container[key] = value


class Held:
    """A Python object whose items or attributes are carried as composites,
    passed through compiled control flow as one opaque value (it must stay
    the same object)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, Held) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)

    def __repr__(self):
        return f"Held({type(self.obj).__name__})"

    @property
    def _ag_type_name(self) -> str:
        """What error messages call it: the held object's type."""
        return type(self.obj).__name__


def _holds_items(value) -> bool:
    if isinstance(value, (Undefined, bool, int, float, complex, str, bytes)) or value is None:
        return False
    return not (_tracer.is_traced(value) or hasattr(value, "_array") or _own_items(value))


def _root(text: str) -> str:
    end = len(text)
    for sep in ("[", "."):
        k = text.find(sep)
        if k != -1:
            end = min(end, k)
    return text[:end]


def hold_containers(names, get_state, set_state):
    """`get_state`/`set_state` wrapped so that each variable that holds carried
    composites (a root of one of `names`) and is a Python object travels as a
    `Held` (the same `Held` for the same object, so identity is kept)."""
    roots = {_root(n) for n in names if not n.isidentifier()}
    slots = [k for k, n in enumerate(names) if n in roots]
    if not slots:
        return get_state, set_state
    held = {}

    def get():
        values = list(get_state())
        for k in slots:
            if _holds_items(values[k]):
                values[k] = held.setdefault(id(values[k]), Held(values[k]))
        return tuple(values)

    def set_(values):
        set_state(tuple(v.obj if isinstance(v, Held) else v for v in values))

    return get, set_
