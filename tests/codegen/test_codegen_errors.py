"""Faults inside compiled code: InvalidArgumentError with runtime values and the
user's source line; never a crash."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import paths

import numpy as np
import pytest

from codegen_support import T, compile_fn
from autograph.tracer import api
from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.core.interpreter import run_graph
from autograph.tracer.tracing.symbolic import GraphBuilder

HERE = paths.TESTS
ROOT = paths.ROOT


def _run_isolated(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, HERE]))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_integer_division_faults_do_not_crash_the_process():
    """x86 traps on x // 0, x % 0, MIN // -1 and MIN % -1: run them in a child first."""
    proc = _run_isolated("""
        import numpy as np
        from codegen_support import T, compile_fn
        from autograph.tracer import api
        from autograph.tracer.core.errors import InvalidArgumentError
        for dt in ("int32", "int64"):
            mn = np.iinfo(dt).min
            for shape in ((), (None,)):
                g, k = compile_fn(lambda x, y: [api.floordiv(x, y), api.mod(x, y)],
                                  T(dt, shape), T(dt, shape))
                x = np.asarray(mn if shape == () else [mn, 7], dt)
                y = np.asarray(-1 if shape == () else [-1, -1], dt)
                q, r = k(x, y)
                assert np.ravel(q)[0] == mn and np.ravel(r)[0] == 0, (q, r)
                for op in range(2):
                    try:
                        k(x, np.zeros_like(y))
                    except InvalidArgumentError as e:
                        assert "by zero" in str(e), e
                    else:
                        raise AssertionError("no error for division by zero")
        print("survived")
    """)
    assert proc.returncode == 0, proc.stderr
    assert "survived" in proc.stdout


def _first_line(e) -> str:
    return str(e).splitlines()[0]


def _check_error(g, k, inputs, expected, *, same_as_reference=True):
    with pytest.raises(InvalidArgumentError) as info:
        k(*inputs)
    msg = str(info.value)
    assert expected in _first_line(msg), msg
    assert 'test_codegen_errors.py", line' in msg, msg       # the user's file and line...
    assert msg.rstrip().splitlines()[-1].strip().startswith(("return", "lambda", "g, k =", "y =",
                                                             "z =", "out =", "v =")), msg
    if same_as_reference:
        with pytest.raises(InvalidArgumentError) as ref:
            run_graph(g, inputs)
        assert _first_line(ref.value) == _first_line(msg)
    return msg


def test_division_by_zero_messages():
    g, k = compile_fn(lambda x, y: api.floordiv(x, y), T("int32", (None,)), T("int32", (None,)))
    msg = _check_error(g, k, [np.array([1, 2], np.int32), np.array([1, 0], np.int32)],
                       "floordiv: integer division by zero")
    assert "api.floordiv(x, y)" in msg
    g, k = compile_fn(lambda x, y: api.mod(x, y), T("int64"), T("int64"))
    _check_error(g, k, [np.int64(5), np.int64(0)], "mod: integer modulo by zero")


def test_index_out_of_bounds_message_has_index_axis_and_size():
    def f(x, i):
        return x[1, i]
    g, k = compile_fn(f, T("float32", (None, None)), T("int64"))
    x = np.zeros((2, 3), np.float32)
    msg = _check_error(g, k, [x, np.int64(5)], "index 5 is out of bounds for axis 1 with size 3")
    assert "return x[1, i]" in msg
    _check_error(g, k, [x, np.int64(-4)], "index -4 is out of bounds for axis 1 with size 3")
    _check_error(g, k, [np.zeros((1, 3), np.float32), np.int64(0)],
                 "index 1 is out of bounds for axis 0 with size 1")


def test_broadcast_mismatch_of_unknown_dims():
    g, k = compile_fn(lambda x, y: api.add(x, y), T("float64", (None, None)), T("float64", (None,)))
    with pytest.raises(InvalidArgumentError) as info:
        k(np.zeros((2, 3)), np.zeros(4))
    msg = str(info.value)
    assert "add: incompatible shapes for broadcasting" in msg and "3" in msg and "4" in msg
    assert "api.add(x, y)" in msg


def test_matmul_inner_dimension_mismatch():
    g, k = compile_fn(lambda a, b: api.matmul(a, b), T("float32", (None, None)), T("float32", (None, 5)))
    with pytest.raises(InvalidArgumentError) as info:
        k(np.zeros((2, 3), np.float32), np.zeros((4, 5), np.float32))
    assert "a has shape (2, 3) and b has shape (4, 5)" in str(info.value)
    assert "api.matmul(a, b)" in str(info.value)


def test_fill_negative_dimension():
    g, k = compile_fn(lambda a: api.fill([2, a], np.float32(0)), T("int32"))
    _check_error(g, k, [np.int32(-3)], "fill: dimension 1 is negative (-3)")


def test_range_zero_delta_and_infinite_length():
    g, k = compile_fn(lambda a, b, c: api.range(a, b, c), T("int64"), T("int64"), T("int64"))
    _check_error(g, k, [np.int64(0), np.int64(5), np.int64(0)], "range: delta must not be zero")
    g, k = compile_fn(lambda a, b, c: api.range(a, b, c), T("float32"), T("float32"), T("float32"))
    _check_error(g, k, [np.float32(0), np.float32(5), np.float32(0)], "range: delta must not be zero")
    _check_error(g, k, [np.float32(0), np.float32(np.inf), np.float32(1)], "is not finite")


def test_slice_step_zero():
    g, k = compile_fn(lambda x, s: x[::s], T("int32", (None,)), T("int32"))
    _check_error(g, k, [np.arange(3, dtype=np.int32), np.int32(0)],
                 "strided_slice: slice step cannot be zero")


def test_integer_pow_negative_exponent():
    g, k = compile_fn(lambda x, y: api.pow(x, y), T("int32", (None,)), T("int32", (None,)))
    _check_error(g, k, [np.array([2, 2], np.int32), np.array([1, -2], np.int32)],
                 "integers to negative integer powers are not allowed (exponent -2)")


def test_empty_integer_mean():
    g, k = compile_fn(lambda x: api.reduce_mean(x), T("int64", (None,)))
    _check_error(g, k, [np.zeros(0, np.int64)], "the mean of an empty integer tensor is undefined")


def test_check_op_message_is_literal():
    with GraphBuilder("chk") as b:
        p = b.add_input(T("bool"), "p")
        b.emit("check", [p.value], [], {"message": "value must be {positive} (50% of cases)"})
        g = b.finish([p.value])
    from autograph.codegen import compile_graph
    k = compile_graph(g)
    assert bool(k(np.bool_(True))[0])
    with pytest.raises(InvalidArgumentError) as info:
        k(np.bool_(False))
    assert _first_line(info.value) == "value must be {positive} (50% of cases)"
    assert "test_codegen_errors.py" in str(info.value)


def test_allocation_overflow_and_failure():
    g, k = compile_fn(lambda a, b: api.fill([a, b], np.float64(0)), T("int64"), T("int64"))
    with pytest.raises(InvalidArgumentError) as info:
        k(np.int64(2**40), np.int64(2**40))
    assert "overflows" in str(info.value)
    with pytest.raises(InvalidArgumentError) as info:
        k(np.int64(2**46), np.int64(1))       # 512 TiB: more than any address space
    assert "failed to allocate" in str(info.value)


def test_wrong_inputs_are_rejected_in_python():
    g, k = compile_fn(lambda x: api.add(x, 1.0), T("float32", (None, 3)))
    with pytest.raises(InvalidArgumentError, match="dtype float32"):
        k(np.zeros((2, 3), np.float64))
    with pytest.raises(InvalidArgumentError, match="shape"):
        k(np.zeros((2, 4), np.float32))
    with pytest.raises(InvalidArgumentError, match="shape"):
        k(np.zeros(3, np.float32))
    with pytest.raises(TypeError):
        k()
    (out,) = k(np.zeros((3, 6), np.float32)[:, ::2])     # non-contiguous: copied first
    assert out.shape == (3, 3)


def test_empty_integer_mean_only_fails_when_a_mean_is_computed():
    g, k = compile_fn(lambda x: api.reduce_mean(x, axis=1), T("int32", (None, None)))
    _check_error(g, k, [np.zeros((2, 0), np.int32)], "the mean of an empty integer tensor is undefined")
    for shape in [(0, 0), (0, 3)]:
        (out,) = k(np.zeros(shape, np.int32))
        assert out.shape == (0,)
