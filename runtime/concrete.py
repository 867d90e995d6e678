"""`ConcreteFunction`: one trace of a function, compiled to native code."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from autograph.tracer.autodiff.tape_state import eager_tape_active
from autograph.tracer.core import forksafe, nest
from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.core.ir import Graph
from autograph.tracer.core.types import as_dtype, format_shape, shape_compatible
from autograph.tracer.tracing import symbolic

from .plan import CallPlan, NativeEntries, OutputSlot, native_dispatch
from .signature import is_tensor_leaf, refuse_masked
from .spec import TensorSpec

__all__ = ["ConcreteFunction", "OutputSlot"]


@native_dispatch
class ConcreteFunction:
    """A traced, typed graph plus its native code (compiled on first use).

    `graph` is the graph compiled: the trace after the pass pipeline
    (`autograph.tracer.passes.optimize`); `raw_graph` is the graph as traced.

    Call it with the tensor arguments only (the Python values it was traced
    with are baked in), or with all arguments if the Python ones equal the
    traced values. A variable argument must be an `ag.Variable` of the traced
    dtype and shape; it is passed by reference.

    `captures` are the variables the trace used (its last graph inputs, in
    order): each call passes their buffers, by data pointer, after the
    user's inputs. The ConcreteFunction holds them, so a captured variable
    stays alive as long as compiled code that may write into it can run.

    `call_plan` (`autograph.runtime.plan.CallPlan`) records how it is called
    and what it returns: what the fast path reads to make native entries.

    Made by `PolymorphicFunction.get_concrete_function`, never directly.

    Example:
        >>> import autograph as ag
        >>> @ag.function
        ... def scale(x, k):
        ...     return x * k
        >>> cf = scale.get_concrete_function(ag.TensorSpec([None], ag.float64), 2.0)
        >>> cf(ag.constant([1.0, 2.5], ag.float64)).numpy()
        array([2., 5.])
        >>> cf.structured_input_signature
        ((TensorSpec(shape=(None,), dtype=ag.float64, name='x'), 2.0), {})
    """

    # `_native_call`: the native entry of tensors-only calls, in a slot at a fixed offset
    # (ABI: autograph.codegen.abi.binding.DISPATCH_SLOT) read by the native `__call__`.
    # `_native_kw`: always None here (calls with keyword arguments take the Python path).
    __slots__ = ("_native_call", "_native_kw", "__dict__", "__weakref__")

    def __init__(self, name: str, graph: Graph, signature, arg_leaves: List[Any], arg_treedef,
                 output_template, output_treedef, boundscheck: bool = True, captures=(),
                 raw_graph: Optional[Graph] = None, fastmath: bool = False):
        self.name = name
        # `graph`: optimised by the passes, what is compiled; `raw_graph`: as traced.
        self.graph = graph
        self.raw_graph = raw_graph if raw_graph is not None else graph
        self._signature = signature
        self._arg_leaves = arg_leaves        # TensorSpec at tensor positions, Python values elsewhere
        self._arg_treedef = arg_treedef
        self._tensor_positions = [i for i, x in enumerate(arg_leaves) if isinstance(x, TensorSpec)]
        self._input_specs = [arg_leaves[i] for i in self._tensor_positions]
        self._output_template = output_template
        self._output_treedef = output_treedef
        self._boundscheck = boundscheck
        self._fastmath = fastmath
        self._captures = tuple(captures)
        # A variable's buffer is never replaced, so the list is fixed.
        self._capture_buffers = [v._buffer for v in self._captures]
        self._kernel = None
        self._lock = forksafe.lock()   # held while compiling: a fork child gets it back unlocked
        self._native_call = None   # the native entry of tensors-only calls, once known
        self._native_kw = None
        # What the fast path reads (autograph.runtime.fastpath), and what it learned.
        self.call_plan = CallPlan(name, signature, tuple(arg_leaves), arg_treedef, tuple(self._input_specs),
                                  tuple(self._capture_buffers), tuple(output_template), output_treedef)
        self._fast = NativeEntries()

    # ---------------------------------------------------------------- inspection

    @property
    def structured_input_signature(self):
        """`(args, kwargs)` of the trace: a `TensorSpec` at each tensor
        argument and the Python value the trace baked in elsewhere, nested
        as the function's parameters are (`*args` spread into `args`,
        `**kwargs` merged into `kwargs`)."""
        from .method import unwrap_leaf
        params = nest.unflatten(self._arg_treedef, [unwrap_leaf(x) for x in self._arg_leaves])
        args, kwargs = [], {}
        for p, value in zip(self._signature.parameters.values(), params):
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                args.append(value)
            elif p.kind == p.VAR_POSITIONAL:
                args.extend(value)
            elif p.kind == p.KEYWORD_ONLY:
                kwargs[p.name] = value
            else:
                kwargs.update(value)
        return tuple(args), kwargs

    @property
    def variables(self) -> tuple:
        """The `ag.Variable`s this function captured (read or assigned by
        reference), in the order their buffers follow the inputs; a tuple,
        empty when it uses none."""
        return self._captures

    @property
    def kernel(self):
        """The compiled native code (`autograph.codegen.jit.kernel.CompiledKernel`):
        lowered, optimised and JIT-compiled on first use (or loaded from the
        disk cache), once, under a lock.

        Raises:
            NotImplementedError: the graph has an op or a dtype the code
                generator cannot lower (the message starts with "codegen:").
            RuntimeError: the JIT gave no address for the kernel.
        """
        if self._kernel is None:
            with self._lock:
                if self._kernel is None:
                    from autograph.codegen import compile_graph
                    self._kernel = compile_graph(self.graph, boundscheck=self._boundscheck, name=self.name,
                                                 fastmath=self._fastmath)
        return self._kernel

    def llvm_ir(self, optimized: bool = False) -> str:
        """The LLVM IR text of this function's kernel: before optimisation, or
        with `optimized=True` after it (O3 for the host CPU). Compiles the
        function first if needed; the CPython glue in the same module is
        left out."""
        return self.kernel.llvm_ir(optimized=optimized)

    def asm(self) -> str:
        """The native assembly text of this function's kernel, for the host
        CPU (compiles the function first if needed)."""
        return self.kernel.asm()

    def __repr__(self) -> str:
        args, kwargs = self.structured_input_signature
        return f"<ConcreteFunction {self.name} args={args} kwargs={kwargs}>"

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    # ------------------------------------------------------------------- calling

    def __call__(self, *args, **kwargs):
        """Run the compiled code.

        Args:
            *args, **kwargs: the tensor arguments only, in order (the Python
                values of the trace are baked in), or all the arguments, the
                Python ones equal to the traced values. Tensors may be
                `ag.Tensor`s, NumPy arrays or anything `ag.constant` takes,
                and must fit the traced specs; a variable argument must be an
                `ag.Variable` of the traced dtype and shape.

        Returns:
            The function's results in the structure the Python function
            returned them (tensors as `ag.Tensor`).

        Raises:
            TypeError / ValueError: arguments that do not fit the trace.
            ag.errors.InvalidArgumentError: a fault in compiled code (an
                index out of range, an integer division by zero, ...).
            KeyboardInterrupt: Ctrl-C during a long compiled loop.
        """
        if not kwargs:
            # autograph.runtime.fastpath: the native entry answers NotImplemented unless the call is
            # its own (a native `__call__` does this step once compiled code exists).
            e = self._native_call
            if e is not None:
                r = e(*args)
                if r is not NotImplemented:
                    return r
        if symbolic.tape_hook is not None and eager_tape_active():
            # Under an eager GradientTape: one recorded op (autograph.runtime.gradient_call).
            from .gradient_call import concrete_call_under_tape
            given = self._match_all_arguments(args, kwargs)
            if given is None:
                given = self._match_tensor_arguments(args, kwargs)
            arrays = [self._check_input(k, x) for k, x in enumerate(given)]
            return concrete_call_under_tape(self, list(given), arrays)
        arrays = self._tensor_arguments(args, kwargs)
        result = self._run(arrays)
        if not kwargs and self._native_call is None:
            from . import fastpath   # imported on first use: `import autograph` stays light
            self._native_call = fastpath.learn_concrete(self._fast, self, len(args))
        return result

    _call_python = __call__

    def _run(self, arrays: List[np.ndarray]):
        if self._capture_buffers:
            arrays = list(arrays) + self._capture_buffers
        results = self.kernel(*arrays)
        from .tensor import Tensor
        leaves = [Tensor._from_array(results[x.index]) if isinstance(x, OutputSlot) else x
                  for x in self._output_template]
        return nest.unflatten(self._output_treedef, leaves)

    def _tensor_arguments(self, args, kwargs) -> List[np.ndarray]:
        """The arrays to pass to the kernel, checked against the traced specs."""
        given = self._match_all_arguments(args, kwargs)
        if given is None:
            given = self._match_tensor_arguments(args, kwargs)
        return [self._check_input(k, x) for k, x in enumerate(given)]

    def _match_all_arguments(self, args, kwargs) -> Optional[list]:
        from .method import unwrap_leaf
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        leaves, treedef = nest.flatten(tuple(bound.arguments.values()))
        if treedef != self._arg_treedef or len(leaves) != len(self._arg_leaves):
            return None
        out = []
        for leaf, traced in zip(leaves, self._arg_leaves):
            if isinstance(traced, TensorSpec):
                out.append(leaf)
            elif not _same_python_value(leaf, unwrap_leaf(traced)):
                if len(args) + len(kwargs) == len(self._tensor_positions):
                    return None  # maybe a tensors-only call; try that reading
                raise InvalidArgumentError(
                    f"{self.name} was traced with the Python value {traced!r} for this argument, "
                    f"but was called with {leaf!r}; call the PolymorphicFunction to trace a new version")
        return out

    def _match_tensor_arguments(self, args, kwargs) -> list:
        names = [self._tensor_name(k) for k in range(len(self._input_specs))]
        n = len(self._input_specs)
        if len(args) > n:
            raise InvalidArgumentError(
                f"{self.name} takes {n} tensor argument(s) ({', '.join(names)}), got {len(args)} positional")
        given: List[Any] = list(args) + [_MISSING] * (n - len(args))
        for key, value in kwargs.items():
            if key not in names:
                raise InvalidArgumentError(
                    f"{self.name} got an unexpected keyword argument {key!r}; its tensor arguments are "
                    f"{', '.join(names)}")
            k = names.index(key)
            if given[k] is not _MISSING:
                raise InvalidArgumentError(f"{self.name} got multiple values for argument {key!r}")
            given[k] = value
        missing = [names[k] for k, v in enumerate(given) if v is _MISSING]
        if missing:
            raise InvalidArgumentError(f"{self.name} is missing tensor argument(s): {', '.join(missing)}")
        return given

    def _tensor_name(self, k: int) -> str:
        return self.graph.inputs[k].name_hint or f"input_{k}"

    def _check_input(self, k: int, x) -> np.ndarray:
        spec = self._input_specs[k]
        if getattr(spec, "_ag_variable_spec", False):
            return self._check_variable(k, spec, x)
        arr = getattr(x, "_array", None)
        if arr is None:
            if is_tensor_leaf(x):
                refuse_masked(x, self._tensor_name(k))   # np.asarray would drop the mask
                arr = np.asarray(x)
            else:
                from autograph.tracer.core.convert import to_numpy
                try:
                    arr = to_numpy(x, spec.dtype)
                except TypeError as e:
                    raise InvalidArgumentError(
                        f"cannot compute {self.name}: input #{k} (zero-based, '{self._tensor_name(k)}') "
                        f"was expected to be a {spec.dtype.name} tensor: {e}") from None
        try:
            dtype = as_dtype(arr.dtype)
        except TypeError:
            dtype = None
        if dtype is not spec.dtype:
            got = dtype.name if dtype is not None else str(arr.dtype)
            raise InvalidArgumentError(
                f"cannot compute {self.name}: input #{k} (zero-based, '{self._tensor_name(k)}') was "
                f"expected to be a {spec.dtype.name} tensor but is a {got} tensor")
        if not shape_compatible(arr.shape, spec.shape):
            raise InvalidArgumentError(
                f"cannot compute {self.name}: input #{k} (zero-based, '{self._tensor_name(k)}') was "
                f"expected to have shape {format_shape(spec.shape)} but has shape {format_shape(arr.shape)}")
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        return arr

    def _check_variable(self, k: int, spec, x) -> np.ndarray:
        """The buffer of variable argument `k` (passed by reference, never converted)."""
        buf = getattr(x, "_buffer", None) if getattr(x, "_ag_variable", False) else None
        if buf is None:
            raise InvalidArgumentError(
                f"cannot compute {self.name}: input #{k} (zero-based, '{self._tensor_name(k)}') was "
                f"traced as a variable (passed by reference), so it must be an ag.Variable, not a "
                f"{type(x).__name__}")
        if as_dtype(buf.dtype) is not spec.dtype or buf.shape != tuple(spec.shape):
            raise InvalidArgumentError(
                f"cannot compute {self.name}: input #{k} (zero-based, '{self._tensor_name(k)}') was "
                f"expected to be a {spec.dtype.name} variable of shape {format_shape(spec.shape)} but "
                f"is a {as_dtype(buf.dtype).name} variable of shape {format_shape(buf.shape)}")
        return buf


_MISSING = object()


def _same_python_value(a, b) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:
        return False
