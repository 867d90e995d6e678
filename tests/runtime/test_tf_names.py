"""TensorFlow names TF programs use (issue 10): identity, unstack, pad,
ag.debugging.assert_*, ag.errors.OutOfRangeError, name_scope, TensorShape,
ag.autograph.experimental.set_loop_options.

Each program runs eagerly (plain Python on eager tensors) and compiled, and
both are compared with NumPy / what TensorFlow documents.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag


def both(fn, *args, **kw):
    """(eager result, compiled result) of `fn(*args)`."""
    return fn(*args), ag.function(fn, **kw)(*args)


def _np(v):
    return [_np(x) for x in v] if isinstance(v, (list, tuple)) else np.asarray(v)


# ---------------------------------------------------------------- identity / unstack / pad

def test_identity_eager_and_compiled():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    def f(t):
        return ag.identity(t) * 2

    for r in both(f, ag.constant(x)):
        np.testing.assert_array_equal(_np(r), x * 2)
    assert isinstance(ag.identity([1, 2]), ag.Tensor)
    assert ag.identity([1, 2]).dtype is ag.int32


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack_matches_numpy(axis):
    x = np.arange(6, dtype=np.int32).reshape(2, 3)

    def f(t):
        return tuple(ag.unstack(t, axis=axis))

    expected = [np.take(x, i, axis=axis) for i in range(x.shape[axis])]
    for r in both(f, ag.constant(x)):
        assert len(r) == len(expected)
        for got, want in zip(_np(r), expected):
            np.testing.assert_array_equal(got, want)


def test_unstack_errors():
    with pytest.raises(ValueError, match=r"unstack: expected a tensor of rank >= 1, got a scalar"):
        ag.unstack(ag.constant(1.0))
    with pytest.raises(ValueError, match=r"unstack: num=3 but dimension 0 of shape \(2,\) has size 2"):
        ag.unstack(ag.constant([1.0, 2.0]), num=3)
    with pytest.raises(ValueError, match=r"unstack: axis 2 is out of range for a tensor of rank 2"):
        ag.unstack(ag.zeros([2, 2]), axis=2)

    @ag.function(input_signature=[ag.TensorSpec([None], ag.float32)])
    def unknown(t):
        return ag.unstack(t)[0]
    with pytest.raises(ValueError, match=r"unstack: dimension 0 of shape \(None,\) is unknown at "
                                         r"trace time; pass num="):
        unknown(ag.constant([1.0]))

    @ag.function(input_signature=[ag.TensorSpec([None], ag.float32)])
    def with_num(t):
        a, b = ag.unstack(t, num=2)
        return a - b
    assert float(with_num(ag.constant([5.0, 2.0]))) == 3.0


@pytest.mark.parametrize("paddings,value", [([[1, 0], [0, 2]], 9.0), ([[0, 0], [2, 1]], 0.0),
                                            ([[0, 0], [0, 0]], 1.0)])
def test_pad_constant_matches_numpy(paddings, value):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    def f(t):
        return ag.pad(t, paddings, constant_values=value)

    want = np.pad(x, paddings, constant_values=value)
    for r in both(f, ag.constant(x)):
        np.testing.assert_array_equal(_np(r), want)
    # unknown dimensions: the padding blocks take their size at run time
    g = ag.function(f, input_signature=[ag.TensorSpec([None, None], ag.float32)])
    np.testing.assert_array_equal(g(ag.constant(x)).numpy(), want)


def test_pad_int_and_errors():
    x = ag.constant([1, 2], dtype=ag.int64)
    got = ag.function(lambda t: ag.pad(t, [[2, 1]], constant_values=-1))(x)
    assert got.dtype is ag.int64
    np.testing.assert_array_equal(got.numpy(), [-1, -1, 1, 2, -1])
    with pytest.raises(ValueError, match=r"pad: only mode='CONSTANT' is supported, got 'REFLECT'"):
        ag.pad(x, [[1, 1]], mode="REFLECT")
    with pytest.raises(ValueError, match=r"pad: paddings must be an int array of shape \(1, 2\)"):
        ag.pad(x, [[1, 1], [0, 0]])
    with pytest.raises(ValueError, match=r"pad: paddings must be non-negative"):
        ag.pad(x, [[-1, 1]])
    with pytest.raises(TypeError, match=r"pad: constant_values 0.5 is a float but the tensor is int64"):
        ag.pad(x, [[1, 1]], constant_values=0.5)


# ---------------------------------------------------------------- ag.debugging

CHECKS = [
    ("assert_equal", (np.float32([1, 2]), np.float32([1, 2])), (np.float32([1, 2]), np.float32([1, 3])), "=="),
    ("assert_less", (np.int32([1, 2]), np.int32([2, 3])), (np.int32([1, 2]), np.int32([2, 2])), "<"),
    ("assert_greater", (np.int32([3]), np.int32([2])), (np.int32([2]), np.int32([2])), ">"),
    ("assert_less_equal", (np.int32([2]), np.int32([2])), (np.int32([3]), np.int32([2])), "<="),
    ("assert_greater_equal", (np.int32([2]), np.int32([2])), (np.int32([1]), np.int32([2])), ">="),
    ("assert_none_equal", (np.int32([1]), np.int32([2])), (np.int32([2]), np.int32([2])), "!="),
]


@pytest.mark.parametrize("name,ok,bad,symbol", CHECKS, ids=[c[0] for c in CHECKS])
def test_comparison_asserts_eager_and_compiled(name, ok, bad, symbol):
    check = getattr(ag.debugging, name)

    def f(x, y):
        check(x, y, message="mine")
        return x + y

    msg = rf"mine: Condition x {symbol} y did not hold element-wise"
    compiled = ag.function(f)
    for run in (f, compiled):
        np.testing.assert_array_equal(_np(run(ag.constant(ok[0]), ag.constant(ok[1]))), ok[0] + ok[1])
        with pytest.raises(ag.errors.InvalidArgumentError, match=msg):
            run(ag.constant(bad[0]), ag.constant(bad[1]))
    # the compiled check runs every call, with the user's line in the message
    with pytest.raises(ag.errors.InvalidArgumentError, match=r"check\(x, y, message=\"mine\"\)"):
        compiled(ag.constant(bad[0]), ag.constant(bad[1]))


@pytest.mark.parametrize("name,good,bad,symbol", [
    ("assert_non_negative", [0.0, 1.0], [0.0, -1.0], ">="),
    ("assert_positive", [1.0, 2.0], [1.0, 0.0], ">"),
    ("assert_negative", [-1.0], [0.0], "<"),
    ("assert_non_positive", [0.0], [1.0], "<="),
])
def test_sign_asserts_eager_and_compiled(name, good, bad, symbol):
    check = getattr(ag.debugging, name)

    def f(x):
        check(x)
        return ag.reduce_sum(x)

    compiled = ag.function(f)
    for run in (f, compiled):
        assert float(run(ag.constant(good, dtype=ag.float32))) == sum(good)
        with pytest.raises(ag.errors.InvalidArgumentError,
                           match=rf"Condition x {symbol} 0 did not hold element-wise"):
            run(ag.constant(bad, dtype=ag.float32))


def test_assert_with_python_values_is_checked_at_once():
    with pytest.raises(ag.errors.InvalidArgumentError, match="Condition x == y did not hold"):
        ag.debugging.assert_equal(1, 2)
    assert ag.debugging.assert_equal(2, 2) is None
    with pytest.raises(TypeError, match=r"assert_less: .*int32.*float32|assert_less: .*float32.*int32"):
        ag.debugging.assert_less(ag.constant([1]), ag.constant([1.0]))


def test_assert_rank_is_static():
    def f(x):
        ag.debugging.assert_rank(x, 2)
        return x

    for run in (f, ag.function(f)):
        run(ag.zeros([2, 3]))
        with pytest.raises(ValueError, match=r"assert_rank: expected a tensor of rank 2, got rank 1 "
                                             r"\(shape \(3,\)\)"):
            run(ag.zeros([3]))
    with pytest.raises(TypeError, match="assert_rank: rank must be a Python int"):
        ag.debugging.assert_rank(ag.zeros([3]), 1.0)


# ---------------------------------------------------------------- errors, name_scope, TensorShape

def test_out_of_range_error_is_catchable():
    assert issubclass(ag.errors.OutOfRangeError, Exception)
    assert "OutOfRangeError" in ag.errors.__all__
    with pytest.raises(ag.errors.OutOfRangeError):
        raise ag.errors.OutOfRangeError("end of sequence")


def test_name_scope_changes_nothing():
    def f(x):
        with ag.name_scope("layer1") as scope:
            assert scope == "layer1/"
            y = x * 2
        return y

    for r in both(f, ag.constant([1.0, 2.0])):
        np.testing.assert_array_equal(_np(r), [2.0, 4.0])
    with pytest.raises(TypeError, match="name_scope: name must be a str, got int 3"):
        ag.name_scope(3)


def test_tensor_shape_basics():
    s = ag.TensorShape([2, None, 3])
    assert s.rank == 3 and len(s) == 3 and s.as_list() == [2, None, 3]
    assert s[0] == 2 and s[1] is None and s[1:] == ag.TensorShape([None, 3])
    assert s == [2, None, 3] and s != [2, 1, 3] and s == ag.TensorShape((2, None, 3))
    assert not s.is_fully_defined() and ag.TensorShape([2, 3]).is_fully_defined()
    assert ag.TensorShape([2, 3]).num_elements() == 6 and s.num_elements() is None
    assert s.is_compatible_with([2, 5, 3]) and not s.is_compatible_with([2, 5])
    assert str(s) == "(2, None, 3)"
    unknown = ag.TensorShape(None)
    assert unknown.rank is None and unknown.dims is None and not unknown.is_fully_defined()
    with pytest.raises(ValueError, match="as_list\\(\\) is not defined on an unknown TensorShape"):
        unknown.as_list()
    with pytest.raises(TypeError, match="TensorShape: dimension 1 must be an int >= 0 or None, got 'a'"):
        ag.TensorShape([1, "a"])


def test_tensor_shape_of_a_tensor_eager_and_traced():
    def f(x):
        s = ag.TensorShape(x.shape)
        return ag.zeros([s[0], 1]) if s.is_fully_defined() else ag.ones([2, 1])

    for r in both(f, ag.constant([1.0, 2.0, 3.0])):
        np.testing.assert_array_equal(_np(r), np.zeros([3, 1]))
    g = ag.function(f, input_signature=[ag.TensorSpec([None], ag.float32)])
    np.testing.assert_array_equal(g(ag.constant([1.0])).numpy(), np.ones([2, 1]))


# ---------------------------------------------------------------- set_loop_options

def test_set_loop_options_shape_invariants_are_checked():
    def f(x, n):
        i = 0
        while i < n:
            ag.autograph.experimental.set_loop_options(
                shape_invariants=[(x, ag.TensorShape([None]))], parallel_iterations=4)
            x = ag.concat([x, ag.ones([1])], 0)
            i += 1
        return x

    # the dimension is unknown before the loop: the invariant holds, the loop grows x
    g = ag.function(f, input_signature=[ag.TensorSpec([None], ag.float32), ag.TensorSpec([], ag.int32)])
    for run in (f, g):
        np.testing.assert_array_equal(_np(run(ag.zeros([1]), ag.constant(3))), [0, 1, 1, 1])
    # a known dimension is relaxed: the compiled loop carries x as (None,)
    h = ag.function(f)
    np.testing.assert_array_equal(_np(h(ag.zeros([1]), ag.constant(3))), [0, 1, 1, 1])
    assert "float32[None] = while(" in str(h.get_concrete_function(ag.zeros([1]), ag.constant(3)).graph)

    def nested(x, n):
        i = 0
        while i < n:
            if True:   # not a statement at the top level of the loop body: not honoured
                ag.autograph.experimental.set_loop_options(shape_invariants=[(x, ag.TensorShape([None]))])
            x = ag.concat([x, ag.ones([1])], 0)
            i += 1
        return x

    # elsewhere the relaxation cannot be honoured: refused, not ignored
    with pytest.raises(NotImplementedError, match=r"shape_invariants\[0\]: the invariant \(None,\) "
                                                  r"is less specific than the variable's shape \(1,\)"):
        ag.function(nested)(ag.zeros([1]), ag.constant(3))

    def bad(x):
        for _ in ag.range(2):
            ag.autograph.experimental.set_loop_options(shape_invariants=[(x, [2, 2])])
            x = x + 1
        return x

    msg = (r"shape_invariants\[0\]: the variable has shape \(3,\), which does not fit the "
           r"invariant \(2, 2\)")
    for run in (bad, ag.function(bad)):
        with pytest.raises(ValueError, match=msg):
            run(ag.zeros([3]))


def test_set_loop_options_maximum_iterations_outside_converted_loops_is_refused():
    def f(n):
        i = 0
        while i < n:
            ag.autograph.experimental.set_loop_options(maximum_iterations=2)
            i += 1
        return i

    # Not converted, the call cannot bound the loop: refused rather than ignored.
    with pytest.raises(NotImplementedError, match=r"maximum_iterations=n\) or add `and i < n`"):
        f(ag.constant(5))


def _bounded_while(n, m):
    i = 0
    s = 0
    while i < n:
        ag.autograph.experimental.set_loop_options(maximum_iterations=m)
        s += i * i
        i += 1
    return i, s


def _anded_while(n, m):
    i = 0
    s = 0
    k = 0
    while i < n and k < m:
        s += i * i
        i += 1
        k += 1
    return i, s


def _bounded_for(n, m):
    s = 0.0
    for k in ag.range(n):
        ag.autograph.experimental.set_loop_options(parallel_iterations=4, maximum_iterations=m)
        s += ag.cast(k, ag.float32) + 0.5
    return s


def _anded_for(n, m):
    s = 0.0
    j = 0
    for k in ag.range(n):
        if j >= m:
            break
        s += ag.cast(k, ag.float32) + 0.5
        j += 1
    return s


def _vals(out):
    return [np.asarray(v).item() for v in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("n,m", [(10, 3), (2, 3), (0, 3), (5, 0), (4, 4)])
@pytest.mark.parametrize("fns", [(_bounded_while, _anded_while), (_bounded_for, _anded_for)])
def test_set_loop_options_maximum_iterations_bounds_the_loop(n, m, fns):
    from autograph.impl import convert
    bounded, anded = fns
    want = _vals(ag.function(anded)(ag.constant(n), ag.constant(m)))
    assert want == _vals(convert(anded)(n, m))
    # compiled, with a Python int, an eager tensor and a traced tensor as the bound
    assert _vals(ag.function(bounded)(ag.constant(n), m)) == want
    assert _vals(ag.function(lambda a: bounded(a, ag.constant(m)))(ag.constant(n))) == want
    assert _vals(ag.function(bounded)(ag.constant(n), ag.constant(m))) == want
    # eager (converted, loops run in Python)
    assert _vals(convert(bounded)(ag.constant(n), m)) == want


def test_set_loop_options_maximum_iterations_bounds_python_loops():
    @ag.function
    def f(x):
        s = x
        for _ in range(10):                       # unrolled at trace time
            ag.autograph.experimental.set_loop_options(maximum_iterations=3)
            s = s + 1.0
        return s

    assert float(f(ag.constant(0.0))) == 3.0

    def g(m):
        i = 0
        while True:
            ag.autograph.experimental.set_loop_options(maximum_iterations=m)
            i += 1
        return i

    from autograph.impl import convert
    assert convert(g)(4) == 4
    with pytest.raises(TypeError, match="maximum_iterations must be an int"):
        convert(g)(2.5)


def test_tensor_shape_works_where_shapes_are_taken():
    spec = ag.TensorSpec(ag.TensorShape([None, 2]), ag.float32)
    assert spec.shape == (None, 2)
    ta = ag.TensorArray(ag.float32, size=1, element_shape=ag.TensorShape([2]))
    np.testing.assert_array_equal(ta.write(0, ag.ones([2])).read(0).numpy(), [1.0, 1.0])
    assert ag.TensorShape(ag.zeros([2, 3]).shape) == (2, 3)


def test_tf_autograph_namespace_aliases():
    assert ag.autograph.to_code is ag.to_code
    assert ag.autograph.do_not_convert is ag.do_not_convert
    assert "set_loop_options" in ag.autograph.experimental.__all__
