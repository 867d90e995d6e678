"""Issue 6, converter side: builtins and `math` on traced values, `while True`
with a break, `enumerate`/`zip`/`reversed`, lists filled by `append`, the
eager switch and the unrolling warning (API.md sections 4 and 9).

Differential: each function runs as plain Python on NumPy values and through
`ag.function`; exact for integers, rtol 1e-12 for floats.
"""
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag
from autograph.operators import control_flow as cf_ops

SETTINGS = settings(max_examples=10, deadline=None)
vec = hnp.arrays(np.float64, 6, elements=st.floats(-100, 100, allow_nan=False))


def same(got, want):
    got = np.asarray(got)
    assert got.shape == np.shape(want), (got, want)
    if got.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def graph_text(f, *args):
    return str(f.get_concrete_function(*args).graph)


# ------------------------------------------------------------------ builtins


def builtins_kernel(v):
    m = v[0]
    lo = v[0]
    for i in range(len(v)):
        m = max(m, v[i], 0.5)
        lo = min(lo, v[i])
    return m, lo, abs(v[1]), int(v[2]), float(v[3] > 0), max(v), min(v), sum(v)


_builtins = ag.function(builtins_kernel)


@SETTINGS
@given(vec)
def test_builtins_match_python(v):
    got = _builtins(v)
    want = builtins_kernel(v)
    for g, w in zip(got, want):
        same(g, w)
    assert np.asarray(got[3]).dtype == np.int64       # int(t) -> int64
    assert np.asarray(got[4]).dtype == np.float64     # float(t) -> float64


def rounding(v):
    return round(v[0]), round(v[1], 2), round(v[2] * 0 + 2.5), round(v[2] * 0 + 3.5)


def test_round_halves_to_even_and_keeps_dtype_with_digits():
    if ag.math.__dict__.get("round") is None and not hasattr(ag, "round") and not hasattr(ag, "rint"):
        pytest.skip("the library has no round op yet")
    f = ag.function(rounding)
    v = np.array([2.5, 1.23456, 7.0])
    got = f(v)
    assert [int(np.asarray(g)) if i != 1 else float(np.asarray(g)) for i, g in enumerate(got)] \
        == [2, 1.23, 2, 4]
    assert np.asarray(got[0]).dtype == np.int64 and np.asarray(got[1]).dtype == np.float64


def bool_condition(v):
    if bool(v[0]):
        return v[1]
    return v[2]


def test_bool_of_a_traced_scalar_is_a_compiled_condition():
    f = ag.function(bool_condition)
    for v in (np.array([0.0, 1.0, 2.0]), np.array([3.0, 1.0, 2.0])):
        same(f(v), bool_condition(v))
    assert "cond(" in graph_text(f, np.zeros(3))


def any_all(v):
    return any(v > 1.0), all(v > -1.0), sum(v, 10.0)


@SETTINGS
@given(hnp.arrays(np.float64, 5, elements=st.floats(-3, 3, allow_nan=False)))
def test_any_all_sum_over_a_tensor(v):
    got, want = _any_all(v), any_all(v)
    for g, w in zip(got, want):
        same(g, w)


_any_all = ag.function(any_all)


def max_with_key(v):
    return max(v[0], v[1], key=abs)


def max_of_matrix(m):
    return max(m)


def int_of_vector(v):
    return int(v)


@pytest.mark.parametrize("fn, arg, match", [
    (max_with_key, np.ones(3), r"max\(\.\.\., key=\.\.\.\) with traced tensors is not supported"),
    (max_of_matrix, np.ones((2, 2)), r"max\(\) of one traced tensor of shape \(2, 2\)"),
    (int_of_vector, np.ones(3), r"int\(\) of a traced tensor of shape \(3,\)"),
])
def test_builtin_errors_name_the_builtin_file_and_line(fn, arg, match):
    with pytest.raises((TypeError, NotImplementedError), match=match) as info:
        ag.function(fn)(arg)
    message = str(info.value)
    assert __file__ in message and fn.__name__ in message
    assert "autograph=True" not in message


def python_values(a, b):
    return max(a, b), int(a), math.sqrt(b), round(a)


def test_builtins_keep_python_semantics_on_python_values():
    f = ag.function(python_values)
    assert f(2.7, 9.0) == python_values(2.7, 9.0)


# ---------------------------------------------------------------------- math


def math_kernel(v, n):
    x = v[0]
    return (math.sqrt(abs(x)), math.exp(x / 100), math.log(abs(x) + 1), math.sin(x), math.cos(x),
            math.tanh(x / 10), math.fabs(x), math.pow(abs(x), 0.5), math.hypot(x, v[1]),
            math.degrees(x), math.radians(x), math.isnan(x), math.isinf(x), math.isfinite(x),
            math.sqrt(n[0]), math.log(abs(x) + 1, 2.0))


_math = ag.function(math_kernel)


@SETTINGS
@given(vec, hnp.arrays(np.int32, 2, elements=st.integers(0, 1000)))
def test_math_functions_match_python(v, n):
    got = _math(v, n)
    want = math_kernel(v, n)
    for g, w in zip(got, want):
        same(g, w)
    assert np.asarray(got[-2]).dtype == np.float64   # an int tensor is cast to float64 first


def float32_sqrt(v):
    return math.sqrt(v[0])


def test_math_keeps_a_float32_dtype():
    assert np.asarray(ag.function(float32_sqrt)(np.array([4.0], np.float32))).dtype == np.float32


def floor_ceil(v):
    return math.floor(v[0]), math.ceil(v[0]), math.trunc(v[0])


def test_floor_ceil_trunc_give_int64_or_name_the_missing_op():
    f = ag.function(floor_ceil)
    v = np.array([-2.5])
    try:
        got = f(v)
    except NotImplementedError as e:
        assert "math.floor on a traced tensor is not supported yet" in str(e)
        assert __file__ in str(e)
        return
    assert [int(np.asarray(g)) for g in got] == [-3, -2, -2]
    assert all(np.asarray(g).dtype == np.int64 for g in got)


# ------------------------------------------------------------------- loops


def first_above(v, limit):
    i = 0
    while True:
        if v[i] > limit:
            break
        i += 1
        if i == len(v):
            break
    return i


_first_above = ag.function(first_above)


@SETTINGS
@given(vec)
def test_while_true_with_a_data_dependent_break_compiles(v):
    assert int(np.asarray(_first_above(v, 50.0))) == first_above(v, 50.0)


def test_while_true_is_a_compiled_loop():
    assert "while(" in graph_text(_first_above, np.zeros(4), 1.0)


def newton(a, tol):
    x = a
    err = 1.0
    while err > tol:
        nxt = 0.5 * (x + a / x)
        err = abs(nxt - x)
        x = nxt
    return x


def test_a_python_condition_that_becomes_traced_continues_compiled():
    f = ag.function(newton)
    for a in (2.0, 10.0, 1e6):
        same(f(np.float64(a), 1e-12), newton(a, 1e-12))


def python_range_break(v):
    s = 0.0
    for i in range(v.shape[0]):
        if v[i] < 0:
            break
        s += v[i]
    return s


@SETTINGS
@given(vec)
def test_break_on_a_tensor_in_a_python_range_loop(v):
    same(_python_range_break(v), python_range_break(v))


_python_range_break = ag.function(python_range_break)


def iterations(a, b):
    s = 0.0
    for i, x in enumerate(a):
        s += x * ag.cast(i, ag.float64)
    for x, y in zip(a, b):
        s += x * y
    for k, (x, y) in enumerate(zip(a, b)):
        s -= x * y
    for x, i in zip(a, range(len(a))):
        s += ag.cast(i, ag.float64)
    for x in reversed(a):
        s = s * 0.5 + x
    return s


def iterations_py(a, b):
    s = 0.0
    for i, x in enumerate(a):
        s += x * i
    for x, y in zip(a, b):
        s += x * y
    for k, (x, y) in enumerate(zip(a, b)):
        s -= x * y
    for x, i in zip(a, range(len(a))):
        s += i
    for x in reversed(a):
        s = s * 0.5 + x
    return s


_iterations = ag.function(iterations)


@SETTINGS
@given(vec, hnp.arrays(np.float64, 4, elements=st.floats(-100, 100, allow_nan=False)))
def test_enumerate_zip_reversed_compile_to_loops(a, b):
    same(_iterations(a, b), iterations_py(a, b))


def test_enumerate_zip_are_compiled_loops_not_unrolled():
    text = graph_text(_iterations, np.zeros(6), np.zeros(4))
    assert text.count("while(") == 5


def rows(m):
    total = 0.0
    for row in m:
        for j, x in enumerate(row):
            total += x
    return total


def test_rows_of_a_tensor():
    m = np.arange(12.0).reshape(3, 4)
    same(ag.function(rows)(m), m.sum())


def comprehension(v):
    return [v[i] * 2 for i in range(3)]


def test_list_comprehension_over_a_python_range_unrolls():
    v = np.array([1.0, 2.0, 3.0, 4.0])
    assert [float(np.asarray(t)) for t in ag.function(comprehension)(v)] == [2.0, 4.0, 6.0]


# -------------------------------------------------------------------- lists


def collect(v):
    out = []
    for i in range(len(v)):
        if v[i] > 0:
            out.append(v[i] * 2)
    return np.array(out), len(out)


def collect_py(v):
    out = [x * 2 for x in v if x > 0]
    return np.array(out, dtype=np.float64), len(out)


_collect = ag.function(collect)


@SETTINGS
@given(vec)
def test_append_in_a_compiled_loop_becomes_a_tensor_array(v):
    got, want = _collect(v), collect_py(v)
    same(got[0], want[0])
    assert int(np.asarray(got[1])) == want[1]


def stacked_forms(v):
    a = [v[0]]
    b = []
    i = 0
    while i < len(v):
        a.append(v[i])
        b.append(i)
        i += 1
    return ag.stack(a), np.stack(b)


def test_non_empty_lists_and_int_items_and_stack_forms():
    got = ag.function(stacked_forms)(np.array([1.0, 2.0, 3.0]))
    same(got[0], np.array([1.0, 1.0, 2.0, 3.0]))
    same(got[1], np.array([0, 1, 2], np.int32))


def python_list(v):
    out = []
    for i in range(3):
        out.append(v[i])
    return np.array(out)


def test_append_in_a_python_loop_stays_a_python_list():
    same(ag.function(python_list)(np.array([1.0, 2.0, 3.0, 4.0])), np.array([1.0, 2.0, 3.0]))


# -------------------------------------------------------------- eager switch


def counted(x):
    counted.calls += 1
    return x * 2


counted.calls = 0


def test_run_functions_eagerly():
    f = ag.function(counted)
    x = np.arange(3.0)
    f(x)
    traces = f.tracing_count
    assert not ag.config.functions_run_eagerly()
    ag.config.run_functions_eagerly(True)
    try:
        assert ag.config.functions_run_eagerly()
        before = counted.calls
        result = f(x)
        assert isinstance(result, np.ndarray)   # the Python function's own result
        assert counted.calls == before + 1 and f.tracing_count == traces
    finally:
        ag.config.run_functions_eagerly(False)
    assert not isinstance(f(x), np.ndarray) and f.tracing_count == traces


def test_run_functions_eagerly_needs_a_bool():
    with pytest.raises(TypeError, match="run_functions_eagerly expects a bool, got int 1"):
        ag.config.run_functions_eagerly(1)


_ENV_SCRIPT = """
import numpy as np, autograph as ag
f = ag.function(lambda x: x * 2)
print(type(f(np.ones(2))).__name__, f.tracing_count, ag.config.functions_run_eagerly())
"""


def _run_env(value):
    env = dict(os.environ, AUTOGRAPH_DISABLE_JIT=value)
    return subprocess.run([sys.executable, "-c", _ENV_SCRIPT], env=env, capture_output=True,
                          text=True, timeout=120)


def test_environment_variable_disables_the_jit():
    done = _run_env("1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ndarray", "0", "True"]


def test_environment_variable_invalid_value_names_the_choices():
    done = _run_env("sometimes")
    assert done.returncode != 0
    assert "AUTOGRAPH_DISABLE_JIT='sometimes' is not a valid setting" in done.stderr
    assert "1, true, yes, on" in done.stderr


# ----------------------------------------------------------------- unrolling


def long_loop(v, n):
    s = v[0]
    for i in range(n):
        s = s + 1.0
    return s


def test_unrolling_warning_from_100_iterations_names_line_and_source():
    f = ag.function(long_loop)
    with warnings.catch_warnings():
        warnings.simplefilter("error", cf_ops.UnrolledLoopWarning)
        f(np.ones(1), 99)
    with pytest.warns(cf_ops.UnrolledLoopWarning) as record:
        f(np.ones(1), 100)
    message = str(record[0].message)
    assert "`for ... in range(n)`" in message and "ag.range(n)" in message
    assert "np.int64(n)" in message
    assert record[0].filename == __file__
    assert record[0].lineno == long_loop.__code__.co_firstlineno + 2


# -------------------------------------------------------------------- errors


def global_in_loop(v):
    global G
    for i in range(len(v)):
        G = v[i]
    return v


G = 0


def test_global_assigned_in_a_compiled_loop_is_an_error():
    with pytest.raises(NotImplementedError, match="assigns 'G', declared `global`/`nonlocal`") as e:
        ag.function(global_in_loop)(np.ones(2))
    assert __file__ in str(e.value) and "global_in_loop" in str(e.value)


def attribute_in_loop(v):
    s = 0.0
    for i in range(len(v)):
        s = s + v[i].nosuch
    return s


def test_errors_name_the_user_function_not_a_generated_helper():
    with pytest.raises(AttributeError) as e:
        ag.function(attribute_in_loop)(np.ones(2))
    text = str(e.value)
    assert "attribute_in_loop" in text and __file__ in text
    assert "loop_body" not in text and "if_body" not in text


def bool_in_comprehension(v):
    return [v[i] for i in range(2) if v[i] > 0]


def test_traced_bool_in_a_python_construct_suggests_what_fits():
    with pytest.raises(TypeError) as e:
        ag.function(bool_in_comprehension)(np.ones(2))
    text = str(e.value)
    assert "autograph=True" not in text
    assert "ag.where" in text and "compiled loop" in text and __file__ in text


def test_errors_module_exports_every_error_class():
    from autograph.tracer.tracing.symbolic import TracingError
    from autograph.converter.errors import ConversionError
    assert ag.errors.TracingError is TracingError
    assert ag.errors.ConversionError is ConversionError
    for name in ag.errors.__all__:
        assert issubclass(getattr(ag.errors, name), Exception)


def extremes_of_sequences(v):
    return (max(v[i] for i in range(3)), min([v[0], v[1]]), max([5]), min(x for x in [3, 1]),
            max(2, 7))


def test_max_min_of_sequences_and_python_values():
    v = np.array([3.0, -1.0, 8.0])
    got = ag.function(extremes_of_sequences)(v)
    assert [float(np.asarray(g)) for g in got] == [8.0, -1.0, 5.0, 1.0, 7.0]


def more_math(v):
    x, y = v[0], v[1]
    return (math.floor(x), math.ceil(x), math.trunc(x), round(x), math.asin(y / 200),
            math.acos(y / 200), math.atan(x), math.atan2(x, y), math.hypot(x, y),
            math.log2(abs(x) + 1), math.log10(abs(x) + 1), math.log1p(abs(x)),
            math.expm1(x / 100), math.sinh(x / 50), math.cosh(x / 50), math.asinh(x),
            math.acosh(abs(x) + 1), math.atanh(y / 200), math.copysign(x, y), math.tan(x))


def _missing_math_ops():
    from autograph.operators.numeric_builtins import resolve_op
    names = ("floor", "ceil", "trunc", "round", "asin", "acos", "atan", "atan2", "hypot", "log2",
             "log10", "log1p", "expm1", "sinh", "cosh", "asinh", "acosh", "atanh", "copysign")
    aliases = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2",
               "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "round": "rint"}
    return [n for n in names if resolve_op(n, aliases.get(n, n)) is None]


@SETTINGS
@given(hnp.arrays(np.float64, 2, elements=st.floats(-100, 100, allow_nan=False)))
def test_the_rest_of_math_matches_python(v):
    if _missing_math_ops():
        pytest.skip(f"ops not in the library yet: {_missing_math_ops()}")
    got, want = _more_math(v), more_math(v)
    for g, w in zip(got, want):
        if isinstance(w, int):
            assert np.asarray(g).dtype == np.int64 and int(np.asarray(g)) == w
        else:
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-13, atol=1e-300)


_more_math = ag.function(more_math)


def error_in_and(v):
    if v[0] > 0 and v[1].nosuch > 0:
        return v
    return v


def test_errors_inside_generated_lambdas_name_the_user_function():
    import traceback
    with pytest.raises(AttributeError) as e:
        ag.function(error_in_and)(np.ones(2))
    frames = [f for f in traceback.extract_tb(e.value.__traceback__) if f.filename == __file__]
    assert frames and all(f.name in ("error_in_and", "test_errors_inside_generated_lambdas_name_the_user_function")
                          for f in frames)
    assert "<lambda>" not in str(e.value) and "error_in_and" in str(e.value)
    assert "lambda:" in ag.to_code(error_in_and)   # the shown source stays readable


def generator(v):
    for i in range(2):
        yield v


def test_yield_is_an_error_naming_the_construct_and_line():
    with pytest.raises(ag.errors.ConversionError, match="`yield`") as e:
        ag.function(generator)(np.ones(2))
    assert __file__ in str(e.value) and "line " in str(e.value) and "generator" in str(e.value)


def len_of_scalar(v):
    return len(v[0])


def iterate_traced_range(v):
    return list(range(len(v)))


@pytest.mark.parametrize("fn, match", [
    (len_of_scalar, "len\\(\\) of a scalar tensor"),
    (iterate_traced_range, "range\\(\\) with a traced tensor bound can only be iterated"),
])
def test_builtin_misuse_names_the_line(fn, match):
    # A length known only at run time: `list(range(len(v)))` of a static
    # length is a Python list (TensorFlow's reference test), not an error.
    unknown_length = [ag.TensorSpec([None], ag.float64)]
    with pytest.raises(TypeError, match=match) as e:
        ag.function(fn, input_signature=unknown_length)(np.ones(3))
    assert __file__ in str(e.value) and fn.__name__ in str(e.value)


def array_of_scalars(v):
    a, b = v[0], v[1]
    return np.array([[a, b], [b, a]]), np.array([0.0, a]), np.array([a, 1.0], dtype=np.float32)


def test_np_array_of_traced_scalars_stacks_them():
    v = np.array([1.0, 2.0])
    got = ag.function(array_of_scalars)(v)
    want = array_of_scalars(v)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)
        assert np.asarray(g).dtype == w.dtype


def math_on_python_values(a, b):
    return math.sqrt(b), math.floor(a), math.gcd(12, 18), math.isclose(a, a)


def test_math_keeps_python_semantics_on_python_values():
    from autograph import impl
    want = math_on_python_values(2.7, 9.0)
    got = ag.function(math_on_python_values)(2.7, 9.0)
    assert [np.asarray(g).item() for g in got] == list(want)
    converted = impl.convert(math_on_python_values)(2.7, 9.0)   # converted, not tracing
    assert converted == want and [type(g) for g in converted] == [float, int, int, bool]


def gcd_isclose(a, b, x):
    return math.gcd(a[0], b[0]), math.gcd(a[1], 0), math.isclose(x[0], x[1]), \
        math.isclose(x[0], x[0] + 1e-12)


@SETTINGS
@given(hnp.arrays(np.int64, 2, elements=st.integers(-10**9, 10**9)),
       hnp.arrays(np.int64, 1, elements=st.integers(-10**9, 10**9)))
def test_gcd_and_isclose_match_python(a, b):
    x = np.array([1.0, 1.0 + 1e-10])
    got, want = _gcd_isclose(a, b, x), gcd_isclose(a, b, x)
    assert [g.numpy().item() for g in got] == list(want)


_gcd_isclose = ag.function(gcd_isclose)


def collect_augmented(v):
    out = []
    for i in range(len(v)):
        out += [v[i] + 1.0]
    return np.array(out)


def array_plus_list(w):
    w += [1.0]          # an array: elementwise, as NumPy
    return w


def test_plus_equals_one_item_list_is_an_append():
    from autograph import impl
    v = np.array([1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(ag.function(collect_augmented)(v)), [2.0, 3.0])
    np.testing.assert_array_equal(impl.convert(array_plus_list)(v.copy()), [2.0, 3.0])


def try_around_traced(x):
    try:
        if x[0] > 0:
            raise ValueError("positive")
        y = x
    except ValueError:
        y = -x
    return y


def test_try_except_around_a_traced_raise_is_an_error_naming_it():
    with pytest.raises(NotImplementedError) as e:
        ag.function(try_around_traced)(np.ones(2))
    text = str(e.value)
    assert "compiled `if`" in text and "`try`/`except`" in text
    assert __file__ in text and "try_around_traced" in text


def nonlocal_in_a_nested_function(x):
    s = 0.0

    def bump(v):
        nonlocal s
        s = s + v

    bump(1.0)
    for i in range(len(x)):
        s = s + x[i]
    return s


def test_a_nested_functions_nonlocal_does_not_refuse_the_outer_loop():
    same(ag.function(nonlocal_in_a_nested_function)(np.ones(3)), 4.0)
