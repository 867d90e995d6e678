"""Variables in converted code: conditions, item assignment, ag.constant."""
import numpy as np
import pytest

import autograph as ag


def test_bool_variable_as_if_condition_compiles():
    flag = ag.Variable(True)

    @ag.function
    def f(x):
        if flag:
            return x + 1.0
        return x - 1.0

    assert float(f(ag.constant(1.0))) == 2.0
    flag.assign(False)
    assert float(f(ag.constant(1.0))) == 0.0   # the same trace reads the new value
    assert f.tracing_count == 1


def test_variable_in_while_condition_and_not():
    n = ag.Variable(3)

    @ag.function
    def countdown():
        steps = 0
        while n > 0 and not (n == 100):
            n.assign_sub(1)
            steps += 1
        return steps

    assert int(countdown()) == 3 and int(n) == 0
    n.assign(5)
    assert int(countdown()) == 5


def test_item_assignment_on_a_captured_variable_updates_it():
    v = ag.Variable(np.zeros(4, np.float32))

    @ag.function
    def put(i, x):
        v[i] = x
        return v.read_value()

    np.testing.assert_array_equal(put(ag.constant(2), ag.constant(5.0)).numpy(), [0, 0, 5, 0])
    np.testing.assert_array_equal(v.numpy(), [0, 0, 5, 0])


def test_constant_of_a_variable():
    v = ag.Variable([1, 2])
    np.testing.assert_array_equal(ag.constant(v).numpy(), [1, 2])

    @ag.function
    def f():
        return ag.constant(v) * 2

    np.testing.assert_array_equal(f().numpy(), [2, 4])
    v.assign([3, 4])
    np.testing.assert_array_equal(f().numpy(), [6, 8])


def test_item_assignment_on_captured_tensor_is_a_clear_error():
    t = ag.constant([1.0, 2.0])

    @ag.function
    def f(x):
        t[0] = x  # captured tensor
        return t

    with pytest.raises(TypeError, match="item assignment to 't', a tensor captured") as e:
        f(ag.constant(3.0))
    assert "t[0] = x  # captured tensor" in str(e.value)


def test_augmented_item_assignment_on_variable_and_python_list():
    v = ag.Variable(np.ones(3))
    seen = [0, 0]

    @ag.function
    def f(i):
        v[i] += 2.0
        seen[0] += 1
        return v.read_value()

    np.testing.assert_array_equal(f(ag.constant(1)).numpy(), [1, 3, 1])
    np.testing.assert_array_equal(f(ag.constant(1)).numpy(), [1, 5, 1])
    assert seen == [1, 0]  # Python side effect: once per trace
