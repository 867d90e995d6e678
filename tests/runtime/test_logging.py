"""Logging (autograph.tracer.core.logs, AUTOGRAPH_VERBOSITY) and the retracing diagnostics."""
from __future__ import annotations

import logging
import os
import subprocess
import sys
import warnings

import paths

import numpy as np
import pytest

import autograph as ag
from autograph.tracer.core import logs
from autograph.tracer.core.logs import RetracingWarning

ROOT = paths.ROOT

SCRIPT = '''
import sys
sys.path.insert(0, {root!r})
import numpy as np
import autograph as ag

@ag.function
def f(x):
    if ag.reduce_sum(x) > 0:
        x = x * 2.0
    return x

f(np.ones(3, np.float32))
f(np.ones(5, np.float32))
print("done")
'''


def _run(verbosity, tmp_path):
    # A cache of its own per run: each process is a cold one and traces (a warm one would
    # load `f` through the warm-start index, autograph.runtime.warm_start, and trace nothing).
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(tmp_path / f"cache-{verbosity}"))
    if verbosity is None:
        env.pop("AUTOGRAPH_VERBOSITY", None)
    else:
        env["AUTOGRAPH_VERBOSITY"] = str(verbosity)
    script = tmp_path / "logging_script.py"      # conversion needs the source in a file
    script.write_text(SCRIPT.format(root=ROOT))
    proc = subprocess.run([sys.executable, str(script)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "done" in proc.stdout, proc.stderr
    return proc.stderr


def test_verbosity_levels(tmp_path):
    quiet = _run(None, tmp_path)
    assert _run(0, tmp_path) == quiet == ""
    v1 = _run(1, tmp_path)
    assert "retracing f: argument 'x' changed from float32[3] to float32[5]" in v1
    assert "traced f" not in v1 and "converted" not in v1
    v2 = _run(2, tmp_path)
    assert "retracing f" in v2
    assert "converted f" in v2 and "traced f (trace #1)" in v2 and "traced f (trace #2)" in v2
    assert "ms" in v2 and ("compiled f" in v2 or "from the disk cache" in v2)
    assert "graph @f" not in v2 and "converted source" not in v2
    v3 = _run(3, tmp_path)
    assert "converted source of f" in v3 and "ag__.if_stmt" in v3
    assert "graph @f(%x: float32[3])" in v3 and "graph @f(%x: float32[5])" in v3
    # Junk is an error naming the variable (tests/runtime/test_user_polish.py).


@pytest.fixture
def retrace_log(caplog):
    caplog.set_level(logging.INFO, logger="autograph")
    return caplog


def _reasons(caplog):
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("retracing")]


def test_retrace_reason_shape_and_dtype(retrace_log):
    @ag.function
    def g(x, y):
        return x + y

    g(np.ones(3, np.float32), np.ones(3, np.float32))
    assert _reasons(retrace_log) == []                   # the first trace is not a retrace
    g(np.ones(5, np.float32), np.ones(3, np.float32) [:1])
    g(np.ones(5, np.float64), np.ones(1, np.float64))
    assert _reasons(retrace_log) == [
        "retracing g: argument 'x' changed from float32[3] to float32[5]; "
        "argument 'y' changed from float32[3] to float32[1]",
        "retracing g: argument 'x' changed from float32[5] to float64[5]; "
        "argument 'y' changed from float32[1] to float64[1]",
    ]


def test_retrace_reason_python_values_and_structure(retrace_log):
    @ag.function
    def h(x, n, pair=(1, 2)):
        return x * n

    x = np.ones(2, np.float32)
    h(x, 3)
    h(x, 4)
    h(x, 4.0)
    h(x, 4.0, pair=(1, 2, 3))
    assert _reasons(retrace_log) == [
        "retracing h: argument 'n' changed from Python int 3 to Python int 4",
        "retracing h: argument 'n' changed from Python int 4 to Python float 4.0",
        "retracing h: the structure of the arguments (nesting, lengths or keys) differs from "
        "every earlier trace",
    ]


def test_retrace_reason_names_nested_leaves(retrace_log):
    @ag.function
    def k(pair):
        return pair[0] * 2.0 + ag.reduce_sum(pair[1])

    k((np.ones(2, np.float32), np.ones(2, np.float32)))
    k((np.ones(2, np.float32), np.ones(4, np.float32)))
    assert _reasons(retrace_log) == ["retracing k: argument 'pair_1' changed from float32[2] to float32[4]"]


def test_retracing_warning_after_five_of_ten_calls():
    @ag.function
    def p(x, n):
        return x + n

    x = np.ones(2, np.float32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(4):
            p(x, n)
        assert not [m for m in w if issubclass(m.category, RetracingWarning)]
        p(x, 4)                      # the fifth trace in five calls
    msgs = [m for m in w if issubclass(m.category, RetracingWarning)]
    assert len(msgs) == 1
    text = str(msgs[0].message)
    assert "5 of the last 5 calls to p" in text and "reduce_retracing=True" in text
    assert "input_signature" in text
    assert msgs[0].filename == __file__                 # points at the user's call


def test_retracing_warning_at_most_twice():
    @ag.function
    def q(x, n):
        return x * n

    x = np.ones(2, np.float32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(40):
            q(x, n)
    assert len([m for m in w if issubclass(m.category, RetracingWarning)]) == 2


def test_no_retracing_warning_when_traces_are_spread_out():
    @ag.function
    def r(x, n):
        return x - n

    x = np.ones(2, np.float32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(8):           # one new trace every 3 calls: 4 traces in any 10 calls
            for _ in range(3):
                r(x, n)
        for _ in range(20):          # cached calls
            r(x, 0)
    assert not [m for m in w if issubclass(m.category, RetracingWarning)]
    assert r.tracing_count == 8


def test_get_concrete_function_traces_do_not_warn():
    @ag.function
    def s(x):
        return x + 1

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(1, 9):
            s.get_concrete_function(ag.TensorSpec([n], ag.float32))
    assert not [m for m in w if issubclass(m.category, RetracingWarning)]


def test_set_verbosity_adds_one_handler_and_leaves_root_alone():
    root_handlers = list(logging.getLogger().handlers)
    level, handlers = logs.logger.level, list(logs.logger.handlers)
    try:
        logs.set_verbosity(2)
        logs.set_verbosity(3)
        ours = [h for h in logs.logger.handlers if getattr(h, "_autograph_handler", False)]
        assert len(ours) == 1
        assert logs.logger.level == logs.SOURCE and logs.verbosity() == 3
        logs.set_verbosity(0)
        assert logs.logger.level == logging.WARNING
        assert logging.getLogger().handlers == root_handlers
    finally:
        logs.logger.handlers[:] = handlers
        logs.logger.setLevel(level)
        logs._verbosity = 0


def test_levels_are_ordered():
    assert logs.LEVELS == (logging.WARNING, logging.INFO, logging.DEBUG, logs.SOURCE)
    assert logs._parse("2") == 2 and logs._parse(" 3 ") == 3
    assert logs._parse(None) == 0 and logs._parse("") == 0
    # Junk is an error naming the variable and the choices (tests/runtime/test_user_polish.py).
    for junk in ("9", "-1", "x"):
        with pytest.raises(ValueError, match=r"AUTOGRAPH_VERBOSITY=.* expected one of 0, 1, 2, 3"):
            logs._parse(junk)
