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
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from autograph.tracer.core import forksafe, nest
from autograph.tracer.core.convert import is_python_number
from autograph.tracer.core.logs import DETAIL, RETRACE, SOURCE
from autograph.tracer.passes import optimize
from autograph.tracer.autodiff.tape_state import eager_tape_active
from autograph.tracer.tracing import symbolic
from autograph.tracer.tracing.symbolic import GraphBuilder, current_builder, is_traced

from .concrete import ConcreteFunction
from .gradient_call import call_under_tape, install_function
from .method import copy_for, hold_weakly
from .plan import NativeEntries, OutputSlot, native_dispatch
from .signature import (OBJECT, bind_arguments, call_key, is_tensor_leaf,
    leaf_key)
from .input_signature import check_arguments, validate_input_signature
from .retracing import describe_arg, leaf_names, note_trace, relaxed_match, relaxed_types, retrace_reason
from .spec import TensorSpec
from .variable import creation_scope
from .variable_trace import is_variable_leaf, trace_argument

__all__ = ["PolymorphicFunction", "function"]

log = logging.getLogger("autograph")


def _run_eagerly() -> bool:
    from autograph import config   # (the switch lives with the facade; a sys.modules lookup)
    return config.functions_run_eagerly()


def function(func: Optional[Callable] = None, *, input_signature: Optional[Sequence[Any]] = None,
             autograph: bool = True, reduce_retracing: bool = False, boundscheck: bool = True,
             fastmath: bool = False) -> Any:
    """Compile `func` to native code, once per input signature (API.md section 1).

    Usable bare (`@ag.function`), with arguments (`@ag.function(autograph=False)`)
    or as a call (`g = ag.function(f)`). Works on functions, closures, lambdas
    and methods (each instance then gets its own PolymorphicFunction, which
    never keeps the instance alive).

    Args:
        func: the function to compile; omitted when used as `@ag.function(...)`.
        input_signature: None, or a (possibly nested) list/tuple of
            `ag.TensorSpec`: exactly one trace, and calls convert their inputs
            to the specs (anything else raises TypeError or ValueError).
        autograph: convert Python `if`/`while`/`for`/`break`/`return`/`and`/`or`
            on traced tensors into compiled control flow (True), or trace
            plainly, unrolling Python loops (False).
        reduce_retracing: on a tensor shape not seen before, retrace once with
            the most specific shape covering the old and the new one.
        boundscheck: out-of-range indices in compiled code raise
            `ag.errors.InvalidArgumentError` (True) or are not checked (False).
        fastmath: give the float arithmetic of the compiled code LLVM's
            fast-math flags (`fast`: reassociation, no NaN/inf, FMA
            contraction, ...; as Numba's `fastmath`), so reductions written
            as loops vectorise; results may differ in the last bits and
            NaN/inf handling is not guaranteed.

    Returns:
        a PolymorphicFunction, or (without `func`) a decorator making one.

    Raises:
        TypeError: `func` is not callable, or `input_signature` is not a
            sequence of TensorSpecs, does not fit the parameters, or is given
            for a function with `**kwargs`.

    Example:
        >>> @ag.function
        ... def add_one(x):
        ...     return x + 1
        >>> add_one(ag.constant(1.0))
        <ag.Tensor: shape=(), dtype=float32, numpy=2.>
    """
    def decorate(f):
        if isinstance(f, (staticmethod, classmethod)):
            # `@ag.function` above `@staticmethod`/`@classmethod`: decorate the function
            # inside and keep the descriptor, as under the other order
            return type(f)(decorate(f.__func__))
        return PolymorphicFunction(f, input_signature=input_signature, autograph=autograph,
                                   reduce_retracing=reduce_retracing, boundscheck=boundscheck,
                                   fastmath=fastmath)
    if func is None:
        return decorate
    if not callable(func) and not isinstance(func, classmethod):
        raise TypeError(f"ag.function expects a callable, got {type(func).__name__}")
    return decorate(func)


@native_dispatch
class PolymorphicFunction:
    """A function compiled once per input signature; made by `ag.function`.

    Calling it binds the arguments, computes the cache key (tensors by dtype and
    shape, Python values by type and value, other objects by identity, held
    weakly) and runs the matching ConcreteFunction, tracing and compiling a new
    one on a miss. Calls that hit the cache run through a native fast path.

    Attributes:
        tracing_count: how many traces this function has made so far (a
            first call served by the disk cache's warm-start index,
            `autograph.runtime.warm_start`, counts as the trace it skips).
        python_function: the original Python function.
        input_signature: the signature given, or None.

    Example:
        >>> f = ag.function(lambda x, n: x * n)
        >>> f(ag.constant([1.0, 2.0]), 3)   # traces: float32[2], Python int 3
        <ag.Tensor: shape=(2,), dtype=float32, numpy=array([3., 6.], dtype=float32)>
        >>> f.tracing_count
        1
    """

    _autograph_polymorphic = True
    # `_native_call`: the native entry tried first (autograph.runtime.fastpath), in a slot at a
    # fixed offset (ABI: autograph.codegen.abi.binding.DISPATCH_SLOT) so that the native
    # `__call__` installed by fastpath can read it.
    # `_native_kw` (the next slot): None or `(keyword names, entry)`, the entry of the last
    # signature called with keyword arguments (autograph.runtime.fastpath.learn_keywords).
    __slots__ = ("_native_call", "_native_kw", "__dict__", "__weakref__")

    def __init__(self, python_function, input_signature=None, autograph=True, reduce_retracing=False,
                 boundscheck=True, fastmath=False):
        self._python_function = python_function
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing and input_signature is None
        self._boundscheck = boundscheck
        self._fastmath = bool(fastmath)
        self._signature = inspect.signature(python_function)
        self._name = getattr(python_function, "__name__", "function")
        if self._name == "<lambda>":
            self._name = "lambda"
        self._input_signature = None
        if input_signature is not None:
            validate_input_signature(input_signature, self._signature, self._name)
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
        self._native_kw = None
        self._fast = NativeEntries(self._input_signature, self._reduce_retracing)
        functools.update_wrapper(self, python_function, updated=())

    # ------------------------------------------------------------------ members

    @property
    def python_function(self):
        """The original Python function (for a method's per-instance copy: bound to the instance)."""
        return self._python_function

    @property
    def input_signature(self):
        """The input_signature given (a tuple of TensorSpecs), or None."""
        return self._input_signature

    def __repr__(self) -> str:
        return f"<ag.function {self._name} ({self.tracing_count} traces)>"

    def __copy__(self):
        return self   # like a Python function: copying gives the same function

    def __deepcopy__(self, memo):
        return self

    def __get__(self, instance, owner=None):
        """`instance.method`: the instance's own PolymorphicFunction (made on first access).

        It has its own traces, captures and `tracing_count`, is bound to the
        instance like a bound method and is owned by it: the function never
        keeps the instance alive (autograph.runtime.method). Through the class
        (`Cls.method`), this function itself.
        """
        if instance is None:
            return self
        return copy_for(self, instance)

    def _bound_copy(self, instance):
        method = self._python_function.__get__(instance, type(instance))
        return PolymorphicFunction(method, input_signature=self._input_signature, autograph=self._autograph,
                                   reduce_retracing=self._reduce_retracing, boundscheck=self._boundscheck,
                                   fastmath=self._fastmath)

    # ------------------------------------------------------------------ calling

    def __call__(self, *args, **kwargs):
        """Run the compiled code for these arguments, tracing and compiling on a miss.

        Args:
            *args, **kwargs: as for the Python function; tensors, variables,
                arrays and NumPy scalars are passed to the compiled code, other
                values are baked into the trace (a new value retraces).

        Returns:
            the function's result, with traced tensors as `ag.Tensor`s, in the
            structure the Python function returned.

        Raises:
            TypeError: the arguments do not bind to the parameters, a masked
                array is passed, or (with an input_signature) a non-tensor
                argument or a Python bool for a non-bool spec is given.
            ValueError: (with an input_signature) an input does not fit its spec.
            ag.errors.InvalidArgumentError: a runtime check of the compiled
                code failed (e.g. an index out of range).

        Called inside another trace, the function is inlined into that trace.
        """
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
        else:
            # The keyword entry (the native `__call__` tries it first when installed).
            kw = self._native_kw
            if kw is not None and tuple(kwargs) == kw[0]:
                r = kw[1](*args, *kwargs.values())
                if r is not NotImplemented:
                    return r
        if _run_eagerly():   # ag.config.run_functions_eagerly(True) / AUTOGRAPH_DISABLE_JIT=1
            return self._python_function(*args, **kwargs)
        if current_builder() is not None:
            # Called from inside another trace: inline into that trace.
            return self._traceable()(*args, **kwargs)
        if symbolic.tape_hook is not None and eager_tape_active():
            # Under an eager GradientTape: one recorded op with a compiled gradient.
            self._calls += 1
            cf, arrays = self._lookup(args, kwargs)
            return call_under_tape(self, args, kwargs, cf, arrays)
        if not kwargs and len(self._fast.recent) > 1:
            from . import fastpath   # imported on first use: `import autograph` stays light
            r = fastpath.try_entries(self._fast, args)
            if r is not NotImplemented:
                self._native_call = self._fast.recent[0]
                return r
        if not kwargs:
            # A fresh process's first call of this signature: from the warm-start index, without
            # converting or tracing (autograph.runtime.warm_start), when it has a record.
            from . import warm_start
            r = warm_start.call(self, args)
            if r is not NotImplemented:
                self._calls += 1
                return r
        self._calls += 1
        cf, arrays = self._lookup(args, kwargs)
        result = cf._run(arrays)
        from . import fastpath
        if not kwargs:
            self._native_call = fastpath.learn(self._fast, cf, args)
            warm_start.record(self, cf, args)
        else:
            self._native_kw = fastpath.learn_keywords(self._fast, cf, args, kwargs)
        return result

    _call_python = __call__

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The ConcreteFunction for these arguments; traces (without running) if needed.

        Args:
            *args, **kwargs: as for a call; tensors may also be given as
                `ag.TensorSpec`s or NumPy arrays. With an input_signature and no
                arguments, the signature's specs.

        Returns:
            the ConcreteFunction a call with such arguments runs.

        Raises:
            TypeError, ValueError: as `__call__`, for arguments that do not bind
                or (with an input_signature) do not fit the specs.

        Example:
            >>> cf = f.get_concrete_function(ag.TensorSpec([None], ag.float32), 3)
            >>> cf(ag.constant([1.0, 2.0]))   # tensor arguments only: 3 is baked in
            <ag.Tensor: shape=(2,), dtype=float32, numpy=array([3., 6.], dtype=float32)>
        """
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
            cf = relaxed_match(self, leaves, treedef, key)
            if cf is not None:
                self._remember(key, cf, leaves)
                return cf, _arrays(leaves)
            types = relaxed_types(self, leaves, treedef, key)
        else:
            types = None
        if self._cache and log.isEnabledFor(RETRACE):
            log.info("retracing %s: %s", self._name, retrace_reason(self, key, leaves, stale))
        exact = False   # traced for this call's shapes after the generalised ones failed
        try:
            cf = self._trace(leaves, treedef, types)
        except (TypeError, ValueError, NotImplementedError) as e:
            if not types:
                raise
            # Some code cannot be traced for the generalised shapes (matmul of a tensor of
            # unknown rank): trace this call's own shapes instead, as without
            # reduce_retracing, rather than fail a call that works on its own.
            log.info("retracing %s for its exact shapes: the generalised ones failed (%s)",
                     self._name, str(e).splitlines()[0])
            exact = True
            cf = self._trace(leaves, treedef, None)
        if not specs_allowed:
            note_trace(self)
        self._remember(key, cf, leaves)
        if self._reduce_retracing and not exact:   # (an exact trace would be generalised again)
            self._relaxed.append((treedef, key, cf))
        return cf, _arrays(leaves)

    def _lookup_signature(self, args, kwargs):
        sig = self._input_signature
        values, arrays = check_arguments(self._name, self._signature, sig, args, kwargs)
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
        from . import warm_start
        fingerprint = warm_start.before_trace(self)   # globals as this trace sees them
        fn = self._traceable()
        names = leaf_names(self._signature, treedef, leaves)
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
                else:   # an object keyed by identity is recorded weakly (autograph.runtime.method)
                    arg_leaves.append(hold_weakly(leaf) if leaf_key(leaf)[0] == OBJECT else leaf)
                    traced_leaves.append(leaf)
            values = nest.unflatten(treedef, traced_leaves)
            bound = inspect.BoundArguments(self._signature, dict(zip(self._signature.parameters, values)))
            if not warm_start.replays(self, leaves, treedef):   # (a warm start counted it already)
                self.tracing_count += 1
            t0 = time.perf_counter()
            out = fn(*bound.args, **bound.kwargs)
            out_leaves, out_def = nest.flatten(out)
            template, outputs = [], []
            from autograph.operators.py_builtins import RangeMarker
            for x in out_leaves:
                if isinstance(x, RangeMarker):   # `return range(n)` with a traced n: its values
                    x = x.tensor()
                if is_traced(x) or is_tensor_leaf(x) or is_python_number(x):
                    template.append(OutputSlot(len(outputs)))
                    try:
                        outputs.append(builder.value_of(x))
                    except TypeError as e:   # a Python int past int64, say
                        raise TypeError(f"{self._name} returned {x!r}, which is not a tensor value: "
                                        f"{e}") from None
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
                      self._name, self.tracing_count, ", ".join(describe_arg(a) for a in arg_leaves),
                      (t1 - t0) * 1e3, sum(1 for _ in raw_graph.walk()),
                      (time.perf_counter() - t1) * 1e3, sum(1 for _ in graph.walk()))
            if log.isEnabledFor(SOURCE):
                log.log(SOURCE, "IR of %s (trace #%d, after the passes):\n%s", self._name,
                        self.tracing_count, graph.format())
        cf = ConcreteFunction(self._name, graph, self._signature, arg_leaves, treedef, template, out_def,
                              boundscheck=self._boundscheck, captures=[v for v, _ in builder.captures],
                              raw_graph=raw_graph, fastmath=self._fastmath)
        warm_start.after_trace(self, cf, fingerprint)
        return cf


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


install_function(function)
