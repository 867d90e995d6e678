"""CPython callables made from native functions: builtins (`PyCFunction_NewEx`)
and method descriptors (`PyDescr_NewMethod`), each from a `PyMethodDef`.

A PyMethodDef must outlive every callable made from it, and a builtin can
outlive every Python object of its kernel, so the definitions made here are
kept for the process, like the machine code they point to.
"""
from __future__ import annotations

import ctypes
import threading
from typing import List

__all__ = ["MethodDef", "method_def", "new_builtin", "new_method"]


class MethodDef(ctypes.Structure):
    """CPython's `PyMethodDef`."""

    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


_DEFS: List[MethodDef] = []
_lock = threading.Lock()

# Private function objects (`pythonapi[...]` makes a new one): their argtypes are ours alone.
_new_builtin = ctypes.pythonapi["PyCFunction_NewEx"]
_new_builtin.restype = ctypes.py_object
_new_builtin.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p]

_new_descr = ctypes.pythonapi["PyDescr_NewMethod"]
_new_descr.restype = ctypes.py_object
_new_descr.argtypes = [ctypes.py_object, ctypes.c_void_p]


def method_def(name: bytes, address: int, flags: int, doc: bytes) -> MethodDef:
    """A PyMethodDef for the native function at `address`, kept for the process."""
    d = MethodDef(name, address, flags, doc)
    with _lock:
        _DEFS.append(d)
    return d


def new_builtin(d: MethodDef, self_obj):
    """A builtin calling `d` with `self_obj` as its `self` (`PyCFunction_NewEx`)."""
    return _new_builtin(ctypes.addressof(d), self_obj, None)


def new_method(cls, d: MethodDef):
    """A method descriptor of `cls` calling `d` with the instance as `self` (`PyDescr_NewMethod`)."""
    return _new_descr(cls, ctypes.addressof(d))
