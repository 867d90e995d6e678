"""Basic slices read in place by elementwise loops and reductions
(codegen/lowering/views.py): no copy, the same results as NumPy.

Differential against NumPy over hypothesis shapes, dtypes and keys (steps,
negative steps, empty results, integer indices, None, ...), static and
traced bounds, broadcasting between a view and a full array; identical
bytes for 1, 2 and 3 threads (flat chunks, row chunks, reductions, row
fusion); the NumPy-style heat update in a loop (the right-hand side reads
the old values); gradients through slices; and the generated code for
`a[1:] + a[:-1]` allocates its result only (the IR has one `malloc`, and a
counting allocator in a child sees one allocation per call, no leak and no
double free, also on error exits).
"""
import os
import re
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph.codegen.abi import threads

from alloc_counting import run_child
from test_parallel_loops import _Jobs

DTYPES = [np.float64, np.float32, np.int64, np.int32, np.uint8, np.complex128]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 10
    if np.dtype(dtype).kind == "c":
        return (x + 1j * rng.standard_normal(shape)).astype(dtype)
    return x.astype(dtype) if np.dtype(dtype).kind == "f" else (x % 50).astype(dtype)


def _mallocs(fn, *args) -> int:
    """How many `malloc` calls the kernel of fn(*args) contains."""
    ir_text = fn.get_concrete_function(*args).llvm_ir()
    return len(re.findall(r'call ptr @"?malloc"?\(', ir_text))


# ------------------------------------------------------------------ keys

@st.composite
def _keys(draw, rank):
    """A basic-indexing key for a tensor of `rank`: per axis an int index or a
    slice (any step but 0, bounds past the ends), maybe a None and an `...`."""
    parts = []
    for _ in range(draw(st.integers(1, rank))):
        if draw(st.integers(0, 3)) == 0:
            parts.append(("int", draw(st.integers(-1, 0))))
        else:
            bound = st.one_of(st.none(), st.integers(-8, 8))
            step = st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0))
            parts.append(slice(draw(bound), draw(bound), draw(step)))
    if draw(st.booleans()):
        parts.insert(draw(st.integers(0, len(parts))), None)
    if len(parts) < rank and draw(st.booleans()):
        parts.insert(draw(st.integers(0, len(parts))), Ellipsis)
    return parts


def _resolve(parts):
    # an ("int", k) part: index 0 or -1 (valid on any non-empty axis)
    return tuple(p[1] if isinstance(p, tuple) else p for p in parts)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rank=st.integers(1, 3), dtype=st.sampled_from(DTYPES))
def test_static_keys_match_numpy(data, rank, dtype):
    shape = tuple(data.draw(st.lists(st.integers(1, 6), min_size=rank, max_size=rank)))
    key = _resolve(data.draw(_keys(rank)))
    x = _data(shape, dtype)
    y = _data(x[key].shape, dtype, seed=1)

    def f(x, y):
        s = x[key]
        return s * 3 + y - s, (s == y) | (s != s)

    got = ag.function(f)(x, y)
    want = f(x, y)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)
    if np.dtype(dtype).kind in "fc":      # a reduction reading the view directly
        total = ag.function(lambda x: x[key].sum() * 1.0)(x)
        np.testing.assert_allclose(np.asarray(total), x[key].sum(), rtol=1e-5)


def _traced(x, a, b, c, d, e, g):
    s = x[a:b:c, d:e:g]
    t = x[a:b:c, ::-1]
    return s * 2.0 - s, ag.reduce_sum(s, axis=0), t[:, :1] * 0.0 + t


_INDEX = ag.TensorSpec([], ag.int64)
_TRACED = ag.function(_traced, input_signature=[ag.TensorSpec([None, None], ag.float64)] + [_INDEX] * 6)


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(0, 6), cols=st.integers(1, 6),
       bounds=st.lists(st.integers(-8, 8), min_size=4, max_size=4),
       steps=st.lists(st.integers(-3, 3).filter(lambda s: s != 0), min_size=2, max_size=2))
def test_traced_bounds_and_steps_match_numpy(rows, cols, bounds, steps):
    x = _data((rows, cols), np.float64)
    a, b, d, e = (np.int64(v) for v in bounds)
    c, g = (np.int64(v) for v in steps)
    got = _TRACED(x, a, b, c, d, e, g)
    s = x[a:b:c, d:e:g]
    t = x[a:b:c, ::-1]
    want = (s * 2.0 - s, s.sum(axis=0), t[:, :1] * 0.0 + t)
    for gv, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(gv), w, rtol=1e-12, atol=1e-12)


def test_dynamic_shapes_views_and_run_time_broadcast_checks():
    spec = ag.TensorSpec([None, None], ag.float64)

    @ag.function(input_signature=[spec, spec])
    def f(x, y):
        return x[1:] + x[:-1] + y, x[:, ::2] * 2.0

    x = _data((5, 7), np.float64)
    got = f(x, np.ones((4, 7)))
    np.testing.assert_array_equal(np.asarray(got[0]), x[1:] + x[:-1] + 1.0)
    np.testing.assert_array_equal(np.asarray(got[1]), x[:, ::2] * 2.0)
    got = f(x, np.ones((1, 7)))          # broadcast at run time against the views
    np.testing.assert_array_equal(np.asarray(got[0]), x[1:] + x[:-1] + 1.0)
    with pytest.raises(ag.errors.InvalidArgumentError, match="incompatible shapes"):
        f(x, np.ones((3, 7)))


def test_views_broadcast_against_full_arrays():
    x = _data((6, 5), np.float64)
    y = _data((6, 5), np.float64, seed=1)

    def g(x, y):
        return (x[1:, None, ::2] + y[:-1, None, ::2], x[2] - y, x[:, -1:] * y[::-1],
                x[..., 3, None] / (y + 100.0), x[None, 1:4] * y[:3])

    got = ag.function(g)(x, y)
    for gv, w in zip(got, g(x, y)):
        np.testing.assert_array_equal(np.asarray(gv), w)


_TABLE = np.linspace(-1.0, 1.0, 12)


def test_views_of_bools_and_of_captured_arrays():
    m = np.array([True, False, False, True, True, False, True])
    edges = ag.function(lambda m: m[1:] & ~m[:-1] | m[::-3][:1])
    np.testing.assert_array_equal(np.asarray(edges(m)), m[1:] & ~m[:-1] | m[::-3][:1])
    x = np.arange(11.0)
    scaled = ag.function(lambda x: _TABLE[1:] * x + _TABLE[::-1][1:])   # (folded to constants)
    np.testing.assert_array_equal(np.asarray(scaled(x)), _TABLE[1:] * x + _TABLE[::-1][1:])


# ------------------------------------------------------------------ no copies

def test_shifted_pair_allocates_only_its_result():
    a = _data((64, 64), np.float64)
    pair = ag.function(lambda v: v[1:] + v[:-1])
    np.testing.assert_array_equal(np.asarray(pair(a)), a[1:] + a[:-1])
    assert _mallocs(pair, a) == 1
    jacobi = ag.function(lambda v: 0.2 * (v[1:-1, 1:-1] + v[1:-1, :-2] + v[1:-1, 2:]
                                         + v[2:, 1:-1] + v[:-2, 1:-1]))
    assert _mallocs(jacobi, a) == 1
    red = ag.function(lambda v: ag.reduce_sum(v[::2, 1:] * v[1::2, :-1]))
    assert _mallocs(red, a) == 0
    np.testing.assert_allclose(np.asarray(red(a)), np.sum(a[::2, 1:] * a[1::2, :-1]), rtol=1e-12)
    rows = ag.function(lambda v: ag.reduce_sum(v[1:] * v[:-1], axis=1))   # rows on a view
    assert _mallocs(rows, a) == 1
    softmax = ag.function(lambda v: ag.nn.softmax(v[:, 1:]))              # row fusion on a view
    assert _mallocs(softmax, a) == 1


def test_slices_with_other_uses_are_still_copied():
    a = _data((16, 16), np.float64)
    # the slice is also a result: one copy for it, one buffer for the sum
    both = ag.function(lambda v: (v[1:], v[1:] + 1.0))
    assert _mallocs(both, a) == 2
    got = both(a)
    np.testing.assert_array_equal(np.asarray(got[0]), a[1:])
    np.testing.assert_array_equal(np.asarray(got[1]), a[1:] + 1.0)


CHILD = r'''
import autograph as ag
tally = [0]

@ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t)
def tallied_malloc(n):
    tally[0] += 1
    return counting_malloc(n)

llvm.add_symbol("malloc", ctypes.cast(tallied_malloc, ctypes.c_void_p).value)

@ag.function
def pair(a):
    return a[1:] + a[:-1]

@ag.function
def from_temporary(x, i):
    t = ag.math.exp(x)                  # an owned buffer the views read
    s = t[1:] * t[:-1] + t[::-1][1:]
    return s[i] + ag.reduce_sum(t[::2])

@ag.function
def heat(u, alpha, steps):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u

a = np.random.default_rng(0).standard_normal((40, 30))
pair(a)
before = tally[0]
for _ in range(5):
    out = pair(a)
    assert np.array_equal(out, a[1:] + a[:-1])
per_call = (tally[0] - before) / 5
x = np.linspace(0.0, 1.0, 9)
e = np.exp(x)
assert np.allclose(from_temporary(x, np.int32(2)), (e[1:] * e[:-1] + e[::-1][1:])[2] + e[::2].sum())
for _ in range(3):
    try:
        from_temporary(x, np.int32(50))
        raise SystemExit("no error")
    except ag.errors.InvalidArgumentError as err:
        assert "out of bounds" in str(err)
u0 = np.sin(np.linspace(0.0, np.pi, 33))
ref = u0.copy()
for _ in range(7):
    ref[1:-1] = ref[1:-1] + 0.25 * (ref[2:] - 2.0 * ref[1:-1] + ref[:-2])
assert np.allclose(heat(u0, 0.25, 7), ref, rtol=1e-14, atol=0)
del out
gc.collect()
print("per_call", per_call)
assert not problems, problems
assert not live, live
'''


def test_child_counts_one_allocation_per_call_and_no_leak():
    proc = run_child(CHILD)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "per_call 1.0" in proc.stdout


# ------------------------------------------------------------------ threads

@pytest.fixture
def low_threshold(monkeypatch):
    """Split from 256 elements whatever the expression; fresh code per test."""
    from autograph.codegen.jit import compile as jit_compile
    monkeypatch.setattr(threads, "MIN_PARALLEL", 256)
    monkeypatch.setattr(threads, "MIN_WORK", 1)
    monkeypatch.setenv("AUTOGRAPH_DISABLE_CACHE", "1")
    monkeypatch.setattr(jit_compile, "_LOADED", weakref.WeakValueDictionary())
    return _Jobs()


def _with_threads(count, fn, *args):
    saved = threads.THREADS[0]
    threads.THREADS[0] = count
    try:
        out = fn(*args)
    finally:
        threads.THREADS[0] = saved
    return [np.asarray(o) for o in out]


def _kernels(x, y, v):
    return [x[1:] + x[:-1],                                               # flat chunks
            0.2 * (x[1:-1, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:] + x[2:, 1:-1] + x[:-2, 1:-1]),
            v[::2] * v[1::2] - v[::-2],                                    # strided 1-D
            x[::-1, 1:] * y[:, :-1],                                      # negative step
            ag.reduce_sum(x[:, 1:] * x[:, :-1], axis=1),                  # rows reduction
            ag.reduce_sum(x[3:]),                                         # blocked full sum
            ag.reduce_max(x[:, ::2], axis=0),
            ag.nn.softmax(x[:, 1:]),                                      # row fusion
            x[5] + x[:, 7][:, None]]


def _numpy_kernels(x, y, v):
    e = np.exp(x[:, 1:] - x[:, 1:].max(axis=1, keepdims=True))
    return [x[1:] + x[:-1],
            0.2 * (x[1:-1, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:] + x[2:, 1:-1] + x[:-2, 1:-1]),
            v[::2] * v[1::2] - v[::-2],
            x[::-1, 1:] * y[:, :-1],
            np.sum(x[:, 1:] * x[:, :-1], axis=1), np.sum(x[3:]), np.max(x[:, ::2], axis=0),
            e / e.sum(axis=1, keepdims=True), x[5] + x[:, 7][:, None]]


def test_one_two_three_threads_give_identical_bytes(low_threshold):
    x = _data((67, 131), np.float64)
    y = _data((67, 131), np.float64, seed=1)
    v = _data((3000,), np.float64, seed=2)
    f = ag.function(_kernels)
    runs = [_with_threads(t, f, x, y, v) for t in (1, 2, 3)]
    assert low_threshold, "the pool was not used"
    for other in runs[1:]:
        for a, b in zip(other, runs[0]):
            assert a.shape == b.shape and a.tobytes() == b.tobytes()
    for got, want in zip(runs[0], _numpy_kernels(x, y, v)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # dims known only at run time: strides and dims travel to the chunks in ctx
    matrix, vector = ag.TensorSpec([None, None], ag.float64), ag.TensorSpec([None], ag.float64)
    g = ag.function(_kernels, input_signature=[matrix, matrix, vector])
    before = low_threshold.calls()
    runs = [_with_threads(t, g, x, y, v) for t in (1, 2, 3)]
    assert low_threshold.calls() > before, "the pool was not used"
    for other in runs[1:]:
        for a, b in zip(other, runs[0]):
            assert a.shape == b.shape and a.tobytes() == b.tobytes()
    for got, want in zip(runs[0], _numpy_kernels(x, y, v)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


THREADS_CHILD = """
import hashlib, sys
import numpy as np
import autograph as ag
from autograph.codegen.abi import threads
from autograph.codegen.jit import engine
threads.MIN_PARALLEL, threads.MIN_WORK = 256, 1
sys.path[:0] = [{tests!r}, {tests_root!r}]
from test_slice_views import _kernels, _data
engine.ensure_started()
x = _data((67, 131), np.float64); y = _data((67, 131), np.float64, seed=1)
v = _data((3000,), np.float64, seed=2)
outs = [np.asarray(o) for o in ag.function(_kernels)(x, y, v)]
print(int(threads.THREADS[0]), hashlib.sha256(b"".join(o.tobytes() for o in outs)).hexdigest())
"""


def test_num_threads_environment_1_2_3_identical(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(THREADS_CHILD.format(
        tests=os.path.dirname(__file__), tests_root=os.path.dirname(os.path.dirname(__file__)))))
    env = dict(os.environ, AUTOGRAPH_DISABLE_CACHE="1")
    outs = []
    for count in ("1", "2", "3"):
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env=dict(env, AUTOGRAPH_NUM_THREADS=count), timeout=120)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout.split())
    assert [o[0] for o in outs] == ["1", "2", "3"]
    assert outs[0][1] == outs[1][1] == outs[2][1]


# ------------------------------------------------------------------ aliasing

def _heat(u0, alpha, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def _shift_loop(u0, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:] = u[:-1] + 0.0          # reads the old u: a shift by one per step
        u[:-1] = u[1:]                # the value is the slice itself (copied)
    return u


def _read_then_write(u0):
    u = u0.copy()
    s = u[1:]                         # compiled: the old values (a functional update)
    u[0] = 100.0
    u[2] = -100.0
    return s + u[:-1]


@pytest.mark.parametrize("n", [2, 3, 50, 1001])
def test_heat_update_reads_the_old_values(n):
    u0 = np.sin(np.linspace(0.0, np.pi, n))
    got = ag.function(_heat)(u0, 0.25, 20)
    np.testing.assert_allclose(np.asarray(got), _heat(u0, 0.25, 20), rtol=1e-13, atol=1e-15)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_writes_after_a_view_do_not_show_through_it():
    u = np.arange(8.0)
    np.testing.assert_array_equal(np.asarray(ag.function(_shift_loop)(u, 3)), _shift_loop(u, 3))
    # API.md section 2: item assignment is a functional update, so `s` keeps
    # the values u had when it was sliced (NumPy's view would see the writes)
    w = u.copy()
    w[0], w[2] = 100.0, -100.0
    np.testing.assert_array_equal(np.asarray(ag.function(_read_then_write)(u)), u[1:] + w[:-1])


def test_variables_read_through_views():
    v = ag.Variable(np.arange(6.0))

    @ag.function
    def reverse_in_place():
        v.assign(v[::-1] * 1.0)           # the graph assigns: the read is a copy
        return v[1:] + v[:-1]

    got = reverse_in_place()
    np.testing.assert_array_equal(np.asarray(v.numpy()), np.arange(6.0)[::-1])
    want = np.arange(6.0)[::-1]
    np.testing.assert_array_equal(np.asarray(got), want[1:] + want[:-1])

    w = ag.Variable(np.arange(6.0))
    read_only = ag.function(lambda: w[1:] * w[:-1])   # a borrowed read, viewed
    np.testing.assert_array_equal(np.asarray(read_only()), np.arange(1.0, 6) * np.arange(5.0))


# ------------------------------------------------------------------ gradients

def test_gradients_through_slices_compiled_and_eager():
    x = _data((7, 5), np.float64)

    def grads(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            d = x[1:, ::2] - x[:-1, ::-2]
            loss = ag.reduce_sum(d * d) + ag.reduce_sum(x[2, 1:] * x[::-1, 0][1:5])
        return tape.gradient(loss, x)

    compiled = np.asarray(ag.function(grads)(x))
    eager = np.asarray(grads(ag.constant(x)))

    def loss_np(x):
        d = x[1:, ::2] - x[:-1, ::-2]
        return np.sum(d * d) + np.sum(x[2, 1:] * x[::-1, 0][1:5])

    numeric = np.zeros_like(x)
    h = 1e-6
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        numeric[idx] = (loss_np(x + e) - loss_np(x - e)) / (2 * h)
    np.testing.assert_allclose(compiled, eager, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(compiled, numeric, rtol=1e-6, atol=1e-6)
