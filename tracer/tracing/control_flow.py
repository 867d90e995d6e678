"""Compiled control flow: `cond` and `while_loop` build structured ops.

Both accept Python values too: with a Python (or eager) predicate, `cond`
simply calls one branch, and outside a trace `while_loop` runs a Python loop.
With a traced predicate they trace their functions into the regions of a
`cond` / `while` op. Error messages name the user's variables (`names`) in
the phrasing TensorFlow's AutoGraph uses.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence

import numpy as np

from ..core import nest
from ..core.convert import (_adopt, default_dtype_of_python, dtype_of, is_python_number, is_weak,
    python_to_dtype)
from ..core.errors import with_location
from ..core.location import user_location
from .symbolic import GraphBuilder, SymbolicTensor, WeakSymbolicTensor, current_builder, is_traced
from ..core.types import TensorType, bool_, format_shape, int32, most_specific_common_shape

__all__ = ["cond", "while_loop", "Undefined"]


class Undefined:
    """Marks a variable that has no value yet (assigned first inside a block)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"Undefined({self.name!r})"

    def __bool__(self):
        raise UnboundLocalError(f"'{self.name}' is used before assignment")


def _located(exc: Exception) -> Exception:
    return with_location(exc, user_location())


def _is_tensor_like(x) -> bool:
    return is_traced(x) or hasattr(x, "_array") or isinstance(x, (np.ndarray, np.generic))


def _leaf_names(names, structure, count: int) -> List[str]:
    """One readable name per flattened leaf."""
    if names is None:
        return [f"value #{i}" for i in range(count)]
    if isinstance(names, str):
        names = (names,)
    out: List[str] = []
    items = structure if isinstance(structure, (tuple, list)) and len(structure) == len(names) else None
    if items is None:
        return [names[0] if len(names) == 1 else f"value #{i}" for i in range(count)]
    for name, item in zip(names, items):
        paths = nest.leaf_paths(item)
        out.extend(name + p for p in paths)
    return out if len(out) == count else [f"value #{i}" for i in range(count)]


def _truth(pred) -> bool:
    return bool(pred)


# --------------------------------------------------------------------- cond


def cond(pred, true_fn: Callable, false_fn: Callable, names: Optional[Sequence[str]] = None):
    """`true_fn()` if `pred` else `false_fn()`, compiled when `pred` is traced.

    Both functions are traced; they must return the same structure, and
    matching leaves must have the same dtype (Python numbers adopt the other
    branch's dtype). Returns that structure with traced results where the
    branches' values are tensors or differ.
    """
    if not is_traced(pred):
        return true_fn() if _truth(pred) else false_fn()
    builder: GraphBuilder = pred.builder
    if pred.dtype is not bool_ or pred.shape != ():
        raise _located(ValueError(
            f"the condition of an if statement or ag.cond must be a bool scalar, got a tensor of "
            f"type {pred.type}; compare it (e.g. `x > 0`) or reduce it (ag.reduce_any) first"))
    pred_value = builder.value_of(pred)
    with builder.region() as then_block:
        out_t = true_fn()
    with builder.region() as else_block:
        out_f = false_fn()
    leaves_t, tdef = nest.flatten(out_t)
    leaves_f, fdef = nest.flatten(out_f)
    leaf_names = _leaf_names(names, out_t, len(leaves_t))
    if tdef != fdef:
        raise _located(TypeError(
            f"the main and else branches must return the same nested structure; got "
            f"{_describe(out_t)} in the main branch and {_describe(out_f)} in the else branch"))
    results = list(leaves_t)
    outputs = []  # (leaf index, then value, else value, dtype)
    for i, (a, c) in enumerate(zip(leaves_t, leaves_f)):
        name = leaf_names[i]
        if _may_stay_empty(a) and _may_stay_empty(c):
            continue  # not materialised on either path (e.g. a TensorArray not written yet)
        # Written on one path only: the other path yields an empty buffer of that type.
        if _may_stay_empty(a) and _is_tensor_like(c):
            a = _empty_of(c)
        elif _may_stay_empty(c) and _is_tensor_like(a):
            c = _empty_of(a)
        if isinstance(a, Undefined) or isinstance(c, Undefined):
            branch = "else" if isinstance(c, Undefined) else "main"
            raise _located(ValueError(f"'{name}' must also be initialized in the {branch} branch"))
        if a is c and not _is_tensor_like(a):
            continue  # the same Python object on both paths stays Python
        if a is None or c is None:
            branch = "main" if a is None else "else"
            raise _located(ValueError(f"'{name}' is None at the end of the {branch} branch"))
        if not (_is_tensor_like(a) or is_python_number(a)) or not (_is_tensor_like(c) or is_python_number(c)):
            if type(a) is type(c) and a == c:
                continue
            raise _located(TypeError(
                f"'{name}' must be a tensor or a number in both branches of a compiled if, got "
                f"{type(a).__name__} and {type(c).__name__}"))
        da = None if is_weak(a) else dtype_of(a)
        dc = None if is_weak(c) else dtype_of(c)
        if da is not None and dc is not None and da is not dc:
            raise _located(TypeError(
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
    then_block.results = then_vals
    else_block.results = else_vals
    types = [TensorType(t.type.dtype, most_specific_common_shape(t.type.shape, e.type.shape))
             for t, e in zip(then_vals, else_vals)]
    op = builder.emit("cond", [pred_value], types, regions=[then_block, else_block])
    for (i, *_), r in zip(outputs, op.results):
        results[i] = SymbolicTensor(r, builder)
    return nest.unflatten(tdef, results)


def _may_stay_empty(x) -> bool:
    """An Undefined that stands for an empty buffer (a TensorArray's elements
    before the first write), not for a variable without a value."""
    return isinstance(x, Undefined) and getattr(x, "empty_ok", False)


def _empty_of(x):
    """An empty array of `x`'s dtype and rank (unknown dims 0)."""
    shape = tuple(0 if d is None else d for d in (x.shape or ()))
    return np.zeros(shape, dtype_of(x).np_dtype)


def _weak_pair_dtype(a, c):
    """The dtype two weak values share when neither branch has a tensor."""
    from ..core.convert import unify_operands
    return dtype_of(unify_operands("if", [a, c])[0])


def _describe(x) -> str:
    if isinstance(x, (tuple, list)):
        return f"{type(x).__name__} of {len(x)}"
    return type(x).__name__


def _as_value(builder: GraphBuilder, x, dtype, name):
    """The IR value of `x` with `dtype`, converting Python numbers."""
    if is_weak(x):
        try:
            x = _adopt(x, dtype, "if")
        except TypeError as e:
            raise _located(TypeError(f"'{name}': {e}")) from None
    return builder.value_of(x)


# --------------------------------------------------------------- while_loop

_TENSOR, _WEAK, _UNDEF, _STATIC = "tensor", "weak", "undefined", "static"


def while_loop(cond_fn: Callable, body_fn: Callable, loop_vars, names: Optional[Sequence[str]] = None,
               maximum_iterations=None):
    """Repeat `loop_vars = body_fn(*loop_vars)` while `cond_fn(*loop_vars)`.

    Inside a trace this builds one `while` op. Loop variables may be traced or
    eager tensors, Python numbers (they take the dtype the body gives them,
    which costs one extra trace of the body) or `Undefined` (first assigned in
    the body; if the loop runs zero times the compiled code raises
    InvalidArgumentError naming it). Other Python objects may ride along if
    the body returns them unchanged. Returns the final loop variables in the
    structure they were given (a single value if a single value was given).
    """
    single = not isinstance(loop_vars, (tuple, list))
    vars_tuple = (loop_vars,) if single else tuple(loop_vars)
    builder = current_builder()
    if builder is None:
        out = _python_while(cond_fn, body_fn, vars_tuple, maximum_iterations)
    else:
        out = _traced_while(builder, cond_fn, body_fn, vars_tuple, names, maximum_iterations)
    if single:
        return out[0]
    return type(loop_vars)(out) if isinstance(loop_vars, list) else out


def _python_while(cond_fn, body_fn, vars_tuple, maximum_iterations):
    i = 0
    while (maximum_iterations is None or i < int(maximum_iterations)) and _truth(cond_fn(*vars_tuple)):
        vars_tuple = _body_tuple(body_fn(*vars_tuple), len(vars_tuple))
        i += 1
    return vars_tuple


def _kind(x) -> str:
    if isinstance(x, Undefined):
        return _UNDEF
    if _is_tensor_like(x):
        return _TENSOR
    if is_python_number(x):
        return _WEAK
    return _STATIC


def _body_tuple(out, n: int):
    if n == 1 and not (isinstance(out, (tuple, list)) and len(out) == 1):
        return (out,)
    if not isinstance(out, (tuple, list)):
        raise _located(TypeError(f"the loop body must return {n} loop variables, got {type(out).__name__}"))
    return tuple(out)


def _infer_types(builder, body_fn, init_leaves, kinds, tdef, known_types, n_vars, leaf_names):
    """Trace the body once, throw it away, and learn the types it gives the
    loop variables that start as Python numbers or undefined."""
    placeholder_types = [t if k == _TENSOR else TensorType(default_dtype_of_python(v), ())
                         for v, k, t in zip(init_leaves, kinds, known_types) if k in (_TENSOR, _WEAK)]
    with builder.region(placeholder_types, scratch=True) as blk:
        args = iter(blk.args)
        leaves = [builder.wrap(next(args)) if k == _TENSOR
                  else WeakSymbolicTensor(next(args), builder) if k == _WEAK else v
                  for v, k in zip(init_leaves, kinds)]
        try:
            out = _body_tuple(body_fn(*nest.unflatten(tdef, leaves)), n_vars)
        except UnboundLocalError as e:
            raise _located(ValueError(f"a loop variable must be defined before the loop: {e}")) from None
        out_leaves, odef = nest.flatten(out)
    if odef != tdef:
        raise _located(TypeError("the loop variables do not have the same nested structure after one iteration"))
    inferred = []
    for v, k, o, name in zip(init_leaves, kinds, out_leaves, leaf_names):
        if k == _WEAK:
            if _is_tensor_like(o):
                inferred.append(TensorType(dtype_of(o), () if not is_traced(o) else o.shape))
            else:
                inferred.append(TensorType(default_dtype_of_python(o if is_python_number(o) else v), ()))
        elif k == _UNDEF:
            if isinstance(o, Undefined):
                inferred.append(None)  # never assigned in the body: stays undefined
            elif _is_tensor_like(o):
                inferred.append(TensorType(dtype_of(o), o.shape if is_traced(o) else np.shape(o)))
            elif is_python_number(o):
                inferred.append(TensorType(default_dtype_of_python(o), ()))
            else:
                raise _located(TypeError(f"'{name}' is assigned a {type(o).__name__} inside a compiled "
                                         f"loop; only tensors and numbers can be loop variables"))
        else:
            inferred.append(None)
    return inferred


def _traced_while(builder: GraphBuilder, cond_fn, body_fn, vars_tuple, names, maximum_iterations):
    n_vars = len(vars_tuple)
    init_leaves, tdef = nest.flatten(vars_tuple)
    kinds = [_kind(v) for v in init_leaves]
    leaf_names = _leaf_names(names, vars_tuple, len(init_leaves))
    for v, name in zip(init_leaves, leaf_names):
        if v is None:
            raise _located(ValueError(f"'{name}' is not allowed to be None before the loop"))
    known = [builder.value_of(v).type if k == _TENSOR else None for v, k in zip(init_leaves, kinds)]
    if any(k in (_WEAK, _UNDEF) for k in kinds):
        inferred = _infer_types(builder, body_fn, init_leaves, kinds, tdef, known, n_vars, leaf_names)
    else:
        inferred = [None] * len(init_leaves)

    # Decide the carried leaves, their types and initial values.
    carried = []  # (leaf index, type)
    init_values = []
    undefined_flags = []  # (leaf index into carried list of the flag, name)
    for i, (v, k) in enumerate(zip(init_leaves, kinds)):
        if k == _TENSOR:
            val = builder.value_of(v)
            carried.append((i, val.type))
            init_values.append(val)
        elif k == _WEAK:
            t = inferred[i]
            carried.append((i, t))
            try:
                init_values.append(builder.constant(python_to_dtype(v, t.dtype)))
            except TypeError as e:
                raise _located(TypeError(f"'{leaf_names[i]}' starts as {v!r} before the loop, but the loop "
                                         f"body makes it {t.dtype.name}: {e}")) from None
        elif k == _UNDEF and inferred[i] is not None:
            t = inferred[i]
            zero_shape = tuple(0 if d is None else d for d in (t.shape or ()))
            carried.append((i, t))
            init_values.append(builder.constant(np.zeros(zero_shape, t.dtype.np_dtype)))
    n_user = len(carried)
    # Undefined values get a flag checked after the loop (the loop must run to
    # define them), except those that may stay empty (see `_may_stay_empty`).
    flag_slots = [j for j, (i, _) in enumerate(carried)
                  if kinds[i] == _UNDEF and not _may_stay_empty(init_leaves[i])]
    for j in flag_slots:
        init_values.append(builder.constant(np.array(False)))
    counter_slot = None
    if maximum_iterations is not None:
        counter_slot = len(init_values)
        counter_dtype = maximum_iterations.dtype if is_traced(maximum_iterations) else int32
        init_values.append(builder.constant(np.zeros((), counter_dtype.np_dtype)))
        max_value = builder.value_of(maximum_iterations) if is_traced(maximum_iterations) else None
    types = [v.type for v in init_values]
    # Loop variables given as tensors keep their traced type; weak/undefined use the inferred one.
    for j, (i, t) in enumerate(carried):
        types[j] = t

    def rebuild(block):
        leaves = list(init_leaves)
        for j, (i, _) in enumerate(carried):
            leaves[i] = builder.wrap(block.args[j])
        for i, k in enumerate(kinds):
            if k == _UNDEF and all(i != c[0] for c in carried):
                leaves[i] = init_leaves[i]
        return nest.unflatten(tdef, leaves)

    from .. import api  # the op functions; imported here to avoid an import cycle

    with builder.region(types) as cond_block:
        c = cond_fn(*rebuild(cond_block))
        if not is_traced(c):
            c = builder.wrap(builder.constant(np.array(bool(_truth(c)))))
        if c.dtype is not bool_ or c.shape != ():
            raise _located(ValueError(f"the condition of a while loop must be a bool scalar, got a tensor of "
                                      f"type {c.type}; compare it (e.g. `n > 0`) first"))
        if counter_slot is not None:
            counter = builder.wrap(cond_block.args[counter_slot])
            limit = builder.wrap(max_value) if max_value is not None else maximum_iterations
            c = api.logical_and(c, api.less(counter, limit))
        cond_block.results = [builder.value_of(c)]

    with builder.region(types) as body_block:
        out = _body_tuple(body_fn(*rebuild(body_block)), n_vars)
        out_leaves, odef = nest.flatten(out)
        if odef != tdef:
            raise _located(TypeError(
                f"the loop variables {', '.join(repr(n) for n in (names or ()))} do not have the same "
                f"nested structure after one iteration"))
        yields = []
        carried_idx = {i: j for j, (i, _) in enumerate(carried)}
        for i, (o, k) in enumerate(zip(out_leaves, kinds)):
            name = leaf_names[i]
            if i not in carried_idx:
                if k == _STATIC and o is not init_leaves[i] and not _same_static(o, init_leaves[i]):
                    raise _located(TypeError(
                        f"'{name}' holds a Python {type(init_leaves[i]).__name__} that changes inside a "
                        f"compiled loop; only tensors and numbers can change in a loop"))
                continue
            t = types[carried_idx[i]]
            yields.append(_check_loop_value(builder, o, t, name))
        for j in flag_slots:
            yields.append(builder.constant(np.array(True)))
        if counter_slot is not None:
            counter = builder.wrap(body_block.args[counter_slot])
            yields.append(builder.value_of(api.add(counter, 1)))
        body_block.results = yields

    op = builder.emit("while", init_values, types, regions=[cond_block, body_block])
    for flag_pos, j in enumerate(flag_slots):
        i = carried[j][0]
        flag = op.results[n_user + flag_pos]
        builder.emit("check", [flag], [], {"message": (
            f"'{leaf_names[i]}' is used after a loop that ran zero times: the loop must iterate "
            f"at least once to initialize '{leaf_names[i]}'")})
    leaves = list(init_leaves)
    for j, (i, _) in enumerate(carried):
        leaves[i] = builder.wrap(op.results[j])
    return tuple(nest.unflatten(tdef, leaves))


def _same_static(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _check_loop_value(builder, o, t: TensorType, name: str):
    """The IR value a body yields for loop variable `name`, checked against `t`."""
    if o is None:
        raise _located(ValueError(f"'{name}' is None at the end of the iteration"))
    if isinstance(o, Undefined):
        raise _located(ValueError(f"'{name}' must be defined before the loop"))
    if is_python_number(o):
        try:
            return builder.constant(python_to_dtype(o, t.dtype))
        except TypeError as e:
            raise _located(TypeError(f"'{name}' has dtype {t.dtype.name} before the loop, but the "
                                     f"iteration gives it {o!r}: {e}")) from None
    if not _is_tensor_like(o):
        raise _located(TypeError(f"'{name}' becomes a {type(o).__name__} inside a compiled loop; "
                                 f"only tensors and numbers can be loop variables"))
    v = builder.value_of(o)
    if v.type.dtype is not t.dtype:
        raise _located(TypeError(f"'{name}' has dtype {t.dtype.name} before the loop, but dtype "
                                 f"{v.type.dtype.name} after one iteration"))
    if not _shape_fits(v.type.shape, t.shape):
        raise _located(ValueError(
            f"'{name}' has shape {format_shape(t.shape)} before the loop, but shape "
            f"{format_shape(v.type.shape)} after one iteration; a loop variable's shape may only "
            f"change along dimensions that are unknown (None) before the loop"))
    return v


def _shape_fits(actual, expected) -> bool:
    if expected is None:
        return True
    if actual is None or len(actual) != len(expected):
        return False
    return all(e is None or a == e for a, e in zip(actual, expected))
