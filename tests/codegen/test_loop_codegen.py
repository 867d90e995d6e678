"""Code generation of hot loops (issue 8, "loops past Numba"): what was changed for
speed keeps its results.

Float `maximum`/`minimum` are compare-and-select plus a NaN fix-up
(`codegen/lowering/scalar.float_maxmin`) instead of `llvm.maximum`: NaN still
propagates from either operand; on a tie (0.0 and -0.0) elementwise ops
return the second operand as NumPy does, and a loop-carried running
max/min keeps the carried value (`m = max(m, x[i])` as Python's `max`,
`m = max(x[i], m)` as NumPy's `maximum`). Checked against NumPy and plain Python, with fastmath
on and off and threads on and off, together with the loop kernels of
examples/kernels.py and examples/numpy_style.py.
"""
import importlib.util
import math
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph.codegen.abi import threads
from examples import harness
from examples import kernels as K

_ROOT = pathlib.Path(__file__).resolve().parents[2]


def _numpy_style():
    spec = importlib.util.spec_from_file_location("numpy_style_loops", _ROOT / "examples" / "numpy_style.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NS = _numpy_style()


def _running(x, fold, carried_first=True):
    """Plain Python on NumPy scalars: the running `fold` (builtin max or min) as the
    kernels below write it, `fold(m, v)` or `fold(v, m)`. Python's max keeps its first
    argument unless the second compares greater: a NaN carried stays, a NaN met later
    is passed over when it is the second argument, and on a tie (0.0 and -0.0) the
    first argument stays (numeric_builtins.py)."""
    out = []
    m = x[0]
    for v in x:
        m = fold(m, v) if carried_first else fold(v, m)
        out.append(m)
    return np.array(out, dtype=np.asarray(x).dtype)


def _running_carried_first(x):
    out = ag.zeros_like(x)
    m = x[0]
    for i in range(len(x)):
        m = max(m, x[i])
        out[i] = m
    return out


def _running_carried_second(x):
    out = ag.zeros_like(x)
    m = x[0]
    for i in range(len(x)):
        m = max(x[i], m)
        out[i] = m
    return out


def _running_min(x):
    out = ag.zeros_like(x)
    m = x[0]
    for i in range(len(x)):
        m = min(m, x[i])
        out[i] = m
    return out


_RUN_FIRST = ag.function(_running_carried_first, reduce_retracing=True)
_RUN_SECOND = ag.function(_running_carried_second, reduce_retracing=True)
_RUN_MIN = ag.function(_running_min, reduce_retracing=True)
_RUN_FIRST_FAST = ag.function(_running_carried_first, fastmath=True, reduce_retracing=True)


def _same_floats(got, want):
    """Equal values, NaN where NaN, and the same sign on every zero."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    zero = want == 0
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


_SPECIAL = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 2.5, -2.5]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(_SPECIAL) | st.floats(-1e6, 1e6), min_size=1, max_size=40),
       st.sampled_from([np.float32, np.float64]))
def test_running_max_and_min_match_python(values, dtype):
    x = np.array(values, dtype=dtype)
    _same_floats(_RUN_FIRST(x), _running(x, max))
    _same_floats(_RUN_SECOND(x), _running(x, max, carried_first=False))
    _same_floats(_RUN_MIN(x), _running(x, min))


@pytest.mark.parametrize("values", [[0.0, -0.0], [-0.0, 0.0], [1.0, -0.0, 0.0, -0.0], [-1.0, 0.0, -0.0],
                                    [math.nan, 1.0], [1.0, math.nan, 2.0], [-math.inf, math.inf]])
def test_running_max_ties_and_nans(values):
    x = np.array(values)
    _same_floats(_RUN_FIRST(x), _running(x, max))
    _same_floats(_RUN_SECOND(x), _running(x, max, carried_first=False))
    _same_floats(_RUN_MIN(x), _running(x, min))


@pytest.mark.parametrize("n", [1, 2, 1023, 1024, 1025, 5000])
def test_running_max_chunk_edges_and_nan(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n)
    np.testing.assert_array_equal(_RUN_FIRST(x), np.maximum.accumulate(x))
    np.testing.assert_array_equal(_RUN_FIRST_FAST(x), np.maximum.accumulate(x))
    x[n // 2] = np.nan       # max(m, nan) passes over it, as Python does
    np.testing.assert_array_equal(_RUN_FIRST(x), np.fmax.accumulate(x))
    np.testing.assert_array_equal(_RUN_FIRST(x), _running(x, max))
    np.testing.assert_array_equal(_RUN_SECOND(x), _running(x, max, carried_first=False))
    np.testing.assert_array_equal(_RUN_MIN(x), _running(x, min))


def test_running_max_of_an_empty_tensor_raises_the_index_error():
    with pytest.raises(ag.errors.InvalidArgumentError, match=r"index 0 is out of bounds") as info:
        _RUN_FIRST(np.zeros(0))
    assert "m = x[0]" in str(info.value)


@ag.function
def _max_min(x, y):
    return ag.maximum(x, y), ag.minimum(x, y), ag.maximum(y, x), ag.minimum(y, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("count", [1, 2])
def test_elementwise_max_min_match_numpy_with_threads_on_and_off(dtype, count):
    # Large enough for the thread pool; every pair of special values appears.
    n = threads.MIN_PARALLEL + 77
    rng = np.random.default_rng(1)
    x = rng.choice(np.array(_SPECIAL, dtype=dtype), n)
    y = rng.choice(np.array(_SPECIAL, dtype=dtype), n)
    from autograph.codegen.jit import engine
    engine.ensure_started()
    saved = threads.THREADS[0]
    threads.THREADS[0] = count
    try:
        got = _max_min(x, y)
    finally:
        threads.THREADS[0] = saved
    want = (np.maximum(x, y), np.minimum(x, y), np.maximum(y, x), np.minimum(y, x))
    for g, w in zip(got, want):
        _same_floats(g, w)


def test_scalar_max_of_traced_floats_is_pythons():
    @ag.function
    def f(a, b):
        return max(a, b), min(a, b), max(a, b, 0.5), min(b, a, -0.5)

    for a, b in [(np.nan, 1.0), (1.0, np.nan), (np.nan, np.nan), (-0.0, 0.0), (0.0, -0.0), (3.0, -3.0)]:
        a, b = np.float64(a), np.float64(b)
        for got, want in zip(f(a, b), (max(a, b), min(a, b), max(a, b, 0.5), min(b, a, -0.5))):
            _same_floats(got, np.float64(want))


# ------------------------------------------------------------------ the loop kernels

_NS_INPUTS = NS.example_inputs(seed=3, n=300)


@pytest.mark.parametrize("fastmath", [False, True])
@pytest.mark.parametrize("name", ["running_max", "insertion_sort", "gcd_arrays"])
def test_numpy_style_loop_kernels_match_python(name, fastmath):
    kernel = getattr(NS, name)
    args = _NS_INPUTS[name]
    got = np.asarray(ag.function(kernel, fastmath=fastmath)(*args))
    want = kernel(*args)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=0 if not fastmath else 1e-12)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fastmath", [False, True])
def test_loop_kernels_match_their_references(fastmath):
    # The kernels' own (small) inputs; fastmath's tolerance as tests/codegen/test_fastmath.py.
    for kid, fn in [("K3", K.collatz_total), ("K4", K.branchy_sum), ("K5", K.mandelbrot_total),
                    ("K10", K.prefix_sum), ("K10", K.prefix_sum_ta)]:
        k = harness.BY_ID[kid]
        data = k.inputs(0.002)
        want = k.ref(*data)
        f = ag.function(fn.python_function, fastmath=fastmath)
        got = np.asarray(f(*data))
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_prefix_sums_of_tiny_inputs(n):
    x = np.arange(1.0, n + 1.0)
    np.testing.assert_array_equal(K.prefix_sum(x), np.cumsum(x))
    np.testing.assert_array_equal(K.prefix_sum_ta(x), np.cumsum(x))


# ------------------------------------------------------------------ buffers a loop overwrites

from autograph.codegen.lowering.overwrite import (fill_overwritten, grow_overwritten,  # noqa: E402
                                                  loop_overwrites)


def _ops(fn, *args, name):
    cf = fn.get_concrete_function(*args)
    return [o for o in cf.graph.body.walk() if o.name == name]


def _elided(fn, *args) -> list:
    """Where the lowering skips a zero fill or a copy: (op name, slot) pairs."""
    ops = list(fn.get_concrete_function(*args).graph.body.walk())
    out = [("fill", 0) for o in ops if o.name == "fill" and fill_overwritten(o)]
    out += [("grow", 0) for o in ops if o.name == "grow" and grow_overwritten(o)]
    out += [("while", i) for o in ops if o.name == "while"
            for i in range(len(o.operands)) if loop_overwrites(o, i)]
    return out


def _dirty_heap(n):
    # Free buffers of n non-zero float64s, so a missing zero fill would show garbage.
    for _ in range(4):
        np.asarray(_DIRTY(np.full(n, 7.5)))


_DIRTY = ag.function(lambda x: x * 3.0 + 1.0)


def _from_one(x):
    out = ag.zeros_like(x)
    for i in range(1, len(x)):
        out[i] = x[i]
    return out


def _in_branch(x):
    out = ag.zeros_like(x)
    for i in range(len(x)):
        if x[i] > 0:
            out[i] = x[i]
    return out


def _read_first(x):
    out = ag.zeros_like(x)
    for i in range(len(x)):
        out[i] = out[i] + x[i]
    return out


def _shorter(x):
    out = ag.zeros_like(x)
    for i in range(len(x) - 1):
        out[i] = x[i]
    return out


def _reversed_index(x):
    out = ag.zeros_like(x)
    for i in range(len(x)):
        out[len(x) - 1 - i] = x[i]
    return out


def _kept_zeros(x):
    out = ag.zeros_like(x)
    for i in range(len(x)):
        out[i] = x[i]
    return out, ag.zeros_like(x) + 1.0


def _ta_shorter(x):
    ta = ag.TensorArray(x.dtype, size=len(x))
    for i in range(len(x) - 1):
        ta = ta.write(i, x[i])
    return ta.stack()


def _ta_dynamic(x):
    ta = ag.TensorArray(x.dtype, size=0, dynamic_size=True)
    for i in range(len(x)):
        ta = ta.write(2 * i, x[i])
    return ta.stack()


_PARTIAL = [
    (_from_one, lambda x: np.concatenate([[0.0], x[1:]])),
    (_in_branch, lambda x: np.where(x > 0, x, 0.0)),
    (_read_first, lambda x: x.copy()),
    (_shorter, lambda x: np.concatenate([x[:-1], [0.0]])),
    (_reversed_index, lambda x: x[::-1].copy()),
    (_ta_shorter, lambda x: np.concatenate([x[:-1], [0.0]])),
    (_ta_dynamic, lambda x: np.stack([x, np.zeros_like(x)], 1).ravel()[:-1]),
]


def test_full_overwrites_are_recognised():
    x = np.arange(1.0, 1001.0)          # (small zero tensors are folded into constants)
    big = np.arange(1.0, 30001.0)       # (small zero tensors are folded into constants)
    assert _elided(K.prefix_sum, big) == [("fill", 0), ("while", 2)]
    assert _elided(ag.function(NS.running_max), big) == [("fill", 0), ("while", 2)]
    assert [grow_overwritten(o) for o in _ops(K.prefix_sum_ta, big, name="grow")] == [True, False]
    opt = K.prefix_sum.get_concrete_function(big).llvm_ir(optimized=True)
    assert "calloc" not in opt and "memset" not in opt
    # The int32 counter indexes without a mask: LLVM knows its i64 value is in range.
    assert " and i64" not in opt
    # A copied initial value (here the folded constant zeros) is not copied.
    small = K.prefix_sum.get_concrete_function(x).llvm_ir(optimized=True)
    assert "memcpy" not in small and "calloc" not in small


@pytest.mark.parametrize("fn, want", _PARTIAL, ids=[f.__name__ for f, _ in _PARTIAL])
def test_loops_that_leave_elements_unwritten_keep_the_zeros(fn, want):
    x = np.random.default_rng(2).standard_normal(3000)
    compiled = ag.function(fn)
    assert _elided(compiled, x) == []
    _dirty_heap(len(x) * 2)
    _dirty_heap(len(x))
    np.testing.assert_array_equal(compiled(x), want(x))


def test_a_zero_fill_used_after_the_loop_is_kept():
    x = np.random.default_rng(3).standard_normal(2000)
    _dirty_heap(len(x))
    out, ones = ag.function(_kept_zeros)(x)
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(ones, np.ones_like(x))


def test_an_overwritten_buffer_is_freed_on_a_fault_in_the_loop():
    @ag.function
    def f(x, j):
        out = ag.zeros_like(x)
        for i in range(len(x)):
            out[i] = x[i] + x[j + i]
        return out

    x = np.arange(1000.0)
    assert _elided(f, x, np.int32(0)) == [("while", 1)]     # its zeros are not copied
    np.testing.assert_array_equal(f(x, np.int32(0)), 2 * x)
    with pytest.raises(ag.errors.InvalidArgumentError, match=r"index 1000 is out of bounds") as info:
        f(x, np.int32(1))
    assert "out[i] = x[i] + x[j + i]" in str(info.value)
