"""Find the function named on the `autograph` command line (`FILE:FUNC`).

`FILE` is a path to a ``.py`` file or a dotted module name; `FUNC` is a
(possibly dotted) attribute path inside it.  Nothing here imports the
compiler; wrapping into an `ag.function` happens in `autograph.cli`.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from types import ModuleType
from typing import Any, Tuple


class TargetError(ValueError):
    """FILE:FUNC does not name a function (bad syntax, no such file/module/attribute)."""


class TargetImportError(Exception):
    """The user's module was found but raised while being imported."""

    def __init__(self, where: str, exc: BaseException):
        super().__init__(f"error while importing {where}: {type(exc).__name__}: {exc}")
        self.exc = exc


_MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def split_target(target: str) -> Tuple[str, str]:
    """`"examples/kernels.py:collatz"` -> `("examples/kernels.py", "collatz")`."""
    where, sep, attr = target.rpartition(":")
    if not sep or not where or not attr:
        raise TargetError(
            f"expected FILE:FUNC (a .py file or a module name, a colon, a function name), "
            f"got {target!r}")
    if not _MODULE_NAME.match(attr):
        raise TargetError(f"bad function name {attr!r} in {target!r}: expected NAME or NAME.ATTR")
    return where, attr


def is_path(where: str) -> bool:
    """Whether `where` names a file rather than a module."""
    return (where.endswith(".py") or os.sep in where or "/" in where
            or (os.altsep is not None and os.altsep in where) or os.path.isfile(where))


def _module_name_for(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    name = re.sub(r"\W", "_", stem) or "_module"
    if name[0].isdigit():
        name = "_" + name
    existing = sys.modules.get(name)
    if existing is not None and os.path.abspath(getattr(existing, "__file__", "") or "") != path:
        name = f"__autograph_cli__.{name}"
    return name


def load_file(path: str) -> ModuleType:
    """Import the file at `path` as a module (its directory goes first on `sys.path`)."""
    if not os.path.isfile(path):
        raise TargetError(f"no such file: {path}")
    path = os.path.abspath(path)
    name = _module_name_for(path)
    existing = sys.modules.get(name)
    if existing is not None and os.path.abspath(getattr(existing, "__file__", "") or "") == path:
        return existing
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path}: not a Python source file")
    module = importlib.util.module_from_spec(spec)
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        sys.modules.pop(name, None)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise TargetImportError(path, exc) from exc
    return module


def load_module(name: str) -> ModuleType:
    """Import a module by dotted name (the current directory is searched first)."""
    if not _MODULE_NAME.match(name):
        raise TargetError(f"{name!r} is neither a .py file nor a module name")
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        # Only "this module (or a parent package) does not exist" is a usage error;
        # a missing import inside the user's module is the module's own failure.
        missing = exc.name or ""
        if missing and (name == missing or name.startswith(missing + ".")):
            raise TargetError(f"no module named {name!r} (and no file {name!r})") from None
        raise TargetImportError(name, exc) from exc
    except BaseException as exc:
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise TargetImportError(name, exc) from exc


def _is_own_function(v: Any, module: ModuleType) -> bool:
    if getattr(v, "_autograph_polymorphic", False):
        return True
    return callable(v) and not isinstance(v, type) and \
        getattr(v, "__module__", None) == module.__name__


def resolve_attr(module: ModuleType, attr: str, where: str) -> Any:
    """Follow a dotted attribute path from `module`."""
    obj: Any = module
    done = []
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            owner = ".".join(done) or where
            hint = ""
            if not done:
                names = sorted(n for n, v in vars(module).items() if _is_own_function(v, module)
                               and not n.startswith("_"))
                if names:
                    hint = f" (it defines: {', '.join(names)})"
            raise TargetError(f"{owner} has no attribute {part!r}{hint}") from None
        done.append(part)
    return obj


def load_target(target: str) -> Tuple[Any, str]:
    """The object named by `FILE:FUNC` and a short description of it."""
    where, attr = split_target(target)
    module = load_file(where) if is_path(where) else load_module(where)
    obj = resolve_attr(module, attr, where)
    if not callable(obj):
        raise TargetError(f"{target} is a {type(obj).__name__}, not a function")
    return obj, f"{where}:{attr}"
