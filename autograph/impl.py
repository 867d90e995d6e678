"""Converting Python functions: `convert`, `to_code`, `do_not_convert`.

A function is converted once per code object (closures made in a loop share
the work): its source is parsed, rewritten by `autograph.converter`, wrapped
in a factory function and compiled with the user's filename and line
numbers. Each `convert(fn)` then builds a new function from the converted
code bound to `fn`'s own globals, closure cells and defaults, so globals and
closures stay live rather than copied (research notes 1.2).
"""
from __future__ import annotations

import __future__
import ast
import functools
import logging
import time
import types
import weakref
from typing import Callable, Optional

from autograph.tracer.core import forksafe

from .conversion_marks import (CONVERTED_CODES, DO_NOT_CONVERT_ATTR, install, is_converted,  # noqa: F401
                               is_do_not_convert)
from autograph.tracer.core.logs import DETAIL, SOURCE

__all__ = ["convert", "to_code", "do_not_convert", "is_converted", "is_do_not_convert"]

_FACTORY_NAME = "__autograph_factory__"
_FUNCTION_NAME = "__autograph_function__"
_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag

_log = logging.getLogger("autograph")
_LOCK = forksafe.rlock()   # held while converting: a fork child gets it back unlocked
# code object of a user function -> _Conversion (weak: dies with the function).
_CACHE: "weakref.WeakKeyDictionary[types.CodeType, _Conversion]" = weakref.WeakKeyDictionary()
_AG_CELL = None


class _Conversion:
    __slots__ = ("code", "source", "__weakref__")

    def __init__(self, code: types.CodeType, source: str):
        self.code = code
        self.source = source


def _ag_cell():
    global _AG_CELL
    if _AG_CELL is None:
        from . import operators
        _AG_CELL = types.CellType(operators)
    return _AG_CELL


def _register_codes(code: types.CodeType) -> None:
    CONVERTED_CODES[id(code)] = code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _register_codes(const)


def _mangling_class(qualname: str) -> Optional[str]:
    """The class whose body defines the function named `qualname` (directly
    or through nested functions), or None: Python mangles `__private` names
    there, so the converted code must be compiled inside a class of that name."""
    parts = qualname.split(".")
    owner = None
    for part, after in zip(parts, parts[1:]):
        # A function is followed by `<locals>`; a class by one of its members.
        if part != "<locals>" and after != "<locals>":
            owner = part
    return owner


def _mangle_attributes(node, owner: str) -> None:
    """Write `obj.__x` as Python mangles it in class `owner` (`obj._Owner__x`).

    Compiling inside `class <owner>:` mangles identifiers, but the converter
    also names attributes in strings (a loop over `self.__x` stores it by
    name), which the compiler leaves alone; mangled first, both agree."""
    import gast

    stem = owner.lstrip("_")
    if not stem:
        return   # Python does not mangle in a class named only with underscores
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Attribute) and n.attr.startswith("__") and not n.attr.endswith("__"):
            n.attr = f"_{stem}{n.attr}"
        # A class defined in the function mangles with its own name (by the compiler).
        stack.extend(c for c in gast.iter_child_nodes(n) if not isinstance(c, gast.ClassDef))


def _factory_module(node, freevars, filename, owner=None):
    """`def factory(): ag__ = None; <freevar> = None; <node>; return <fn>` as
    an ast Module, and the converted function's source text.

    The dummy locals make `ag__` and the original free variables free
    variables of the converted function, so real cells can be supplied.
    With `owner`, the factory sits in `class <owner>:` so that `self.__x`
    is mangled as it was in the user's class.
    """
    import gast

    fn_ast = gast.gast_to_ast(node)
    # (the marker parameter of generated lambdas is not shown: see converter.HELPER_LAMBDA)
    source = ast.unparse(fn_ast).replace("lambda *, __ag_helper=None:", "lambda:")
    line = fn_ast.lineno
    body = [ast.Assign(targets=[ast.Name(id=v, ctx=ast.Store())], value=ast.Constant(None))
            for v in ("ag__",) + tuple(freevars)]
    if isinstance(fn_ast, ast.Lambda):
        body.append(ast.Return(value=fn_ast))
    else:
        # Defined under a name of its own, not the function's: a function that
        # calls itself by name (recursion) must find that name where Python
        # does (its globals or a real closure cell), not as a local of the
        # factory. `_convert_code` gives the code its real name back.
        fn_ast.name = _FUNCTION_NAME
        body += [fn_ast, ast.Return(value=ast.Name(id=_FUNCTION_NAME, ctx=ast.Load()))]
    factory = ast.FunctionDef(name=_FACTORY_NAME, args=ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
        defaults=[]), body=body, decorator_list=[], returns=None, type_params=[])
    for n in [factory] + body:
        if not hasattr(n, "lineno") or n.lineno is None:
            n.lineno, n.col_offset = line, 0
            n.end_lineno, n.end_col_offset = line, 0
    top = factory
    if owner is not None:
        top = ast.ClassDef(name=owner, bases=[], keywords=[], body=[factory], decorator_list=[],
                           type_params=[], lineno=line, col_offset=0, end_lineno=line,
                           end_col_offset=0)
    module = ast.Module(body=[top], type_ignores=[])
    ast.fix_missing_locations(module)
    return module, source


def _rename_helpers(code: types.CodeType, generated, name: str, qualname: str) -> types.CodeType:
    """`code` with the nested helper functions the converter generated
    (`loop_body`, `if_body`, ...) named after the user's function, so that
    tracebacks and error locations name the user's function, never a helper."""
    if not generated:
        return code
    consts = tuple(_rename_helpers(c, generated, name, qualname)
                   if isinstance(c, types.CodeType) else c for c in code.co_consts)
    changes = {}
    if consts != code.co_consts:
        changes["co_consts"] = consts
    if code.co_name in generated or (code.co_name == "<lambda>"
                                     and any(v.endswith("__ag_helper") for v in code.co_varnames)):
        changes.update(co_name=name, co_qualname=qualname)
    return code.replace(**changes) if changes else code


def _convert_code(fn: types.FunctionType) -> _Conversion:
    from . import converter
    from .converter import parsing

    code = fn.__code__
    start = time.perf_counter()
    node, filename = parsing.parse_function(fn)
    # (the code's own qualname: functools.wraps may have given `fn` another's)
    owner = _mangling_class(getattr(code, "co_qualname", fn.__qualname__))
    if owner is not None:
        _mangle_attributes(node, owner)
    node = converter.convert_node(node, filename, fn.__qualname__)
    module, source = _factory_module(node, code.co_freevars, filename, owner)
    compiled = compile(module, filename, "exec", flags=code.co_flags & _FUTURE_FLAGS,
                       dont_inherit=True)
    namespace: dict = {}
    exec(compiled, namespace)
    factory = namespace[_FACTORY_NAME] if owner is None else vars(namespace[owner])[_FACTORY_NAME]
    new_code = factory().__code__
    if new_code.co_name == _FUNCTION_NAME:
        new_code = new_code.replace(co_name=code.co_name, co_qualname=code.co_qualname)
    new_code = _rename_helpers(new_code, getattr(node, converter.GENERATED_NAMES_ATTR, ()),
                               code.co_name, code.co_qualname)
    _register_codes(new_code)
    if _log.isEnabledFor(DETAIL):  # AUTOGRAPH_VERBOSITY >= 2 (3 adds the source)
        _log.debug("converted %s (%s:%d) in %.1f ms", fn.__qualname__, filename,
                   code.co_firstlineno, (time.perf_counter() - start) * 1e3)
        _log.log(SOURCE, "converted source of %s:\n%s", fn.__qualname__, source)
    return _Conversion(new_code, source)


def _conversion_for(fn: types.FunctionType) -> _Conversion:
    with _LOCK:
        conv = _CACHE.get(fn.__code__)
        if conv is None:
            conv = _convert_code(fn)
            _CACHE[fn.__code__] = conv
        return conv


def _instantiate(conv: _Conversion, fn: types.FunctionType) -> types.FunctionType:
    """A function running the converted code with `fn`'s globals, cells and defaults."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = []
    for name in conv.code.co_freevars:
        closure.append(_ag_cell() if name == "ag__" else cells[name])
    new = types.FunctionType(conv.code, fn.__globals__, fn.__name__, fn.__defaults__,
                             tuple(closure) or None)
    new.__kwdefaults__ = dict(fn.__kwdefaults__) if fn.__kwdefaults__ else None
    new.__qualname__ = fn.__qualname__
    new.__doc__ = fn.__doc__
    new.__module__ = fn.__module__
    new.__dict__.update(fn.__dict__)
    new.__autograph_original__ = fn
    return new


def do_not_convert(fn: Optional[Callable] = None) -> Callable:
    """Mark `fn` to be called as plain Python from converted code.

    A function called from a converted (decorated) function is converted too,
    so its control flow compiles; one marked with this is called as it is
    (its Python `if` on a traced tensor then raises, as with
    `autograph=False`). Usable as a decorator.

    Args:
        fn: a function or method (None when used as `@ag.do_not_convert()`).

    Returns:
        `fn` itself, marked (or a marked wrapper when `fn` cannot take an
        attribute).

    Raises:
        Nothing.

    Example:
        >>> @ag.do_not_convert
        ... def helper(x):
        ...     return x * 2
        >>> helper(3)
        6
    """
    if fn is None:
        return do_not_convert
    target = fn.__func__ if isinstance(fn, types.MethodType) else fn
    try:
        setattr(target, DO_NOT_CONVERT_ATTR, True)
        return fn
    except (AttributeError, TypeError):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        setattr(wrapper, DO_NOT_CONVERT_ATTR, True)
        return wrapper


def convert(fn: Callable) -> Callable:
    """The converted version of `fn` (a function, lambda, method, callable object or partial).

    Control flow of the result goes through the `ag__` operators; it behaves
    like `fn` for Python values and stages compiled control flow for traced
    ones. Functions marked `do_not_convert`, already converted functions and
    `ag.function` objects are returned unchanged. Raises ConversionError
    (a NotImplementedError) for unsupported constructs and
    SourceUnavailableError (a ValueError) when there is no source.
    """
    if getattr(fn, "_autograph_polymorphic", False) is True:
        return fn
    if isinstance(fn, types.MethodType):
        func = convert(fn.__func__)
        return fn if func is fn.__func__ else types.MethodType(func, fn.__self__)
    if isinstance(fn, functools.partial):
        return functools.partial(convert(fn.func), *fn.args, **fn.keywords)
    if not isinstance(fn, types.FunctionType):
        py_func = getattr(fn, "py_func", None)
        if type(fn).__module__.startswith("numba") and isinstance(py_func, types.FunctionType):
            return convert(py_func)   # an @njit function: its Python source converts
        call = getattr(type(fn), "__call__", None)
        if isinstance(call, types.FunctionType) and not isinstance(fn, type):
            # A callable object: convert its class's __call__, bound to it.
            return types.MethodType(convert(call), fn)
        raise TypeError(f"autograph can only convert Python functions, lambdas, methods and "
                        f"callable objects; got {fn!r} of type {type(fn).__name__}")
    if is_do_not_convert(fn) or is_converted(fn):
        return fn
    return _instantiate(_conversion_for(fn), fn)


def to_code(fn: Callable) -> str:
    """The converted Python source of `fn`, as text.

    The conversion is the one `ag.function` traces: Python `if`/`while`/`for`
    and friends turned into calls of autograph's control-flow operators. Useful
    to see what a function becomes, or why a construct is not compiled.

    Args:
        fn: a Python function, a method, or an `ag.function` (its Python
            function is converted).

    Returns:
        The converted source, a str.

    Raises:
        TypeError: `fn` is not a Python function.
        autograph.converter.errors.SourceUnavailableError: `fn` has no source
            (typed at a prompt, made with exec()).

    Example:
        >>> def clip(x):
        ...     if x > 1.0:
        ...         x = 1.0
        ...     return x
        >>> "if_stmt" in ag.to_code(clip)
        True
    """
    if hasattr(fn, "python_function") and getattr(fn, "_autograph_polymorphic", False):
        fn = fn.python_function
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"to_code expects a Python function; got {type(fn).__name__}")
    original = getattr(fn, "__autograph_original__", fn)
    return _conversion_for(original).source


install("convert", convert)
