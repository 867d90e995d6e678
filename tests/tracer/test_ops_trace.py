"""Ops applied inside a GraphBuilder: result types, static shapes, IR text, errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph.runtime.tensor as rt
from support import assert_same, broadcast_shapes
from autograph.tracer import api
from autograph.tracer.api import nn as api_nn
from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.core.interpreter import run_graph
from autograph.tracer.core.parser import parse_graph
from autograph.tracer.tracing.symbolic import GraphBuilder, SymbolicTensor
from autograph.tracer.core.types import TensorType, as_dtype, shape_compatible
from autograph.tracer.core.verifier import verify


def trace(fn, *types, names=None):
    """Trace `fn` on inputs of `types`; return (graph, outputs as SymbolicTensors)."""
    with GraphBuilder("f") as b:
        args = [b.add_input(TensorType(as_dtype(d), s), n)
                for (d, s), n in zip(types, names or [f"a{i}" for i in range(len(types))])]
        outs = fn(*args)
        outs = outs if isinstance(outs, tuple) else (outs,)
        graph = b.finish([b.value_of(o) for o in outs])
    verify(graph, strict=True)
    assert str(parse_graph(str(graph))) == str(graph)    # the text form reads back
    return graph, outs


def test_elementwise_types_and_text():
    g, (y, c, d) = trace(lambda x, z: (api.sigmoid(x * 2 + z), x > 0.5, api.divide(z, 2)),
                         ("float32", (None, 3)), ("float32", (3,)), names=["x", "z"])
    assert y.type == TensorType(as_dtype("float32"), (None, 3))
    assert c.type == TensorType(as_dtype("bool"), (None, 3))
    text = str(g)
    for line in ("%0: float32[] = constant[value=2.0]()", "= multiply(%x, %0)",
                 "float32[None,3] = add(%1, %z)", "= sigmoid(%", "bool[None,3] = greater(%x, %"):
        assert line in text, text


def test_int_divide_traces_to_float64():
    _, (q,) = trace(lambda x: api.divide(x, x), ("int32", (2,)))
    assert q.dtype.name == "float64"


def test_eager_tensors_become_constants():
    k = rt.constant([1.0, 2.0])
    g, (y,) = trace(lambda x: x + k, ("float32", (2,)))
    assert "float32[2] = constant[value=[1.0, 2.0]]()" in str(g)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_partial_shapes_broadcast_soundly(data):
    """The type of a traced op on partially known shapes covers the eager result's shape."""
    sx, sy = data.draw(broadcast_shapes(2, min_side=1))
    mask = lambda s: tuple(None if data.draw(st.booleans()) else d for d in s)  # noqa: E731
    px, py = mask(sx), mask(sy)
    _, (out,) = trace(lambda x, y: api.maximum(x, y), ("int64", px), ("int64", py))
    concrete = np.broadcast_shapes(sx, sy)
    assert shape_compatible(concrete, out.shape), (px, py, out.shape, concrete)


def test_unknown_rank_flows_through():
    _, (y, s) = trace(lambda x: (x + 1.0, api.reduce_sum(x)), ("float32", None))
    assert y.shape is None and s.shape == ()
    _, (z,) = trace(lambda x: api.zeros_like(x), ("float64", None))
    assert z.shape is None and z.dtype.name == "float64"


def test_reductions_traced():
    g, (m, k) = trace(lambda x: (api.reduce_mean(x, axis=-1), api.reduce_max(x, 0, keepdims=True)),
                      ("int32", (None, 4)), names=["x"])
    assert m.type == TensorType(as_dtype("int32"), (None,))
    assert k.type == TensorType(as_dtype("int32"), (1, 4))
    assert "reduce_mean[axis=(1,), keepdims=False](%x)" in str(g)
    assert "reduce_max[axis=(0,), keepdims=True](%x)" in str(g)


def test_range_static_and_dynamic():
    def f(n):
        r1 = api.range(2, 11, 3)
        r2 = api.range(n)
        assert api.range_bounds(r1)[2].dtype.name == "int32"
        start, limit, delta = api.range_bounds(r2)
        assert limit is not n and limit.value is n.value
        assert api.range_bounds(n) is None and api.range_bounds(r1 + 1) is None
        return r1, r2
    g, (r1, r2) = trace(f, ("int32", ()), names=["n"])
    assert r1.shape == (3,) and r2.shape == (None,)
    assert "int32[None] = range(%" in str(g)
    assert api.range_bounds(rt.constant([1])) is None


def test_fill_and_shape_traced():
    def f(x, n):
        return (api.zeros([n, 3]), api.ones_like(x), api.shape(x), api.dim(x, 0), api.dim(x, 1),
                api.fill(api.shape(x), 2.0))
    g, (z, o, s, d0, d1, f2) = trace(f, ("float32", (None, 5)), ("int64", ()), names=["x", "n"])
    assert z.shape == (None, 3) and o.shape == (None, 5)
    assert s.type == TensorType(as_dtype("int32"), (2,))
    assert isinstance(d0, SymbolicTensor) and d0.shape == ()
    assert isinstance(d1, rt.Tensor) and int(d1) == 5      # static dims are constants
    assert f2.shape == (None, None)
    assert "int32[2] = shape(%x)" in str(g) and "float32[None,3] = fill(%n, %" in str(g)


def test_getitem_traced():
    def f(x, i):
        return x[i], x[1:i, ::-1], x[..., None, 0], x[-1]
    g, (a, b, c, d) = trace(f, ("float64", (4, None)), ("int32", ()), names=["x", "i"])
    assert a.shape == (None,) and b.shape == (None, None) and c.shape == (4, 1) and d.shape == (None,)
    text = str(g)
    assert "strided_slice[spec=('i',)](%x, %i)" in text
    assert "strided_slice[spec=('s110', 's001')](%x, %" in text
    assert "strided_slice[spec=('e', 'n', 'i')](%x, %" in text


def test_getitem_static_slice_lengths():
    _, (a, b) = trace(lambda x: (x[1:-1:2], x[::-1]), ("int32", (7,)))
    assert a.shape == (3,) and b.shape == (7,)


def test_trace_time_errors_name_the_users_line():
    with pytest.raises(InvalidArgumentError, match=r"index 3 is out of bounds for axis 0 with "
                                                   r"size 3(.|\n)*test_ops_trace\.py"):
        trace(lambda x: x[3], ("int32", (3,)))
    with pytest.raises(TypeError, match=r"exp: expected a float or complex tensor, got int32(.|\n)*"
                                        r"test_ops_trace\.py"):
        trace(lambda x: api.exp(x), ("int32", (3,)))
    with pytest.raises(TypeError, match=r"add: the operands have different dtypes int32 and float32"):
        trace(lambda x, y: x + y, ("int32", ()), ("float32", ()))
    with pytest.raises(ValueError, match=r"matmul: the inner dimensions do not match"):
        trace(lambda a, b: a @ b, ("float32", (2, 3)), ("float32", (4, None)))
    with pytest.raises(ValueError, match=r"matmul: expected rank-2 matrices, got a tensor of unknown rank"):
        trace(lambda a, b: a @ b, ("float32", None), ("float32", (4, 2)))
    # shape of an unknown-rank tensor is int32[None] (compiled code is specialised per rank)
    assert "int32[None] = shape" in str(trace(lambda x: api.shape(x), ("float32", None))[0])
    with pytest.raises(TypeError, match=r"reduce_sum: axis must be known at trace time"):
        trace(lambda x, a: api.reduce_sum(x, axis=a), ("float32", (2,)), ("int32", ()))
    with pytest.raises(ValueError, match=r"reduce_sum: negative axis -1 needs a tensor of known rank"):
        trace(lambda x: api.reduce_sum(x, axis=-1), ("float32", None))
    with pytest.raises(TypeError, match=r"zeros: a shape given as a traced tensor needs a known length"):
        trace(lambda s: api.zeros(s), ("int32", (None,)))
    with pytest.raises(InvalidArgumentError, match=r"range: delta must not be zero"):
        trace(lambda n: api.range(0, n, 0), ("int32", ()))
    with pytest.raises(InvalidArgumentError, match=r"fill: dimension 0 is negative \(-1\)"):
        trace(lambda v: api.fill([-1], v), ("float32", ()))


def test_argument_errors_while_tracing_quote_the_line():
    with pytest.raises(ValueError, match=r"reduce_sum: axis 5 is out of range(.|\n)*"
                                         r"test_ops_trace\.py(.|\n)*axis=5"):
        trace(lambda x: api.reduce_sum(x, axis=5), ("float32", (2,)))
    with pytest.raises(TypeError, match=r"getitem: indexing with a list(.|\n)*test_ops_trace\.py"):
        trace(lambda x: x[[0.5, 1.5]], ("float32", (2,)))
    with pytest.raises(TypeError) as info:
        trace(lambda x: api_nn.softmax(x), ("int32", (2,)))
    assert str(info.value).count("test_ops_trace.py") == 1


def test_traced_results_match_eager_through_the_interpreter():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4)).astype(np.float32)
    n = np.int32(2)

    def f(x, n):
        return (api_nn.softmax(x), api.reduce_sum(x * x, axis=0), x[n, 1:], api.range(n) * 3,
                api.where(x > 0, x, 0.0), api.cast(x, "int32") // 2, x @ api.ones([4, 2]))
    g, _ = trace(f, ("float32", (None, 4)), ("int32", ()))
    eager = f(rt.constant(x), rt.constant(n))
    for got, want in zip(run_graph(g, [x, n]), eager):
        assert_same(got, want)
