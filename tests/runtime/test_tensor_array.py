"""`ag.TensorArray`: eagerly, traced, as a compiled loop variable and branch output.

Differential: a sequence of writes and reads compiled vs eager vs a Python
model; the seed example; growth; errors (read before write, out of range,
shape and dtype mismatches) with the index, the size and the user's line.
"""
from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph.tracer.core import nest

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- a Python model

def model(size, dynamic, writes, reads):
    """(stacked, read values) or the message of the first fault."""
    slots = {}
    for i, v in writes:
        if i < 0:
            return f"TensorArray.write: index {i} is negative" if dynamic else \
                f"TensorArray.write: index {i} is out of range for a TensorArray of size {size}"
        if not dynamic and i >= size:
            return f"TensorArray.write: index {i} is out of range for a TensorArray of size {size}"
        slots[i] = v
        size = max(size, i + 1) if dynamic else size
    got = []
    for i in reads:
        if not 0 <= i < size:
            return f"TensorArray.read: index {i} is out of range for a TensorArray of size {size}"
        if i not in slots:
            return f"TensorArray.read: index {i} has not been written yet"
        got.append(slots[i])
    stacked = np.zeros(size)
    for i, v in slots.items():
        stacked[i] = v
    return stacked, np.array(got)


def _writes_then_reads(dynamic):
    def run(idx, vals, ridx, size):
        ta = ag.TensorArray(ag.float64, size=size, dynamic_size=dynamic, element_shape=())
        for k in range(len(idx)):
            ta = ta.write(idx[k], vals[k])
        out = ag.zeros_like(ridx, dtype=ag.float64)
        for k in range(len(ridx)):
            out[k] = ta.read(ridx[k])
        return ta.stack(), out
    return run


# reduce_retracing: the index lists' lengths vary; the size is a traced int32 scalar.
COMPILED = {d: ag.function(_writes_then_reads(d), reduce_retracing=True) for d in (False, True)}


def _eager(idx, vals, ridx, size, dynamic):
    ta = ag.TensorArray(ag.float64, size=size, dynamic_size=dynamic, element_shape=())
    for i, v in zip(idx, vals):
        ta = ta.write(int(i), float(v))
    return ta.stack(), np.array([float(ta.read(int(i))) for i in ridx])


@SETTINGS
@given(size=st.integers(0, 6), dynamic=st.booleans(),
       writes=st.lists(st.tuples(st.integers(-1, 9), st.integers(-50, 50)), max_size=10),
       reads=st.lists(st.integers(-1, 9), max_size=4))
def test_writes_and_reads_compiled_eager_and_model_agree(size, dynamic, writes, reads):
    idx = np.array([i for i, _ in writes], np.int32)
    vals = np.array([float(v) for _, v in writes])
    ridx = np.array(reads, np.int32)
    want = model(size, dynamic, [(int(i), float(v)) for i, v in zip(idx, vals)], reads)
    for run in (lambda: COMPILED[dynamic](idx, vals, ridx, ag.constant(size, ag.int32)),
                lambda: _eager(idx, vals, ridx, size, dynamic)):
        if isinstance(want, str):
            with pytest.raises(ag.errors.InvalidArgumentError) as info:
                run()
            assert str(info.value).startswith(want), (str(info.value), want)
            continue
        stacked, got = run()
        np.testing.assert_array_equal(np.asarray(stacked), want[0])
        np.testing.assert_array_equal(np.asarray(got), want[1])


# ---------------------------------------------------------------- seeds and kernels

def test_seed_tensor_array_example():
    from examples import seeds
    out = seeds.plus_one_tensor_array(ag.constant([1, 2, 3]))
    assert out.dtype == ag.int32
    np.testing.assert_array_equal(out.numpy(), [2, 3, 4])
    empty = seeds.plus_one_tensor_array(ag.constant(np.zeros(0, np.int32)))
    assert empty.numpy().shape == (0,)


def test_k10_prefix_sum_with_a_tensor_array_is_fast():
    from examples import kernels
    x = np.random.default_rng(0).standard_normal(1_000_000)
    np.testing.assert_allclose(kernels.prefix_sum_ta(x).numpy(), np.cumsum(x), rtol=1e-9, atol=1e-9)
    kernels.prefix_sum_ta(x)
    t = time.perf_counter()
    kernels.prefix_sum_ta(x)
    # in place: a few ms (a copy per write would take hours)
    assert time.perf_counter() - t < 0.1


def test_dynamic_growth_in_a_compiled_loop():
    @ag.function
    def squares(n):
        ta = ag.TensorArray(ag.int64, size=0, dynamic_size=True)
        i = ag.constant(0, ag.int64)
        while i < n:
            ta = ta.write(ag.cast(i, ag.int32), i * i)
            i += 1
        return ta.stack(), ta.size()

    stacked, size = squares(np.int64(100_000))
    assert int(size) == 100_000 and size.dtype == ag.int32
    np.testing.assert_array_equal(stacked.numpy(), np.arange(100_000, dtype=np.int64) ** 2)
    t = time.perf_counter()
    squares(np.int64(100_000))
    assert time.perf_counter() - t < 0.1


def test_rows_unstack_and_reading_inside_the_loop():
    @ag.function
    def running_rows(x):
        ta = ag.TensorArray(x.dtype, size=len(x), element_shape=[x.shape[1]])
        ta = ta.write(0, x[0])
        for i in range(1, len(x)):
            ta = ta.write(i, ta.read(i - 1) + x[i])
        return ta.stack()

    @ag.function
    def reversed_rows(x):
        ta = ag.TensorArray(x.dtype, size=0, dynamic_size=True).unstack(x)
        out = ag.TensorArray(x.dtype, size=len(x))
        n = ta.size()
        for i in range(n):
            out = out.write(n - 1 - i, ta.read(i))
        return out.stack()

    x = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(running_rows(x).numpy(), np.cumsum(x, axis=0))
    np.testing.assert_array_equal(reversed_rows(x).numpy(), x[::-1])


def test_branch_outputs():
    @ag.function
    def maybe_write(x, c):
        ta = ag.TensorArray(ag.float64, size=0, dynamic_size=True)
        if c > 0:
            ta = ta.write(0, x)
            ta = ta.write(1, x * 2)
        return ta.stack(), ta.size()

    @ag.function
    def both(x, c):
        ta = ag.TensorArray(ag.float64, size=2)
        if c > 0:
            ta = ta.write(0, x)
        else:
            ta = ta.write(1, -x)
        return ta.stack()

    x = np.array([1.0, 2.0])
    stacked, size = maybe_write(x, np.int32(1))
    np.testing.assert_array_equal(stacked.numpy(), [x, 2 * x])
    assert int(size) == 2
    stacked, size = maybe_write(x, np.int32(0))
    assert stacked.numpy().shape == (0, 2) and int(size) == 0
    np.testing.assert_array_equal(both(x, np.int32(1)).numpy(), [x, [0, 0]])
    np.testing.assert_array_equal(both(x, np.int32(0)).numpy(), [[0, 0], -x])


def test_loop_that_runs_zero_times():
    @ag.function
    def doubled(x):
        ta = ag.TensorArray(x.dtype, size=0, dynamic_size=True)
        for i in range(len(x)):
            ta = ta.write(i, x[i] * 2)
        return ta.stack()

    assert doubled(np.zeros((0, 3))).numpy().shape == (0, 3)
    np.testing.assert_array_equal(doubled(np.ones((2, 3))).numpy(), np.full((2, 3), 2.0))


# ---------------------------------------------------------------- eager

def test_eager_is_functional():
    ta = ag.TensorArray(ag.int32, size=3)
    ta2 = ta.write(0, 5).write(2, 7)
    np.testing.assert_array_equal(ta2.stack().numpy(), [5, 0, 7])
    assert int(ta2.read(2)) == 7 and int(ta2.size()) == 3
    assert ta.element_shape is None and ta2.element_shape == ()
    ta3 = ta2.write(0, 1)                 # a slot may be written again
    assert int(ta3.read(0)) == 1 and int(ta2.read(0)) == 5
    assert ag.TensorArray(ag.float32, size=0).stack().numpy().shape == (0,)
    shaped = ag.TensorArray(ag.float32, size=2, element_shape=(2,))
    np.testing.assert_array_equal(shaped.stack().numpy(), np.zeros((2, 2), np.float32))


def test_flattens_into_its_tensors():
    ta = ag.TensorArray(ag.float64, size=2).write(0, 1.0)
    leaves, treedef = nest.flatten([ta])
    assert len(leaves) == 3
    again = nest.unflatten(treedef, leaves)[0]
    assert float(again.read(0)) == 1.0
    assert nest.leaf_paths([ta]) == ["[0].data", "[0].written", "[0].size"]


# ---------------------------------------------------------------- errors

def _line_of(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn.python_function)
    return next(start + k for k, line in enumerate(lines) if text in line)


def test_read_errors_name_index_size_and_line():
    @ag.function
    def read_at(x, k):
        ta = ag.TensorArray(ag.float64, size=6)
        for i in range(len(x)):
            ta = ta.write(i, x[i])
        return ta.read(k)

    x = np.arange(4.0)
    assert float(read_at(x, np.int32(3))) == 3.0
    with pytest.raises(ag.errors.InvalidArgumentError) as info:
        read_at(x, np.int32(4))
    msg = str(info.value)
    assert "TensorArray.read: index 4 has not been written yet (a TensorArray of size 6)" in msg
    assert f"line {_line_of(read_at, 'ta.read(k)')}" in msg and "return ta.read(k)" in msg
    with pytest.raises(ag.errors.InvalidArgumentError,
                       match="index 6 is out of range for a TensorArray of size 6"):
        read_at(x, np.int32(6))
    with pytest.raises(ag.errors.InvalidArgumentError, match="index -1 is out of range"):
        read_at(x, np.int32(-1))


def test_write_past_a_fixed_size():
    @ag.function
    def fill(x):
        ta = ag.TensorArray(ag.float64, size=3)
        for i in range(len(x)):
            ta = ta.write(i, x[i])
        return ta.stack()

    np.testing.assert_array_equal(fill(np.ones(2)).numpy(), [1, 1, 0])
    with pytest.raises(ag.errors.InvalidArgumentError) as info:
        fill(np.ones(5))
    msg = str(info.value)
    assert "TensorArray.write: index 3 is out of range for a TensorArray of size 3" in msg
    assert "ta = ta.write(i, x[i])" in msg
    with pytest.raises(ag.errors.InvalidArgumentError, match="index 3 is out of range"):
        ag.TensorArray(ag.float64, size=3).write(3, 1.0)


def test_shape_and_dtype_mismatches_are_clear():
    @ag.function
    def bad_shape(x):
        ta = ag.TensorArray(ag.float64, size=2)
        ta = ta.write(0, x)
        ta = ta.write(1, x[:2])
        return ta.stack()

    @ag.function
    def bad_dtype(x):
        ta = ag.TensorArray(ag.float32, size=2)
        return ta.write(0, x).stack()

    with pytest.raises(ValueError, match=r"elements have shape \(3,\), got a value of shape "
                                         r"\(2,\)[\s\S]*ta.write\(1, x\[:2\]\)"):
        bad_shape(np.ones(3))
    with pytest.raises(TypeError, match="holds float32 elements, got a float64 value"):
        bad_dtype(np.ones(3))
    with pytest.raises(ValueError, match=r"elements have shape \(2,\)"):
        ag.TensorArray(ag.float64, size=1, element_shape=[2]).write(0, np.ones(3))
    with pytest.raises(TypeError, match="cannot use the float 1.5"):
        ag.TensorArray(ag.int32, size=1).write(0, 1.5)


def test_stack_without_any_element_shape():
    with pytest.raises(ValueError, match="element shape is unknown"):
        ag.TensorArray(ag.float64, size=3).stack()


# ---------------------------------------------------------------- the grow op

@pytest.mark.parametrize("owned", [False, True], ids=["copy", "in_place"])
@settings(max_examples=30, deadline=None)
@given(rows=st.integers(0, 9), n=st.integers(-2, 40))
def test_grow_op_matches_its_reference(owned, rows, n):
    from codegen_support import run_both
    g, kern = _grow_kernel(owned)
    x = np.arange(rows * 3, dtype=np.int32).reshape(rows, 3) + 1
    (got, same) = run_both(g, kern, [x, np.int64(n)])
    want_rows = rows if n <= rows else max(n, 2 * rows)
    assert got.shape == (want_rows, 3)
    np.testing.assert_array_equal(got[:rows], x)
    assert not got[rows:].any()
    np.testing.assert_array_equal(same, x)


_GROW = {}


def _grow_kernel(owned):
    from codegen_support import T, compile_fn
    from autograph.tracer.tracing.symbolic import bind
    if owned not in _GROW:
        def fn(x, n):
            src = x + 0 if owned else x
            return bind("grow", src, n), x
        _GROW[owned] = compile_fn(fn, T("int32", (None, 3)), T("int64"))
    return _GROW[owned]


# ---------------------------------------------------------------- arrays of stacked arrays (issue 10)

def _grid(xs, ys):
    rows = ag.TensorArray(ag.int32, size=0, dynamic_size=True)
    for j in ag.range(ag.size(ys)):
        row = ag.TensorArray(ag.int32, size=0, dynamic_size=True)
        for i in ag.range(ag.size(xs)):
            row = row.write(i, ag.cast(xs[i] + ys[j] > 0, ag.int32))
        rows = rows.write(j, row.stack())
    return rows.stack()


@pytest.mark.parametrize("nx,ny", [(4, 3), (1, 1), (7, 2), (3, 9)])
def test_array_of_stacked_rows_matches_numpy(nx, ny):
    xs, ys = np.linspace(-1, 1, nx), np.linspace(-1, 1, ny)
    want = (xs[None, :] + ys[:, None] > 0).astype(np.int32)
    got = ag.function(_grid)(xs, ys)
    np.testing.assert_array_equal(np.asarray(got), want)
    eager = _grid(ag.constant(xs), ag.constant(ys))
    np.testing.assert_array_equal(np.asarray(eager), want)


def test_array_of_stacked_rows_zero_rows():
    got = ag.function(_grid)(np.linspace(-1, 1, 4), np.zeros(0))
    assert np.asarray(got).shape[0] == 0


def _mandelbrot(re, im, max_iter):
    rows = ag.TensorArray(ag.int32, size=0, dynamic_size=True)
    for j in ag.range(ag.size(im)):
        row = ag.TensorArray(ag.int32, size=0, dynamic_size=True)
        for i in ag.range(ag.size(re)):
            zr = ag.constant(0.0, ag.float64)
            zi = ag.constant(0.0, ag.float64)
            n = 0
            for k in ag.range(max_iter):
                if zr * zr + zi * zi > 4.0:
                    break
                zr, zi = zr * zr - zi * zi + re[i], 2.0 * zr * zi + im[j]
                n += 1
            row = row.write(i, n)
        rows = rows.write(j, row.stack())
    return rows.stack()


def _mandelbrot_numpy(re, im, max_iter):
    out = np.zeros((len(im), len(re)), np.int32)
    for j, y in enumerate(im):
        for i, x in enumerate(re):
            zr = zi = 0.0
            n = 0
            for _ in range(max_iter):
                if zr * zr + zi * zi > 4.0:
                    break
                zr, zi = zr * zr - zi * zi + x, 2.0 * zr * zi + y
                n += 1
            out[j, i] = n
    return out


def test_mandelbrot_grid_with_break():
    re, im = np.linspace(-2.0, 0.5, 9), np.linspace(-1.2, 1.2, 5)
    want = _mandelbrot_numpy(re, im, 20)
    got = ag.function(_mandelbrot)(re, im, np.int32(20))
    np.testing.assert_array_equal(np.asarray(got), want)
    assert want.min() < want.max()      # both escaping and bounded points


def test_array_of_rows_written_in_a_branch():
    @ag.function
    def f(xs, flag):
        rows = ag.TensorArray(ag.float64, size=0, dynamic_size=True)
        if flag > 0:
            rows = rows.write(0, xs * 2.0)
        rows = rows.write(1, xs + 1.0)
        return rows.stack()

    xs = np.arange(3.0)
    np.testing.assert_array_equal(np.asarray(f(xs, 1)), np.stack([xs * 2, xs + 1]))
    np.testing.assert_array_equal(np.asarray(f(xs, 0)), np.stack([np.zeros(3), xs + 1]))
