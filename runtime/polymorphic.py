"""`PolymorphicFunction` and the `function` decorator.

A call binds its arguments, computes the cache key (autograph.runtime.signature) and
runs the matching ConcreteFunction, tracing and compiling a new one on a
miss. Under `input_signature` there is exactly one ConcreteFunction and the
inputs are converted to the specs.
"""
from __future__ import annotations

import functools
import inspect
import logging
import time
import warnings
import weakref
from typing import Any, Dict, List, Optional

import numpy as np

from autograph.tracer.core import forksafe, nest
from autograph.tracer.core.convert import is_python_number, to_numpy
from autograph.tracer.core.logs import DETAIL, RETRACE, SOURCE, RetracingWarning
from autograph.tracer.passes import optimize
from autograph.tracer.tracing.symbolic import GraphBuilder, current_builder, is_traced
from autograph.tracer.core.types import TensorType, as_dtype, format_shape, most_specific_common_shape

from .concrete import ConcreteFunction
from .plan import NativeEntries, OutputSlot, native_dispatch
from .signature import (OBJECT, PYTHON, TENSOR, VARIABLE, bind_arguments, call_key, is_tensor_leaf,
    leaf_key)
from .spec import TensorSpec
from .variable import creation_scope
from .variable_trace import is_variable_leaf, trace_argument

__all__ = ["PolymorphicFunction", "function"]

log = logging.getLogger("autograph")

# The excessive-retracing warning: when _RETRACE_LIMIT of the last
# _RETRACE_WINDOW calls of one function traced, warn (at most _RETRACE_WARNINGS times).
_RETRACE_WINDOW, _RETRACE_LIMIT, _RETRACE_WARNINGS = 10, 5, 2


def function(func=None, *, input_signature=None, autograph=True, reduce_retracing=False, boundscheck=True):
    """Compile `func` to native code, once per input signature.

    Usable bare (`@ag.function`), with arguments (`@ag.function(autograph=False)`)
    or as a call (`ag.function(f)`). Returns a PolymorphicFunction.
    """
    def decorate(f):
        return PolymorphicFunction(f, input_signature=input_signature, autograph=autograph,
                                   reduce_retracing=reduce_retracing, boundscheck=boundscheck)
    if func is None:
        return decorate
    if not callable(func):
        raise TypeError(f"ag.function expects a callable, got {type(func).__name__}")
    return decorate(func)


def _validate_input_signature(sig, fn_sig: inspect.Signature, name: str):
    if not isinstance(sig, (list, tuple)):
        raise TypeError(f"input_signature must be a list or tuple of ag.TensorSpec, got {type(sig).__name__}")
    leaves, _ = nest.flatten(tuple(sig))
    bad = [x for x in leaves if not isinstance(x, TensorSpec)]
    if bad:
        raise TypeError(f"input_signature must be a possibly nested sequence of ag.TensorSpec; got "
                        f"{', '.join(repr(b) for b in bad)}; Python values cannot be part of an input_signature")
    params = list(fn_sig.parameters.values())
    if any(p.kind == p.VAR_KEYWORD for p in params):
        raise TypeError(f"{name}: functions with **kwargs cannot have an input_signature")
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    has_varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    if len(sig) < len(required) or (len(sig) > len(positional) and not has_varargs):
        raise TypeError(f"{name}: input_signature has {len(sig)} TensorSpec(s) but the function takes "
                        f"{len(positional)} positional argument(s) ({', '.join(p.name for p in positional)})")


@native_dispatch
class PolymorphicFunction:
    """A function compiled once per input signature; see `function`."""

    _autograph_polymorphic = True
    # `_native_call`: the native entry tried first (autograph.runtime.fastpath), in a slot at a
    # fixed offset (ABI: autograph.codegen.abi.binding.DISPATCH_SLOT) so that the native
    # `__call__` installed by fastpath can read it.
    __slots__ = ("_native_call", "__dict__", "__weakref__")

    def __init__(self, python_function, input_signature=None, autograph=True, reduce_retracing=False,
                 boundscheck=True):
        self._python_function = python_function
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing and input_signature is None
        self._boundscheck = boundscheck
        self._signature = inspect.signature(python_function)
        self._name = getattr(python_function, "__name__", "function")
        if self._name == "<lambda>":
            self._name = "lambda"
        self._input_signature = None
        if input_signature is not None:
            _validate_input_signature(input_signature, self._signature, self._name)
            self._input_signature = tuple(input_signature)
        self._cache: Dict[Any, ConcreteFunction] = {}
        self._weak_objects: Dict[Any, List[weakref.ref]] = {}
        self._relaxed: List[tuple] = []   # (treedef, template key, ConcreteFunction) under reduce_retracing
        self._converted = None
        self._instances = weakref.WeakKeyDictionary()
        self.tracing_count = 0
        self._calls = 0                 # calls through __call__ (for the retracing warning)
        self._traced_at: List[int] = []  # the value of _calls at each recent trace
        self._retrace_warnings = 0
        # The fast path (autograph.runtime.fastpath): native entries of recent signatures, latest
        # first; `_native_call` is always the first of `_fast.recent` (or None).
        self._native_call = None
        self._fast = NativeEntries(self._input_signature, self._reduce_retracing)
        functools.update_wrapper(self, python_function, updated=())

    # ------------------------------------------------------------------ members

    @property
    def python_function(self):
        """The original Python function."""
        return self._python_function

    @property
    def input_signature(self):
        """The input_signature given, or None."""
        return self._input_signature

    def __repr__(self) -> str:
        return f"<ag.function {self._name} ({self.tracing_count} traces)>"

    def __reduce__(self):
        # Module-level functions by reference, closures and lambdas by value; traces
        # are not sent (autograph.runtime.pickling).
        from .pickling import reduce_polymorphic
        return reduce_polymorphic(self)

    def __copy__(self):
        return self   # like a Python function: copying gives the same function

    def __deepcopy__(self, memo):
        return self

    def __get__(self, instance, owner=None):
        # Each instance gets its own PolymorphicFunction: its own traces and captures.
        if instance is None:
            return self
        try:
            return self._instances[instance]
        except KeyError:
            pass
        except TypeError:  # unhashable instance: no per-instance cache possible
            return self._bound_copy(instance)
        bound = self._bound_copy(instance)
        self._instances[instance] = bound
        return bound

    def _bound_copy(self, instance):
        method = self._python_function.__get__(instance, type(instance))
        signature = self._input_signature
        return PolymorphicFunction(method, input_signature=signature, autograph=self._autograph,
                                   reduce_retracing=self._reduce_retracing, boundscheck=self._boundscheck)

    # ------------------------------------------------------------------ calling

    def __call__(self, *args, **kwargs):
        if not kwargs:
            # The native entry of the last signature checks the arguments itself and
            # runs the code, or answers NotImplemented (autograph.runtime.fastpath). Once compiled
            # code exists, a native `__call__` does this step and calls `_call_python`
            # (this function) only when it misses.
            e = self._native_call
            if e is not None:
                r = e(*args)
                if r is not NotImplemented:
                    return r
        if current_builder() is not None:
            # Called from inside another trace: inline into that trace.
            return self._traceable()(*args, **kwargs)
        if not kwargs and len(self._fast.recent) > 1:
            from . import fastpath   # imported on first use: `import autograph` stays light
            r = fastpath.try_entries(self._fast, args)
            if r is not NotImplemented:
                self._native_call = self._fast.recent[0]
                return r
        self._calls += 1
        cf, arrays = self._lookup(args, kwargs)
        result = cf._run(arrays)
        if not kwargs:
            from . import fastpath
            self._native_call = fastpath.learn(self._fast, cf, args)
        return result

    _call_python = __call__

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The ConcreteFunction for these arguments (values, arrays or TensorSpecs); traces if needed."""
        if self._input_signature is not None and not args and not kwargs:
            args = self._input_signature
        cf, _ = self._lookup(args, kwargs, specs_allowed=True)
        return cf

    def _lookup(self, args, kwargs, specs_allowed=False):
        if self._input_signature is not None:
            return self._lookup_signature(args, kwargs)
        bound = bind_arguments(self._signature, args, kwargs, self._name)
        leaves, treedef = nest.flatten(tuple(bound.arguments.values()))
        key = call_key(leaves, treedef)
        cf = self._cache.get(key)
        if cf is not None and not self._stale(key):
            return cf, _arrays(leaves)
        # A miss: trace under this function's lock, so that threads making the first call of
        # one signature trace it once (the others wait, then find it in the cache).
        with forksafe.lock_of(self, "_trace_lock"):
            cf = self._cache.get(key)
            if cf is not None and not self._stale(key):
                return cf, _arrays(leaves)
            return self._lookup_miss(key, cf, leaves, treedef, specs_allowed)

    def _lookup_miss(self, key, cf, leaves, treedef, specs_allowed):
        """The ConcreteFunction for a key not (or no longer) in the cache; the trace lock is held."""
        stale = cf is not None
        if self._reduce_retracing:
            cf = self._relaxed_match(leaves, treedef, key)
            if cf is not None:
                self._remember(key, cf, leaves)
                return cf, _arrays(leaves)
            types = self._relaxed_types(leaves, treedef, key)
        else:
            types = None
        if self._cache and log.isEnabledFor(RETRACE):
            log.info("retracing %s: %s", self._name, self._retrace_reason(key, leaves, stale))
        cf = self._trace(leaves, treedef, types)
        if not specs_allowed:
            self._note_trace()
        self._remember(key, cf, leaves)
        if self._reduce_retracing:
            self._relaxed.append((treedef, key, cf))
        return cf, _arrays(leaves)

    def _lookup_signature(self, args, kwargs):
        bound = bind_arguments(self._signature, args, kwargs, self._name)
        values = tuple(bound.arguments.values())
        sig = self._input_signature
        _refuse_unsigned(self._name, self._signature, bound, args, kwargs, len(sig))
        names = list(bound.arguments)[:len(sig)]
        positional = values[:len(sig)] if len(values) >= len(sig) else values

        def fail(kind, detail: str):
            # The inputs and the signature, then which parameter and what it was given.
            raise kind(f"{_incompatible_message(values, sig)}\n  {self._name}: {detail}") from None

        arrays = []
        for name, value, spec_tree in zip(names, positional, sig):
            try:
                leaves, treedef = nest.flatten(value)
                spec_leaves, spec_def = nest.flatten(spec_tree)
            except (TypeError, ValueError):
                fail(ValueError, f"argument '{name}' does not have the structure of {spec_tree!r}")
            if (treedef != spec_def and not all(isinstance(v, TensorSpec) for v in leaves)) \
                    or len(leaves) != len(spec_leaves):
                fail(ValueError, f"argument '{name}' expected {spec_tree!r}, got {_short(value)}")
            for k, (leaf, spec) in enumerate(zip(leaves, spec_leaves)):
                where = f"argument '{name}'" + (f" (leaf {k})" if len(spec_leaves) > 1 else "")
                given = f"{where} expected {spec!r}, got {_short(leaf)}"
                if isinstance(leaf, TensorSpec):
                    if not (leaf.dtype is spec.dtype and _spec_fits(leaf.shape, spec.shape)):
                        fail(ValueError, given)
                    arrays.append(None)
                    continue
                if not is_tensor_leaf(leaf) and type(leaf) not in (int, float, bool, complex):
                    # API.md section 1: a non-tensor argument is refused with TypeError.
                    fail(TypeError, f"{given}; a function with an input_signature takes tensors, "
                                    f"arrays or numbers for its TensorSpecs")
                if type(leaf) is bool and not spec.dtype.is_bool:
                    # A flag passed where a number tensor is expected is not silently 1 or 0.
                    fail(TypeError, f"{given}; a Python bool is not converted to {spec.dtype.name}")
                try:
                    arr = to_numpy(leaf, spec.dtype) if not is_tensor_leaf(leaf) else to_numpy(leaf)
                except (TypeError, ValueError):
                    arr = None
                if arr is None or not spec.is_compatible_with(arr):
                    fail(ValueError, given)
                # (np.ascontiguousarray would turn a 0-d array into shape (1,))
                arrays.append(arr if arr.flags.c_contiguous else np.ascontiguousarray(arr))
        if len(positional) != len(sig):
            fail(ValueError, f"expected {len(sig)} arguments for the input_signature, got "
                             f"{len(positional)}")
        spec_leaves, _ = nest.flatten(tuple(sig))
        key = "signature"
        cf = self._cache.get(key)
        if cf is None:
            with forksafe.lock_of(self, "_trace_lock"):   # one trace, as in _lookup
                cf = self._cache.get(key)
                if cf is None:
                    rest = list(values[len(sig):])
                    cf = self._trace(list(spec_leaves) + rest, nest.flatten(tuple(sig) + tuple(rest))[1], None)
                    self._cache[key] = cf
        return cf, arrays

    def _stale(self, key) -> bool:
        refs = self._weak_objects.get(key)
        return bool(refs) and any(r() is None for r in refs)

    def _remember(self, key, cf, leaves):
        self._cache[key] = cf
        objects = [x for x in leaves if leaf_key(x)[0] == OBJECT]
        refs = []
        for obj in objects:
            try:
                refs.append(weakref.ref(obj))
            except TypeError:
                pass  # not weak-referenceable: identity key kept for the function's life
        if refs:
            self._weak_objects[key] = refs

    # ------------------------------------------------------------ retracing

    def _retrace_reason(self, key, leaves, stale: bool) -> str:
        """Why `key` needs a new trace: what differs from the closest earlier key."""
        if stale:
            return "an argument object of an earlier trace was garbage collected"
        treedef, new = key
        names = _leaf_names(self._signature, treedef, leaves)
        best = None
        for old_key in self._cache:
            if not isinstance(old_key, tuple) or old_key[0] != treedef or len(old_key[1]) != len(new):
                continue
            diffs = [i for i, (a, b) in enumerate(zip(old_key[1], new)) if a != b]
            if best is None or len(diffs) <= len(best[1]):   # ties: the latest trace
                best = (old_key, diffs)
        if best is None:
            return "the structure of the arguments (nesting, lengths or keys) differs from every earlier trace"
        old_key, diffs = best
        parts = [f"argument {names[i]!r} changed from {_describe_leaf(old_key[1][i])} to "
                 f"{_describe_leaf(new[i])}" for i in diffs]
        if not parts:
            return "the arguments match an earlier trace that can no longer be used"
        return "; ".join(parts)

    def _note_trace(self) -> None:
        """Warn (like TensorFlow) when many of the recent calls traced."""
        from . import fastpath
        calls = self._calls + fastpath.native_calls(self._fast)
        self._traced_at = [c for c in self._traced_at if c > calls - _RETRACE_WINDOW] + [calls]
        if len(self._traced_at) >= _RETRACE_LIMIT and self._retrace_warnings < _RETRACE_WARNINGS:
            self._retrace_warnings += 1
            n = len(self._traced_at)
            self._traced_at = []   # count afresh before warning again
            warnings.warn(
                f"{n} of the last {min(calls, _RETRACE_WINDOW)} calls to {self._name} "
                f"({getattr(self._python_function, '__qualname__', self._name)}) triggered a retrace. "
                "Tracing is expensive; frequent retracing is usually caused by (1) creating the "
                "ag.function in a loop, (2) passing tensors of different shapes, or (3) passing "
                "Python numbers or objects that change instead of tensors. For (1), define the "
                "function once, outside the loop; for (2), use reduce_retracing=True or an "
                "input_signature with None dimensions; for (3), pass tensors (ag.constant). "
                "AUTOGRAPH_VERBOSITY=1 logs the reason of every retrace.",
                RetracingWarning, stacklevel=5)   # user -> __call__ -> _lookup -> _lookup_miss -> here

    # --------------------------------------------------------- reduce_retracing

    def _relaxed_match(self, leaves, treedef, key):
        for tdef, tkey, cf in reversed(self._relaxed):
            if tdef == treedef and _covers(tkey[1], key[1], cf):
                return cf
        return None

    def _relaxed_types(self, leaves, treedef, key):
        """Shapes generalised against earlier traces with the same structure."""
        types = {}
        for tdef, tkey, cf in self._relaxed:
            if tdef != treedef:
                continue
            same_python = all(a == b for a, b in zip(tkey[1], key[1]) if a[0] != TENSOR or b[0] != TENSOR)
            if not same_python:
                continue
            for i, (old, new) in enumerate(zip(tkey[1], key[1])):
                if old[0] == TENSOR and new[0] == TENSOR and old[1] is new[1]:
                    prev = types.get(i, cf.call_plan.arg_leaves[i].shape)
                    types[i] = most_specific_common_shape(prev, new[2])
        return types or None

    # ------------------------------------------------------------------ tracing

    def _traceable(self):
        """The function that is traced: converted by AutoGraph unless autograph=False."""
        if not self._autograph:
            return self._python_function
        if self._converted is None:
            from autograph.impl import convert
            self._converted = convert(self._python_function)
        return self._converted

    def _trace(self, leaves, treedef, relaxed_shapes) -> ConcreteFunction:
        fn = self._traceable()
        names = _leaf_names(self._signature, treedef, leaves)
        builder = GraphBuilder(self._name)
        arg_leaves: List[Any] = []
        # Only the first trace may create variables (they are created once, eagerly).
        first = self.tracing_count == 0
        with builder, creation_scope(first, self._name, self.tracing_count + 1):
            traced_leaves = []
            for i, (leaf, name) in enumerate(zip(leaves, names)):
                if is_variable_leaf(leaf):   # passed by reference: a resource input
                    spec, proxy = trace_argument(builder, leaf, name)
                    arg_leaves.append(spec)
                    traced_leaves.append(proxy)
                elif is_tensor_leaf(leaf):
                    spec = leaf if isinstance(leaf, TensorSpec) else TensorSpec.from_tensor(leaf)
                    if relaxed_shapes and i in relaxed_shapes:
                        spec = TensorSpec(relaxed_shapes[i], spec.dtype)
                    spec = TensorSpec(spec.shape, spec.dtype, name)
                    arg_leaves.append(spec)
                    traced_leaves.append(builder.add_input(spec.type, name))
                else:
                    arg_leaves.append(leaf)
                    traced_leaves.append(leaf)
            values = nest.unflatten(treedef, traced_leaves)
            bound = inspect.BoundArguments(self._signature, dict(zip(self._signature.parameters, values)))
            self.tracing_count += 1
            t0 = time.perf_counter()
            out = fn(*bound.args, **bound.kwargs)
            out_leaves, out_def = nest.flatten(out)
            template, outputs = [], []
            for x in out_leaves:
                if is_traced(x) or is_tensor_leaf(x) or is_python_number(x):
                    template.append(OutputSlot(len(outputs)))
                    outputs.append(builder.value_of(x))
                else:
                    template.append(x)
            graph = builder.finish(outputs)
        raw_graph = _verify(graph)
        t1 = time.perf_counter()
        # The graph compiled (and keyed in the disk cache) is the optimised copy; the
        # traced one stays as it is, for `cf.raw_graph`. Passes keep every input.
        graph = optimize(raw_graph)
        if log.isEnabledFor(DETAIL):
            log.debug("traced %s (trace #%d) for (%s) in %.1f ms: %d ops; passes %.1f ms: %d ops",
                      self._name, self.tracing_count, ", ".join(_describe_arg(a) for a in arg_leaves),
                      (t1 - t0) * 1e3, sum(1 for _ in raw_graph.walk()),
                      (time.perf_counter() - t1) * 1e3, sum(1 for _ in graph.walk()))
            if log.isEnabledFor(SOURCE):
                log.log(SOURCE, "IR of %s (trace #%d, after the passes):\n%s", self._name,
                        self.tracing_count, graph.format())
        return ConcreteFunction(self._name, graph, self._signature, arg_leaves, treedef, template, out_def,
                                boundscheck=self._boundscheck, captures=[v for v, _ in builder.captures],
                                raw_graph=raw_graph)


def _describe_leaf(k) -> str:
    """A cache-key component in words: `float32[3]`, `Python int 3`, `the object with id 0x...`."""
    if k[0] == TENSOR:
        return f"{k[1].name}{format_shape(k[2])}"
    if k[0] == PYTHON:
        return f"Python {k[1].__name__} {k[2]!r}"
    if k[0] == VARIABLE:
        return f"a {k[1].name}{format_shape(k[2])} variable"
    return f"the object with id {k[1]:#x}" if k[0] == OBJECT else repr(k)


def _describe_arg(a) -> str:
    return f"{a.dtype.name}{format_shape(a.shape)}" if isinstance(a, TensorSpec) else repr(a)


def _verify(graph):
    """`graph`, verified (VerificationError otherwise)."""
    from autograph.tracer.core.verifier import verify
    return verify(graph)


def _arrays(leaves) -> List[np.ndarray]:
    out = []
    for x in leaves:
        if not is_tensor_leaf(x):
            continue
        if getattr(x, "_ag_variable", False):
            out.append(x._buffer)   # by reference: compiled code writes into it
            continue
        arr = getattr(x, "_array", None)
        if arr is None:
            arr = np.asarray(x)
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        out.append(arr)
    return out


def _covers(traced_keys, new_keys, cf) -> bool:
    for old, new in zip(traced_keys, new_keys):
        if old[0] != new[0]:
            return False
        if old[0] == TENSOR:
            continue
        if old != new:
            return False
    specs = cf.call_plan.arg_leaves
    for spec, new in zip(specs, new_keys):
        if new[0] == TENSOR and not (spec.dtype is new[1] and _spec_fits(new[2], spec.shape)):
            return False
    return True


def _spec_fits(shape, spec_shape) -> bool:
    from autograph.tracer.core.types import shape_compatible
    return shape_compatible(shape, spec_shape) if shape is not None else spec_shape is None


def _leaf_names(sig: inspect.Signature, treedef, leaves) -> List[str]:
    """A valid identifier per leaf: the parameter name, with `_i` for nested leaves."""
    names: List[str] = []
    params = list(sig.parameters)
    per_param = treedef[1] if treedef and treedef[0] is tuple else ()
    for pname, sub in zip(params, per_param):
        if sub is None:
            names.append(pname)
        else:
            names.extend(f"{pname}_{j}" for j in range(_count(sub)))
    if len(names) != len(leaves):
        names = [f"arg{i}" for i in range(len(leaves))]
    return names


def _count(treedef) -> int:
    if treedef is None:
        return 1
    if treedef[0] == "namedtuple":
        return sum(_count(s) for s in treedef[2])
    if treedef[0] == "dict":
        return sum(_count(s) for s in treedef[3])
    return sum(_count(s) for s in treedef[1])


def _short(v) -> str:
    """What was given, briefly: a tensor's dtype and shape, else the repr."""
    if is_tensor_leaf(v) and not isinstance(v, TensorSpec):
        dt = as_dtype(v.dtype).name
        return f"{'an' if dt[0] in 'aeiou' else 'a'} {dt} tensor of shape {tuple(v.shape)}"
    text = repr(v)
    return f"{type(v).__name__} {text if len(text) <= 80 else text[:77] + '...'}"


def _refuse_unsigned(name, fn_sig, bound, args, kwargs, n_specs):
    """TypeError when the call passes a parameter the input_signature does not
    cover with a value other than its default: the one trace was made with the
    default baked in, so another value would be silently ignored."""
    params = list(fn_sig.parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return
    passed = {p.name for p in params[:len(args)]} | set(kwargs)
    for p in params[n_specs:]:
        if p.name not in passed or p.kind == p.VAR_KEYWORD:
            continue
        value = bound.arguments[p.name]
        if value is p.default or (type(value) is type(p.default) and _same(value, p.default)):
            continue
        raise TypeError(f"{name}: the input_signature covers {n_specs} parameter(s), not "
                        f"'{p.name}', which keeps its default {p.default!r} in the one compiled "
                        f"trace; got {_short(value)}. Add a TensorSpec for '{p.name}' or drop "
                        f"the input_signature (Python values then retrace)")


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def _incompatible_message(values, sig) -> str:
    def fmt(v):
        return "\n".join("    " + line for line in repr(v).splitlines())
    inputs = ",\n".join(fmt(v) for v in values)
    specs = ",\n".join(fmt(s) for s in sig)
    return (f"Python inputs incompatible with input_signature:\n  inputs: (\n{inputs})\n"
            f"  input_signature: (\n{specs})")
