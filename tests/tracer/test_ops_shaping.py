"""reshape, transpose, expand_dims, squeeze, stack, concat, gather, eye, size,
rank, argmax, argmin, cumsum and integer-array indexing.

Each hypothesis test computes the expected result with independent NumPy
code and checks it against the eager op, the op compiled with static shapes
(`ag.function`) and compiled with every dimension `None` (one concrete
function per op/dtype/rank/attributes, reused across examples). Error paths
check the message eagerly, at trace time and at run time.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag
from support import INTS, NUMERIC, arrays, assert_same, elements, shapes
from autograph.tracer.core import registry
from autograph.tracer.core.parser import parse_graph
from autograph.tracer.core.verifier import verify

SETTINGS = settings(max_examples=15, deadline=None)
IAE = ag.errors.InvalidArgumentError
_dynamic = {}


def _check_all(fn, expected, arrays, key):
    """fn(*arrays) equals `expected` eagerly, compiled (static) and compiled
    with None dims; an expected exception type is raised by all three."""
    compiled = ag.function(fn)
    cf = _dynamic.get(key)
    if cf is None:
        specs = [ag.TensorSpec([None] * a.ndim, a.dtype) for a in arrays]
        cf = _dynamic[key] = ag.function(fn).get_concrete_function(*specs)
    for run in (fn, compiled, cf):
        if isinstance(expected, type):
            with pytest.raises(expected):
                run(*arrays)
        else:
            got = run(*arrays)
            if isinstance(expected, tuple):
                for g, e in zip(got, expected):
                    assert_same(g, e)
            else:
                assert_same(got, expected)


def _values(dtype):
    if dtype == "bool":
        return st.booleans()
    return elements(dtype, -100, 100) if dtype in INTS else elements(dtype, special=True)


# ---------------------------------------------------------------- reshape

@st.composite
def reshape_case(draw):
    dtype = draw(st.sampled_from(NUMERIC + ("bool",)))
    x = draw(arrays(dtype, shapes(max_dims=3, max_side=4), _values(dtype)))
    n = x.size
    dims = []
    if n == 0:
        dims = draw(st.permutations([0] + draw(st.lists(st.integers(0, 3), max_size=2))))
    else:
        rest = n
        for _ in range(draw(st.integers(0, 3))):
            divisors = [d for d in range(1, rest + 1) if rest % d == 0]
            d = draw(st.sampled_from(divisors))
            dims.append(d)
            rest //= d
        dims.append(rest)
        dims = draw(st.permutations(dims))
        if draw(st.booleans()):
            dims = list(dims)
            dims[draw(st.integers(0, len(dims) - 1))] = -1
    return x, list(dims)


@SETTINGS
@given(reshape_case())
def test_reshape(case):
    x, dims = case
    expected = np.reshape(x, dims)
    _check_all(lambda a: ag.reshape(a, dims), expected, [x], ("reshape", x.dtype, x.ndim, tuple(dims)))


@SETTINGS
@given(reshape_case())
def test_reshape_with_traced_dims(case):
    x, dims = case
    f = ag.function(lambda a, s: ag.reshape(a, s))
    cf = f.get_concrete_function(ag.TensorSpec([None] * x.ndim, x.dtype),
                                 ag.TensorSpec([len(dims)], ag.int32))
    out = cf(x, np.array(dims, np.int32))
    assert out.shape == np.reshape(x, dims).shape
    assert_same(out, np.reshape(x, dims))
    assert cf.graph.outputs[0].type.shape == (None,) * len(dims)


def test_reshape_errors():
    x = np.arange(6.0, dtype=np.float32)
    msg = r"reshape: cannot reshape a tensor of 6 elements into shape \(4, -1\)"
    with pytest.raises(IAE, match=msg):
        ag.reshape(x, [4, -1])
    with pytest.raises(IAE, match=msg + r"(.|\n)*test_ops_shaping\.py"):
        ag.function(lambda a: ag.reshape(a, [4, -1]))(x)            # at trace time
    cf = ag.function(lambda a: ag.reshape(a, [4, -1])).get_concrete_function(ag.TensorSpec([None]))
    with pytest.raises(IAE, match=msg + r"(.|\n)*test_ops_shaping\.py"):
        cf(x)                                                       # at run time
    with pytest.raises(IAE, match=r"reshape: cannot reshape a tensor of 6 elements into shape \(4,\)"):
        cf2 = ag.function(lambda a, n: ag.reshape(a, [n])).get_concrete_function(
            ag.TensorSpec([None]), ag.TensorSpec([], ag.int32))
        cf2(x, np.int32(4))
    with pytest.raises(IAE, match=r"only one dimension can be -1"):
        ag.reshape(x, [-1, -1])
    with pytest.raises(IAE, match=r"only one dimension can be -1"):
        cf2 = ag.function(lambda a, n: ag.reshape(a, [n, -1])).get_concrete_function(
            ag.TensorSpec([None]), ag.TensorSpec([], ag.int32))
        cf2(x, np.int32(-1))
    with pytest.raises(IAE, match=r"reshape: dimension 0 is negative \(-2\)"):
        ag.reshape(x, [-2, 3])
    with pytest.raises(IAE, match=r"cannot reshape a tensor of 0 elements into shape \(0, -1\)"):
        ag.reshape(np.zeros((0, 2)), [0, -1])
    with pytest.raises(TypeError, match=r"reshape: dimension 0 of the shape must be an int, got float32"):
        ag.reshape(x, [np.float32(2.0), 3])


def test_reshape_reuses_the_buffer_and_keeps_inputs_intact():
    x = np.arange(12.0)
    f = ag.function(lambda a: ag.reshape(a * 2.0, [3, 4]) + ag.reshape(a, [3, 4]))
    assert_same(f(x), (x * 3).reshape(3, 4))
    assert_same(x, np.arange(12.0))
    # The scalar cases: to and from shape ().
    assert_same(ag.function(lambda a: ag.reshape(a, []))(np.array([5], np.int64)), np.array(5, np.int64))
    assert_same(ag.function(lambda a: ag.reshape(a, [1, 1]))(np.float32(2)), np.full((1, 1), 2, np.float32))


# ---------------------------------------------------------------- transpose / expand_dims / squeeze

@SETTINGS
@given(st.data())
def test_transpose(data):
    dtype = data.draw(st.sampled_from(NUMERIC + ("bool",)))
    x = data.draw(arrays(dtype, shapes(max_dims=4), _values(dtype)))
    perm = data.draw(st.one_of(st.none(), st.permutations(range(x.ndim))))
    expected = np.transpose(x, perm).copy()
    _check_all(lambda a: ag.transpose(a, perm), expected, [x],
               ("transpose", dtype, x.ndim, None if perm is None else tuple(perm)))


@SETTINGS
@given(st.data())
def test_expand_dims(data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    x = data.draw(arrays(dtype, shapes(max_dims=3), _values(dtype)))
    axis = data.draw(st.integers(-x.ndim - 1, x.ndim))
    _check_all(lambda a: ag.expand_dims(a, axis), np.expand_dims(x, axis), [x],
               ("expand_dims", dtype, x.ndim, axis))


@SETTINGS
@given(st.data())
def test_squeeze(data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    x = data.draw(arrays(dtype, shapes(max_dims=4, min_side=1, max_side=2), _values(dtype)))
    ones = [k for k, d in enumerate(x.shape) if d == 1]
    axis = data.draw(st.one_of(st.just(None), st.lists(st.sampled_from(ones), unique=True)
                               if ones else st.just([])))
    expected = np.squeeze(x, axis=None if axis is None else tuple(axis))
    fn = (lambda a: ag.squeeze(a, axis))  # noqa: E731
    assert_same(fn(x), expected)
    assert_same(ag.function(fn)(x), expected)
    if axis is not None:
        _check_all(fn, expected, [x], ("squeeze", dtype, x.ndim, tuple(axis)))


def test_shape_op_errors():
    x = np.zeros((2, 1, 3), np.float32)
    with pytest.raises(IAE, match=r"squeeze: cannot squeeze dimension 2 of a tensor of shape "
                                  r"\(2, 1, 3\): its size is 3, not 1"):
        ag.squeeze(x, axis=2)
    cf = ag.function(lambda a: ag.squeeze(a, axis=[1, 2])).get_concrete_function(
        ag.TensorSpec([None, None, None]))
    with pytest.raises(IAE, match=r"squeeze: cannot squeeze dimension 2 of a tensor of shape "
                                  r"\(2, 1, 3\): its size is 3, not 1(.|\n)*test_ops_shaping\.py"):
        cf(x)
    assert_same(cf(np.zeros((2, 1, 1), np.float32)), np.zeros(2, np.float32))
    with pytest.raises(ValueError, match=r"squeeze: dimension 0 of shape \(None, 1\) is unknown at "
                                         r"trace time(.|\n)*axis"):
        ag.function(lambda a: ag.squeeze(a)).get_concrete_function(ag.TensorSpec([None, 1]))
    with pytest.raises(ValueError, match=r"transpose: perm \(0,\) has 1 entries for a tensor of rank 3"):
        ag.transpose(x, [0])
    with pytest.raises(ValueError, match=r"transpose: perm \(0, 0, 1\) is not a permutation"):
        ag.transpose(x, [0, 0, 1])
    with pytest.raises(ValueError, match=r"expand_dims: axis 4 is out of range for a tensor of rank 3"):
        ag.expand_dims(x, 4)
    with pytest.raises(TypeError, match=r"expand_dims: axis must be known at trace time"):
        ag.function(lambda a, k: ag.expand_dims(a, k))(x, np.int32(0))


# ---------------------------------------------------------------- stack / concat

@SETTINGS
@given(st.data())
def test_stack(data):
    dtype = data.draw(st.sampled_from(NUMERIC + ("bool",)))
    shape = data.draw(shapes(max_dims=3))
    n = data.draw(st.integers(1, 3))
    parts = [data.draw(arrays(dtype, shape, _values(dtype))) for _ in range(n)]
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    fn = {1: lambda a: ag.stack([a], axis), 2: lambda a, b: ag.stack([a, b], axis),
          3: lambda a, b, c: ag.stack((a, b, c), axis=axis)}[n]
    _check_all(fn, np.stack(parts, axis), parts, ("stack", dtype, len(shape), n, axis))


@SETTINGS
@given(st.data())
def test_concat(data):
    dtype = data.draw(st.sampled_from(NUMERIC + ("bool",)))
    shape = list(data.draw(shapes(min_dims=1, max_dims=3)))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.integers(1, 3))
    parts = []
    for _ in range(n):
        shape[axis] = data.draw(st.integers(0, 3))
        parts.append(data.draw(arrays(dtype, tuple(shape), _values(dtype))))
    fn = {1: lambda a: ag.concat([a], axis), 2: lambda a, b: ag.concat([a, b], axis),
          3: lambda a, b, c: ag.concat([a, b, c], axis=axis)}[n]
    _check_all(fn, np.concatenate(parts, axis), parts, ("concat", dtype, len(shape), n, axis))


def test_stack_concat_errors_and_scalars():
    assert_same(ag.function(lambda a, b: ag.stack([a, b, 3.0]))(np.float32(1), np.float32(2)),
                np.array([1, 2, 3], np.float32))
    msg = r"stack: part 1 has size 3 in dimension 0 but part 0 has size 2"
    with pytest.raises(IAE, match=msg):
        ag.stack([np.ones(2), np.zeros(3)])
    cf = ag.function(lambda a, b: ag.stack([a, b])).get_concrete_function(
        ag.TensorSpec([None]), ag.TensorSpec([None]))
    with pytest.raises(IAE, match=msg + r"(.|\n)*test_ops_shaping\.py"):
        cf(np.ones(2, np.float32), np.ones(3, np.float32))
    cf = ag.function(lambda a, b: ag.concat([a, b], 1)).get_concrete_function(
        ag.TensorSpec([None, None]), ag.TensorSpec([None, None]))
    with pytest.raises(IAE, match=r"concat: part 1 has size 3 in dimension 0 but part 0 has size 2"):
        cf(np.ones((2, 1), np.float32), np.ones((3, 1), np.float32))
    assert_same(cf(np.ones((2, 1), np.float32), np.zeros((2, 2), np.float32)),
                np.array([[1, 0, 0], [1, 0, 0]], np.float32))
    with pytest.raises(TypeError, match=r"stack: the operands have different dtypes float32 and float64"):
        ag.stack([np.ones(2, np.float32), np.ones(2)])
    with pytest.raises(ValueError, match=r"concat: cannot concatenate scalars; use ag.stack"):
        ag.concat([np.float32(1), np.float32(2)], 0)
    with pytest.raises(ValueError, match=r"stack: expected a non-empty list of tensors"):
        ag.stack([])
    with pytest.raises(ValueError, match=r"concat: axis 1 is out of range for a tensor of rank 1"):
        ag.concat([np.ones(2)], 1)


# ---------------------------------------------------------------- gather and x[idx]

@st.composite
def gather_case(draw):
    dtype = draw(st.sampled_from(NUMERIC + ("bool",)))
    params = draw(arrays(dtype, shapes(min_dims=1, max_dims=3, min_side=1), _values(dtype)))
    axis = draw(st.integers(-params.ndim, params.ndim - 1))
    size = params.shape[axis]
    idx_dtype = draw(st.sampled_from(INTS))
    indices = draw(hnp.arrays(idx_dtype, shapes(max_dims=2), elements=st.integers(-size, size - 1)))
    return params, indices, axis


@SETTINGS
@given(gather_case())
def test_gather(case):
    params, indices, axis = case
    expected = np.take(params, indices, axis=axis)
    _check_all(lambda p, i: ag.gather(p, i, axis=axis), expected, [params, indices],
               ("gather", params.dtype, params.ndim, indices.dtype, indices.ndim, axis))


@SETTINGS
@given(gather_case())
def test_integer_array_indexing(case):
    params, indices, axis = case
    a = axis % params.ndim
    key_np = (slice(None),) * a + (indices,)
    expected = params[key_np]
    if indices.ndim == 0:
        return   # a scalar int index is basic indexing, tested elsewhere
    _check_all(lambda p, i: p[(slice(None),) * a + (i,)], expected, [params, indices],
               ("getitem-gather", params.dtype, params.ndim, indices.dtype, indices.ndim, a))
    if a == params.ndim - 1 and a > 0:
        assert_same(ag.function(lambda p, i: p[..., i])(params, indices), expected)
    if a == 0 and indices.size:
        assert_same(ag.function(lambda p: p[indices.tolist()])(params), expected)


def test_gather_errors():
    x = np.arange(6.0).reshape(2, 3)
    msg = r"gather: index 3 is out of bounds for axis 1 with size 3"
    with pytest.raises(IAE, match=msg):
        ag.gather(x, [0, 3], axis=1)
    with pytest.raises(IAE, match=msg + r"(.|\n)*test_ops_shaping\.py"):
        ag.function(lambda a: ag.gather(a, [0, 3], axis=1))(x)       # constant indices: trace time
    cf = ag.function(lambda a, i: ag.gather(a, i, axis=1)).get_concrete_function(
        ag.TensorSpec([None, None], ag.float64), ag.TensorSpec([None], ag.int32))
    with pytest.raises(IAE, match=msg + r"(.|\n)*test_ops_shaping\.py(.|\n)*ag\.gather"):
        cf(x, np.array([0, 3], np.int32))
    with pytest.raises(IAE, match=r"gather: index -4 is out of bounds for axis 1 with size 3"):
        cf(x, np.array([-4], np.int32))
    with pytest.raises(IAE, match=r"gather: index 2 is out of bounds for axis 0 with size 2"):
        ag.function(lambda a, i: a[i])(x, np.array([2]))
    # Empty indices never fault, even into an empty axis.
    assert_same(cf(np.zeros((2, 0)), np.zeros(0, np.int32)), np.zeros((2, 0)))
    with pytest.raises(TypeError, match=r"gather: expected an integer tensor for the indices, got float32"):
        ag.gather(x, np.array([0.0], np.float32))
    with pytest.raises(ValueError, match=r"gather: params must have rank >= 1, got a scalar"):
        ag.gather(np.float32(1), [0])
    with pytest.raises(ValueError, match=r"gather: batch_dims=1 is not supported"):
        ag.gather(x, [0], batch_dims=1)
    # boundscheck=False trades the check for speed (in-range indices still work).
    f = ag.function(lambda a, i: ag.gather(a, i), boundscheck=False)
    assert_same(f(np.arange(4.0), np.array([3, -1, 0])), np.array([3.0, 3.0, 0.0]))


# ---------------------------------------------------------------- eye / size / rank

@SETTINGS
@given(st.integers(0, 5), st.one_of(st.none(), st.integers(0, 5)), st.sampled_from(NUMERIC + ("bool",)))
def test_eye(n, m, dtype):
    expected = np.eye(n, m, dtype=dtype)
    assert_same(ag.eye(n, m, dtype=dtype), expected)
    assert_same(ag.function(lambda: ag.eye(n, m, dtype=dtype))(), expected)
    cf = ag.function(lambda a, b: ag.eye(a, b, dtype=dtype)).get_concrete_function(
        ag.TensorSpec([], ag.int32), ag.TensorSpec([], ag.int64))
    assert_same(cf(np.int32(n), np.int64(n if m is None else m)), expected)


def test_eye_errors():
    with pytest.raises(IAE, match=r"eye: num_rows must be >= 0, got -1"):
        ag.eye(-1)
    cf = ag.function(lambda a: ag.eye(a)).get_concrete_function(ag.TensorSpec([], ag.int32))
    with pytest.raises(IAE, match=r"eye: num_rows must be >= 0, got -2(.|\n)*test_ops_shaping\.py"):
        cf(np.int32(-2))
    with pytest.raises(ValueError, match=r"eye: batch_shape is not supported"):
        ag.eye(2, batch_shape=[3])


@SETTINGS
@given(st.data())
def test_size_and_rank(data):
    x = data.draw(arrays("float32", shapes(max_dims=4)))
    for out in (ag.size(x), ag.function(lambda a: ag.size(a))(x)):
        assert_same(out, np.array(x.size, np.int32))
    assert_same(ag.size(x, out_type=ag.int64), np.array(x.size, np.int64))
    assert_same(ag.rank(x), np.array(x.ndim, np.int32))
    cf = ag.function(lambda a: (ag.size(a), ag.rank(a), ag.size(a, out_type=ag.int64))) \
        .get_concrete_function(ag.TensorSpec([None] * x.ndim))
    s, r, s64 = cf(x)
    assert_same(s, np.array(x.size, np.int32))
    assert_same(r, np.array(x.ndim, np.int32))
    assert_same(s64, np.array(x.size, np.int64))
    assert ("size(" in str(cf.graph)) == (x.ndim > 0)     # a dynamic size is an op; rank is constant


# ---------------------------------------------------------------- argmax / argmin / cumsum

@pytest.mark.parametrize("op", ["argmax", "argmin"])
@SETTINGS
@given(data=st.data())
def test_argmax_argmin(op, data):
    dtype = data.draw(st.sampled_from(NUMERIC + ("bool",)))
    elems = st.integers(-3, 3) if dtype in INTS else _values(dtype)
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3), elems))
    axis = data.draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)))
    out_type = data.draw(st.sampled_from(["int64", "int32"]))
    a = 0 if axis is None else axis
    try:
        expected = getattr(np, op)(x, axis=a).astype(out_type)    # NumPy: first index, NaN wins
    except ValueError:   # an empty axis
        expected = IAE if math.prod(x.shape[:a % x.ndim] + x.shape[a % x.ndim + 1:]) else \
            np.zeros(x.shape[:a % x.ndim] + x.shape[a % x.ndim + 1:], out_type)
    fn = getattr(ag, op)
    _check_all(lambda t: fn(t, axis=axis, output_type=out_type), expected, [x],
               (op, dtype, x.ndim, axis, out_type))


@SETTINGS
@given(data=st.data())
def test_cumsum(data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    elems = elements(dtype, special=True) if dtype in INTS else elements(dtype, -100, 100)
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3), elems))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    exclusive, reverse = data.draw(st.booleans()), data.draw(st.booleans())
    # Independently: flip, shift by one for exclusive, accumulate in order, flip back.
    y = np.flip(x, axis) if reverse else x
    if exclusive:
        y = np.moveaxis(y, axis, 0)
        y = np.concatenate([np.zeros_like(y[:1]), y[:-1]])[: y.shape[0]]
        y = np.moveaxis(y, 0, axis)
    with np.errstate(all="ignore"):
        expected = np.add.accumulate(y, axis=axis, dtype=x.dtype)
    expected = np.ascontiguousarray(np.flip(expected, axis) if reverse else expected)
    _check_all(lambda t: ag.cumsum(t, axis, exclusive=exclusive, reverse=reverse), expected, [x],
               ("cumsum", dtype, x.ndim, axis, exclusive, reverse))


def test_scan_errors_and_defaults():
    x = np.array([[1, 9, 9], [7, 2, 7]], np.int32)
    assert_same(ag.argmax(x), np.array([1, 0, 0], np.int64))         # axis=None means 0 (TF)
    assert_same(ag.math.argmin(x, 1), np.array([0, 1], np.int64))
    assert_same(ag.math.cumsum(x), np.cumsum(x, axis=0, dtype=np.int32))
    with pytest.raises(IAE, match=r"argmax: cannot take the argmax of an empty axis \(axis 0 has size 0\)"):
        ag.argmax(np.zeros((0, 3)))
    with pytest.raises(ValueError, match=r"argmin: expected a tensor of rank >= 1, got a scalar"):
        ag.argmin(np.float32(1))
    with pytest.raises(TypeError, match=r"argmax: output_type must be int32 or int64, got float32"):
        ag.argmax(x, output_type=ag.float32)
    with pytest.raises(TypeError, match=r"cumsum: expected an int, float or complex tensor, got bool"):
        ag.cumsum(np.array([True]))
    with pytest.raises(ValueError, match=r"cumsum: axis 2 is out of range for a tensor of rank 2"):
        ag.cumsum(x, 2)


# ---------------------------------------------------------------- IR

def test_ir_text_reads_back_and_every_new_op_is_lowered():
    from autograph.codegen.lowering import load_all
    from autograph.codegen.lowering.registry import LOWERINGS

    def f(x, i, n):
        a = ag.reshape(x, [n, -1])
        return (ag.transpose(a), ag.expand_dims(x, 0), ag.squeeze(ag.reshape(x, [1, -1]), 0),
                ag.stack([x, x]), ag.concat([x, x], 0), ag.gather(x, i), ag.eye(n), ag.size(x),
                ag.argmax(a, 1), ag.argmin(a), ag.cumsum(a, 1, reverse=True))

    cf = ag.function(f).get_concrete_function(ag.TensorSpec([None]), ag.TensorSpec([None], ag.int32),
                                              ag.TensorSpec([], ag.int32))
    text = str(cf.graph)
    assert str(parse_graph(text)) == text
    verify(parse_graph(text))
    load_all()
    new = ["reshape", "transpose", "expand_dims", "squeeze", "stack", "concat", "gather", "eye",
           "size", "rank", "argmax", "argmin", "cumsum", "random_uniform", "random_normal",
           "random_uniform_int", "print"]
    for name in new:
        assert name in registry.REGISTRY and name in LOWERINGS, name
    x = np.arange(6, dtype=np.float32)
    got = cf(x, np.array([5, 0], np.int32), np.int32(2))
    assert_same(got[0], x.reshape(2, 3).T.copy())
    assert_same(got[6], np.eye(2, dtype=np.float32))
