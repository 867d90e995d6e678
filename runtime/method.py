"""Methods decorated with `ag.function`, and objects passed as arguments: not kept alive.

API.md section 1: each instance gets its own PolymorphicFunction (`copy_for`),
and an instance is never kept alive by the function. The copy is bound to
its instance like a Python bound method (so `Model().call(x)` and
`f = m.call; del m; f(x)` work: calling through the method of a collected
instance is impossible by construction) and is owned by the instance: it is
kept in the instance's `__dict__`, under a key of the class-level function,
never in a table of the class-level function (whose entry would keep its key
alive). The instance and its copy form a cycle that the garbage collector
frees, with the copy's traces and native entries. An instance without a
`__dict__` (`__slots__`) falls back to a weak-keyed table of the class-level
function, whose entry keeps the instance alive.

An object passed as an argument (an identity key, e.g. `Model.call(m, x)`) is
recorded by the ConcreteFunction traced for it as a `WeakLeaf`, so that the
trace does not keep its own key alive.
"""
from __future__ import annotations

import weakref

__all__ = ["WeakLeaf", "copy_for", "hold_weakly", "unwrap_leaf"]


def copy_for(pf, instance):
    """The PolymorphicFunction of `pf` (a class attribute) for `instance` (see the module docstring)."""
    key = pf.__dict__.get("_copy_key")
    if key is None:
        key = pf.__dict__.setdefault("_copy_key", f"__ag_function_{pf._name}_{id(pf):x}")
    owned = getattr(instance, "__dict__", None)
    if type(owned) is dict:
        copy = owned.get(key)
        # (a copy.copy or deepcopy of the instance brings the original's copy along: not ours)
        if copy is not None and getattr(copy._python_function, "__self__", None) is instance:
            return copy
        copy = pf._bound_copy(instance)
        owned[key] = copy
        return copy
    try:
        return pf._instances[instance]
    except KeyError:
        pass
    except TypeError:  # unhashable or not weakly referenceable: no per-instance cache possible
        return pf._bound_copy(instance)
    copy = pf._bound_copy(instance)
    pf._instances[instance] = copy
    return copy


class WeakLeaf:
    """An identity-keyed argument of a trace, held weakly (see the module docstring)."""

    __slots__ = ("_ref", "_text")

    def __init__(self, ref: weakref.ref, text: str):
        self._ref = ref
        self._text = text

    def get(self):
        """The object, or this WeakLeaf when it was collected (equal to no argument)."""
        obj = self._ref()
        return self if obj is None else obj

    def __repr__(self) -> str:
        obj = self._ref()
        return f"{self._text} (collected)" if obj is None else repr(obj)


def hold_weakly(obj):
    """`obj` as a trace records an identity-keyed argument: a WeakLeaf, or
    `obj` itself when it takes no weak references."""
    try:
        ref = weakref.ref(obj)
    except TypeError:
        return obj
    return WeakLeaf(ref, f"<{type(obj).__name__} object at {id(obj):#x}>")


def unwrap_leaf(x):
    """A recorded argument as given: the object of a WeakLeaf, else `x`."""
    return x.get() if type(x) is WeakLeaf else x
