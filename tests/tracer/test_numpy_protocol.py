"""NumPy functions and ufuncs applied to autograph tensors.

Inside ag.function they map to the autograph ops (compiled); on eager
tensors they give the same results as ag tensors; functions without an
equivalent raise a TypeError naming them on traced tensors and fall back to
NumPy on eager ones. Expected values come from NumPy on the plain arrays.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
from support import arrays, assert_same, binary_case, declared_ops, elements, shapes, unary_case
from autograph.tracer import api
from autograph.tracer.core import registry
from autograph.tracer.core.interpreter import run_graph
from autograph.tracer.core.types import TensorType, as_dtype
from autograph.tracer.tracing.symbolic import GraphBuilder

SETTINGS = settings(max_examples=10, deadline=None)

X = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
I = np.array([[3, 1, 2], [0, 5, 5]], np.int32)  # noqa: E741 (NumPy's habit: I for integers)

# (name, function of x (float32 [2,3]) and i (int32 [2,3]), expected with NumPy semantics
# where they agree with autograph's dtype rules)
CASES = [
    ("sum", lambda x, i: np.sum(x), np.sum(X)),
    ("sum axis keepdims", lambda x, i: np.sum(x, axis=1, keepdims=True), np.sum(X, 1, keepdims=True)),
    ("mean", lambda x, i: np.mean(x, axis=0), np.mean(X, axis=0)),
    ("max", lambda x, i: np.max(x, axis=-1), np.max(X, axis=-1)),
    ("amin", lambda x, i: np.amin(x), np.amin(X)),
    ("prod", lambda x, i: np.prod(i, axis=0), np.prod(I, axis=0).astype(np.int32)),
    ("any all", lambda x, i: (np.any(x > 3), np.all(x > -3, axis=1)), (np.any(X > 3), np.all(X > -3, 1))),
    ("argmax flat", lambda x, i: np.argmax(x), np.argmax(X).astype(np.int64)),
    ("argmin axis", lambda x, i: np.argmin(i, axis=1), np.argmin(I, 1).astype(np.int64)),
    ("cumsum", lambda x, i: np.cumsum(i, axis=1), np.cumsum(I, 1).astype(np.int32)),
    ("cumsum flat", lambda x, i: np.cumsum(x), np.cumsum(X)),
    ("reshape", lambda x, i: np.reshape(x, (3, -1)), X.reshape(3, -1)),
    ("ravel", lambda x, i: np.ravel(i), I.ravel()),
    ("transpose", lambda x, i: np.transpose(x), X.T.copy()),
    ("expand_dims", lambda x, i: np.expand_dims(x, (0, 3)), np.expand_dims(X, (0, 3))),
    ("squeeze", lambda x, i: np.squeeze(np.reshape(x, (1, 2, 3))), X),
    ("stack", lambda x, i: np.stack([x, x * 2], axis=1), np.stack([X, X * 2], 1)),
    ("concatenate", lambda x, i: np.concatenate([x, x], axis=1), np.concatenate([X, X], 1)),
    ("take", lambda x, i: np.take(x, [2, 0], axis=1), np.take(X, [2, 0], 1)),
    ("where", lambda x, i: np.where(x > 0, x, 0.0), np.where(X > 0, X, np.float32(0))),
    ("clip", lambda x, i: np.clip(x, -1.0, 2.0), np.clip(X, -1, 2)),
    ("dot", lambda x, i: np.dot(x, np.transpose(x)), X @ X.T),
    ("zeros_like", lambda x, i: np.zeros_like(i), np.zeros_like(I)),
    ("ufuncs", lambda x, i: (np.exp(x), np.sqrt(np.abs(x)), np.maximum(x, 1.0), np.negative(i),
                             np.square(i), np.floor_divide(i, 2), np.remainder(i, 3), np.power(i, 2)),
     (np.exp(X), np.sqrt(np.abs(X)), np.maximum(X, np.float32(1)), -I, I * I, I // 2, I % 3, I ** 2)),
    ("comparisons", lambda x, i: (np.equal(i, 5), np.less(x, 0.0), np.logical_not(x > 0)),
     (I == 5, X < 0, ~(X > 0))),
    ("bitwise", lambda x, i: (np.bitwise_and(i, 1), np.invert(i), np.invert(i > 2)),
     (I & 1, ~I, ~(I > 2))),
    ("matmul ufunc", lambda x, i: np.matmul(x, np.transpose(x)), X @ X.T),
    ("reduce accumulate", lambda x, i: (np.add.reduce(x), np.maximum.reduce(i, axis=1),
                                        np.add.accumulate(i)),
     (np.add.reduce(X), np.maximum.reduce(I, 1), np.add.accumulate(I).astype(np.int32))),
    ("isnan", lambda x, i: (np.isnan(x - x + np.sqrt(x)), np.isnan(i)),
     (X < 0, np.zeros((2, 3), bool))),
    ("ndarray on the left", lambda x, i: (np.ones(3, np.float32) + x, np.int32(2) * i),
     (np.ones(3, np.float32) + X, 2 * I)),
    ("shape ndim size", lambda x, i: (np.size(x), np.shape(x)[1] + np.ndim(x) + ag.constant(0)),
     (np.array(6, np.int32), np.array(5, np.int32))),
]


def _compare(got, expected):
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _compare(g, e)
        return
    assert isinstance(got, ag.Tensor), type(got)
    assert_same(got, np.asarray(expected))


@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_numpy_functions_compile_and_run_eagerly(name, fn, expected):
    with np.errstate(all="ignore"):
        _compare(ag.function(fn)(X, I), expected)
        _compare(fn(ag.constant(X), ag.constant(I)), expected)
    cf = ag.function(fn).get_concrete_function(ag.TensorSpec([None, 3]), ag.TensorSpec([2, None], ag.int32))
    if name != "shape ndim size":      # (those are Python values with None dims)
        with np.errstate(all="ignore"):
            _compare(cf(X, I), expected)


def _declared_ufuncs():
    """(NumPy ufunc name, op, dtype): every declared elementwise op's ufunc, with
    every dtype its kind accepts."""
    out = []
    for arity in ("unary", "binary"):
        for dtype in ("bool", "int32", "float32", "float64"):
            for op in declared_ops(arity, dtype):
                out += [(n, op, dtype) for n in registry.get(op).numpy if "." not in n]
    return out


@pytest.mark.parametrize("ufunc,op,dtype", _declared_ufuncs(), ids=lambda v: str(v))
@SETTINGS
@given(data=st.data())
def test_declared_ufuncs_apply_their_op(ufunc, op, dtype, data):
    """np.<ufunc> on a tensor, eager or traced, is the op that names it."""
    if registry.get(op).elementwise == "unary":
        args = [data.draw(unary_case(op, dtype))]
    else:
        args = list(data.draw(binary_case(op, dtype)))
    expected = getattr(api, op)(*args)
    u = getattr(np, ufunc)
    assert_same(u(*[ag.constant(a) for a in args]), expected)
    with GraphBuilder("f") as b:
        inputs = [b.add_input(TensorType(as_dtype(dtype), a.shape), f"x{k}") for k, a in enumerate(args)]
        graph = b.finish([b.value_of(u(*inputs))])
    assert [o.name for o in graph.body.ops] == [op]
    assert_same(run_graph(graph, args)[0], expected)


@SETTINGS
@given(st.data())
def test_reductions_and_ufuncs_differential(data):
    dtype = data.draw(st.sampled_from(["float32", "float64", "int32", "int64"]))
    elems = elements(dtype, -50, 50) if dtype.startswith("int") else elements(dtype, -50, 50)
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3, min_side=1), elems))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))

    def f(a):
        return np.sum(a, axis=axis), np.max(a), np.abs(a) + a, np.cumsum(a, axis=axis)

    expected = (np.sum(x, axis=axis, dtype=x.dtype), np.max(x), np.abs(x) + x,
                np.cumsum(x, axis=axis, dtype=x.dtype))
    for got in (ag.function(f)(x), f(ag.constant(x))):
        for g, e in zip(got, expected):
            assert_same(g, e)


def test_unsupported_functions_on_traced_tensors_name_the_function():
    with pytest.raises(TypeError, match=r"np\.sort_complex has no autograph equivalent(.|\n)*"
                                        r"test_numpy_protocol\.py(.|\n)*np\.sort_complex\(a\)"):
        ag.function(lambda a: np.sort_complex(a))(X)
    with pytest.raises(TypeError, match=r"np\.linalg\.eig has no autograph equivalent"):
        ag.function(lambda a: np.linalg.eig(a))(np.eye(2))    # (inv, solve, eigh...: LAPACK)
    with pytest.raises(TypeError, match=r"np\.cumsum: the dtype= argument has no autograph equivalent"):
        ag.function(lambda a: np.cumsum(a, dtype=np.float64))(X)
    with pytest.raises(TypeError, match=r"np\.add: the out= argument has no autograph equivalent"):
        ag.function(lambda a: np.add(a, a, out=np.empty((2, 3), np.float32)))(X)
    with pytest.raises(TypeError, match=r"np\.add\.reduceat has no autograph equivalent"):
        ag.function(lambda a: np.add.reduceat(a, [0, 1]))(X)   # (np.add.outer works)
    with pytest.raises(TypeError, match=r"np\.bitwise_count has no autograph equivalent"):
        ag.function(lambda a: np.bitwise_count(a))(I)
    # (converted code routes np.asarray of a traced tensor to the tensor itself;
    # without conversion NumPy asks the tensor for its values)
    with pytest.raises(TypeError, match=r"cannot convert a traced tensor to a NumPy array"):
        ag.function(lambda a: np.asarray(a), autograph=False)(X)


def test_eager_fallback_and_dtype_rules():
    t = ag.constant(X)
    s = np.sort_complex(t)                       # no autograph op: NumPy computes it
    assert isinstance(s, np.ndarray)
    assert_same(s, np.sort_complex(X))
    out = np.empty((2, 3), np.float32)
    np.add(t, t, out=out)                        # out= eagerly: NumPy's business
    assert_same(out, X + X)
    assert np.allclose(t, X) and np.array_equal(ag.constant(I), I)
    with pytest.raises(TypeError, match=r"add: the operands have different dtypes float32 and float64"):
        np.add(t, np.ones(3))                    # autograph's rule: no silent promotion
    with pytest.raises(TypeError, match=r"different dtypes float32 and float64"):
        ag.function(lambda a, b: np.maximum(a, b))(X, np.ones(3))
    assert_same(np.mean(ag.constant(I)), np.array(2, np.int32))     # reduce_mean keeps ints
