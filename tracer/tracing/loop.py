"""`while_loop`: a compiled loop, built from one trace of its body.

Inside a trace, `while_loop` records one `while` op. Its condition and body
are traced once each (so their Python side effects run once per trace of
the function). Loop variables are

* tensors (traced or eager): they keep their dtype, and their shape may only
  change where it is unknown (None) before the loop;
* Python numbers (and the weak placeholders of an enclosing loop): they take
  the dtype the body gives them. The body is traced with a *weak*
  placeholder standing for the number, which adopts the dtype of the tensors
  it meets; once the body's results show the loop variables' dtypes, the
  traced regions are re-typed from their IR (`retype.py`), as if they had
  been traced with tensors of those dtypes, without running the body again;
* `Undefined` (first assigned in the body, possibly a tuple, list, dict or
  TensorArray): the loop carries what the body assigns, starting from zeros;
  compiled code raises InvalidArgumentError naming the variable when it is
  used after a loop that ran zero times. An Undefined that may stay empty and
  that the body reads (a TensorArray's elements before the first write)
  becomes a loop variable when the body first reads it (`_Carry`);
* other Python objects, which must come out of the body unchanged.

Errors name the variable, show shapes as tuples and point at the user's line,
in the phrasing of TensorFlow's AutoGraph.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from ..core import nest, registry
from ..core.convert import default_dtype_of_python, dtype_of, is_python_number, is_weak, python_to_dtype
from . import retype, symbolic
from .flow_values import Undefined, describe, is_tensor_like, leaf_names, located, may_stay_empty, shape_text, truth
from .symbolic import GraphBuilder, WeakSymbolicTensor, current_builder, is_traced
from .weak import adopt_dtype
from ..core.types import TensorType, bool_, int32

__all__ = ["while_loop"]

_TENSOR, _WEAK, _UNDEF, _STATIC = "tensor", "weak", "undefined", "static"


def while_loop(cond_fn: Callable[..., Any], body_fn: Callable[..., Any], loop_vars: Any,
               names: Optional[Sequence[str]] = None, maximum_iterations: Any = None, *,
               invariants: Sequence = ()) -> Any:
    """Repeat `loop_vars = body_fn(*loop_vars)` while `cond_fn(*loop_vars)`.

    Inside a trace this builds one `while` op, compiled to a native loop (see
    the module docstring for what loop variables may be); eagerly it runs as a
    Python loop. Converted code turns a Python `while` or `for` on tensors into
    this.

    Args:
        cond_fn: a function of the loop variables returning a bool scalar.
        body_fn: a function of the loop variables returning their new values,
            in the same structure, with the same dtypes.
        loop_vars: a value or a tuple/list of values (tensors, numbers,
            TensorArrays, nested structures).
        names: names of the loop variables, for error messages (optional).
        maximum_iterations: stop after this many iterations at most (a Python
            int or an int scalar tensor).
        invariants: `(value, TensorShape)` pairs, as converted loops take them
            from `set_loop_options(shape_invariants=...)`: a tensor loop
            variable whose value before the loop is `value` is carried with
            that shape (its None dimensions may change; an unknown rank keeps
            the rank with every dimension unknown).

    Returns:
        The final loop variables in the structure given (a single value if a
        single value was given).

    Raises:
        TypeError: the body changes a loop variable's dtype or structure.
        ValueError: the body changes a dimension that is fixed, or the
            condition is not a bool scalar.

    Example:
        >>> i, total = ag.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i),
        ...                          (ag.constant(0), ag.constant(0)))
        >>> print(total)
        ag.Tensor(6, shape=(), dtype=int32)
    """
    single = not isinstance(loop_vars, (tuple, list))
    vars_tuple = (loop_vars,) if single else tuple(loop_vars)
    builder = current_builder()
    if builder is None:
        out = _python_while(cond_fn, body_fn, vars_tuple, maximum_iterations)
    else:
        out = _traced_while(builder, cond_fn, body_fn, vars_tuple, names, maximum_iterations,
                            invariants)
    if single:
        return out[0]
    return type(loop_vars)(out) if isinstance(loop_vars, list) else out


def _python_while(cond_fn, body_fn, vars_tuple, maximum_iterations):
    i = 0
    while (maximum_iterations is None or i < int(maximum_iterations)) and truth(cond_fn(*vars_tuple)):
        vars_tuple = body_tuple(body_fn(*vars_tuple), len(vars_tuple))
        i += 1
    return vars_tuple


def body_tuple(out, n: int):
    """The loop body's result as a tuple of `n` loop variables."""
    if n == 1 and not (isinstance(out, (tuple, list)) and len(out) == 1):
        return (out,)
    if not isinstance(out, (tuple, list)):
        raise located(TypeError(f"the loop body must return {n} loop variables, got {type(out).__name__}"))
    return tuple(out)


def _kind(x) -> str:
    if isinstance(x, Undefined):
        return _UNDEF
    if is_weak(x):
        return _WEAK
    if is_tensor_like(x):
        return _TENSOR
    return _STATIC


class _Leaf:
    """One flattened loop variable: its value before the loop, its kind, its
    name, the body's value for it, its carried type and the variable (index
    of the unexpanded leaf) it belongs to."""

    __slots__ = ("init", "kind", "name", "out", "type", "group", "carried_arg", "invariant")

    def __init__(self, init, kind, name, out, group):
        self.init, self.kind, self.name, self.out, self.group = init, kind, name, out, group
        self.type: Optional[TensorType] = None
        self.carried_arg = None      # the body's argument for a value it read before setting
        self.invariant = None        # the shape from `shape_invariants`, if one names it


class _Carry:
    """Loop variables the body creates as it reads them.

    An Undefined that may stay empty and knows how to be carried
    (`in_loop(take)`, e.g. a TensorArray's pending elements) is replaced in
    the body by a stand-in; when the body first needs its value, `take(type)`
    adds an argument of that type to both regions and returns it, so the
    first iteration reads the empty start value and later ones what the
    previous iteration left, from one trace of the body.
    """

    def __init__(self, builder, cond_block):
        self.builder, self.cond_block, self.body_block = builder, cond_block, None
        self.args = {}   # id(original Undefined) -> the body's argument, in creation order

    def vars(self, structure):
        leaves, tdef = nest.flatten(structure)
        for k, v in enumerate(leaves):
            in_loop = getattr(v, "in_loop", None)
            if in_loop is not None and may_stay_empty(v):
                leaves[k] = in_loop(self._taker(v))
        return nest.unflatten(tdef, leaves)

    def _taker(self, original):
        def take(t: TensorType):
            arg = self.args.get(id(original))
            if arg is None:
                self.cond_block.add_arg(t)
                arg = self.args[id(original)] = self.body_block.add_arg(t)
            elif arg.type != t:
                raise located(ValueError(
                    f"{original.name} take values of type {arg.type} and {t} in one iteration"))
            return self.builder.wrap(arg)
        return take


def _var_names(names, n: int) -> List[str]:
    if names is None:
        return [f"value #{i}" for i in range(n)]
    names = (names,) if isinstance(names, str) else tuple(names)
    return list(names) if len(names) == n else [f"value #{i}" for i in range(n)]


def _is_leaf(x) -> bool:
    return nest.flatten(x)[1] is None


def _align(vars_tuple, out, var_names) -> list:
    """The body's value for each flattened loop variable, in flattening order.

    A variable undefined before the loop may come out as any structure; every
    other one must keep its nested structure.
    """
    parts = []
    for init, value, name in zip(vars_tuple, out, var_names):
        if _is_leaf(init):
            parts.append(value)
            continue
        init_leaves, init_def = nest.flatten(init)
        out_leaves, out_def = nest.flatten(value)
        if init_def != out_def:
            raise located(TypeError(
                f"'{name}' does not have the same nested structure after one iteration: it is "
                f"{describe(init)} before the loop, but {describe(value)} after one iteration"))
        parts.extend(out_leaves)
    return parts


def _invariant_types(builder, init_leaves, kinds, tensor_inits, invariants) -> dict:
    """{index of a tensor leaf: (its carried type, the invariant's shape as text)}
    for the leaves whose value before the loop an invariant names."""
    out = {}
    for var, shape in invariants:
        var_value = builder.value_of(var) if is_traced(var) else None
        dims = None if shape.rank is None else tuple(shape.as_list())
        for i, leaf in enumerate(init_leaves):
            if kinds[i] != _TENSOR or not (leaf is var or tensor_inits[i] is var_value):
                continue
            t = tensor_inits[i].type
            # Only relax: a dimension is unknown where the invariant or the value
            # before the loop leaves it so; an unknown rank keeps the value's rank
            # (a compiled loop cannot change it).
            if t.shape is None:
                carried = None
            elif dims is None:
                carried = (None,) * len(t.shape)
            else:
                carried = tuple(None if w is None or h is None else h for w, h in zip(dims, t.shape))
            out[i] = (TensorType(t.dtype, carried), shape_text(dims))
    return out


def _traced_while(builder: GraphBuilder, cond_fn, body_fn, vars_tuple, names, maximum_iterations,
                  invariants=()):
    n_vars = len(vars_tuple)
    init_leaves, tdef = nest.flatten(vars_tuple)
    kinds = [_kind(v) for v in init_leaves]
    names_ = leaf_names(names, vars_tuple, len(init_leaves))
    for v, name in zip(init_leaves, names_):
        if v is None:
            raise located(ValueError(f"'{name}' is not allowed to be None before the loop"))

    # Region arguments for the values known before the loop: a tensor keeps its
    # type; a weak value gets a weak placeholder of its default dtype.
    arg_leaves = [i for i, k in enumerate(kinds) if k in (_TENSOR, _WEAK)]
    tensor_inits = {i: builder.value_of(init_leaves[i]) for i in arg_leaves if kinds[i] == _TENSOR}
    relaxed = _invariant_types(builder, init_leaves, kinds, tensor_inits, invariants) if invariants else {}
    arg_types = [(relaxed[i][0] if i in relaxed else tensor_inits[i].type) if kinds[i] == _TENSOR
                 else _weak_type(init_leaves[i]) for i in arg_leaves]

    def region_vars(block):
        leaves = list(init_leaves)
        for i, arg in zip(arg_leaves, block.args):
            leaves[i] = WeakSymbolicTensor(arg, builder) if kinds[i] == _WEAK else builder.wrap(arg)
        return nest.unflatten(tdef, leaves)

    with builder.region(arg_types) as cond_block:
        c = _condition(builder, cond_fn(*region_vars(cond_block)))
    # Values that may stay empty and that the body reads (a TensorArray's
    # elements before the first write) become loop variables when the body
    # first uses them, with the type it gives them (`_Carry`).
    carry = _Carry(builder, cond_block)
    with builder.region(arg_types) as body_block:
        carry.body_block = body_block
        try:
            out = body_tuple(body_fn(*carry.vars(region_vars(body_block))), n_vars)
        except UnboundLocalError as e:
            raise located(ValueError(f"a loop variable must be defined before the loop: {e}")) from None

    leaves, made = _leaves(init_leaves, kinds, names_, _align(vars_tuple, out, _var_names(names, n_vars)))
    for leaf in leaves:
        arg = carry.args.get(id(leaf.init))
        if arg is not None:
            leaf.carried_arg = arg
            if isinstance(leaf.out, Undefined):
                leaf.out = builder.wrap(arg)     # read but not replaced: carried as it is
        if leaf.kind == _WEAK:
            leaf.type = _weak_result_type(leaf)
        elif leaf.kind == _TENSOR:
            leaf.type, leaf.invariant = relaxed.get(leaf.group, (tensor_inits[leaf.group].type, None))
        elif leaf.kind == _STATIC:
            _check_static(leaf)
    if any(k == _WEAK for k in kinds):
        # The body was traced with weak placeholders: re-type both regions as if
        # the loop variables had been tensors of the dtypes they take.
        vmap = {}
        by_group = {leaf.group: leaf for leaf in leaves if leaf.kind in (_TENSOR, _WEAK)}
        new_types = [by_group[i].type for i in arg_leaves] + [a.type for a in carry.args.values()]
        cond_block = retype.replay_region(builder, cond_block, new_types, vmap)
        body_block = retype.replay_region(builder, body_block, new_types, vmap)
        c = retype.remap(builder, c, vmap)
        for leaf in leaves:
            leaf.out = retype.remap(builder, leaf.out, vmap)
            if leaf.carried_arg is not None:
                leaf.carried_arg = vmap[leaf.carried_arg]
    for leaf in leaves:
        if leaf.carried_arg is not None:
            leaf.type = leaf.carried_arg.type
        elif leaf.kind == _UNDEF:
            leaf.type = _undefined_result_type(leaf)

    final = _emit_while(builder, init_leaves, leaves, c, cond_block, body_block, names_,
                        maximum_iterations)
    if any(k == _WEAK for k in kinds):
        retype.drop_unused_constants(cond_block)
        retype.drop_unused_constants(body_block)
    return tuple(nest.unflatten(_expanded_treedef(tdef, init_leaves, made), final))


def _weak_type(v) -> TensorType:
    """The placeholder type of a weak loop variable: a Python number's default
    dtype, or an enclosing loop's weak placeholder's own type."""
    if is_python_number(v):
        return TensorType(default_dtype_of_python(v), ())
    return TensorType(v.dtype, v.shape)


def _leaves(init_leaves, kinds, names_, parts):
    """The loop variables' leaves; an undefined one that the body made a
    structure (a tuple, dict, TensorArray, ...) becomes one leaf per part.
    Returns (leaves, {index of such a variable's leaf: the body's structure})."""
    out: List[_Leaf] = []
    made = {}
    for i, (init, kind, name, value) in enumerate(zip(init_leaves, kinds, names_, parts)):
        if kind == _UNDEF and not isinstance(value, Undefined) and not _is_leaf(value):
            made[i] = value
            sub, _ = nest.flatten(value)
            for part, path in zip(sub, nest.leaf_paths(value, name)):
                out.append(_Leaf(Undefined(path), _UNDEF, path, part, i))
        else:
            out.append(_Leaf(init, kind, name, value, i))
    return out, made


def _expanded_treedef(tdef, init_leaves, made):
    """The treedef of the loop variables with the undefined leaves replaced by
    the structures the body made of them."""
    return nest.flatten(nest.unflatten(tdef, [made.get(i, v) for i, v in enumerate(init_leaves)]))[1]


def _condition(builder, c):
    """The loop condition as a traced bool scalar (a Python one becomes a constant)."""
    if not is_traced(c):
        c = builder.wrap(builder.constant(np.array(bool(truth(c)))))
    if c.dtype is not bool_ or c.shape != ():
        raise located(ValueError(
            f"the condition of a while loop must be a bool scalar, got a tensor of type {c.type}; "
            f"compare it (e.g. `n > 0`) first"))
    return c


def _weak_result_type(leaf: _Leaf) -> TensorType:
    """The dtype a loop variable that starts as a Python number takes: that of
    the body's value for it (a Python number's default if it stays a number)."""
    o = leaf.out
    _check_defined(leaf)
    if is_weak(o):
        dtype = default_dtype_of_python(o) if is_python_number(o) else o.dtype
        return TensorType(dtype, ())
    if not is_tensor_like(o):
        raise located(TypeError(
            f"'{leaf.name}' becomes {describe(o)} inside a compiled loop; only tensors and "
            f"numbers can be loop variables"))
    shape = o.shape if is_traced(o) else np.shape(o)
    if shape is None or tuple(shape) != ():
        raise located(ValueError(
            f"'{leaf.name}' has shape () before the loop, but shape {shape_text(shape)} after one "
            f"iteration; start it as a tensor of the shape the loop gives it"))
    return TensorType(dtype_of(o), ())


def _undefined_result_type(leaf: _Leaf) -> Optional[TensorType]:
    """The type a variable first assigned in the loop body is carried with
    (None: the body leaves it undefined, so it stays undefined)."""
    o = leaf.out
    if isinstance(o, Undefined):
        return None
    if is_tensor_like(o):
        shape = o.shape if is_traced(o) else np.shape(o)
        return TensorType(dtype_of(o), None if shape is None else tuple(shape))
    if is_python_number(o):
        return TensorType(default_dtype_of_python(o), ())
    raise located(TypeError(
        f"'{leaf.name}' is assigned {describe(o)} inside a compiled loop; only tensors and numbers "
        f"(or tuples, lists and dicts of them) can be loop variables"))


def _check_defined(leaf: _Leaf) -> None:
    if leaf.out is None:
        raise located(ValueError(f"'{leaf.name}' is None at the end of the iteration"))
    if isinstance(leaf.out, Undefined):
        raise located(ValueError(
            f"'{leaf.name}' is defined before the loop, but not at the end of the iteration "
            f"(it is deleted inside the loop)"))


def _check_static(leaf: _Leaf) -> None:
    """A Python object riding along a compiled loop must come out unchanged."""
    o, init = leaf.out, leaf.init
    if o is init or _same_static(o, init):
        return
    if o is None:
        raise located(ValueError(f"'{leaf.name}' is None at the end of the iteration"))
    kind = getattr(init, "_ag_type_name", None) or type(init).__name__
    raise located(TypeError(
        f"'{leaf.name}' holds a Python {kind} that changes inside a compiled loop (it becomes "
        f"{describe(o)}); only tensors and numbers can change in a loop"))


def _same_static(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _emit_while(builder, init_leaves, leaves, c, cond_block, body_block, names_,
                maximum_iterations):
    """Add the undefined variables, flags and iteration counter to the traced
    regions, emit the `while` op and the checks after it; returns the final
    values of the leaves."""
    # In the order of the regions' arguments: the values known before the loop,
    # those the body took (`_Carry`), then the variables it defines first.
    carried = [leaf for leaf in leaves if leaf.kind in (_TENSOR, _WEAK)]
    taken = {id(leaf.carried_arg): leaf for leaf in leaves if leaf.carried_arg is not None}
    carried += [taken[id(a)] for a in body_block.args[len(carried):] if id(a) in taken]
    n_args = len(carried)
    carried += [leaf for leaf in leaves
                if leaf.kind == _UNDEF and leaf.type is not None and leaf.carried_arg is None]
    for leaf in carried[n_args:]:     # never read by the traced code: defined in the body first
        cond_block.add_arg(leaf.type)
        body_block.add_arg(leaf.type)
    # A variable first assigned in the loop gets a flag, checked after the loop.
    flag_groups = []
    for leaf in carried[n_args:]:
        if not may_stay_empty(init_leaves[leaf.group]) and leaf.group not in flag_groups:
            flag_groups.append(leaf.group)
    for _ in flag_groups:
        cond_block.add_arg(TensorType(bool_, ()))
        body_block.add_arg(TensorType(bool_, ()))
    counter_type = None
    if maximum_iterations is not None:
        counter_type = TensorType(maximum_iterations.dtype if is_traced(maximum_iterations) else int32, ())
        cond_block.add_arg(counter_type)
        body_block.add_arg(counter_type)

    from .. import api  # the op functions; imported here to avoid an import cycle
    with builder.reenter(cond_block):
        if counter_type is not None:
            counter = builder.wrap(cond_block.args[-1])
            c = api.logical_and(c, api.less(counter, maximum_iterations))
        cond_block.results = [builder.value_of(c)]
    with builder.reenter(body_block):
        yields = [_loop_value(builder, leaf) for leaf in carried]
        yields += [builder.constant(np.array(True)) for _ in flag_groups]
        if counter_type is not None:
            yields.append(builder.value_of(api.add(builder.wrap(body_block.args[-1]), 1)))
        body_block.results = yields

    init_values = [_init_value(builder, leaf) for leaf in carried]
    init_values += [builder.constant(np.array(False)) for _ in flag_groups]
    if counter_type is not None:
        init_values.append(builder.constant(np.zeros((), counter_type.dtype.np_dtype)))
    types = [leaf.type for leaf in carried] + [v.type for v in init_values[len(carried):]]
    op = builder.emit("while", init_values, types, regions=[cond_block, body_block])
    if symbolic.tape_hook is not None:   # a gradient tape records the whole op (tracer/autodiff)
        symbolic.tape_hook(registry.get("while"), (), tuple(builder.wrap(r) for r in op.results),
                           {"op": op})
    for k, group in enumerate(flag_groups):
        name = names_[group]
        builder.emit("check", [op.results[len(carried) + k]], [], {"message": (
            f"'{name}' is used after a loop that ran zero times: the loop must iterate "
            f"at least once to initialize '{name}'")})
    results = {id(leaf): builder.wrap(r) for leaf, r in zip(carried, op.results)}
    final = []
    for leaf in leaves:
        if id(leaf) in results:
            final.append(results[id(leaf)])
        elif leaf.kind == _UNDEF and leaf.init is not init_leaves[leaf.group]:
            final.append(leaf.out)     # part of a structure made in the loop, never set (empty)
        else:
            final.append(leaf.init)
    return final


def _init_value(builder, leaf: _Leaf):
    """The IR value a carried loop variable starts with."""
    t = leaf.type
    if leaf.kind == _TENSOR:
        return builder.value_of(leaf.init)
    if leaf.kind == _WEAK:
        v = leaf.init
        try:
            if is_python_number(v):
                return builder.constant(python_to_dtype(v, t.dtype))
            return builder.value_of(adopt_dtype(v, t.dtype, "while"))
        except TypeError as e:
            raise located(TypeError(f"'{leaf.name}' starts as {v!r} before the loop, but the loop "
                                    f"body makes it {t.dtype.name}: {e}")) from None
    zero_shape = tuple(0 if d is None else d for d in (t.shape or ()))
    return builder.constant(np.zeros(zero_shape, t.dtype.np_dtype))


def _loop_value(builder, leaf: _Leaf):
    """The IR value the body yields for a carried loop variable, checked against its type."""
    o, t, name = leaf.out, leaf.type, leaf.name
    _check_defined(leaf)
    if is_python_number(o):
        try:
            return builder.constant(python_to_dtype(o, t.dtype))
        except TypeError as e:
            raise located(TypeError(f"'{name}' has dtype {t.dtype.name} before the loop, but the "
                                    f"iteration gives it {o!r}: {e}")) from None
    if not is_tensor_like(o):
        raise located(TypeError(f"'{name}' becomes {describe(o)} inside a compiled loop; only "
                                f"tensors and numbers can be loop variables"))
    v = builder.value_of(o)
    if v.type.dtype is not t.dtype:
        raise located(TypeError(f"'{name}' has dtype {t.dtype.name} before the loop, but dtype "
                                f"{v.type.dtype.name} after one iteration"))
    if not _shape_fits(v.type.shape, t.shape) and leaf.invariant is not None:
        rank_note = ("; a compiled loop keeps a variable's rank (the invariant's unknown rank "
                     "leaves every dimension unknown)" if leaf.invariant == "<unknown>" else "")
        raise located(ValueError(
            f"'{name}' has shape {shape_text(v.type.shape)} after one iteration, which does not "
            f"conform to the shape invariant {leaf.invariant}{rank_note}"))
    if not _shape_fits(v.type.shape, t.shape):
        raise located(ValueError(
            f"'{name}' has shape {shape_text(t.shape)} before the loop, but shape "
            f"{shape_text(v.type.shape)} after one iteration; a loop variable's shape may only "
            f"change along dimensions that are unknown (None) before the loop"))
    return v


def _shape_fits(actual, expected) -> bool:
    if expected is None:
        return True
    if actual is None or len(actual) != len(expected):
        return False
    return all(e is None or a == e for a, e in zip(actual, expected))
