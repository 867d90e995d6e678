"""Item assignment (`out[i] = v`, `out[i, j] += v`): the `set_item` op.

Differential: compiled code vs the IR interpreter (the NumPy reference) vs
NumPy itself, for index patterns with run-time indices; end to end through
`ag.function` with hypothesis-drawn keys; the caller's arrays never change;
compiled loops update in place (no copy per iteration); errors.
"""
from __future__ import annotations

import functools
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
from codegen_support import T, assert_same, compile_fn
from autograph.tracer import api
from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.core.interpreter import run_graph

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Each pattern assigns v into x (rank 2) at a key made of run-time ints i, j, k (k != 0).
PATTERNS = {
    "row": lambda i, j, k: i,
    "element": lambda i, j, k: (i, j),
    "rows": lambda i, j, k: slice(i, j),
    "strided": lambda i, j, k: slice(i, j, k),
    "step_only": lambda i, j, k: (slice(None, None, k), slice(None, None, -1)),
    "column": lambda i, j, k: (slice(None), i),
    "ellipsis": lambda i, j, k: (Ellipsis, j),
    "newaxis": lambda i, j, k: (None, i, None, slice(j, None)),
    "start_only": lambda i, j, k: (slice(i, None), slice(None, j)),
}


def _numpy_set(x, key, v):
    """NumPy's `x[key] = v` on a copy (a value of size 1 may fill a scalar slot)."""
    out = x.copy()
    v = np.asarray(v)
    extra = v.ndim - out[key].ndim
    out[key] = v.reshape(v.shape[extra:]) if extra > 0 else v
    return out


@functools.lru_cache(maxsize=None)
def _kernel(name, value_rank, owned):
    """set_item with the pattern's key; `owned`: on a fresh buffer (may update
    in place) rather than on the input itself (must copy)."""
    pattern = PATTERNS[name]

    def fn(x, v, i, j, k):
        target = x * 1.0 if owned else x
        return api.setitem(target, pattern(i, j, k), v), x

    v_type = T("float64", (None,) * value_rank)
    return compile_fn(fn, T("float64", (None, None)), v_type, T("int64"), T("int64"), T("int64"))


@pytest.mark.parametrize("owned", [False, True], ids=["copy", "in_place"])
@pytest.mark.parametrize("value_rank", [0, 1])
@pytest.mark.parametrize("name", sorted(PATTERNS))
@SETTINGS
@given(rows=st.integers(0, 5), cols=st.integers(0, 5), i=st.integers(-7, 7), j=st.integers(-7, 7),
       k=st.integers(-3, 3).filter(bool), vlen=st.sampled_from([1, None]))
def test_patterns_match_interpreter_and_numpy(name, value_rank, owned, rows, cols, i, j, k, vlen):
    g, kern = _kernel(name, value_rank, owned)
    x = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols)
    v = np.float64(-1.5) if value_rank == 0 else -np.arange(1.0, 1.0 + (vlen or cols))
    inputs = [x, np.asarray(v), np.int64(i), np.int64(j), np.int64(k)]
    frozen = x.copy()
    try:
        want = run_graph(g, inputs)
    except InvalidArgumentError as e:
        with pytest.raises(InvalidArgumentError) as info:
            kern(*inputs)
        assert str(info.value).splitlines()[0] == str(e).splitlines()[0]
        return
    got = kern(*inputs)
    assert_same(got[0], want[0])
    assert_same(got[0], _numpy_set(x, PATTERNS[name](i, j, k), v))
    np.testing.assert_array_equal(x, frozen)          # the input is never written
    assert_same(got[1], frozen)


# ---------------------------------------------------------------- end to end

def _int_part(draw, size):
    return draw(st.integers(-size - 1, size)) if size else draw(st.integers(-1, 0))


@st.composite
def keys(draw, shape):
    """A basic-indexing key for `shape`: ints (maybe negative), slices with
    steps, `...` and None, alone or in a tuple."""
    parts = []
    axis = 0
    n = draw(st.integers(1, len(shape)))
    use_ellipsis = draw(st.booleans())
    for _ in range(n):
        size = shape[axis]
        kind = draw(st.sampled_from(["int", "slice", "none"]))
        if kind == "none":
            parts.append(None)
            continue
        if kind == "int" and size:
            parts.append(draw(st.integers(-size, size - 1)))
        else:
            bound = st.none() | st.integers(-size - 2, size + 2)
            parts.append(slice(draw(bound), draw(bound), draw(st.none() | st.sampled_from([1, 2, -1, -2, 3]))))
        axis += 1
    if use_ellipsis:
        parts.insert(draw(st.integers(0, len(parts))), Ellipsis)
    if len(parts) == 1 and draw(st.booleans()):
        return parts[0]
    return tuple(parts)


@given(data=st.data())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_compiled_eager_and_numpy_agree_on_drawn_keys(data):
    shape = data.draw(st.sampled_from([(4,), (3, 4), (2, 3, 2)]))
    x = np.arange(np.prod(shape), dtype=np.int64).reshape(shape)
    key = data.draw(keys(shape))

    @ag.function(autograph=False)
    def f(x):
        y = x + 0
        y = api.setitem(y, key, -7)
        return y

    try:
        want = _numpy_set(x, key, -7)
    except IndexError as e:   # an `...` moved an int onto a shorter axis: the same error
        for run in (lambda: api.setitem(x, key, -7), lambda: f(x)):
            with pytest.raises(ag.errors.InvalidArgumentError) as info:
                run()
            assert str(info.value).splitlines()[0] == str(e)
        return
    np.testing.assert_array_equal(api.setitem(x, key, -7).numpy(), want)     # eager
    np.testing.assert_array_equal(f(x).numpy(), want)                       # compiled
    np.testing.assert_array_equal(x, np.arange(np.prod(shape)).reshape(shape))


def test_item_assignment_syntax_rebinds_the_name():
    @ag.function
    def f(x, i):
        out = x * 2.0
        out[0] = 7.0
        out[1:3] += 1.0
        out[-1] = out[i]
        return out

    x = np.arange(5.0)
    got = f(x, np.int32(2)).numpy()
    np.testing.assert_array_equal(got, [7.0, 3.0, 5.0, 6.0, 5.0])
    np.testing.assert_array_equal(x, np.arange(5.0))


def test_augmented_assignment_on_two_indices():
    @ag.function
    def f(x, v):
        out = ag.zeros_like(x)
        for i in range(len(x)):
            for j in range(len(v)):
                out[i, j] += x[i, j] * v[j]
                out[i, j] += 1.0
        return out

    x = np.random.default_rng(0).standard_normal((6, 4))
    v = np.arange(4.0)
    np.testing.assert_allclose(f(x, v).numpy(), x * v + 1.0, rtol=1e-15)


def test_callers_array_and_tensor_are_never_changed():
    @ag.function
    def f(x):
        x[0] = 100
        x[1:] *= 2
        return x

    a = np.array([1, 2, 3], np.int32)
    t = ag.constant([1, 2, 3])
    np.testing.assert_array_equal(f(a).numpy(), [100, 4, 6])
    np.testing.assert_array_equal(f(t).numpy(), [100, 4, 6])
    np.testing.assert_array_equal(a, [1, 2, 3])
    np.testing.assert_array_equal(t.numpy(), [1, 2, 3])


def test_the_old_value_stays_visible_when_still_used():
    @ag.function
    def f(x):
        out = x + 0.0
        old = out
        out[0] = 5.0
        return out, old, old[0]

    x = np.arange(3.0)
    out, old, first = f(x)
    np.testing.assert_array_equal(out.numpy(), [5.0, 1.0, 2.0])
    np.testing.assert_array_equal(old.numpy(), x)
    assert float(first) == 0.0


def test_updates_inside_branches_and_swapped_loop_variables():
    @ag.function
    def branches(x):
        out = ag.zeros_like(x)
        for i in range(len(x)):
            if x[i] > 0:
                out[i] = x[i]
            elif x[i] < -1:
                out[i] = -2.0 * x[i]
        return out

    @ag.function
    def swap(x):
        a = x + 0.0
        b = x * 2.0
        for i in range(len(x)):
            a, b = b, a
            a[i] = -1.0
        return a, b

    x = np.random.default_rng(1).standard_normal(1000)
    np.testing.assert_array_equal(branches(x).numpy(), np.where(x > 0, x, np.where(x < -1, -2 * x, 0)))
    a, b = x + 0.0, x * 2.0
    for i in range(len(x)):
        a, b = b, a
        a[i] = -1.0
    got = swap(x)
    np.testing.assert_array_equal(got[0].numpy(), a)
    np.testing.assert_array_equal(got[1].numpy(), b)


def test_scalar_and_broadcast_values():
    @ag.function
    def f(m, row, s):
        m = m + 0
        m[0] = row            # a row
        m[1] = s              # a scalar broadcast over a row
        m[:, -1] = [9, 8, 7, 6]  # a Python list takes m's dtype
        m[2:] = row[None, :]  # a leading 1 is dropped, as in NumPy
        return m

    m = np.zeros((4, 3), np.int64)
    row = np.array([1, 2, 3], np.int64)
    want = m.copy()
    want[0] = row
    want[1] = 5
    want[:, -1] = [9, 8, 7, 6]
    want[2:] = row[None, :]
    np.testing.assert_array_equal(f(m, row, np.int64(5)).numpy(), want)


def test_rank0_target():
    @ag.function
    def f(s, v):
        s = s + 0.0
        s[...] = v
        return s

    assert float(f(np.float64(1.0), np.float64(3.0))) == 3.0


# ---------------------------------------------------------------- in place

def _best_ms(f, *args, repeat=3):
    f(*args)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f(*args)
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def test_a_loop_of_writes_updates_in_place():
    @ag.function
    def fill_loop(x):
        out = ag.zeros_like(x)
        for i in range(len(x)):
            out[i] = x[i] * 2.0
        return out

    x = np.arange(100_000.0)
    np.testing.assert_array_equal(fill_loop(x).numpy(), 2 * x)
    # A copy per iteration would move 100_000 * 800 KB (minutes); in place is ~0.1 ms.
    assert _best_ms(fill_loop, x) < 50


def test_nested_loops_and_branches_update_in_place():
    @ag.function
    def grid(xs, ys):
        out = ag.zeros((len(ys), len(xs)), ag.float64)
        for j in range(len(ys)):
            for i in range(len(xs)):
                if xs[i] > ys[j]:
                    out[j, i] = xs[i] - ys[j]
        return out

    xs = np.linspace(-1, 1, 400)
    ys = np.linspace(-1, 1, 300)
    np.testing.assert_array_equal(grid(xs, ys).numpy(),
                                  np.where(xs[None] > ys[:, None], xs[None] - ys[:, None], 0))
    assert _best_ms(grid, xs, ys) < 100      # a copy per write: 120_000 copies of 960 KB


def test_k10_prefix_sum_item_assignment():
    from examples import kernels
    x = np.random.default_rng(0).standard_normal(1_000_000)
    np.testing.assert_allclose(kernels.prefix_sum(x).numpy(), np.cumsum(x), rtol=1e-9, atol=1e-9)
    assert _best_ms(kernels.prefix_sum, x) < 100


# ---------------------------------------------------------------- errors

def test_out_of_range_index_in_compiled_code():
    @ag.function
    def f(x, i):
        out = x + 0
        out[i] = 1
        return out

    with pytest.raises(ag.errors.InvalidArgumentError) as info:
        f(np.zeros(3, np.int32), np.int32(5))
    msg = str(info.value)
    assert "index 5 is out of bounds for axis 0 with size 3" in msg
    assert "out[i] = 1" in msg and __file__ in msg
    with pytest.raises(ag.errors.InvalidArgumentError, match="index -4 is out of bounds"):
        f(np.zeros(3, np.int32), np.int32(-4))


def test_static_errors_name_the_line():
    @ag.function
    def bad_shape(x):
        x[0] = ag.ones([2], x.dtype)
        return x

    @ag.function
    def bad_dtype(x):
        x[0] = ag.ones([], ag.int32)
        return x

    @ag.function
    def lossy(x):
        x[0] = 1.5
        return x

    @ag.function
    def static_range(x):
        x[7] = 0.0
        return x

    with pytest.raises(ValueError, match=r"cannot assign a value of shape \(2,\) to the indexed "
                                         r"region of shape \(3,\)[\s\S]*x\[0\] = ag.ones"):
        bad_shape(np.zeros((2, 3)))
    with pytest.raises(TypeError, match=r"cannot assign an int32 value to a float64 tensor"):
        bad_dtype(np.zeros(3))
    with pytest.raises(TypeError, match=r"1.5"):
        lossy(np.zeros(3, np.int32))
    with pytest.raises(ag.errors.InvalidArgumentError, match="index 7 is out of bounds"):
        static_range(np.zeros(3))


def test_run_time_broadcast_error():
    spec = ag.TensorSpec([None], ag.float64)

    @ag.function(input_signature=[spec, spec])
    def f(x, v):
        x[1:] = v
        return x

    with pytest.raises(ag.errors.InvalidArgumentError, match="cannot assign a value whose dimension"):
        f(np.zeros(4), np.ones(2))
    np.testing.assert_array_equal(f(np.zeros(4), np.ones(3)).numpy(), [0, 1, 1, 1])
    np.testing.assert_array_equal(f(np.zeros(4), np.ones(1)).numpy(), [0, 1, 1, 1])


def test_eager_errors():
    with pytest.raises(ag.errors.InvalidArgumentError, match="index 3 is out of bounds"):
        api.setitem(ag.constant([1, 2, 3]), 3, 0)
    # an index list is NumPy's integer-array assignment (tracer/api/fancy_indexing.py)
    np.testing.assert_array_equal(api.setitem(ag.constant([1, 2, 3]), [0, 1], 0).numpy(),
                                  [0, 0, 3])
    with pytest.raises(ag.errors.InvalidArgumentError, match="index 3 is out of bounds"):
        api.setitem(ag.constant([1, 2, 3]), [0, 3], 0)


class _Box:
    pass


def test_other_assignment_forms_have_a_clear_error():
    # a chain on a local name is rewritten (tests/autograph/test_chained_item_assignment.py)
    @ag.function
    def chained(x):
        out = x + 0
        out[1][0] = 5
        return out

    np.testing.assert_array_equal(chained(np.zeros((2, 2))), [[0, 0], [5, 0]])

    box = _Box()

    @ag.function
    def into_attribute(x):
        box.t = x + 0
        box.t[1] = 5
        return box.t

    with pytest.raises(TypeError, match=r"only assignments into a local name are rewritten "
                                        r"\(not into an attribute, such as `self.x\[i\] = v`"
                                        r"[\s\S]*box.t\[1\] = 5"):
        into_attribute(np.zeros(2))


# ---------------------------------------------------------------- memory

_MEMORY_CHILD = r'''

import autograph as ag

@ag.function
def updates(x, c):
    out = x * 1.0
    keep = out
    out[0] = 5.0
    for i in range(len(x)):
        if x[i] > c:
            out[i] = x[i]
        elif x[i] < -c:
            out[i] += 1.0
    a, b = x + 0.0, x * 2.0
    for i in range(len(x)):
        a, b = b, a
        a[i] = -1.0
    x2 = x + 0.0
    x2[1:] = x[:-1]
    return out, keep, a, b, x2

@ag.function
def arrays(x, n):
    ta = ag.TensorArray(ag.float64, size=0, dynamic_size=True)
    fixed = ag.TensorArray(ag.float64, size=len(x))
    for i in range(len(x)):
        ta = ta.write(i, x[i])
        fixed = fixed.write(i, x[i] * 2.0)
        if x[i] > 0:
            ta = ta.write(i + n, x[i])
    unused = ag.TensorArray(ag.float64, size=n + 1, element_shape=[2]).write(0, x[:2])
    return ta.stack(), fixed.stack(), fixed.read(len(x) - 1), unused.size(), ta.stack()

x = np.linspace(-2.0, 2.0, 9)
for _ in range(3):
    outs = updates(x, np.float64(0.5)) + arrays(x, np.int32(4))
    outs = updates(x[:2], np.float64(0.5)) + arrays(x[:2], np.int32(0))
del outs
gc.collect()
assert not problems, problems
assert not live, f"{len(live)} buffers leaked: {sorted(live.values())}"
try:
    arrays(x, np.int32(-1))   # a fault midway (negative index): leaks are allowed, double frees not
except ag.errors.InvalidArgumentError:
    pass
gc.collect()
assert not problems, problems
print("balanced")
'''


def test_updates_free_every_buffer_exactly_once():
    """In-place updates, donation to loops and branches, grow and TensorArrays
    neither leak nor free twice (malloc/calloc/realloc/free are counted)."""
    from alloc_counting import run_child
    proc = run_child(_MEMORY_CHILD, timeout=300, AUTOGRAPH_DISABLE_CACHE="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "balanced" in proc.stdout
