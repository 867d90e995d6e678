"""Golden files: the printed IR of small traced functions is pinned.

Each function goes through `ag.function`: its optimised graph (`cf.graph`,
after constant folding, CSE and DCE) is compared with
`tests/tracer/golden/<name>.txt`, and the golden text parsed back: the parsed
graph must equal the optimised one structurally, print identically, verify,
and compute what the function computes. The graph as traced
(`cf.raw_graph`) must be what a bare GraphBuilder traces. Run with
`AUTOGRAPH_UPDATE_GOLDEN=1` to rewrite the files after an intended change
of the IR, then review the diff.
"""
import inspect
import os
from pathlib import Path

import numpy as np
import pytest

import autograph as ag
from autograph.tracer import api
from autograph.tracer.core.compare import graph_difference
from autograph.tracer.tracing.control_flow import cond, while_loop
from autograph.tracer.core.interpreter import run_graph
from autograph.tracer.core.parser import parse_graph
from autograph.tracer.tracing.symbolic import GraphBuilder
from autograph.tracer.core.types import TensorType, float32, int32, int64
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


def collatz_total(n):
    """examples/kernels.py K3: a loop over ag.range with a while inside (converted)."""
    return _kernels().collatz_total.python_function(n)


def _kernels():
    import sys
    root = str(Path(__file__).resolve().parents[2])
    if root not in sys.path:
        sys.path.insert(0, root)
    from examples import kernels
    return kernels


def _collatz_reference(n):
    total = 0
    for start in range(1, int(n) + 1):
        v = start
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            total += 1
    return np.int64(total)


CASES = [
    # function, input types, sample inputs, the reference (None: eager execution), autograph
    (reduce_mean_seed, [TensorType(float32, (1, 2))] * 2,
     [np.array([[2.0, 3.0]], np.float32), np.array([[3.0, -2.0]], np.float32)], None, False),
    (next_collatz, [TensorType(int32, (None,))], [np.array([1, 2, 3, 6, 27], np.int32)], None, False),
    (count_and_sum, [TensorType(int32, ()), TensorType(float32, (None,))],
     [np.int32(3), np.array([1.0, -2.5], np.float32)], None, False),
    (collatz_total, [TensorType(int64, ())], [np.int64(6)], _collatz_reference, True),
]


def _trace_with_builder(fn, types):
    params = list(inspect.signature(fn).parameters)
    with GraphBuilder(fn.__name__) as b:
        args = [b.add_input(t, name) for t, name in zip(types, params)]
        out = fn(*args)
        outs = out if isinstance(out, tuple) else (out,)
        return b.finish([b.value_of(o) for o in outs])


def concrete(fn, types, autograph):
    """The ConcreteFunction of `fn` for inputs of `types`."""
    f = ag.function(fn, autograph=autograph)
    return f.get_concrete_function(*[ag.TensorSpec(t.shape, t.dtype) for t in types])


@pytest.mark.parametrize("fn, types, inputs, reference, autograph", CASES, ids=[c[0].__name__ for c in CASES])
def test_golden(fn, types, inputs, reference, autograph):
    cf = concrete(fn, types, autograph)
    verify(cf.raw_graph, strict=True)
    if not autograph:   # the graph as traced is what tracing alone gives
        assert graph_difference(cf.raw_graph, _trace_with_builder(fn, types)) is None
    graph = cf.graph
    verify(graph)
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
    verify(parsed)
    # The interpreter agrees with eager execution of the same function (or its reference).
    want = reference(*inputs) if reference is not None else fn(*inputs)
    want = want if isinstance(want, tuple) else (want,)
    for got, w in zip(run_graph(parsed, inputs), want):
        np.testing.assert_array_equal(got, np.asarray(getattr(w, "_array", w)))


@pytest.mark.parametrize("fn, types, inputs, reference, autograph", CASES, ids=[c[0].__name__ for c in CASES])
def test_the_passes_only_shrink_the_graph(fn, types, inputs, reference, autograph):
    """What the golden files are for: no dead op and no repeated constant is left."""
    cf = concrete(fn, types, autograph)
    ops = list(cf.graph.walk())
    assert len(ops) <= sum(1 for _ in cf.raw_graph.walk())
    constants = [(str(op.result_types[0]), op.attrs["value"].tobytes()) for op in ops if op.name == "constant"]
    assert len(constants) == len(set(constants))
    assert "range" not in {op.name for op in ops}
