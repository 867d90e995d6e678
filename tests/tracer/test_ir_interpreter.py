"""The IR interpreter on hand-written graphs: references, cond, while, check."""
import numpy as np
import pytest

from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.core.interpreter import Interpreter, run_graph
from autograph.tracer.core.parser import parse_graph

COLLATZ = parse_graph("""\
graph @collatz(%n: int32[]) -> (int32[], int32[]) {
  %0: int32[] = constant[value=0]()
  %1: int32[], %2: int32[] = while(%n, %0) {
    cond(%3: int32[], %4: int32[]) {
      %5: int32[] = constant[value=1]()
      %6: bool[] = greater(%3, %5)
      yield %6
    }
    body(%7: int32[], %8: int32[]) {
      %9: int32[] = constant[value=2]()
      %10: int32[] = mod(%7, %9)
      %11: bool[] = equal(%10, %0)
      %12: int32[] = cond(%11) {
        then() {
          %13: int32[] = floordiv(%7, %9)
          yield %13
        }
        else() {
          %14: int32[] = constant[value=3]()
          %15: int32[] = multiply(%7, %14)
          %16: int32[] = constant[value=1]()
          %17: int32[] = add(%15, %16)
          yield %17
        }
      }
      %18: int32[] = constant[value=1]()
      %19: int32[] = add(%8, %18)
      yield %12, %19
    }
  }
  return %1, %2
}
""")


def _collatz_steps(n):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@pytest.mark.parametrize("n", [1, 2, 6, 27, 97])
def test_while_and_cond(n):
    final, steps = run_graph(COLLATZ, [np.int32(n)])
    assert final.dtype == np.int32 and final.shape == () and final == 1
    assert steps == _collatz_steps(n)


def test_python_numbers_are_accepted_as_inputs():
    assert run_graph(COLLATZ, [6])[1] == 8


def test_reduce_mean_seed():
    g = parse_graph("""\
graph @f(%x: float32[2], %y: float32[2]) -> (float32[]) {
  %0: float32[] = constant[value=3.0]()
  %1: float32[2] = multiply(%x, %x)
  %2: float32[2] = multiply(%1, %0)
  %3: float32[2] = add(%2, %y)
  %4: float32[] = reduce_mean[axis=None, keepdims=False](%3)
  return %4
}
""")
    x = np.array([2.0, 3.0], np.float32)
    y = np.array([3.0, -2.0], np.float32)
    (out,) = run_graph(g, [x, y])
    assert out.dtype == np.float32 and out == np.mean(x ** 2 * 3 + y)


CHECKED = parse_graph("""\
graph @f(%x: int32[None], %d: int32[]) -> (int32[None]) {
  %0: int32[] = constant[value=0]()
  %1: bool[] = not_equal(%d, %0)
  check[message='d must not be zero'](%1)  # /u/kernel.py:7
  %2: int32[None] = floordiv(%x, %d)  # /u/kernel.py:8
  return %2
}
""")


def test_check_raises_with_message_and_location():
    with pytest.raises(InvalidArgumentError) as info:
        run_graph(CHECKED, [np.arange(3, dtype=np.int32), 0])
    msg = str(info.value)
    assert "d must not be zero" in msg and 'File "/u/kernel.py", line 7' in msg


def test_reference_faults_get_the_op_location():
    g = parse_graph(str(CHECKED).replace("  check[message='d must not be zero'](%1)\n", "")
                    .replace("floordiv(%x, %d)", "floordiv(%x, %d)  # /u/kernel.py:8"))
    with pytest.raises(InvalidArgumentError) as info:
        run_graph(g, [np.arange(3, dtype=np.int32), 0])
    assert "integer division by zero" in str(info.value)
    assert 'File "/u/kernel.py", line 8' in str(info.value)
    assert list(run_graph(g, [np.arange(5, dtype=np.int32), 2])[0]) == [0, 0, 1, 1, 2]


def test_results_take_the_declared_dtype():
    g = parse_graph("""\
graph @f(%x: float32[2]) -> (float32[2], bool[2]) {
  %0: float32[2] = constant[value=[1.0, 2.0]]()
  %1: float32[2] = divide(%x, %0)
  %2: bool[2] = less(%1, %x)
  return %1, %2
}
""")
    out = run_graph(g, [np.array([1.0, 1.0], np.float32)])
    assert [o.dtype for o in out] == [np.float32, np.bool_]
    assert out[0].flags.writeable


def test_bad_inputs():
    with pytest.raises(InvalidArgumentError, match="takes 2 inputs, got 1"):
        run_graph(CHECKED, [np.arange(3, dtype=np.int32)])
    with pytest.raises(InvalidArgumentError,
                       match="input 0 of graph @f: expected a tensor of dtype int32"):
        run_graph(CHECKED, [np.arange(3.0), 1])
    with pytest.raises(InvalidArgumentError, match="input 0 of graph @f has shape \\[2,2\\]"):
        run_graph(CHECKED, [np.zeros((2, 2), np.int32), 1])


def test_shapes_are_checked_against_declared_types():
    g = parse_graph("""\
graph @f(%x: int32[None], %y: int32[None]) -> (int32[3]) {
  %0: int32[3] = add(%x, %y)  # /u/k.py:3
  return %0
}
""")
    with pytest.raises(InvalidArgumentError, match="produced a value of shape \\[4\\]"):
        run_graph(g, [np.zeros(4, np.int32), np.zeros(4, np.int32)])


def test_handlers_can_be_extended():
    calls = []

    class Tracing(Interpreter):
        def run_reference(self, op, operands, env):
            calls.append(op.name)
            return super().run_reference(op, operands, env)

    Tracing(CHECKED).run([np.arange(3, dtype=np.int32), 1])
    assert calls == ["not_equal", "floordiv"]


def test_traced_graph_runs_as_numpy_does(trace):
    """The `trace` fixture's graph, interpreted, equals NumPy on the same inputs."""
    from codegen_support import T
    from autograph.tracer import api

    g = trace(lambda x, y: api.reduce_mean(api.add(api.multiply(api.multiply(x, x), 3.0), y)),
              T("float64", (None,)), T("float64", (None,)))
    x, y = np.array([2.0, 3.0, -1.5]), np.array([0.5, -4.0, 2.0])
    (out,) = run_graph(g, [x, y])
    np.testing.assert_allclose(out, np.mean(x ** 2 * 3 + y), rtol=1e-15)
