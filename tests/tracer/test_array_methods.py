"""NumPy's array methods and attributes on tensors (API.md section 9).

Differential: the same method call on a NumPy array, on an eager tensor and
inside a compiled `ag.function`; ints and bools exactly, floats within
`support.TOLERANCE` (var/std within 1e-12 relative). Error messages: an
unknown attribute (with the user's file and line while tracing), `.item()`
of a tensor with several elements, a bad axis, `out=`.
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag

THIS_FILE = os.path.basename(__file__)

REDUCTIONS = ("sum", "mean", "max", "min", "prod", "argmax", "argmin", "cumsum", "var", "std")


def _same(got, want, rtol=1e-12):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12)


@st.composite
def _reduction_case(draw):
    method = draw(st.sampled_from(REDUCTIONS + ("any", "all")))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    if method in ("any", "all"):
        x = draw(hnp.arrays(np.bool_, shape))
    elif method in ("sum", "max", "min", "argmax", "argmin", "cumsum", "prod") and draw(st.booleans()):
        x = draw(hnp.arrays(np.int64, shape, elements=st.integers(-5, 5)))
    else:
        x = draw(hnp.arrays(np.float64, shape, elements=st.floats(-10, 10, width=64)))
    axis = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    kwargs = {} if axis is None and draw(st.booleans()) else {"axis": axis}
    if method not in ("cumsum",) and draw(st.booleans()):
        kwargs["keepdims"] = draw(st.booleans())
    if method in ("var", "std") and draw(st.booleans()):
        kwargs["ddof"] = 1
        if axis is None and x.size < 2 or axis is not None and x.shape[axis] < 2:
            kwargs["ddof"] = 0
    return method, x, kwargs


@settings(max_examples=60, deadline=None)
@given(_reduction_case())
def test_reduction_methods_eager_match_numpy(case):
    method, x, kwargs = case
    want = getattr(x, method)(**kwargs)
    got = getattr(ag.constant(x), method)(**kwargs)
    assert isinstance(got, ag.Tensor)
    _same(got, want)


@settings(max_examples=8, deadline=None)
@given(_reduction_case())
def test_reduction_methods_compiled_match_numpy(case):
    method, x, kwargs = case
    want = getattr(x, method)(**kwargs)
    f = ag.function(lambda t: getattr(t, method)(**kwargs))
    _same(f(x), want)


X = np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 7.5
M = np.arange(12, dtype=np.int64).reshape(3, 4)

SHAPE_CASES = {
    "T": (lambda a: a.T, X),
    "T_1d": (lambda a: a.T, X[0, 0]),
    "reshape_args": (lambda a: a.reshape(4, -1), X),
    "reshape_tuple": (lambda a: a.reshape((6, 4)), X),
    "reshape_list": (lambda a: a.reshape([-1]), X),
    "reshape_int": (lambda a: a.reshape(24), X),
    "transpose_none": (lambda a: a.transpose(), X),
    "transpose_args": (lambda a: a.transpose(1, 0, 2), X),
    "transpose_tuple": (lambda a: a.transpose((2, 0, 1)), X),
    "flatten": (lambda a: a.flatten(), X),
    "ravel": (lambda a: a.ravel(), M),
    "copy": (lambda a: a.copy() + 1, M),
    "astype_float": (lambda a: a.astype(np.float32), M),
    "astype_pyfloat": (lambda a: a.astype(float), M),
    "astype_int": (lambda a: a.astype(int), X),
    "astype_bool": (lambda a: a.astype(bool), M),
    "item": (lambda a: a[1, 2].item() * 2, M),
    "item_1elem": (lambda a: a.reshape(1, 1, -1)[:, :, :1].item(), X),
    "item_index": (lambda a: a.item(5), M),
    "dot_vec": (lambda a: a[0].dot(a[1]), M),
    "dot_mat": (lambda a: a.dot(a.T), M),
    "dot_nd": (lambda a: a.dot(a[0, 0]), X),
    "size": (lambda a: a.size + a.ndim, X),
    "shape": (lambda a: a.shape[0] * 10 + a.shape[-1], X),
    "chained": (lambda a: (a.T @ a).sum(axis=0).argmax(), M),
    "clip": (lambda a: a.clip(-2, 5.5), X),
    "cumprod": (lambda a: (a % 3 + 1).cumprod(axis=1), M),
    "swapaxes": (lambda a: a.swapaxes(0, 2), X),
    "trace": (lambda a: a.trace(), M),
    "trace_offset": (lambda a: a.trace(1), M),
    "diagonal": (lambda a: a.diagonal(-1), M),
    "repeat": (lambda a: a.repeat(2, axis=1), M),
    "take": (lambda a: a.take([2, 0], axis=1), X),
    "squeeze": (lambda a: a[:, :1].squeeze(1), M),
    "real_imag": (lambda a: a.real + a.imag, X),
}


def _all_shape_cases(*arrays):
    return tuple(SHAPE_CASES[name][0](a) for name, a in zip(sorted(SHAPE_CASES), arrays))


# One compiled function holds every case (one compile instead of one each).
_COMPILED = []


def _compiled_results():
    if not _COMPILED:
        _COMPILED.append(dict(zip(sorted(SHAPE_CASES), ag.function(_all_shape_cases)(
            *[SHAPE_CASES[n][1] for n in sorted(SHAPE_CASES)]))))
    return _COMPILED[0]


@pytest.mark.parametrize("name", sorted(SHAPE_CASES))
def test_shape_methods_match_numpy_eager_and_compiled(name):
    fn, x = SHAPE_CASES[name]
    want = fn(x)
    eager = fn(ag.constant(x))
    compiled = _compiled_results()[name]
    for got in (eager, compiled):
        if isinstance(want, int):   # a Python int result: an int32 tensor when compiled (TF's rule)
            assert int(got) == want
            continue
        got_arr = np.asarray(got)
        assert got_arr.dtype == np.asarray(want).dtype, (name, got_arr.dtype, np.asarray(want).dtype)
        _same(got_arr, want)


def test_eager_item_is_a_python_scalar_and_traced_item_a_0d_tensor():
    assert ag.constant(np.array([[2.5]])).item() == 2.5
    assert type(ag.constant(np.array([[2.5]])).item()) is float
    assert type(ag.constant(np.array([7], np.int32)).item()) is int

    seen = {}

    @ag.function
    def f(x):
        v = x.item()
        seen["v"] = v
        return v * 2
    assert float(f(np.array([3.0]))) == 6.0
    assert type(seen["v"]).__name__ == "SymbolicTensor" and seen["v"].shape == ()


def test_copy_is_a_separate_value_for_item_assignment():
    @ag.function
    def f(x):
        y = x.copy()
        y[0] = 100.0
        return x, y
    x = np.arange(3.0)
    a, b = f(x)
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(b, [100.0, 1.0, 2.0])
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0])


def test_loops_bounded_by_a_dimension_compile_instead_of_unrolling():
    @ag.function
    def f(x):
        n = x.shape[0]
        if n < 2:
            return x
        out = np.zeros(n - 1)
        for i in range(1, n):
            out[i - 1] = x[i] - x[i - 1]
        return out

    @ag.function
    def g(x):
        i, acc = 0, 0.0
        while i < x.shape[0]:   # a Python counter against a dimension: one compiled loop
            acc += x[i]
            i += 1
        return acc
    np.testing.assert_array_equal(f(np.array([1.0, 4.0, 9.0])), [3.0, 5.0])
    np.testing.assert_array_equal(f(np.array([7.0])), [7.0])
    x = np.arange(5000.0)
    assert float(g(x)) == x.sum()
    graph = g.get_concrete_function(x).graph
    assert "while" in str(graph) and len(str(graph).splitlines()) < 60   # not unrolled


def test_dynamic_dimensions_are_traced_int32_scalars():
    @ag.function(input_signature=[ag.TensorSpec([None, None], ag.float64)])
    def f(x):
        n, m = x.shape
        out = np.zeros((n, m))
        for i in range(x.shape[0]):
            out[i] = x[i] * 2.0
        return out, x.size, n, x.shape[-1], len(x), x.shape == (None, None)
    x = np.arange(6.0).reshape(2, 3)
    out, size, n, m, length, equal = f(x)
    np.testing.assert_array_equal(out, x * 2)
    assert size.dtype == ag.int32 and int(size) == 6
    assert n.dtype == ag.int32 and int(n) == 2 and int(m) == 3 and int(length) == 2
    assert bool(equal)
    # the same function on another run-time shape, without retracing
    out, size, *_ = f(np.ones((4, 1)))
    assert out.shape == (4, 1) and int(size) == 4


def test_static_dimensions_are_traced_in_converted_code_and_ints_without_autograph():
    seen = {}

    @ag.function
    def f(x):
        seen["shape"] = x.shape
        seen["n"] = x.shape[0]
        seen["size"] = x.size
        acc = 0.0
        for i in range(x.shape[0]):   # a compiled loop, as with len(x)
            acc += x[i, 0]
        return acc

    assert float(f(np.ones((2, 3)))) == 2.0
    assert seen["shape"] == (2, 3) and len(seen["shape"]) == 2
    # traced int32 constants, weak as Python ints are (they adopt a float's dtype)
    # (a static dimension's class also gives its int to NumPy's own code: operator.index)
    assert type(seen["n"]).__name__ == "StaticDimTensor" and seen["n"].dtype == ag.int32
    assert seen["n"]._ag_weak and seen["n"].__index__() == 2
    assert type(seen["size"]).__name__ == "StaticDimTensor" and seen["size"].dtype == ag.int32
    assert "while" in str(f.get_concrete_function(np.ones((2, 3))).graph)

    @ag.function(autograph=False)
    def g(x):
        seen["plain"] = (x.shape, x.shape[0], x.size)
        return x.sum()
    g(np.ones((2, 3)))
    assert seen["plain"] == ((2, 3), 2, 6) and type(seen["plain"][1]) is int
    assert type(seen["plain"][2]) is int


def test_dimensions_adopt_the_dtype_they_meet_as_python_ints_do():
    def mean(x):
        acc = 0.0
        for i in range(x.shape[0]):
            acc += x[i]
        return acc / x.shape[0], x.sum() / x.size, x.sum() / len(x.shape)

    for f in (ag.function(mean),
              ag.function(mean, input_signature=[ag.TensorSpec([None], ag.float64)])):
        got = f(np.arange(5.0))
        for g, w in zip(got, mean(np.arange(5.0))):
            assert g.dtype == ag.float64 and float(g) == w


def test_variables_have_the_methods():
    v = ag.Variable(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(v.sum(axis=1), [3.0, 12.0])
    np.testing.assert_array_equal(v.T, np.arange(6.0).reshape(2, 3).T)
    snap = v.copy()
    v.assign(np.zeros((2, 3)))
    np.testing.assert_array_equal(snap, np.arange(6.0).reshape(2, 3))

    @ag.function
    def f():
        return v.mean() + v.size

    v.assign(np.full((2, 3), 2.0))
    assert float(f()) == 8.0


# ---------------------------------------------------------------- errors

def test_unknown_attribute_on_a_traced_tensor_names_it_suggests_and_locates():
    @ag.function
    def f(x):
        return x.summ()
    with pytest.raises(AttributeError) as info:
        f(np.ones(3))
    text = str(info.value)
    assert "'summ'" in text and "did you mean 'sum'" in text
    assert THIS_FILE in text and "line" in text and "x.summ()" in text


def test_unknown_attribute_on_an_eager_tensor_suggests():
    with pytest.raises(AttributeError, match=r"no attribute 'reshap'; did you mean 'reshape'"):
        ag.constant([1.0]).reshap(1)
    # private names fail fast and plainly (Python and NumPy probe them)
    assert not hasattr(ag.constant([1.0]), "_no_such_thing")
    assert getattr(ag.constant([1.0]), "nothing_close_at_all", None) is None


def test_item_of_several_elements_names_the_shape():
    with pytest.raises(ValueError, match=r"item\(\).*exactly one element.*shape \(2, 3\) \(6 elements\)"):
        ag.constant(np.ones((2, 3))).item()

    @ag.function
    def f(x):
        return x.item()
    with pytest.raises(ValueError) as info:
        f(np.ones(4))
    assert "shape (4,)" in str(info.value) and THIS_FILE in str(info.value)


def test_a_bad_axis_is_named():
    with pytest.raises(ValueError, match=r"axis 3 is out of range for a tensor of rank 2"):
        ag.constant(np.ones((2, 3))).sum(axis=3)

    @ag.function
    def f(x):
        return x.var(axis=-3)
    with pytest.raises(ValueError, match=r"axis -3 is out of range"):
        f(np.ones((2, 3)))


def test_out_is_refused_with_advice():
    out = np.empty(())
    with pytest.raises(TypeError, match=r"sum\(\): the out= argument is not supported: tensors are "
                                         r"immutable"):
        ag.constant(np.ones(3)).sum(out=out)

    @ag.function
    def f(x):
        return x.max(axis=0, out=out)
    with pytest.raises(TypeError, match=r"max\(\): the out= argument") as info:
        f(np.ones(3))
    assert THIS_FILE in str(info.value)


def test_in_place_methods_are_refused_with_the_functional_spelling():
    t = ag.constant(np.ones(3))
    with pytest.raises(TypeError, match=r"x.sort\(\) sorts an array in place.*x = np.sort\(x\)"):
        t.sort()
    with pytest.raises(TypeError, match=r"x = np.full_like\(x, v\)") as info:
        ag.function(lambda a: a.fill(2.0))(np.ones(3))
    assert THIS_FILE in str(info.value)
    assert t.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(TypeError, match=r"tolist\(\): a traced tensor has no Python values"):
        ag.function(lambda a: a.tolist())(np.ones(3))


def test_without_autograph_unknown_dimensions_are_traced_and_static_ones_ints():
    seen = {}

    @ag.function(autograph=False, input_signature=[ag.TensorSpec([None, 3], ag.float64)])
    def f(x):
        n, m = x.shape
        seen["m"] = m
        return ag.zeros([n, m], ag.float64) + x.size
    out = f(np.ones((2, 3)))
    np.testing.assert_array_equal(out, np.full((2, 3), 6.0))
    assert seen["m"] == 3 and type(seen["m"]) is int
