"""`ag.Variable`: eager behaviour, capture by reference in compiled code, the
seeds' Variable examples, variable arguments, creation rules and lifetime.

The IR side (printing, parsing, verifying, interpreting, passes, codegen
ABI) is in test_variables_ir.py.
"""
import gc
import weakref

import numpy as np
import pytest

import autograph as ag


# --------------------------------------------------------------------------- the seeds


def test_seed_counter_is_captured_by_reference():
    c = ag.Variable(0)

    @ag.function
    def f(x):
        c.assign_add(1)
        return x + ag.cast(c, ag.float32)

    assert int(c) == 0
    assert f(1.0) == 2.0
    assert int(c) == 1
    assert f(1.0) == 3.0
    assert int(c) == 2
    assert f.tracing_count == 1


def test_seed_assign_add_in_a_compiled_range_loop():
    v = ag.Variable(1)

    @ag.function
    def f(x):
        for i in ag.range(x):
            v.assign_add(i)

    f(ag.constant(3))
    assert int(v) == 4
    f(ag.constant(4))              # same trace, the loop runs at run time
    assert int(v) == 10
    assert f.tracing_count == 1
    graph = str(f.get_concrete_function(ag.constant(3)).graph)
    assert "while" in graph and "assign_variable" in graph


def test_seed_closure_over_a_tensor_and_a_variable():
    @ag.function
    def f():
        return x ** 2 + y

    x = ag.constant([-2, -3])
    y = ag.Variable([3, -2])
    np.testing.assert_array_equal(f().numpy(), [7, 7])
    y.assign([0, 0])               # read at call time, not frozen at trace time
    np.testing.assert_array_equal(f().numpy(), [4, 9])


def test_seed_assign_inside_a_loop_over_a_tensor():
    # TF 1.x `tf.assign(v, i)` in `for i in x`.
    v = ag.Variable(0)

    @ag.function
    def g(x):
        for i in x:
            v.assign(i)

    g(ag.constant([5, 7, 9]))
    assert int(v) == 9


class Dense:
    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.W = ag.Variable(rng.uniform(size=(10, 10)).astype(np.float32))
        self.b = ag.Variable(ag.zeros(10))

    @ag.function
    def compute(self, x):
        return ag.matmul(x, self.W) + self.b


def test_seed_dense_instances_use_distinct_variables():
    d1, d2 = Dense(1), Dense(2)
    x = ag.constant(np.random.default_rng(3).uniform(size=(10, 10)).astype(np.float32))
    r1, r2 = d1.compute(x).numpy(), d2.compute(x).numpy()
    assert not (r1 == r2).all()
    np.testing.assert_allclose(r1, x.numpy() @ d1.W.numpy() + d1.b.numpy(), rtol=1e-5)
    np.testing.assert_allclose(r2, x.numpy() @ d2.W.numpy() + d2.b.numpy(), rtol=1e-5)
    d1.b.assign(ag.ones(10))       # the compiled code reads the current value
    np.testing.assert_allclose(d1.compute(x).numpy(), r1 + 1.0, rtol=1e-5)
    assert d1.compute.tracing_count == 1 and d2.compute.tracing_count == 1


class MyModule:
    def __init__(self):
        self.v = None

    @ag.function
    def __call__(self, x):
        if self.v is None:
            self.v = ag.Variable(ag.ones_like(x))
        return self.v * x


def test_seed_module_creates_its_variable_on_the_first_call_only():
    m = MyModule()
    x = ag.constant([1.0, 2.0])
    np.testing.assert_array_equal(m(x).numpy(), [1.0, 2.0])
    first = m.v
    assert isinstance(first, ag.Variable) and first.shape == (2,)
    np.testing.assert_array_equal(m(ag.constant([3.0, 4.0])).numpy(), [3.0, 4.0])
    assert m.v is first
    first.assign([2.0, 2.0])
    np.testing.assert_array_equal(m(x).numpy(), [2.0, 4.0])
    other = MyModule()             # another instance: its own trace, its own variable
    np.testing.assert_array_equal(other(x).numpy(), [1.0, 2.0])
    assert other.v is not first


def test_seed_variable_state_versus_pure_functional_state():
    state = ag.Variable(1)

    @ag.function
    def f(x):
        state.assign_add(x)

    f(ag.constant(2))              # non-pure functional style
    assert int(state.numpy()) == 3
    assert "numpy=3" in repr(state)

    @ag.function
    def g(state, x):
        state += x
        return state

    s = g(ag.constant(1), ag.constant(2))   # pure functional style
    assert isinstance(s, ag.Tensor) and int(s) == 3


def test_seed_function_taking_a_variable_argument():
    @ag.function
    def add(a, b):
        return a + b

    v = ag.Variable(1.0)
    assert float(add(v, 1.0)) == 2.0
    v.assign(5.0)
    assert float(add(v, 1.0)) == 6.0
    assert add.tracing_count == 1


def test_seed_variable_created_inside_the_function():
    @ag.function
    def fn():
        x = ag.Variable(0.0)
        x.assign_add(1.0)
        return x.read_value()

    assert float(fn()) == 1.0
    assert float(fn()) == 2.0
    assert fn.tracing_count == 1


def test_seed_returning_a_variable_returns_a_copy_of_its_value():
    v = ag.Variable([1, 2])

    @ag.function
    def f():
        return v

    out = f()
    assert isinstance(out, ag.Tensor)
    v.assign([5, 6])
    np.testing.assert_array_equal(out.numpy(), [1, 2])
    np.testing.assert_array_equal(f().numpy(), [5, 6])


# --------------------------------------------------------------------------- eager


def test_eager_basics():
    v = ag.Variable([1.0, 2.0], name="w")
    assert v.dtype is ag.float32 and v.shape == (2,) and v.ndim == 1 and v.name == "w"
    assert repr(v) == "<ag.Variable 'w' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert repr(ag.Variable(0)) == "<ag.Variable 'Variable' shape=() dtype=int32, numpy=0>"
    snapshot = v.read_value()
    a = np.asarray(v)
    assert v.assign([3.0, 4.0]) is v
    np.testing.assert_array_equal(snapshot.numpy(), [1.0, 2.0])   # reads are copies
    np.testing.assert_array_equal(a, [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal((v + 1).numpy(), [4.0, 5.0])
    np.testing.assert_array_equal((2 * v).numpy(), [6.0, 8.0])
    assert float(ag.reduce_sum(v)) == 7.0
    assert float(v[1]) == 4.0 and len(v) == 2
    v.assign_sub(1)
    v.assign_add([0.5, 0.5])
    np.testing.assert_array_equal(v.numpy(), [2.5, 3.5])
    n = v.numpy()
    n[0] = 100.0                   # numpy() is a copy
    assert float(v[0]) == 2.5


def test_eager_scalar_conversions():
    i = ag.Variable(3)
    f = ag.Variable(2.5)
    b = ag.Variable(True)
    assert int(i) == 3 and float(f) == 2.5 and bool(b) is True
    assert [10, 20, 30, 40][i] == 40
    assert f"{f:.2f}" == "2.50"
    assert i.numpy() == 3 and isinstance(i.numpy(), np.int32)


def test_eager_initial_values():
    assert ag.Variable(1).dtype is ag.int32
    assert ag.Variable(1.0).dtype is ag.float32
    assert ag.Variable(np.float64(1.0)).dtype is ag.float64
    assert ag.Variable(1, dtype=ag.float64).dtype is ag.float64
    assert ag.Variable(lambda: ag.ones([2, 3])).shape == (2, 3)
    src = ag.Variable([1, 2])
    copy = ag.Variable(src)
    copy.assign([3, 4])
    np.testing.assert_array_equal(src.numpy(), [1, 2])
    with pytest.raises(TypeError):
        ag.Variable(1.5, dtype=ag.int32)
    with pytest.raises(ValueError):
        ag.Variable(ag.constant(1), dtype=ag.float32)


def test_assign_dtype_and_shape_rules():
    v = ag.Variable([1.0, 2.0])
    v.assign([1, 2])                       # Python numbers adopt the variable's dtype
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    with pytest.raises(TypeError, match="float32"):
        v.assign(ag.constant([1, 2]))      # another dtype
    with pytest.raises(TypeError, match="float32"):
        v.assign(np.array([1.0, 2.0]))     # NumPy float64 keeps its dtype
    with pytest.raises(ValueError, match="shape"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="shape"):
        v.assign(0.0)
    i = ag.Variable(3)
    with pytest.raises(TypeError, match="ag.cast"):
        i.assign(1.5)
    with pytest.raises(TypeError, match="assign_add"):
        i.assign_add(ag.constant(1.0))
    with pytest.raises(ValueError, match="assign_add"):
        v.assign_add(ag.ones([2, 2]))      # the sum would change the shape
    v.assign_add(1)                        # a scalar broadcasts
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])


def test_traced_assign_dtype_and_shape_errors_name_the_line():
    v = ag.Variable([1.0, 2.0])

    @ag.function
    def wrong_dtype(x):
        v.assign(x)

    with pytest.raises(TypeError, match=r"(?s)assign: the variable has dtype float32.*v\.assign\(x\)"):
        wrong_dtype(ag.constant([1, 2]))
    with pytest.raises(ValueError, match="assign: the variable has shape"):
        wrong_dtype(ag.constant([1.0, 2.0, 3.0]))


def test_reading_a_variable_as_a_python_value_inside_a_trace_is_an_error():
    v = ag.Variable(1)

    @ag.function
    def f():
        return int(v)

    with pytest.raises(TypeError, match="trace time"):
        f()

    @ag.function
    def g():
        return v.numpy()

    with pytest.raises(TypeError, match="trace time"):
        g()


# --------------------------------------------------------------------------- compiled semantics


def test_reads_see_earlier_assigns_in_program_order():
    v = ag.Variable([1, 2, 3])
    s = ag.Variable(10)

    @ag.function
    def f(x):
        a = v + 0                   # before
        v.assign(v * x)
        b = v.read_value()          # after the first assign
        v.assign_add(1)
        s.assign(ag.reduce_sum(v))
        s.assign_sub(ag.reduce_sum(a))
        return a, b, v.read_value(), s.read_value()

    a, b, c, t = f(ag.constant(2))
    np.testing.assert_array_equal(a.numpy(), [1, 2, 3])
    np.testing.assert_array_equal(b.numpy(), [2, 4, 6])
    np.testing.assert_array_equal(c.numpy(), [3, 5, 7])
    assert int(t) == 15 - 6
    np.testing.assert_array_equal(v.numpy(), [3, 5, 7])
    assert int(s) == 9


def test_assign_inside_compiled_cond():
    v = ag.Variable(0)
    w = ag.Variable([0.0, 0.0])

    @ag.function
    def f(x):
        if x > 0:
            v.assign(x)
            w.assign_add([1.0, 2.0])
        else:
            v.assign_sub(1)
        return v + 0

    assert int(f(ag.constant(5))) == 5
    assert int(f(ag.constant(-1))) == 4
    assert int(f(ag.constant(-1))) == 3
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    assert f.tracing_count == 1
    assert "cond" in str(f.get_concrete_function(ag.constant(1)).graph)


def test_assign_inside_compiled_while():
    n = ag.Variable(np.int64(0))
    acc = ag.Variable(np.zeros(3))

    @ag.function
    def collatz(x):
        while x != 1:
            n.assign_add(1)
            acc.assign(acc + ag.cast(x, ag.float64))
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
        return x

    assert int(collatz(ag.constant(np.int64(6)))) == 1
    assert int(n) == 8
    np.testing.assert_array_equal(acc.numpy(), np.full(3, 6 + 3 + 10 + 5 + 16 + 8 + 4 + 2.0))


def test_while_condition_reads_the_variable():
    v = ag.Variable(np.int64(5))

    @ag.function
    def countdown(step):
        while v > 0:
            v.assign_sub(step)
        return v.read_value()

    assert int(countdown(np.int64(2))) == -1
    assert int(v) == -1
    v.assign(np.int64(10))
    assert int(countdown(np.int64(3))) == -2


def _stateful_body(v, w, x):
    """Plain Python run eagerly and compiled (ag.function of it)."""
    v.assign(v * x + 1)
    if ag.reduce_sum(v) > 10:
        w.assign_add(ag.reduce_sum(v))
    else:
        w.assign_sub(1.0)
    for i in ag.range(3):
        v.assign_add(ag.cast(i, v.dtype))
    return v.read_value() * 2, w.read_value()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eager_and_compiled_agree(dtype):
    init_v = np.array([0.5, 1.5, -2.0], dtype)
    ve, we = ag.Variable(init_v), ag.Variable(np.array(0.0, dtype))
    vc, wc = ag.Variable(init_v), ag.Variable(np.array(0.0, dtype))
    compiled = ag.function(_stateful_body)
    for x in [2.0, -1.0, 3.0, 0.5, 4.0]:
        xe = ag.constant(np.array(x, dtype))
        oe = _stateful_body(ve, we, xe)
        oc = compiled(vc, wc, xe)
        for a, b in zip(oe, oc):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
        np.testing.assert_allclose(ve.numpy(), vc.numpy(), rtol=1e-6)
        np.testing.assert_allclose(we.numpy(), wc.numpy(), rtol=1e-6)
    assert compiled.tracing_count == 1


def test_bool_and_integer_variables_compiled():
    b = ag.Variable([True, False, True])
    any_b = ag.Variable(False)
    k = ag.Variable(np.int64(7))

    @ag.function
    def f():
        b.assign(ag.logical_not(b))
        any_b.assign(ag.reduce_any(b))
        k.assign(k * 3 % 5)
        return b.read_value(), any_b.read_value(), k.read_value()

    out = f()
    np.testing.assert_array_equal(out[0].numpy(), [False, True, False])
    assert bool(out[1]) is True and int(out[2]) == 1
    f()
    np.testing.assert_array_equal(b.numpy(), [True, False, True])
    assert int(k) == 3


def test_assign_with_an_unknown_dimension_is_checked_at_run_time():
    v = ag.Variable(np.zeros(4))

    @ag.function(input_signature=[ag.TensorSpec([None], ag.float64)])
    def f(x):
        v.assign(x)
        v.assign_add(x * 2.0)

    f(np.arange(4.0))
    np.testing.assert_array_equal(v.numpy(), np.arange(4.0) * 3)
    with pytest.raises(ag.errors.InvalidArgumentError, match="variable"):
        f(np.ones(3))
    np.testing.assert_array_equal(v.numpy(), np.arange(4.0) * 3)


def test_input_signature_function_capturing_a_variable():
    total = ag.Variable(np.float64(0.0))

    @ag.function(input_signature=[ag.TensorSpec([None], ag.float64)])
    def accumulate(x):
        total.assign_add(ag.reduce_sum(x))
        return total.read_value()

    assert float(accumulate(np.ones(3))) == 3.0
    assert float(accumulate(np.ones(5))) == 8.0
    assert float(total) == 8.0


def test_nested_functions_share_the_variable():
    v = ag.Variable(0)

    @ag.function
    def inner(x):
        v.assign_add(x)
        return v.read_value()

    @ag.function
    def outer(x):
        inner(x)
        return inner(x) * 10

    assert int(outer(ag.constant(2))) == 40
    assert int(v) == 4
    graph = outer.get_concrete_function(ag.constant(2)).graph
    assert sum(1 for a in graph.inputs if "ref" in str(a.type)) == 1   # one input per variable


# --------------------------------------------------------------------------- variable arguments


def test_variable_argument_is_passed_by_reference_and_keyed_by_dtype_and_shape():
    @ag.function
    def bump(v, d):
        v.assign_add(d)
        return v.read_value()

    a = ag.Variable([1, 2, 3])
    b = ag.Variable([10, 20, 30])
    np.testing.assert_array_equal(bump(a, ag.constant([1, 1, 1])).numpy(), [2, 3, 4])
    np.testing.assert_array_equal(bump(b, ag.constant([1, 1, 1])).numpy(), [11, 21, 31])
    np.testing.assert_array_equal(a.numpy(), [2, 3, 4])
    np.testing.assert_array_equal(b.numpy(), [11, 21, 31])
    assert bump.tracing_count == 1                     # same dtype and shape: one trace
    bump(ag.Variable([1, 2]), ag.constant([1, 1]))     # another shape: a new trace
    assert bump.tracing_count == 2
    bump(ag.Variable([1.0, 2.0]), 1.0)                 # another dtype: a new trace
    assert bump.tracing_count == 3
    bump(ag.Variable([5, 6, 7]), ag.constant([1, 1, 1]))
    assert bump.tracing_count == 3


def test_variable_and_tensor_arguments_trace_separately():
    @ag.function
    def double(x):
        return x * 2

    double(ag.constant([1, 2]))
    double(ag.Variable([1, 2]))
    assert double.tracing_count == 2
    cf = double.get_concrete_function(ag.Variable([1, 2]))
    assert "ref int32[2]" in str(cf.graph)
    (spec,), _ = cf.structured_input_signature
    assert repr(spec) == "VariableSpec(shape=(2,), dtype=ag.int32, name='x')"


def test_concrete_function_checks_variable_arguments():
    @ag.function
    def reset(v):
        v.assign(ag.zeros_like(v))

    v = ag.Variable([1.0, 2.0])
    cf = reset.get_concrete_function(v)
    w = ag.Variable([3.0, 4.0])
    cf(w)
    np.testing.assert_array_equal(w.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    with pytest.raises(ag.errors.InvalidArgumentError, match="must be an ag.Variable"):
        cf(ag.constant([1.0, 2.0]))
    with pytest.raises(ag.errors.InvalidArgumentError, match="variable of shape"):
        cf(ag.Variable([1.0, 2.0, 3.0]))


def test_the_same_variable_captured_and_passed():
    v = ag.Variable(1)

    @ag.function
    def f(w):
        w.assign_add(1)
        v.assign(v * 10)
        return w.read_value()

    assert int(f(v)) == 20      # aliased: the reads and writes happen in order
    assert int(v) == 20


# --------------------------------------------------------------------------- creation


def test_creating_a_variable_on_a_later_trace_is_an_error():
    @ag.function
    def f(x):
        v = ag.Variable(1.0)
        return v * x

    assert float(f(ag.constant(2.0))) == 2.0
    with pytest.raises(ValueError, match="only supports singleton ag.Variables created on the first "
                                         "call") as info:
        f(ag.constant([2.0]))
    msg = str(info.value)
    assert "created once or created outside ag.function" in msg and "v = ag.Variable(1.0)" in msg


def test_initial_value_depending_on_inputs_is_an_error():
    @ag.function
    def f(x):
        v = ag.Variable(x * 2)
        return v.read_value()

    with pytest.raises(ValueError, match="(?s)depends on the inputs.*outside the function"):
        f(ag.constant(2.0))


def test_initial_value_from_a_loop_variable_is_an_error():
    @ag.function
    def f(n):
        i = 0
        while i < n:
            ag.Variable(ag.cast(i, ag.float32))
            i += 1
        return i

    with pytest.raises(ValueError, match="depends on the inputs"):
        f(ag.constant(3))


def test_lifted_initial_values_from_constants_static_shapes_and_variables():
    base = ag.Variable([1.0, 2.0])
    made = []

    @ag.function
    def f(x):
        if not made:
            made.append(ag.Variable(ag.zeros_like(x) + 3.0))
            made.append(ag.Variable(base * 2.0))
            made.append(ag.Variable(ag.reduce_sum(ag.ones([2, 3]))))
        return made[0] + made[1] + x

    np.testing.assert_array_equal(f(ag.constant([0.0, 1.0])).numpy(), [5.0, 8.0])
    np.testing.assert_array_equal(made[1].numpy(), [2.0, 4.0])
    assert float(made[2]) == 6.0
    base.assign([0.0, 0.0])           # an initial value is a copy
    np.testing.assert_array_equal(made[1].numpy(), [2.0, 4.0])


# --------------------------------------------------------------------------- lifetime


def test_a_concrete_function_keeps_its_captured_variables_alive():
    def make():
        v = ag.Variable([1, 2, 3])

        @ag.function
        def f():
            v.assign_add(1)
            return v.read_value()

        return f.get_concrete_function(), weakref.ref(v)

    cf, ref = make()
    gc.collect()
    assert ref() is not None                 # held by the ConcreteFunction
    assert cf.variables == (ref(),)
    np.testing.assert_array_equal(cf().numpy(), [2, 3, 4])
    np.testing.assert_array_equal(cf().numpy(), [3, 4, 5])
    np.testing.assert_array_equal(ref().numpy(), [3, 4, 5])
