"""Compiled control flow: `cond` builds a structured op; `while_loop` (loop.py) too.

Both accept Python values too: with a Python (or eager) predicate, `cond`
simply calls one branch, and outside a trace `while_loop` runs a Python loop.
With a traced predicate they trace their functions into the regions of a
`cond` / `while` op. Error messages name the user's variables (`names`) in
the phrasing TensorFlow's AutoGraph uses, and point at the user's line.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from ..core import nest, registry
from ..core.convert import dtype_of, is_python_number, is_weak
from .flow_values import (Undefined, describe, empty_of, is_tensor_like, leaf_names, located,
    may_stay_empty, truth)
from . import symbolic
from .loop import while_loop
from .symbolic import GraphBuilder, SymbolicTensor, WeakIntTensor, WeakSymbolicTensor, is_traced
from .weak import adopt_dtype, unify_operands
from ..core.types import TensorType, bool_, most_specific_common_shape

__all__ = ["cond", "while_loop", "Undefined"]


# --------------------------------------------------------------------- cond


def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any],
         names: Optional[Sequence[str]] = None) -> Any:
    """`true_fn()` if `pred` else `false_fn()`; compiled when `pred` is traced.

    With a traced `pred`, both functions are traced into one `cond` op; they
    must return the same structure, and matching leaves the same dtype (Python
    numbers adopt the other branch's dtype; two Python ints give a traced int
    that still adopts the dtype of the tensors it meets, as a Python int
    would). With a Python bool or an eager
    tensor, only the chosen function runs. Converted code turns a Python `if`
    on a tensor into this.

    Args:
        pred: a bool scalar: a Python bool, an eager or a traced tensor.
        true_fn: a function of no arguments.
        false_fn: a function of no arguments returning the same structure.
        names: names of the results, for error messages (optional).

    Returns:
        The structure the branches return, with traced results where the
        branches' values are tensors or differ.

    Raises:
        ValueError: a `pred` that is not a bool scalar, or branches returning
            different structures or shapes that cannot be joined.
        TypeError: branches returning different dtypes for one result.

    Example:
        >>> print(ag.cond(ag.constant(3) > 2, lambda: 10, lambda: 20))
        10
    """
    if not is_traced(pred):
        return true_fn() if truth(pred) else false_fn()
    builder: GraphBuilder = pred.builder
    if pred.dtype is not bool_ or pred.shape != ():
        raise located(ValueError(
            f"the condition of an if statement or ag.cond must be a bool scalar, got a tensor of "
            f"type {pred.type}; compare it (e.g. `x > 0`) or reduce it (ag.reduce_any) first"))
    pred_value = builder.value_of(pred)
    with builder.region() as then_block:
        out_t = true_fn()
    with builder.region() as else_block:
        out_f = false_fn()
    leaves_t, tdef = nest.flatten(out_t)
    leaves_f, fdef = nest.flatten(out_f)
    if tdef != fdef:
        raise _structure_error(names, out_t, out_f)
    names_ = leaf_names(names, out_t, len(leaves_t))
    results = list(leaves_t)
    outputs = []  # (leaf index, then value, else value, dtype)
    for i, (a, c) in enumerate(zip(leaves_t, leaves_f)):
        name = names_[i]
        if may_stay_empty(a) and may_stay_empty(c):
            continue  # not materialised on either path (e.g. a TensorArray not written yet)
        # Written on one path only: the other path yields an empty buffer of that type.
        if may_stay_empty(a) and is_tensor_like(c):
            a = empty_of(c)
        elif may_stay_empty(c) and is_tensor_like(a):
            c = empty_of(a)
        if isinstance(a, Undefined) or isinstance(c, Undefined):
            branch = "else" if isinstance(c, Undefined) else "main"
            raise located(ValueError(f"'{name}' must also be initialized in the {branch} branch"))
        if a is c and not is_tensor_like(a):
            continue  # the same Python object on both paths stays Python
        if a is None or c is None:
            branch = "main" if a is None else "else"
            raise located(ValueError(f"'{name}' is None at the end of the {branch} branch"))
        if not (is_tensor_like(a) or is_python_number(a)) or not (is_tensor_like(c) or is_python_number(c)):
            if type(a) is type(c) and a == c:
                continue
            raise located(TypeError(
                f"'{name}' must be a tensor or a number in both branches of a compiled if, got "
                f"{type(a).__name__} and {type(c).__name__}"))
        da = None if is_weak(a) else dtype_of(a)
        dc = None if is_weak(c) else dtype_of(c)
        if da is not None and dc is not None and da is not dc:
            raise located(TypeError(
                f"'{name}' has dtype {da.name} in the main branch, but dtype {dc.name} in the else branch"))
        if da is None and dc is None:
            dtype = _weak_pair_dtype(a, c)
        else:
            dtype = da or dc
        outputs.append((i, a, c, dtype, name))
    then_vals, else_vals = [], []
    for block, vals, which in ((then_block, then_vals, 1), (else_block, else_vals, 2)):
        with builder.reenter(block):
            for entry in outputs:
                vals.append(_as_value(builder, entry[which], entry[3], entry[4]))
                if is_python_number(entry[which]) and _stays_weak(entry[1], entry[2]):
                    # A loop re-typing its body gives the number the new dtype (retype.py).
                    builder.note_weak(vals[-1], ("number", entry[which]))
    then_block.results = then_vals
    else_block.results = else_vals
    types = [TensorType(t.type.dtype, most_specific_common_shape(t.type.shape, e.type.shape))
             for t, e in zip(then_vals, else_vals)]
    op = builder.emit("cond", [pred_value], types, regions=[then_block, else_block])
    if symbolic.tape_hook is not None:   # a gradient tape records the whole op (tracer/autodiff)
        symbolic.tape_hook(registry.get("cond"), (), tuple(builder.wrap(r) for r in op.results),
                           {"op": op})
    for (i, a, c, *_), r in zip(outputs, op.results):
        # Two weak values (one standing for a loop variable that starts as a
        # Python number) give a weak value, as the numbers would.
        if _weak_ints(a, c):
            results[i] = WeakIntTensor(r, builder)
        elif _stays_weak(a, c):
            results[i] = WeakSymbolicTensor(r, builder)
        else:
            results[i] = SymbolicTensor(r, builder)
    return nest.unflatten(tdef, results)


def _weak_ints(a, c) -> bool:
    """Both branch values are Python ints (not bools) or weak ints: the result
    stands for a Python int (symbolic.WeakIntTensor)."""
    def int_like(v):
        if is_python_number(v):
            return isinstance(v, int) and not isinstance(v, bool)
        return getattr(v, "_ag_weak_int", False)
    return int_like(a) and int_like(c)


def _stays_weak(a, c) -> bool:
    return is_weak(a) and is_weak(c) and (getattr(a, "_ag_weak", False) or getattr(c, "_ag_weak", False))


def _weak_pair_dtype(a, c):
    """The dtype two weak values share when neither branch has a tensor."""
    return dtype_of(unify_operands("if", [a, c])[0])


def _structure_error(names, out_t, out_f) -> Exception:
    """The branches return different structures: name the variable that differs."""
    if names is not None and not isinstance(names, str) and isinstance(out_t, (tuple, list)) \
            and isinstance(out_f, (tuple, list)) and len(out_t) == len(out_f) == len(names):
        for name, a, c in zip(names, out_t, out_f):
            if nest.flatten(a)[1] != nest.flatten(c)[1]:
                return located(TypeError(
                    f"{_subject(name)} must have the same nested structure in the main and else "
                    f"branches: it is {describe(a)} in the main branch, but {describe(c)} in the "
                    f"else branch"))
    if isinstance(names, (tuple, list)) and len(names) == 1:
        return located(TypeError(
            f"{_subject(names[0])} must have the same nested structure in the main and else "
            f"branches: it is {describe(out_t)} in the main branch, but {describe(out_f)} in the "
            f"else branch"))
    return located(TypeError(
        f"the main and else branches must return the same nested structure; got "
        f"{describe(out_t)} in the main branch and {describe(out_f)} in the else branch"))


def _subject(name: str) -> str:
    """A variable's name quoted (`'x'`); a described value as it is."""
    return name if name.startswith("conditional expression") else f"'{name}'"


def _as_value(builder: GraphBuilder, x, dtype, name):
    """The IR value of `x` with `dtype`, converting Python numbers."""
    if is_weak(x):
        try:
            x = adopt_dtype(x, dtype, "if")
        except TypeError as e:
            raise located(TypeError(f"'{name}': {e}")) from None
    return builder.value_of(x)
