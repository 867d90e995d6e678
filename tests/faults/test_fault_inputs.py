"""Fault battery: bad inputs and abuse of decorated functions and eager ops.

Each case must end in a clear error (the expected type, a message saying what
was expected and what was given, the user's line where the library names
lines) or in NumPy's own answer: never a crash, a hang or a silent wrong
result. Cases that could take the process down live in
test_fault_process.py, in a child process.
"""
import threading

import numpy as np
import pytest

import autograph as ag
from autograph.errors import InvalidArgumentError


def _spec(*dims, dtype=ag.float64):
    return [ag.TensorSpec(list(dims), dtype)]


# ---------------------------------------------------------------- arguments


@pytest.mark.parametrize("value, match", [
    (np.zeros(3, dtype=[("a", "f4"), ("b", "i4")]), "is not supported; expected one of"),
    (np.array(["2020-01-01"], dtype="datetime64[D]"), "datetime64.* is not supported"),
    (np.array([1], dtype="m8[s]"), "timedelta64.* is not supported"),
    (np.ones(2, np.float16), "float16 is not supported"),
    (np.ones(2, np.longdouble), "is not supported"),
])
def test_unsupported_array_dtypes_are_named(value, match):
    f = ag.function(lambda x: x * 2)
    with pytest.raises(TypeError, match=match):
        f(value)


@pytest.mark.parametrize("value, match", [
    (np.array([1.0, None], dtype=object), "found float 1.0"),
    (np.array([b"a", None], dtype=object), "found NoneType None"),
])
def test_object_arrays_of_non_strings_are_refused_at_the_call(value, match):
    f = ag.function(lambda x: x)
    with pytest.raises(InvalidArgumentError, match=match):
        f(value)


@pytest.mark.parametrize("big", [2 ** 63, 2 ** 70, -2 ** 70])
def test_python_ints_past_int64_never_wrap(big):
    """A Python int past int64 returned from (or computed in) a trace was
    wrapped (2**63 + 1 gave -2**63 + 1) or raised NumPy's OverflowError."""
    @ag.function
    def plus_one(x):
        return x + 1

    with pytest.raises(TypeError, match=r"plus_one returned -?\d+, which is not a tensor value: "
                                        r"the integer -?\d+ does not fit in int64"):
        plus_one(big)


@pytest.mark.parametrize("value", [[2 ** 63, -1], [2 ** 63], [[1, 2], [2 ** 64, 3]], [1.0, 2 ** 70]])
def test_lists_with_ints_past_int64_are_refused(value):
    """`[2**63, -1]` became a float32 tensor (NumPy makes it float64)."""
    with pytest.raises(TypeError, match=r"convert_to_tensor: the integer \d+ does not fit in int64"):
        ag.convert_to_tensor(value)
    with pytest.raises(TypeError, match="does not fit in int64"):
        ag.function(lambda: ag.constant(0) + len(value) + ag.reduce_sum(ag.constant(value)))()


def test_edge_of_int64_still_converts():
    t = ag.convert_to_tensor([2 ** 63 - 1, -2 ** 63])
    assert t.dtype is ag.int64 and t.numpy().tolist() == [2 ** 63 - 1, -2 ** 63]
    assert ag.constant(2 ** 64 - 1, dtype=ag.uint64).numpy() == np.uint64(2 ** 64 - 1)


@pytest.mark.parametrize("make", [
    lambda a: a[::-1, ::-2], lambda a: np.asfortranarray(a), lambda a: np.broadcast_to(a[0], (4, 4)),
    lambda a: a[1:, 1:], lambda a: a.T,
])
def test_strided_and_broadcast_views_read_correctly_and_stay_unchanged(make):
    base = np.arange(16.0).reshape(4, 4)
    x = make(base)
    before = np.array(x, copy=True)

    @ag.function
    def f(x):
        x[0, 0] = -1.0          # a functional update: the caller's array must not change
        return x * 2

    want = before * 2
    want[0, 0] = -2.0
    with pytest.warns(UserWarning):
        got = f(x)
    np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(x, before)


def test_read_only_aliased_and_high_rank_inputs():
    ro = np.arange(4.0)
    ro.flags.writeable = False
    f = ag.function(lambda a, b: a + b)
    np.testing.assert_array_equal(f(ro, ro), ro * 2)
    deep = np.arange(2.0).reshape((1,) * 31 + (2,))
    np.testing.assert_array_equal(np.asarray(f(deep, deep)), deep * 2)


def test_tensor_spec_refuses_non_integer_dimensions():
    for shape in ("abc", [2.5], [True]):
        with pytest.raises(TypeError, match="TensorSpec shape must be None or a sequence of ints/None"):
            ag.TensorSpec(shape, ag.float32)
    assert ag.TensorSpec([2.0, None]).shape == (2, None)


# ---------------------------------------------------------------- indexing


def test_python_index_past_int64_is_out_of_bounds():
    x = np.arange(5.0)
    get = ag.function(lambda x, i: x[i])
    with pytest.raises(InvalidArgumentError, match=r"index 1180591620717411303424 is out of bounds"):
        get(x, 2 ** 70)
    with pytest.raises(InvalidArgumentError, match=r"index -\d+ is out of bounds"):
        get(x, -2 ** 70)


@pytest.mark.parametrize("bound", [2 ** 70, -2 ** 70])
def test_slice_bounds_past_int64_clamp_as_in_numpy(bound):
    x = np.arange(5.0)
    for fn, want in [(lambda x, k: x[k:], x[bound:]), (lambda x, k: x[:k], x[:bound]),
                     (lambda x, k: x[::k], x[::bound])]:
        np.testing.assert_array_equal(np.asarray(ag.function(fn)(x, bound)), want)


def test_traced_index_out_of_bounds_in_a_loop_names_the_line():
    @ag.function
    def total(x, n):
        s = 0.0
        for i in range(n):
            s += x[2 - 2 * i]    # 2, 0, -2, -4, then -6: past -len(x)
        return s

    assert float(total(np.arange(5.0), np.int32(3))) == 2 + 0 + 3
    with pytest.raises(InvalidArgumentError, match=r"index -6 is out of bounds for axis 0 with size 5"
                                                   r"[\s\S]*s \+= x\[2 - 2 \* i\]"):
        total(np.arange(5.0), np.int32(5))


def test_boolean_mask_of_another_length_known_only_at_run_time():
    """x[m] with dynamic shapes and a shorter mask silently picked x's first rows."""
    F, B = ag.TensorSpec([None], ag.float64), ag.TensorSpec([None], ag.bool)
    get = ag.function(lambda x, m: x[m], input_signature=[F, B])
    np.testing.assert_array_equal(np.asarray(get(np.arange(5.0), np.arange(5) > 2)), [3.0, 4.0])
    for m in (np.array([True, False]), np.ones(7, bool)):
        with pytest.raises(InvalidArgumentError, match=r"getitem: boolean index did not match the indexed "
                                                       r"tensor along axis 0; size of axis is 5 but size "
                                                       rf"of corresponding boolean axis is {len(m)}"):
            get(np.arange(5.0), m)
    get2 = ag.function(lambda x, m: x[m], input_signature=[ag.TensorSpec([None, None], ag.float64),
                                                           ag.TensorSpec([None, None], ag.bool)])
    with pytest.raises(InvalidArgumentError, match="along axis 0; size of axis is 3 but .* is 2"):
        get2(np.ones((3, 2)), np.ones((2, 3), bool))    # as many elements, another shape

    @ag.function(input_signature=[F, B])
    def put(x, m):
        y = x * 1.0
        y[m] = 0.0
        return y

    np.testing.assert_array_equal(np.asarray(put(np.arange(4.0), np.arange(4) > 1)), [0.0, 1.0, 0.0, 0.0])
    with pytest.raises(InvalidArgumentError, match="item assignment: boolean index did not match"):
        put(np.ones(5), np.ones(2, bool))


# ---------------------------------------------------------------- empty reductions


@pytest.mark.parametrize("shape, axis", [((0,), None), ((3, 0), 1), ((0, 3), 0), ((0, 0), 0), ((3, 0), None),
                                         ((0, 3), (0, 1))])
@pytest.mark.parametrize("spelling", ["np.max", "np.amin", "method"])
def test_numpy_max_min_of_nothing_raise_as_numpy(shape, axis, spelling):
    """np.max/np.min/.max()/.min() over no elements gave -inf/+inf silently."""
    fns = {"np.max": lambda x: np.max(x, axis=axis), "np.amin": lambda x: np.amin(x, axis=axis),
           "method": lambda x: x.max(axis=axis)}
    x = np.zeros(shape)
    with pytest.raises(ValueError):
        fns[spelling](x)                       # NumPy's own answer
    with pytest.raises(InvalidArgumentError, match="zero-size array to reduction operation"):
        ag.function(fns[spelling])(x)
    dynamic = ag.function(fns[spelling], input_signature=_spec(*[None] * len(shape)))
    with pytest.raises(InvalidArgumentError, match=r"zero-size array to reduction operation "
                                                   r"m..imum which has no identity"):
        dynamic(x)


@pytest.mark.parametrize("shape, axis", [((3, 0), 0), ((0, 3), 1)])
def test_numpy_max_with_nothing_to_reduce_per_row_is_empty(shape, axis):
    x = np.zeros(shape)
    got = ag.function(lambda x: np.max(x, axis=axis), input_signature=_spec(None, None))(x)
    assert np.asarray(got).shape == np.max(x, axis=axis).shape


def test_empty_max_with_initial_and_the_tensorflow_spelling():
    e = np.zeros(0)
    dyn = _spec(None)
    assert float(ag.function(lambda x: np.max(x, initial=-1.0), input_signature=dyn)(e)) == -1.0
    assert float(ag.function(lambda x: ag.reduce_max(x), input_signature=dyn)(e)) == -np.inf
    assert float(ag.function(lambda x: np.sum(x), input_signature=dyn)(e)) == 0.0
    with pytest.raises(InvalidArgumentError, match="argmax of an empty axis"):
        ag.function(lambda x: np.argmax(x), input_signature=dyn)(e)
    with pytest.raises(InvalidArgumentError, match="zero-size array"):
        np.max(ag.constant(e))


def test_numpy_max_of_a_traced_empty_slice():
    f = ag.function(lambda x, n: np.max(x[:n]))
    assert float(f(np.arange(3.0), np.int32(2))) == 1.0
    with pytest.raises(InvalidArgumentError, match="zero-size array"):
        f(np.arange(3.0), np.int32(0))


# ---------------------------------------------------------------- shapes and counts


def test_negative_traced_linspace_count_is_an_error():
    f = ag.function(lambda n: np.linspace(0.0, 1.0, n))
    np.testing.assert_allclose(np.asarray(f(np.int32(3))), np.linspace(0.0, 1.0, 3))
    assert np.asarray(f(np.int32(0))).shape == (0,)
    with pytest.raises(InvalidArgumentError, match="np.linspace: num must be non-negative"):
        f(np.int32(-3))


@pytest.mark.parametrize("fn, args, match", [
    (lambda a: a.reshape(-1, -1), (np.ones(6),), "only one dimension can be -1"),
    (lambda a, n: a.reshape(n, -1), (np.ones(6), np.int32(4)), "cannot reshape a tensor of 6 elements"),
    (lambda a, b: np.concatenate([a, b]), (np.ones((2, 3)), np.ones((2, 2))), "part 1 has size 2 in dimension 1"),
    (lambda a, b: a @ b, (np.ones((2, 3)), np.ones((2, 3))), "inner dimensions do not match"),
])
def test_shape_mismatches_name_the_shapes(fn, args, match):
    with pytest.raises(ValueError, match=match):
        ag.function(fn)(*args)


# ---------------------------------------------------------------- calls


def test_threads_calling_one_function_get_their_own_results():
    @ag.function(input_signature=_spec(None))
    def f(x):
        out = x * 0.0
        for i in range(len(x)):
            out[i] = x[i] * 3.0 + 1.0
        return out

    bad, errors = [], []

    def worker(k):
        rng = np.random.default_rng(k)
        for _ in range(60):
            x = rng.random(int(rng.integers(0, 40)))
            if not np.array_equal(np.asarray(f(x)), x * 3.0 + 1.0):
                bad.append(k)
            try:
                f(np.ones(3, np.float32))
            except ValueError:
                pass
            else:
                errors.append(k)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad and not errors and f.tracing_count == 1


def test_raise_in_a_compiled_branch_fires_while_tracing():
    """Documented (as TensorFlow): the raise runs when the branch is traced."""
    @ag.function
    def f(x):
        if x > 2.0:
            raise ValueError("too big")
        return x

    with pytest.raises(ValueError, match="too big") as info:
        f(np.float64(1.0))
    note = " ".join(getattr(info.value, "__notes__", []))
    assert "raised while tracing a compiled `if`" in note and "assert condition, message" in note
    assert "test_fault_inputs.py" in note

    @ag.function
    def g(x):
        for i in range(len(x)):
            x = x + np.ones(3)    # a library error keeps its own message, with no note
        return x

    with pytest.raises(ValueError, match="cannot be broadcast") as info:
        g(np.ones(2))
    assert not getattr(info.value, "__notes__", None)


def test_assert_is_checked_when_the_code_runs():
    @ag.function
    def f(x):
        for i in range(len(x)):
            assert x[i] < 3.0, "too big"
        return x

    np.testing.assert_array_equal(np.asarray(f(np.arange(3.0))), np.arange(3.0))
    with pytest.raises(InvalidArgumentError, match=r"too big[\s\S]*assert x\[i\] < 3.0"):
        f(np.arange(5.0))


@pytest.mark.filterwarnings("ignore:.*triggered a retrace")
def test_reduce_retracing_never_fails_a_call_that_works_on_its_own():
    """After 2-D calls, a 1-D call generalised to unknown rank, which matmul
    cannot trace: the call failed although `a @ b` is fine for it."""
    m = ag.function(lambda a, b: a @ b, reduce_retracing=True)
    for s1, s2 in [((2, 3), (3, 2)), ((2, 4), (4, 2)), ((3,), (3,)), ((3,), (3, 4)), ((5, 3), (3, 1))]:
        a, b = np.arange(np.prod(s1), dtype=np.float64).reshape(s1), np.ones(s2)
        np.testing.assert_allclose(np.asarray(m(a, b)), a @ b)
    with pytest.raises(ValueError, match="inner dimensions do not match"):
        m(np.ones((2, 3)), np.ones((2, 3)))


def test_numpy_max_of_nothing_under_reduce_retracing_of_unknown_rank():
    g = ag.function(lambda x: x.max(), reduce_retracing=True)
    for shape in [(3,), (4,), (2, 3)]:            # the third call traces for unknown rank
        assert float(g(np.ones(shape))) == 1.0
    for shape in [(0,), (0, 5)]:
        with pytest.raises(InvalidArgumentError, match="zero-size array to reduction operation maximum"):
            g(np.ones(shape))


def test_function_above_staticmethod_and_classmethod():
    """`@ag.function` over `@staticmethod` failed at the call: "autograph can
    only convert Python functions ... got <staticmethod ...>"."""
    class M:
        k = 3.0

        @ag.function
        @staticmethod
        def plus_one(x):
            return x + 1

        @ag.function
        @classmethod
        def scaled(cls, x):
            return x * cls.k

    class N(M):
        k = 5.0

    one = np.float64(1.0)
    assert float(M.plus_one(one)) == 2.0 and float(M().plus_one(one)) == 2.0
    assert float(M.scaled(one)) == 3.0 and float(N.scaled(one)) == 5.0 and float(N().scaled(one)) == 5.0
    with pytest.raises(TypeError, match="ag.function expects a callable, got int"):
        ag.function(3)


@pytest.mark.parametrize("fn, name", [
    (lambda x: np.tile(x, 2 ** 61), "reshape"),
    (lambda x: np.repeat(x, 2 ** 61), "reshape"),
    (lambda x: ag.TensorArray(ag.float32, size=1, element_shape=(2 ** 40,)).stack(), "TensorArray"),
])
def test_sizes_past_int64_in_python_name_the_op_and_line(fn, name):
    """NumPy's bare OverflowError ("Python int too large to convert to C long")."""
    with pytest.raises(InvalidArgumentError, match=rf"{name}: a size or value does not fit in int64"
                                                   r"[\s\S]*test_fault_inputs.py"):
        ag.function(fn)(np.arange(5.0))


@pytest.mark.parametrize("fn, label", [
    (lambda x: np.ptp(x), "ptp"), (lambda x: np.nanmax(x), "nanmax"), (lambda x: np.nanmin(x), "nanmin"),
    (lambda x: np.maximum.reduce(x), "max"), (lambda x: np.minimum.reduce(x), "min"),
])
def test_other_numpy_extremes_of_nothing_raise(fn, label):
    with pytest.raises(ValueError):
        fn(np.zeros(0))
    with pytest.raises(InvalidArgumentError, match=rf"{label}: zero-size array to reduction operation"):
        ag.function(fn)(np.zeros(0))
    x = np.array([3.0, 1.0, 2.0])
    assert float(ag.function(fn)(x)) == float(fn(x))


def test_output_gradients_of_another_shape_are_refused():
    """A (3,) seed for a scalar target was summed into the gradient (18 for x*x at 3)."""
    x = ag.Variable(3.0)
    with ag.GradientTape(persistent=True) as tape:
        y = x * x
    with pytest.raises(ValueError, match=r"output_gradients of shape \(3,\) for a target of shape \(\)"):
        tape.gradient(y, x, output_gradients=np.ones(3, np.float32))
    assert float(tape.gradient(y, x, output_gradients=np.float32(2.0))) == 12.0


def test_none_is_not_a_string_tensor():
    """None became an object array, read as a string tensor: "got string"."""
    v = ag.Variable(np.zeros(3))
    with pytest.raises(TypeError, match="assign: expected a tensor of dtype float64, got None"):
        v.assign(None)
    cf = ag.function(lambda x: x * 2).get_concrete_function(ag.TensorSpec([None], ag.float32))
    with pytest.raises(InvalidArgumentError, match="expected a tensor of dtype float32, got None"):
        cf(None)
