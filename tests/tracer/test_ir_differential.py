"""Differential test: the IR interpreter agrees with eager execution.

Hypothesis builds random programs of elementwise ops and reductions (with
Python numbers mixed in as weak operands), runs them eagerly with
`autograph.tracer.api` on NumPy inputs, then traces the same calls into a graph (with
some input dimensions unknown), verifies it and interprets it, before and
after the default passes. Results must match exactly in dtype, shape and
value (NaN equal to NaN); a run-time fault eagerly must be one in the graph.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import declared_ops
from autograph.tracer import api
from autograph.tracer.core import registry
from autograph.tracer.core.compare import graphs_equal
from autograph.tracer.core.convert import to_numpy
from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.core.interpreter import run_graph
from autograph.tracer.core.parser import parse_graph
from autograph.tracer.passes import run_passes
from autograph.tracer.tracing.symbolic import GraphBuilder
from autograph.tracer.core.types import TensorType, as_dtype
from autograph.tracer.core.verifier import verify
from autograph.tracer.ops.reduce import REDUCTION_OPS

# Every declared elementwise op and numeric reduction that takes the kind.
UNARY = {"float": declared_ops("unary", "float32"), "int": declared_ops("unary", "int32")}
BINARY = {"float": declared_ops("binary", "float32"), "int": declared_ops("binary", "int32")}
REDUCTIONS = [o for o in REDUCTION_OPS if registry.get(o).kind == "numeric"]
KINDS = {"float32": "float", "float64": "float", "int32": "int", "int64": "int"}


def _kind(arr):
    return KINDS.get(arr.dtype.name)


def _broadcastable(*shapes) -> bool:
    try:
        np.broadcast_shapes(*shapes)
        return True
    except ValueError:
        return False


def _elements(dtype):
    if np.dtype(dtype).kind == "f":
        return st.floats(-8, 8, width=np.dtype(dtype).itemsize * 8)
    return st.integers(-9, 9)


@st.composite
def programs(draw):
    """(input arrays, input types, steps, eager results or the failing step)."""
    dtype = draw(st.sampled_from(["float32", "float64", "int32", "int64"]))
    base = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    inputs, types = [], []
    for _ in range(draw(st.integers(1, 3))):
        # Each input broadcasts against the base shape: some dims 1, leading dims dropped.
        drop = draw(st.integers(0, len(base)))
        shape = tuple(d if draw(st.booleans()) else 1 for d in base[drop:])
        arr = np.array(draw(st.lists(_elements(dtype), min_size=int(np.prod(shape)),
                                     max_size=int(np.prod(shape)))), dtype=dtype).reshape(shape)
        inputs.append(arr)
        static = tuple(d if draw(st.booleans()) else None for d in shape)
        types.append(TensorType(as_dtype(dtype), static))
    pool = list(inputs)
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        step = _draw_step(draw, pool)
        if step is None:
            continue
        try:
            out = _apply(step, pool)
        except InvalidArgumentError:
            steps.append(step)
            return inputs, types, steps, None
        pool.append(to_numpy(out))
        steps.append(step)
    return inputs, types, steps, pool[len(inputs):]


def _draw_step(draw, pool):
    numeric = [i for i, a in enumerate(pool) if _kind(a)]
    if not numeric:
        return None
    what = draw(st.sampled_from(["unary", "binary", "binary", "reduce", "where"]))
    i = draw(st.sampled_from(numeric))
    x = pool[i]
    kind = _kind(x)
    if what == "unary":
        return ("unary", draw(st.sampled_from(UNARY[kind])), [i], {})
    if what == "reduce":
        axis = None
        if x.ndim and draw(st.booleans()):
            axis = draw(st.integers(-x.ndim, x.ndim - 1))
        return ("reduce", draw(st.sampled_from(REDUCTIONS)), [i],
                {"axis": axis, "keepdims": draw(st.booleans())})
    partners = [j for j in numeric
                if pool[j].dtype == x.dtype and _broadcastable(x.shape, pool[j].shape)]
    if what == "where":
        conds = [j for j, a in enumerate(pool) if a.dtype == np.bool_
                 and _broadcastable(a.shape, x.shape)]
        if not conds:
            return None
        c = draw(st.sampled_from(conds))
        y = draw(st.sampled_from([j for j in partners if _broadcastable(pool[c].shape, x.shape,
                                                                          pool[j].shape)]))
        return ("where", "where", [c, i, y], {})
    op = draw(st.sampled_from(BINARY[kind]))
    if draw(st.integers(0, 3)) == 0:   # a weak Python number on one side
        if kind == "int":
            number = draw(st.integers(-3, 3))
        else:
            number = draw(st.sampled_from([0.5, -2.0, 3.0]))
        if op == "pow" and kind == "float":
            number = abs(number)
        return ("binary", op, [i, ("number", number)] if draw(st.booleans())
                else [("number", number), i], {})
    return ("binary", op, [i, draw(st.sampled_from(partners))], {})


def _apply(step, pool):
    """Run one step on values of `pool` (eager arrays or traced tensors)."""
    what, op, operands, attrs = step
    args = [o[1] if isinstance(o, tuple) else pool[o] for o in operands]
    return getattr(api, op)(*args, **attrs)


def _trace(types, steps):
    with GraphBuilder("random") as b:
        pool = [b.add_input(t, f"x{k}") for k, t in enumerate(types)]
        for step in steps:
            pool.append(_apply(step, pool))
        return b.finish([b.value_of(v) for v in pool[len(types):]])


def _assert_same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)   # NaN == NaN here


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_interpreter_matches_eager(program):
    inputs, types, steps, eager = program
    graph = _trace(types, steps)
    verify(graph, strict=True)
    text = str(graph)
    assert str(parse_graph(text)) == text and graphs_equal(parse_graph(text), graph)
    optimised = run_passes(_trace(types, steps), verify=True)
    for g in (graph, optimised):
        if eager is None:
            with pytest.raises(InvalidArgumentError):
                run_graph(g, inputs)
        else:
            _assert_same(run_graph(g, inputs), eager)
