"""The fast path of cached calls: native entries (autograph.codegen.entry.emit) and the
dispatch in front of them (autograph.runtime.fastpath).

The fast path must be invisible: every call gives what the slow path gives
(compared against functions made with the fast path off), falls back to the
slow path for anything it does not take (and the slow path's errors are
unchanged), never leaks, and is safe from several threads. What could crash
the process runs in a subprocess first.
"""
import gc
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import weakref

import paths

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph.codegen.entry.layout import layout
from autograph.codegen.entry.native import calls
from autograph.runtime import fastpath
from autograph.tracer.tracing.symbolic import ACTIVE_TRACES

ROOT = paths.ROOT

pytestmark = [pytest.mark.skipif(not layout().ok, reason=f"no native entries here: {layout().reason}"),
              pytest.mark.filterwarnings("ignore::autograph.tracer.core.logs.RetracingWarning")]


def _run(code: str, directory=None) -> str:
    """Run `code` from a file (autograph reads functions' source) in a fresh
    interpreter with the repository on the path; its stdout."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(str(directory or d), "script.py")
        with open(path, "w") as fh:
            fh.write(textwrap.dedent(code))
        out = subprocess.run([sys.executable, path], cwd=ROOT, capture_output=True, text=True,
                             timeout=300, env=dict(os.environ, PYTHONPATH=ROOT))
    assert out.returncode == 0, f"exit {out.returncode}\n{out.stdout}\n{out.stderr}"
    return out.stdout


class _Slow:
    """Calls `pf` with the fast path off: it learns no entries, so every call
    takes the slow path (use a PolymorphicFunction of its own)."""

    def __init__(self, pf):
        self.pf = pf

    def __call__(self, *args, **kwargs):
        previous = fastpath.set_enabled(False)
        try:
            return self.pf(*args, **kwargs)
        finally:
            fastpath.set_enabled(previous)


def _same(a, b):
    la, _ = _flatten(a)
    lb, _ = _flatten(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        assert type(x) is type(y)
        if isinstance(x, ag.Tensor):
            assert x.dtype is y.dtype and x.shape == y.shape
            assert not x._array.flags.writeable
            np.testing.assert_array_equal(x.numpy(), y.numpy())
        else:
            assert x == y or (x is None and y is None)


def _flatten(x):
    from autograph.tracer.core import nest
    return nest.flatten(x)


# ---------------------------------------------------------------- crash-prone, in a subprocess first

def test_smoke_in_a_subprocess():
    out = _run("""
        import numpy as np, autograph as ag
        from autograph.codegen.entry.layout import layout
        assert layout().ok, layout().reason

        @ag.function
        def f(x, c=2.0):
            return x * c + 1

        t = ag.constant(np.float32(1.5))
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        for _ in range(3):
            print(float(f(t)), f(a).numpy().tolist(), float(f(1.5)), float(f(t, 3.0)))
        print(f.__call__(t), f(x=t))                           # bound __call__, keywords
        print(type(f).__call__(f, t), f._call_python(t))
        cf = f.get_concrete_function(t)
        print(cf(t), cf(np.float32(4)), cf(np.array(5, np.float32)))

        @ag.function
        def g(x, i):
            return x[i]
        g(np.arange(3.0), ag.constant(1))
        try:
            g(np.arange(3.0), ag.constant(7))
        except ag.errors.InvalidArgumentError as e:
            print("fault:", str(e).splitlines()[0])
        print("done")
    """)
    assert "fault: index 7 is out of bounds for axis 0 with size 3" in out
    assert out.strip().endswith("done")
    assert out.splitlines()[0] == "4.0 [[1.0, 3.0, 5.0], [7.0, 9.0, 11.0]] 4.0 5.5"


def test_native_call_is_installed_and_used():
    @ag.function
    def f(x):
        return x + 1

    t = ag.constant(np.float32(1.0))
    f(t)
    assert f._native_call is not None
    assert type(ag.PolymorphicFunction.__dict__["__call__"]).__name__ == "method_descriptor"
    before = calls(f._native_call)
    for _ in range(10):
        assert float(f(t)) == 2.0
    assert calls(f._native_call) == before + 10
    assert f.tracing_count == 1


# ---------------------------------------------------------------- same results as the slow path

_DTYPES = {"bool": np.bool_, "int32": np.int32, "int64": np.int64, "float32": np.float32,
           "float64": np.float64}


def _kernel(x, c):
    y = ag.cast(x, ag.float64) * c
    return y, x, ag.reduce_sum(y)


_fast_kernel = ag.function(_kernel)
_slow_kernel = _Slow(ag.function(_kernel))


@st.composite
def _cases(draw):
    dtype = draw(st.sampled_from(sorted(_DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    arr = (rng.standard_normal(shape) * 10).astype(_DTYPES[dtype])
    kind = draw(st.sampled_from(["tensor", "array", "scalar"] if shape == () else ["tensor", "array"]))
    if kind == "tensor":
        x = ag.constant(arr)
    elif kind == "array":
        x = arr
    else:
        x = _DTYPES[dtype](arr[()])
    c = draw(st.sampled_from([1, 2, 1.0, 2.5, -0.0, 0.0, 3]))
    return x, c


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_fast_path_equals_slow_path(case):
    x, c = case
    expected = _slow_kernel(x, c)
    for _ in range(3):   # the first call may be slow; the next ones take the fast path
        _same(_fast_kernel(x, c), expected)


def test_python_values_are_keys_one_float_and_true_distinct():
    seen = []

    def body(x, c):
        seen.append(type(c))
        return x + ag.cast(c, ag.float32)

    f = ag.function(body)
    t = ag.constant(np.float32(1.0))
    for c in (1, 1.0, True, 1, 1.0, True):
        assert float(f(t, c)) == 2.0
    assert seen == [int, float, bool]
    assert f.tracing_count == 3
    f(t, -0.0)
    f(t, 0.0)   # equal to -0.0: the same trace, as the cache key says
    assert f.tracing_count == 4
    nan = float("nan")
    f(t, nan)
    f(t, nan)   # the same object: same key
    assert f.tracing_count == 5
    f(t, float("nan"))   # another NaN object: a new key, as in the slow path
    assert f.tracing_count == 6


def test_string_and_none_python_values():
    @ag.function
    def f(x, mode, extra=None):
        return x * 2 if mode == "double" else x + 1

    t = ag.constant(np.float32(3.0))
    for _ in range(2):
        assert float(f(t, "double")) == 6.0
        assert float(f(t, "inc")) == 4.0
        assert float(f(t, "double", None)) == 6.0
    assert f.tracing_count == 2


def test_defaults_and_positional_counts():
    @ag.function
    def f(x, k=2, y=None):
        return x * k if y is None else x * k + y

    t = ag.constant(np.float32(1.5))
    for _ in range(2):
        assert float(f(t)) == 3.0
        assert float(f(t, 2)) == 3.0          # the default's value: the same trace
        assert float(f(t, 3)) == 4.5
        assert float(f(t, 2, t)) == 4.5
    assert f.tracing_count == 3


def test_output_structures():
    @ag.function
    def f(x, which):
        if which == 0:
            return x + 1
        if which == 1:
            return x + 1, x * 2
        if which == 2:
            return {"a": x + 1, "b": [x * 2, "label", 7]}
        if which == 3:
            return None
        return (x, (x + 1,)), 3.5

    g = _Slow(ag.function(f.python_function))
    t = ag.constant(np.arange(3, dtype=np.float64))
    for which in range(5):
        for _ in range(3):
            _same(f(t, which), g(t, which))
    r = f(t, 2)
    assert r["b"][1] == "label" and isinstance(r["b"][0], ag.Tensor)
    assert f(t, 2)["b"] is not r["b"]   # containers are fresh every call


def test_concrete_function_calls():
    @ag.function
    def f(x, y, n=2):
        return x * n + y

    cf = f.get_concrete_function(ag.TensorSpec([None], ag.float32), ag.TensorSpec([], ag.float32))
    x = np.arange(4, dtype=np.float32)
    y = ag.constant(np.float32(1.0))
    for _ in range(3):
        np.testing.assert_array_equal(cf(x, y).numpy(), x * 2 + 1)
    assert cf._native_call is not None
    np.testing.assert_array_equal(cf(x, y, 2).numpy(), x * 2 + 1)       # all arguments
    np.testing.assert_array_equal(cf(x=x, y=y).numpy(), x * 2 + 1)      # keywords
    np.testing.assert_array_equal(cf(x[::2], y).numpy(), x[::2] * 2 + 1)  # non-contiguous: copied
    with pytest.raises(ag.errors.InvalidArgumentError,
                       match=r"input #0 \(zero-based, 'x'\) was expected to be a float32 tensor but is a "
                             r"float64 tensor"):
        cf(x.astype(np.float64), y)
    with pytest.raises(ag.errors.InvalidArgumentError, match=r"takes 2 tensor argument\(s\)"):
        cf(x, y, 3, 4)


# ---------------------------------------------------------------- falls back to the slow path

def test_non_contiguous_byteswapped_and_subclass_arrays_fall_back():
    @ag.function
    def f(x):
        return x * 2

    class Sub(np.ndarray):
        pass

    base = np.arange(10, dtype=np.float32)
    f(base[:5])
    n = f.tracing_count
    for x in (base[::2], base[:5].view(Sub)):
        np.testing.assert_array_equal(f(x).numpy(), np.asarray(x, dtype=np.float32) * 2)
    assert f.tracing_count == n
    with pytest.raises(TypeError, match="masked array"):   # never taken natively with its mask ignored
        f(np.ma.masked_array(base[:5]))
    swapped = base[:5].astype(">f4")          # the other byte order: its values, converted
    np.testing.assert_array_equal(f(swapped).numpy(), base[:5] * 2)
    assert f.tracing_count == n               # the same signature as the native-order array


def test_objects_and_nested_arguments_take_the_slow_path():
    class Config:
        scale = 3.0

    @ag.function
    def f(x, cfg, pair=(1, 2)):
        return x * cfg.scale + pair[0]

    t = ag.constant(np.float32(1.0))
    c = Config()
    for _ in range(3):
        assert float(f(t, c)) == 4.0
    assert f._native_call is None    # identity keys and nested values: no entry
    assert f.tracing_count == 1


def test_wrong_dtype_retraces_and_input_signature_errors_unchanged():
    @ag.function(input_signature=[ag.TensorSpec([None], ag.float32)])
    def f(x):
        return x + 1

    x = np.arange(3, dtype=np.float32)
    for _ in range(2):
        np.testing.assert_array_equal(f(x).numpy(), x + 1)
    assert f._native_call is not None
    np.testing.assert_array_equal(f(x[::2]).numpy(), x[::2] + 1)   # copied by the slow path
    with pytest.raises(ValueError, match="Python inputs incompatible with input_signature"):
        f(np.arange(3, dtype=np.int32))
    with pytest.raises(ValueError, match="Python inputs incompatible with input_signature"):
        f(np.zeros((2, 2), np.float32))
    assert f.tracing_count == 1


def test_reduce_retracing_relaxed_traces_stay_exact():
    @ag.function(reduce_retracing=True)
    def f(x):
        return ag.reduce_sum(x) + ag.cast(ag.size(x), ag.float32)

    for n in (3, 4, 5, 3, 4, 6, 3):
        x = np.ones(n, np.float32)
        assert float(f(x)) == 2 * n
    assert f.tracing_count == 2


def test_variables_captured_and_passed():
    v = ag.Variable(np.zeros(3, np.float32))

    @ag.function
    def bump(x):
        v.assign_add(x)
        return v.read_value()

    x = np.ones(3, np.float32)
    for k in range(1, 5):
        np.testing.assert_array_equal(bump(x).numpy(), np.full(3, k, np.float32))
    np.testing.assert_array_equal(v.numpy(), np.full(3, 4, np.float32))

    @ag.function
    def scale(w, s):
        w.assign(w * s)

    w1 = ag.Variable(np.ones(2))
    w2 = ag.Variable(np.full(2, 2.0))
    for _ in range(2):
        assert scale(w1, 3.0) is None
        assert scale(w2, 3.0) is None
    np.testing.assert_array_equal(w1.numpy(), [9.0, 9.0])
    np.testing.assert_array_equal(w2.numpy(), [18.0, 18.0])
    assert scale.tracing_count == 1
    t = ag.constant(np.ones(2))
    with pytest.raises(Exception):
        scale.get_concrete_function(w1, 3.0)(t)   # a tensor where a variable is expected


def test_keyword_arguments_take_the_slow_path():
    @ag.function
    def f(x, y):
        return x - y

    a, b = ag.constant(5.0), ag.constant(2.0)
    for _ in range(2):
        assert float(f(a, b)) == 3.0
        assert float(f(y=b, x=a)) == 3.0
        assert float(f(a, y=b)) == 3.0
    assert f.tracing_count == 1


def test_calls_inside_a_trace_are_inlined():
    @ag.function
    def inner(x):
        return x * 3

    @ag.function
    def outer(x):
        return inner(x) + inner(ag.constant(1.0))

    t = ag.constant(2.0)
    assert float(inner(t)) == 6.0
    for _ in range(2):
        assert float(outer(t)) == 9.0
    assert ACTIVE_TRACES[0] == 0
    assert "mul" in str(outer.get_concrete_function(t).graph)


def test_native_fault_names_the_users_line():
    @ag.function
    def f(x, i):
        return x[i]  # the indexing line

    x = np.arange(3.0)
    f(x, ag.constant(0))
    assert f._native_call is not None
    for _ in range(2):
        with pytest.raises(ag.errors.InvalidArgumentError) as e:
            f(x, ag.constant(5))
        assert "index 5 is out of bounds for axis 0 with size 3" in str(e.value)
        assert "return x[i]  # the indexing line" in str(e.value)
    assert float(f(x, ag.constant(2))) == 2.0


# ---------------------------------------------------------------- results, memory, threads

def test_results_are_fresh_and_recycled_only_when_unobservable():
    @ag.function
    def f(x):
        return x + 1

    r1 = f(ag.constant(1.0))
    r2 = f(ag.constant(2.0))
    assert r1 is not r2 and float(r1) == 2.0 and float(r2) == 3.0
    kept = r2._array
    ref = weakref.ref(f(ag.constant(5.0))._array)    # a weak reference keeps it out of reuse
    del r2
    for k in range(10):
        assert float(f(ag.constant(float(k)))) == k + 1
    assert kept[()] == 3.0
    assert ref() is not None and ref()[()] == 6.0


def _rss_kb() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_no_leaks_over_many_calls():
    @ag.function
    def f(x, y):
        return x + y, ag.reduce_sum(x), x * 2

    @ag.function
    def boom(x, i):
        return x[i]

    x = np.ones(1000, np.float32)
    t = ag.constant(np.float32(2.0))
    xs = np.arange(3.0)
    bad = ag.constant(9)

    def work(n):
        for _ in range(n):
            f(x, t)
            f(t, t)
            try:
                boom(xs, bad)
            except ag.errors.InvalidArgumentError:
                pass

    work(2000)
    refs = (sys.getrefcount(x), sys.getrefcount(t), sys.getrefcount(t._array))
    gc.collect()
    before = _rss_kb()
    work(30000)
    gc.collect()
    grown = _rss_kb() - before
    assert (sys.getrefcount(x), sys.getrefcount(t), sys.getrefcount(t._array)) == refs
    # 90,000 results of 4 KB each would be 350 MB; allow the allocator some slack.
    assert grown < 8_000, f"RSS grew by {grown} KB"


def test_outputs_own_their_buffers():
    @ag.function
    def f(x):
        return x * 2

    r = f(np.arange(5, dtype=np.int64))
    r = f(np.arange(5, dtype=np.int64))
    arr = r._array
    assert not arr.flags.writeable and arr.flags.c_contiguous
    view = arr[1:3]
    del r, arr
    gc.collect()
    np.testing.assert_array_equal(view, [2, 4])   # the view keeps the buffer


def test_threads():
    @ag.function
    def f(x, k):
        return x * k

    @ag.function
    def big(x):
        return ag.reduce_sum(x * 2.0)

    xs = [np.full(8, i, np.float64) for i in range(8)]
    large = np.ones(1 << 17, np.float32)      # above the GIL-release threshold
    f(xs[0], 3)
    big(large)
    errors = []

    def worker(i):
        try:
            for _ in range(2000):
                r = f(xs[i], 3)
                assert r.numpy()[0] == 3 * i
                t = ag.constant(np.float64(i))
                assert float(f(t, 3)) == 3 * i
            for _ in range(20):
                assert float(big(large)) == 2 * large.size
        except BaseException as e:   # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[0]
    assert f.tracing_count == 2


def test_disk_cached_code_has_an_entry(tmp_path):
    code = f"""
        import os
        os.environ["AUTOGRAPH_CACHE_DIR"] = {str(tmp_path)!r}
        import numpy as np, autograph as ag
        from autograph.codegen.jit import disk_cache as cache
        @ag.function
        def f(x):
            return x * 2 + 1
        x = np.arange(4, dtype=np.float32)
        for _ in range(3):
            r = f(x)
        print(r.numpy().tolist(), f._native_call is not None, cache.STATS["hits"])
    """
    first = _run(code, tmp_path).split()     # the same file: the same cache key
    second = _run(code, tmp_path).split()
    assert first[-2:] == ["True", "0"]
    assert second[-2:] == ["True", "1"]
    assert second[0] == "[1.0,"


def test_long_kernels_release_the_gil():
    import time

    @ag.function
    def spin(n):
        i = ag.constant(0, dtype=ag.int64)
        acc = ag.constant(0, dtype=ag.int64)
        while i < n:
            acc += i % 7
            i += 1
        return acc

    n = ag.constant(100_000_000, dtype=ag.int64)   # ~0.3 s: far longer than any GIL hand-off
    spin(ag.constant(10, dtype=ag.int64))
    spin(ag.constant(10, dtype=ag.int64))
    assert spin._native_call is not None
    count = [0]
    stop = threading.Event()

    def bump():
        while not stop.is_set():
            count[0] += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)   # a thread holding the GIL lets others run within 0.1 ms
    th = threading.Thread(target=bump)
    th.start()
    try:
        time.sleep(0.01)
        before = count[0]
        time.sleep(0.05)
        rate = (count[0] - before) / 0.05          # increments per second with the GIL free
        t0 = time.perf_counter()
        before = count[0]
        r = spin(n)
        during = count[0] - before
        elapsed = time.perf_counter() - t0
    finally:
        stop.set()
        th.join()
        sys.setswitchinterval(interval)
    # Holding the GIL, the other thread would get a few ms around the call; released, most of it.
    assert during > 0.2 * rate * elapsed, (during, rate, elapsed)
    assert int(r) == 21 * (100_000_000 // 7) + sum(i % 7 for i in range(100_000_000 % 7))


def _kernel_definition(fn, *args) -> str:
    """The `define` line of the kernel function in the module its entry joins."""
    from autograph.codegen.jit import compile as jit_compile
    text, _ = jit_compile._lower(fn.get_concrete_function(*args).graph, "kernel_under_test", True)
    return next(line for line in text.splitlines() if line.startswith('define i32 @"kernel_under_test"('))


def test_a_kernel_with_loops_is_not_inlined_into_its_entry():
    """Inlined, its loops would be optimised and emitted twice (emit.py: about 70 ms of a
    cold first call); a scalar kernel stays inlinable (a call's few nanoseconds)."""
    loops = ag.function(lambda x: ag.reduce_sum(x * x))
    scalar = ag.function(lambda a, b: a * b + 1.0)
    assert "noinline" in _kernel_definition(loops, np.ones(4))
    assert "noinline" not in _kernel_definition(scalar, np.float64(1.0), np.float64(2.0))
    np.testing.assert_allclose(loops(np.arange(4.0)), 14.0)
    assert float(scalar(np.float64(2.0), np.float64(3.0))) == 7.0
