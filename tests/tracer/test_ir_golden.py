"""Golden files: the printed IR of small traced functions is pinned.

Each function is traced, its `str(graph)` compared with `tests/golden/<name>.txt`,
and the golden text parsed back: the parsed graph must equal the traced one
structurally and print identically. Run with `AUTOGRAPH_UPDATE_GOLDEN=1` to
rewrite the files after an intended change of the IR, then review the diff.
"""
import inspect
import os
from pathlib import Path

import numpy as np
import pytest

from autograph.tracer import api
from autograph.tracer.core.compare import graph_difference
from autograph.tracer.tracing.control_flow import cond, while_loop
from autograph.tracer.core.interpreter import run_graph
from autograph.tracer.core.parser import parse_graph
from autograph.tracer.tracing.symbolic import GraphBuilder
from autograph.tracer.core.types import TensorType, float32, int32
from autograph.tracer.core.verifier import verify

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("AUTOGRAPH_UPDATE_GOLDEN") == "1"


def reduce_mean_seed(x, y):
    return api.reduce_mean(api.multiply(x ** 2, 3) + y)


def next_collatz(x):
    return api.where(x % 2 == 0, x // 2, 3 * x + 1)


def count_and_sum(n, x):
    start = cond(n > 0, lambda: x * 2.0, lambda: -x)
    i, total = while_loop(lambda i, t: i < n, lambda i, t: (i + 1, t + x), (0, start),
                          names=("i", "total"))
    return i, total


CASES = [
    # function, input types, sample inputs (for the interpreter check)
    (reduce_mean_seed, [TensorType(float32, (1, 2))] * 2,
     [np.array([[2.0, 3.0]], np.float32), np.array([[3.0, -2.0]], np.float32)]),
    (next_collatz, [TensorType(int32, (None,))], [np.array([1, 2, 3, 6, 27], np.int32)]),
    (count_and_sum, [TensorType(int32, ()), TensorType(float32, (None,))],
     [np.int32(3), np.array([1.0, -2.5], np.float32)]),
]


def _trace_with_builder(fn, types):
    params = list(inspect.signature(fn).parameters)
    with GraphBuilder(fn.__name__) as b:
        args = [b.add_input(t, name) for t, name in zip(types, params)]
        out = fn(*args)
        outs = out if isinstance(out, tuple) else (out,)
        return b.finish([b.value_of(o) for o in outs])


def trace(fn, types):
    """The graph of `fn` for inputs of `types`.

    To pin what `ag.function` produces instead, replace the line below with
    `return ag.function(fn).get_concrete_function(
         *[ag.TensorSpec(t.shape, t.dtype) for t in types]).graph`.
    """
    return _trace_with_builder(fn, types)


@pytest.mark.parametrize("fn, types, inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_golden(fn, types, inputs):
    graph = trace(fn, types)
    verify(graph, strict=True)
    text = str(graph)
    path = GOLDEN / f"{fn.__name__}.txt"
    if UPDATE:
        path.write_text(text)
    if not path.exists():
        pytest.fail(f"{path} is missing; run with AUTOGRAPH_UPDATE_GOLDEN=1 to create it")
    expected = path.read_text()
    assert text == expected, f"the IR of {fn.__name__} changed; see {path}"
    parsed = parse_graph(expected)
    assert graph_difference(parsed, graph) is None
    assert str(parsed) == expected
    verify(parsed, strict=True)
    # The interpreter agrees with eager execution of the same function.
    eager = fn(*inputs)
    eager = eager if isinstance(eager, tuple) else (eager,)
    for got, want in zip(run_graph(parsed, inputs), eager):
        np.testing.assert_array_equal(got, np.asarray(getattr(want, "_array", want)))
