"""ag.print: prints the current values on every call of the compiled code.

The compiled code calls back into Python (codegen/lowering/printing.py), which writes
to the current sys.stdout, so capsys sees it. Tensors print as NumPy's str
of their value, other Python values with str (as at trace time).
"""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import threading

import paths

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
from support import arrays, shapes
from autograph.tracer.core.parser import parse_graph


def test_eager_print(capsys):
    ag.print("a", ag.constant([1.0, 2.5]), 3, np.int64(4), True, sep="|", end=".\n")
    assert capsys.readouterr().out == "a|[1.  2.5]|3|4|True.\n"
    ag.print("b", [1, 2], None, sep=None, end=None)        # None: the defaults, as print()
    assert capsys.readouterr().out == "b [1, 2] None\n"


def test_prints_on_every_call_with_current_values(capsys):
    @ag.function
    def f(x, k):
        print("trace-time")                       # Python's print: once per trace
        ag.print("x =", x, "k =", k, "const", 1.5)
        return x * 2

    f(np.array([1, 2], np.int32), np.float32(0.5))
    f(np.array([3, 4], np.int32), np.float32(-2))
    out = capsys.readouterr().out
    assert out == ("trace-time\n"
                   "x = [1 2] k = 0.5 const 1.5\n"
                   "x = [3 4] k = -2.0 const 1.5\n")
    assert f.tracing_count == 1


def test_print_in_loops_and_branches(capsys):
    @ag.function
    def f(n):
        total = 0
        for i in ag.range(n):
            total += i
            if total % 2 == 0:
                ag.print("even", total)
            else:
                ag.print("odd", total, end=";\n")
        return total

    f(ag.constant(4))
    assert capsys.readouterr().out == "even 0\nodd 1;\nodd 3;\neven 6\n"
    f(ag.constant(0))
    assert capsys.readouterr().out == ""


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_formats_like_numpy(data):
    dtype = data.draw(st.sampled_from(["bool", "int32", "int64", "float32", "float64"]))
    x = data.draw(arrays(dtype, shapes(max_dims=3, max_side=3)))
    sep = data.draw(st.sampled_from([" ", ", ", "", "\t"]))
    f = ag.function(lambda a: ag.print("v:", a, a, sep=sep))
    cf = f.get_concrete_function(ag.TensorSpec([None] * x.ndim, dtype))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):         # any redirection of sys.stdout sees it
        cf(x)
        ag.print("v:", x, x, sep=sep)             # eager: the same text
    expected = sep.join(["v:", str(x), str(x)]) + "\n"
    assert buf.getvalue() == expected * 2


def test_print_graph_and_text_form():
    f = ag.function(lambda x: ag.print("x", x, 2, sep="--", end="!\n"))
    cf = f.get_concrete_function(ag.TensorSpec([None]))
    text = str(cf.graph)
    assert "print[end='!\\n', format=('x', None, '2'), sep='--'](%x)" in text
    assert str(parse_graph(text)) == text


def test_broken_stdout_does_not_fail_the_kernel(monkeypatch):
    class Broken:
        def write(self, s):
            raise OSError("disk full")

    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_value))
    f = ag.function(lambda x: (ag.print(x), x + 1)[1])
    f(np.float32(1))                                 # compile with a working stdout
    monkeypatch.setattr(sys, "stdout", Broken())
    out = f(np.float32(2))
    monkeypatch.undo()
    assert float(out) == 3.0
    assert any(isinstance(e, OSError) for e in seen)


def test_print_from_threads(capsys):
    f = ag.function(lambda x: (ag.print("t", x), x)[1])
    cf = f.get_concrete_function(ag.TensorSpec([], ag.int32))
    threads = [threading.Thread(target=cf, args=(np.int32(i),)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = sorted(capsys.readouterr().out.splitlines())
    assert lines == sorted(f"t {i}" for i in range(8))


def test_print_errors():
    with pytest.raises(TypeError, match=r"print: sep must be a str, got int 1"):
        ag.print(1, sep=1)
    with pytest.raises(TypeError, match=r"print: end must be a str(.|\n)*test_print\.py"):
        ag.function(lambda x: ag.print(x, end=1))(np.float32(1))


_SCRIPT = """
import numpy as np
import autograph as ag

@ag.function
def f(x):
    ag.print("value", x)
    return x

f(np.arange(3))
f(np.arange(2))
"""


def test_print_from_a_cached_kernel_in_a_new_process(tmp_path):
    script = tmp_path / "p.py"
    script.write_text(_SCRIPT)
    root = paths.ROOT
    env = dict(os.environ, PYTHONPATH=root, AUTOGRAPH_CACHE_DIR=str(tmp_path / "cache"))
    outs = [subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                           timeout=120) for _ in range(2)]     # compile + store, then load
    for r in outs:
        assert r.returncode == 0, r.stderr
        assert r.stdout == "value [0 1 2]\nvalue [0 1]\n"
    assert any(p.suffix == ".agobj" for p in (tmp_path / "cache").rglob("*"))


@pytest.mark.skipif(not hasattr(ag, "Variable"), reason="ag.Variable not available")
def test_print_reads_variables_at_run_time(capsys):
    v = ag.Variable(np.zeros(2, np.float32))

    @ag.function
    def f():
        v.assign_add(np.ones(2, np.float32))
        ag.print("v", v)

    f()
    f()
    ag.print("eager", v)
    assert capsys.readouterr().out == "v [1. 1.]\nv [2. 2.]\neager [2. 2.]\n"
