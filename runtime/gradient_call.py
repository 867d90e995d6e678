"""A call of an `ag.function` under an eager `ag.GradientTape`: one recorded op.

When a tape that is recording eagerly tracks one of the call's tensors (or a
trainable variable the function reads), `PolymorphicFunction.__call__` hands
the call here. Two compiled functions of the traced graph (`cf.raw_graph`)
are made once per `ConcreteFunction` and kept on it:

* the *forward*: the graph replayed through `bind` (autograph.tracer.autodiff.replay)
  so that it also returns its *residuals*, the values the backward pass must
  not recompute: every variable read at the top level (a later `assign` may
  change the variable) and every random op's result (a dropout mask);
* the *backward* (the vector-Jacobian product): the graph replayed under an
  inner tape with the residuals standing for those ops, returning the
  gradient of each tensor input and of each variable read.

Both are `PolymorphicFunction`s, traced and compiled on first use for each
signature; the user's function is not traced again (its `tracing_count`
stays). The backward call is itself an `ag.function` call, so an enclosing
tape records it too (second derivatives).
"""
from __future__ import annotations

from typing import Dict, List

from autograph.tracer.autodiff.replay import replay
from autograph.tracer.autodiff.tape import GradientTape, is_tracked, record
from autograph.tracer.autodiff.tape_state import differentiable, stop_recording
from autograph.tracer.core import nest
from autograph.tracer.tracing.symbolic import bind

from .plan import OutputSlot
from .signature import bind_arguments

__all__ = ["call_under_tape", "concrete_call_under_tape", "install_function"]




# `ag.function` itself (runtime/polymorphic.py installs it when it is imported, which is
# before any call can reach this module): the forward and backward are made with it, and
# this module, which polymorphic.py and concrete.py call, imports neither.
_FUNCTION = []


def install_function(function) -> None:
    """Called once by runtime/polymorphic.py with its `function` (the `ag.function` decorator)."""
    _FUNCTION[:] = [function]


class _Gradient:
    """The forward-with-residuals and the backward function of one ConcreteFunction."""

    def __init__(self, cf):
        (function,) = _FUNCTION
        graph = cf.raw_graph
        self.graph = graph
        self.n_in = len(cf._tensor_positions)
        args = graph.body.args
        # captured variables follow the user's inputs (ConcreteFunction._run)
        self.captured = dict(zip(args[self.n_in:], cf.variables))
        # the top-level ops whose results are residuals, in order
        self.residual_ops = [op for op in graph.body.ops
                             if op.name == "read_variable" or (op.results and _stateful(op.name))]
        self.reads = [op for op in self.residual_ops if op.name == "read_variable"]
        self.forward = function(self._forward, autograph=False)
        self.backward = function(self._backward, autograph=False)

    # -- the two functions (traced by ag.function) --------------------------------
    def _env(self, inputs) -> Dict:
        args = self.graph.body.args
        env = dict(zip(args[:self.n_in], inputs))
        env.update(self.captured)
        return env

    def _forward(self, *inputs):
        residuals: List = []
        top = self.graph.body

        def effects(op, ins):
            if op.name == "read_variable":
                out = [ins[0].read_value()]
            elif op.name == "assign_variable":
                _assign(op, ins)
                return []
            elif op.name == "print":      # the forward prints, as the function does
                bind(op.name, *ins, **op.attrs)
                return []
            else:
                if op.block is not top:
                    raise _unsupported(op)
                out = bind(op.name, *ins, **op.attrs)
                out = list(out) if isinstance(out, tuple) else [out]
            if op.block is top:
                residuals.extend(out)
            return out

        outs = replay(top, self._env(inputs), effects)
        return list(outs), residuals

    def _backward(self, inputs, residuals, upstream):
        top = self.graph.body
        given = dict(zip(self.residual_ops, _split(self.residual_ops, residuals)))

        def effects(op, ins):
            if op.name in ("assign_variable", "print"):
                if op.block is top or op.name == "print":
                    return []
            if op.block is top:
                return given[op]
            if op.name == "read_variable":
                return [ins[0].read_value()]
            raise _unsupported(op)

        float_in = [x for x in inputs if differentiable(x)]
        float_reads = [given[op][0] for op in self.reads if differentiable(given[op][0])]
        variables = [v for v in self.captured.values() if differentiable(v)]
        sources = float_in + float_reads + variables
        with GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(sources)
            outs = replay(top, self._env(inputs), effects)
        pairs = [(y, g) for y, g in zip(outs, upstream) if differentiable(y)]
        grads = tape.gradient([y for y, _ in pairs], sources,
                              output_gradients=[g for _, g in pairs]) if pairs else [None] * len(sources)
        from autograph.tracer.autodiff.backprop import zeros_like
        return [zeros_like(s) if g is None else g for g, s in zip(grads, sources)]


def _stateful(name: str) -> bool:
    from autograph.tracer.core import registry
    d = registry.get(name)
    return d.stateful and name not in ("check", "check_values", "print")


def _split(ops, flat):
    out, pos = [], 0
    for op in ops:
        out.append(list(flat[pos:pos + len(op.results)]))
        pos += len(op.results)
    return out


def _assign(op, ins):
    var, value = ins
    how = op.attrs.get("accumulate")
    if how == "add":
        var.assign_add(value)
    elif how == "sub":
        var.assign_sub(value)
    else:
        var.assign(value)


def _unsupported(op) -> NotImplementedError:
    return NotImplementedError(
        f"gradient of an ag.function call: the op '{op.name}' inside a loop or branch of the "
        f"function cannot be replayed for its gradient (random numbers and variable assignments "
        f"inside compiled control flow are only supported when the tape is inside the function)")


def _gradient_of(cf) -> _Gradient:
    g = cf.__dict__.get("_ag_gradient")
    if g is None:
        g = cf.__dict__["_ag_gradient"] = _Gradient(cf)
    return g


def call_under_tape(pf, args, kwargs, cf, arrays):
    """Run `cf` (the concrete function of `pf` for this call) and record the call
    on the active tapes when one of them tracks an input or a variable it reads;
    returns the call's result, as `cf` would."""
    bound = bind_arguments(pf._signature, args, kwargs, pf._name)
    leaves, _ = nest.flatten(tuple(bound.arguments.values()))
    if len(leaves) != len(cf._arg_leaves):
        return cf._run(arrays)
    return concrete_call_under_tape(cf, [leaves[i] for i in cf._tensor_positions], arrays)


def concrete_call_under_tape(cf, inputs, arrays):
    """`call_under_tape` for a ConcreteFunction given its tensor inputs (the
    objects the caller passed, one per traced tensor input) and their arrays."""
    pf_name = cf.name
    tracked = any(is_tracked(x) for x in inputs if differentiable(x)) or \
        any(is_tracked(v) for v in cf.variables if getattr(v, "trainable", True))
    if not tracked:
        return cf._run(arrays)
    grad = _gradient_of(cf)
    with stop_recording():     # the forward is this one recorded op, not a call of its own
        outs, residuals = grad.forward(*inputs)
    template = cf._output_template
    leaves_out = [outs[x.index] if isinstance(x, OutputSlot) else x for x in template]
    result = nest.unflatten(cf._output_treedef, leaves_out)

    # The recorded op: inputs are the call's tensors and the variables it reads.
    graph_args = grad.graph.body.args
    read_vars = []
    for op in grad.reads:
        res = op.operands[0]
        if res in grad.captured:
            read_vars.append(grad.captured[res])
        else:
            read_vars.append(inputs[graph_args.index(res)])
    variables = [v for v in grad.captured.values() if differentiable(v)]
    rec_inputs = list(inputs) + [v for v in _unique(read_vars + variables) if not _in(v, inputs)]

    def vjp(rec_in, rec_out, attrs, ups):
        ups = [u for u in ups]
        from autograph.tracer.autodiff.backprop import zeros_like
        ups = [zeros_like(y) if u is None else u for u, y in zip(ups, rec_out)]
        flat = grad.backward(list(inputs), list(residuals), ups)
        it = iter(flat)
        by_obj: Dict[int, object] = {}
        out = []
        for x in inputs:
            out.append(next(it) if differentiable(x) else None)
        for op, v in zip(grad.reads, read_vars):
            r = _residual_of(grad, residuals, op)
            if differentiable(r):
                g = next(it)
                by_obj[id(v)] = g if id(v) not in by_obj else by_obj[id(v)] + g
        for v in variables:
            g = next(it)
            by_obj[id(v)] = g if id(v) not in by_obj else by_obj[id(v)] + g
        for k, x in enumerate(inputs):     # a variable passed as an argument
            if id(x) in by_obj:
                out[k] = by_obj.pop(id(x)) if out[k] is None else out[k] + by_obj.pop(id(x))
        out += [by_obj.get(id(v)) for v in rec_inputs[len(inputs):]]
        return out

    record(f"call {pf_name}", vjp, rec_inputs, [y for y in outs], {})
    return result


def _residual_of(grad, residuals, op):
    pos = 0
    for o in grad.residual_ops:
        if o is op:
            return residuals[pos]
        pos += len(o.results)
    raise KeyError(op)


def _unique(xs):
    seen, out = set(), []
    for x in xs:
        if id(x) not in seen:
            seen.add(id(x))
            out.append(x)
    return out


def _in(x, xs) -> bool:
    return any(x is y for y in xs)

