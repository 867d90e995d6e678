"""End to end: decorator → conversion → IR → LLVM → native code → result.

Each test counts executions of the Python body to show that a cached call
runs only native code, and compares with NumPy or with the eager function.
"""
import numpy as np
import pytest

import autograph as ag


class Counter:
    def __init__(self):
        self.n = 0

    def __call__(self):
        self.n += 1


def test_seed_reduce_mean_is_compiled_and_cached():
    runs = Counter()

    def f(x, y):
        runs()
        return ag.reduce_mean(ag.multiply(x ** 2, 3) + y)

    g = ag.function(f)
    x = ag.constant([[2.0, 3.0]])
    y = ag.constant([[3.0, -2.0]])
    expected = f(x, y).numpy()
    assert runs.n == 1
    assert g(x, y).numpy() == expected
    assert runs.n == 2 and g.tracing_count == 1
    for _ in range(3):
        assert g(x, y).numpy() == expected
    assert runs.n == 2 and g.tracing_count == 1
    assert "reduce_mean" in str(g.get_concrete_function(x, y).graph)


def test_seed_closure_captures_tensors():
    x = ag.constant([[2.0, 3.0]])
    y = ag.constant([[3.0, -2.0]])

    def f(a, b):
        return ag.reduce_mean(ag.multiply(a ** 2, 3) + b)

    @ag.function
    def h():
        return f(x, y)

    assert (h().numpy() == f(x, y).numpy()).all()


def test_scaled_elu_matches_numpy():
    runs = Counter()

    def scaled_elu(z, scale=1.0507, alpha=1.67326):
        runs()
        is_positive = ag.greater_equal(z, 0.0)
        return scale * ag.where(is_positive, z, alpha * ag.nn.elu(z))

    f = ag.function(scaled_elu)
    z = np.random.default_rng(0).normal(size=1000).astype(np.float32)
    out = f(z).numpy()
    ref = np.float32(1.0507) * np.where(z >= 0, z, np.float32(1.67326) * (np.exp(z) - 1))
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    f(z)
    assert runs.n == 1


def test_data_dependent_if_with_returns():
    runs = Counter()

    @ag.function
    def g(x):
        runs()
        if ag.reduce_sum(x) > 0:
            return x * x
        else:
            return -x // 2

    assert int(g(ag.constant(-2))) == 1
    assert int(g(ag.constant(3))) == 9
    assert runs.n == 1
    v = np.array([-3, 1, -5], np.int32)
    np.testing.assert_array_equal(g(v).numpy(), -v // 2)
    np.testing.assert_array_equal(g(-v).numpy(), v * v)
    assert "cond(" in str(g.get_concrete_function(v).graph)


def test_next_collatz_with_input_signature():
    runs = Counter()

    @ag.function(input_signature=(ag.TensorSpec(shape=[None], dtype=ag.int32),))
    def next_collatz(x):
        runs()
        return ag.where(x % 2 == 0, x // 2, 3 * x + 1)

    np.testing.assert_array_equal(next_collatz(ag.constant([1, 2])).numpy(), [4, 1])
    np.testing.assert_array_equal(next_collatz(np.arange(1, 8, dtype=np.int32)).numpy(),
                                  [4, 1, 10, 2, 16, 3, 22])
    assert runs.n == 1 and next_collatz.tracing_count == 1
    with pytest.raises(ValueError, match="incompatible with input_signature") as e:
        next_collatz(ag.constant([[1, 2], [3, 4]]))
    assert "TensorSpec(shape=(None,), dtype=ag.int32" in str(e.value)
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        next_collatz(ag.constant([1.5]))
    assert next_collatz.tracing_count == 1


def collatz_steps_py(n):
    total = 0
    for s in range(1, n + 1):
        v = s
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            total += 1
    return total


def test_collatz_step_counter_while_inside_for():
    runs = Counter()

    @ag.function
    def total_steps(n):
        runs()
        total = ag.constant(0, ag.int64)
        for s in ag.range(ag.constant(1, ag.int64), n + 1):
            v = s
            while v != 1:
                if v % 2 == 0:
                    v = v // 2
                else:
                    v = 3 * v + 1
                total += 1
        return total

    n = ag.constant(200, ag.int64)
    assert int(total_steps(n)) == collatz_steps_py(200)
    assert int(total_steps(ag.constant(30, ag.int64))) == collatz_steps_py(30)
    assert runs.n == 1
    text = str(total_steps.get_concrete_function(n).graph)
    assert text.count("while(") == 2 and "cond(" in text


def test_branchy_loop_over_tensor_elements_k4():
    runs = Counter()

    @ag.function
    def branchy(x):
        runs()
        acc = 0.0
        for i in range(len(x)):
            v = x[i]
            if v > 0:
                acc += v * v
            else:
                acc -= v / 2
        return acc

    x = np.random.default_rng(0).normal(size=1000)
    ref = np.where(x > 0, x * x, -x / 2).sum()
    out = branchy(x)
    assert out.dtype == ag.float64
    np.testing.assert_allclose(float(out), ref, rtol=1e-12)
    np.testing.assert_allclose(float(branchy(x[:10])), np.where(x[:10] > 0, x[:10] ** 2, -x[:10] / 2).sum())
    assert runs.n == 2  # one trace per shape, none on cached calls
    branchy(x)
    assert runs.n == 2


@pytest.mark.filterwarnings("ignore:.*triggered a retrace")  # retracing is the point here
def test_tracing_count_dtypes_shapes_python_values():
    @ag.function
    def f(x, k=2):
        return x * k

    f(ag.constant(1.0))
    assert f.tracing_count == 1
    f(ag.constant(2.0))                     # same dtype and shape
    assert f.tracing_count == 1
    f(ag.constant(1))                       # new dtype
    assert f.tracing_count == 2
    f(ag.constant([1.0, 2.0]))              # new shape
    assert f.tracing_count == 3
    f(ag.constant(1.0), 3)                  # new Python value
    assert f.tracing_count == 4
    f(ag.constant(1.0), k=3)                # same key as the previous call
    f(x=ag.constant(5.0), k=3)
    assert f.tracing_count == 4
    f(ag.constant(1.0), 2)                  # the default's value: the first key
    assert f.tracing_count == 4
    f(np.float32(1.0))                      # a NumPy scalar is a 0-d float32 tensor
    assert f.tracing_count == 4
    f(ag.constant(1.0), 3.0)                # 3 and 3.0 are different keys
    assert f.tracing_count == 5


def test_get_concrete_function_with_specs_and_strict_calls():
    @ag.function
    def double(a):
        return a + a

    cf = double.get_concrete_function(ag.TensorSpec(shape=[None], dtype=ag.float32))
    np.testing.assert_array_equal(cf(ag.constant([1.0, 2.5])).numpy(), [2.0, 5.0])
    np.testing.assert_array_equal(cf(a=np.array([1.0], np.float32)).numpy(), [2.0])
    with pytest.raises(ag.errors.InvalidArgumentError, match="expected to be a float32 tensor but is a int32"):
        cf(ag.constant([1]))
    with pytest.raises(ag.errors.InvalidArgumentError, match="shape"):
        cf(ag.constant([[1.0]]))
    assert cf.structured_input_signature[0][0].shape == (None,)
    assert "define" in cf.llvm_ir() and "define" in cf.llvm_ir(optimized=True)
    assert "ret" in cf.asm()


def test_autograph_false_bool_of_tensor_names_the_line():
    @ag.function(autograph=False)
    def f(x):
        if x > 0:  # the line the error must quote
            return x
        return -x

    with pytest.raises(TypeError) as e:
        f(ag.constant(1.0))
    msg = str(e.value)
    assert "if x > 0:  # the line the error must quote" in msg
    assert "autograph=True" in msg and "ag.cond" in msg


def test_python_control_flow_runs_at_trace_time():
    @ag.function
    def f(x, training):
        if training:
            return x * 2.0
        return x

    assert float(f(ag.constant(3.0), True)) == 6.0
    assert float(f(ag.constant(3.0), False)) == 3.0
    assert f.tracing_count == 2


def test_methods_get_their_own_traces():
    class Scale:
        def __init__(self, k):
            self.k = k

        @ag.function
        def apply(self, x):
            return x * self.k

    a, b = Scale(2.0), Scale(3.0)
    x = ag.constant([1.0, 2.0])
    np.testing.assert_array_equal(a.apply(x).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(b.apply(x).numpy(), [3.0, 6.0])
    assert a.apply.tracing_count == 1 and b.apply.tracing_count == 1


def test_functions_calling_functions():
    @ag.function
    def add(a, b):
        return a + b

    @ag.function
    def dense_layer(x, w, b):
        return add(ag.matmul(x, w), b)

    out = dense_layer(ag.ones([3, 2]), ag.ones([2, 2]), ag.ones([2]))
    np.testing.assert_array_equal(out.numpy(), np.full((3, 2), 3.0, np.float32))


def test_reduce_retracing_generalises_shapes():
    @ag.function(reduce_retracing=True)
    def f(x):
        return ag.reduce_sum(x)

    f(np.ones(3, np.float32))
    f(np.ones(5, np.float32))
    assert f.tracing_count == 2
    assert float(f(np.ones(7, np.float32))) == 7.0
    assert float(f(np.ones(9, np.float32))) == 9.0
    assert f.tracing_count == 2


def test_runtime_fault_points_at_user_line():
    @ag.function
    def f(x, i):
        return x[i]  # indexing line

    with pytest.raises(ag.errors.InvalidArgumentError) as e:
        f(np.arange(3.0), ag.constant(5))
    msg = str(e.value)
    assert "index 5 is out of bounds for axis 0 with size 3" in msg
    assert "return x[i]  # indexing line" in msg


def test_integer_division_by_zero_raises():
    @ag.function
    def f(a, b):
        return a // b, a % b

    with pytest.raises(ag.errors.InvalidArgumentError):
        f(ag.constant([1, 2]), ag.constant([1, 0]))
    q, r = f(ag.constant(np.iinfo(np.int32).min), ag.constant(-1))
    assert int(q) == np.iinfo(np.int32).min and int(r) == 0
