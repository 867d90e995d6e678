"""The warm start (autograph.runtime.warm_start): a fresh process with a warm
disk cache runs a first call without converting or tracing, and every kind
of edit to what a trace reads invalidates the record.

Each process here is a fresh interpreter (no bytecode cache, so in-place
edits are always seen) sharing one temporary AUTOGRAPH_CACHE_DIR.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading

import paths

import numpy as np
import pytest

import autograph as ag
from autograph.runtime import fingerprint as fp
from autograph.runtime import warm_start

MODULE = '''
import numpy as np
import autograph as ag
import helpers
from other import imported_callee

SCALE = 2.0
TABLE = np.array([1.0, 2.0, 3.0])


def same_module_callee(x):
    return x + 1.0


def twice(x):
    return x * 2.0


def thrice(x):
    return x * 3.0


CHOSEN = twice


@ag.function
def body(x):
    return x * 2.0


@ag.function
def constant(x):
    return x * 2.0 + 1.0


@ag.function
def default_arg(x, k=2.0):
    return x * k


def make(c):
    @ag.function
    def closure(x):
        return x * c
    return closure


closure_fn = make(2.0)


@ag.function
def callee_same_module(x):
    return same_module_callee(x) * 2.0


@ag.function
def callee_other_module(x):
    return imported_callee(x)


@ag.function
def global_const(x):
    return x * SCALE


@ag.function
def global_array(x):
    return x * TABLE


@ag.function
def module_attr(x):
    return helpers.f(x)


@ag.function
def swapped(x):
    return CHOSEN(x)


@ag.function
def untouched(x):
    return x - 1.0


@ag.function
def scaled(x, n):
    return x * n


@ag.function
def prints(x):
    print("tracing prints")
    return x + 1.0


V = ag.Variable(np.array([1.0, 1.0, 1.0]))


@ag.function
def reads_variable(x):
    return x + V


@ag.function
def random_op(x):
    return x + ag.random.uniform((3,), dtype=ag.float64) * 0.0


class Box:
    k = 3.0


@ag.function
def object_arg(x, obj):
    return x * obj.k
'''

HELPERS = "def f(x):\n    return x * 4.0\n"
OTHER = "def imported_callee(x):\n    return x + 5.0\n"

# Each edit changes exactly the lines it names (never the line count), so every other
# function's fingerprint stays the same: those keep hitting.
EDITS = {
    "body": ("    return x * 2.0\n\n\n@ag.function\ndef constant",
             "    return x + 2.0\n\n\n@ag.function\ndef constant"),
    "constant": ("return x * 2.0 + 1.0", "return x * 2.0 + 9.0"),
    "default_arg": ("def default_arg(x, k=2.0):", "def default_arg(x, k=7.0):"),
    "closure_fn": ("closure_fn = make(2.0)", "closure_fn = make(4.0)"),
    "callee_same_module": ("    return x + 1.0\n\n\ndef twice", "    return x + 10.0\n\n\ndef twice"),
    "global_const": ("SCALE = 2.0", "SCALE = 3.0"),
    "global_array": ("TABLE = np.array([1.0, 2.0, 3.0])", "TABLE = np.array([1.0, 2.0, 4.0])"),
    "swapped": ("CHOSEN = twice", "CHOSEN = thrice"),
}
X = [1.0, 2.0, 3.0]
EXPECTED_BEFORE = {
    "body": [2.0, 4.0, 6.0], "constant": [3.0, 5.0, 7.0], "default_arg": [2.0, 4.0, 6.0],
    "closure_fn": [2.0, 4.0, 6.0], "callee_same_module": [4.0, 6.0, 8.0],
    "callee_other_module": [6.0, 7.0, 8.0], "global_const": [2.0, 4.0, 6.0],
    "global_array": [1.0, 4.0, 9.0], "module_attr": [4.0, 8.0, 12.0], "swapped": [2.0, 4.0, 6.0],
    "untouched": [0.0, 1.0, 2.0],
}
EXPECTED_AFTER = {
    "body": [3.0, 4.0, 5.0], "constant": [11.0, 13.0, 15.0], "default_arg": [7.0, 14.0, 21.0],
    "closure_fn": [4.0, 8.0, 12.0], "callee_same_module": [22.0, 24.0, 26.0],
    "callee_other_module": [-1.0, 0.0, 1.0], "global_const": [3.0, 6.0, 9.0],
    "global_array": [1.0, 4.0, 12.0], "module_attr": [10.0, 20.0, 30.0], "swapped": [3.0, 6.0, 9.0],
    "untouched": [0.0, 1.0, 2.0],
}
HERMETIC = list(EXPECTED_BEFORE)

CHILD = '''
import io, json, sys, contextlib
sys.path.insert(0, {root!r}); sys.path.insert(0, {here!r})
import numpy as np
import wmod
from autograph import impl
from autograph.runtime import warm_start
from autograph.codegen.jit import disk_cache
def library():
    # What the index key holds of the library (a test skips when it changed between processes).
    return [warm_start._digest_library(), disk_cache._static_part(start_llvm=False)]
calls = {calls!r}
x = np.array({x!r})
out = {{"results": {{}}, "traces": {{}}}}
for name in calls:
    f = getattr(wmod, name)
    extra = (wmod.Box(),) if name == "object_arg" else ()
    buf = io.StringIO()
    hits = warm_start.STATS["hits"]
    with contextlib.redirect_stdout(buf):
        r = f(x, *extra)
    out["results"][name] = np.asarray(r).tolist()
    out["traces"][name] = f.tracing_count
    out.setdefault("warm", {{}})[name] = warm_start.STATS["hits"] - hits
    out.setdefault("printed", {{}})[name] = buf.getvalue()
out["converted"] = len(impl._CACHE)
out["llvm_imported"] = "llvmlite.binding" in sys.modules
out["stats"] = dict(warm_start.STATS)
out["library"] = library()
print(json.dumps(out))
'''


def _same_library(*outputs):
    """Skip when autograph's own files changed between the processes (a work tree being
    edited): every record then misses, by design, and the test could show nothing."""
    if any(o["library"] != outputs[0]["library"] for o in outputs):
        pytest.skip("autograph's source changed between the test's processes")


def _write(tmp_path, module=MODULE, helpers=HELPERS, other=OTHER):
    (tmp_path / "wmod.py").write_text(module)
    (tmp_path / "helpers.py").write_text(helpers)
    (tmp_path / "other.py").write_text(other)


def _child(tmp_path, calls, modules=None, **env_extra):
    """Run CHILD with the cache `tmp_path/cache` and the modules in `modules` (default `tmp_path`)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("AUTOGRAPH_VERBOSITY", "AUTOGRAPH_DISABLE_CACHE", "PYTHONPYCACHEPREFIX")}
    # No bytecode cache: an edit that keeps a file's size within one second is always seen.
    env.update(AUTOGRAPH_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1", **env_extra)
    here = str(modules or tmp_path)
    code = CHILD.format(root=paths.ROOT, here=here, calls=list(calls), x=X)
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=here, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


NOT_HERMETIC = ["prints", "reads_variable", "random_op", "object_arg"]


@pytest.fixture(scope="module")
def cold(tmp_path_factory):
    """(directory, output): one cold process ran every function of MODULE (in that
    directory) into a fresh cache; tests run the same modules on copies of the cache
    (`_copy`), so each starts from the same warm cache. (The modules stay where they are:
    their paths are part of every fingerprint.)"""
    base = tmp_path_factory.mktemp("warm-start")
    _write(base)
    out, _ = _child(base, HERMETIC + NOT_HERMETIC)
    return base, out


def _copy(cold, tmp_path):
    import shutil
    shutil.copytree(cold[0] / "cache", tmp_path / "cache")   # modes kept: the user's, 0700 / 0600
    return cold[0]


def _index_records(cache_dir):
    """Paths of the call-index records (side records whose payload names an IR key)."""
    out = []
    for name in os.listdir(cache_dir):
        if name.endswith(".agside"):
            data = (cache_dir / name).read_bytes()
            if b'"ir_key"' in data:
                out.append(cache_dir / name)
    return out


def test_each_kind_of_edit_invalidates_and_the_rest_still_hits(tmp_path):
    _write(tmp_path)
    first, _ = _child(tmp_path, HERMETIC)
    assert first["results"] == EXPECTED_BEFORE
    assert first["traces"] == {n: 1 for n in HERMETIC}
    assert first["stats"]["stores"] == len(HERMETIC)

    warm, _ = _child(tmp_path, HERMETIC)
    _same_library(first, warm)
    assert warm["results"] == EXPECTED_BEFORE
    # Every call came from the index: no conversion (so no trace) and no LLVM; each warm
    # start counts as the trace it skipped, so tracing_count reads as in the cold process.
    assert warm["warm"] == {n: 1 for n in HERMETIC}
    assert warm["converted"] == 0 and not warm["llvm_imported"]
    assert warm["traces"] == {n: 1 for n in HERMETIC}

    module = MODULE
    for old, new in EDITS.values():
        assert module.count(old) == 1, old
        module = module.replace(old, new)
    assert module.count("\n") == MODULE.count("\n")
    _write(tmp_path, module, helpers=HELPERS.replace("4.0", "10.0"), other=OTHER.replace("+ 5.0", "- 2.0"))
    edited, _ = _child(tmp_path, HERMETIC)
    _same_library(first, edited)
    assert edited["results"] == EXPECTED_AFTER   # never a stale result
    changed = set(EDITS) | {"callee_other_module", "module_attr"}
    assert edited["warm"] == {n: int(n not in changed) for n in HERMETIC}


def test_functions_that_are_not_hermetic_keep_their_behaviour(cold, tmp_path):
    modules = _copy(cold, tmp_path)
    assert len(_index_records(tmp_path / "cache")) == len(HERMETIC)   # none of theirs
    warm, _ = _child(tmp_path, NOT_HERMETIC, modules)
    assert warm["warm"] == {n: 0 for n in NOT_HERMETIC}
    for out in (cold[1], warm):
        assert {n: out["traces"][n] for n in NOT_HERMETIC} == {n: 1 for n in NOT_HERMETIC}
        assert out["printed"]["prints"] == "tracing prints\n"   # the trace-time print still happens
        assert out["results"]["prints"] == [2.0, 3.0, 4.0]
        assert out["results"]["reads_variable"] == [2.0, 3.0, 4.0]
        assert out["results"]["object_arg"] == [3.0, 6.0, 9.0]
    assert warm["stats"]["hits"] == 0 and warm["stats"]["stores"] == 0


def test_argument_dtypes_shapes_and_values_have_entries_of_their_own(tmp_path):
    _write(tmp_path)
    script = '''
import json, sys
sys.path.insert(0, {root!r}); sys.path.insert(0, {here!r})
import numpy as np
import wmod
from autograph.runtime import warm_start
x = np.array([1.0, 2.0, 3.0])
calls = [(x, 2), (x, 3), (x.astype(np.float32), 2), (np.arange(5.0), 2), (x, 2.0), (x, {extra})]
out = [[np.asarray(wmod.scaled(a, n)).tolist(), str(np.asarray(wmod.scaled(a, n)).dtype)] for a, n in calls]
from autograph.codegen.jit import disk_cache
print(json.dumps({{"out": out, "traces": wmod.scaled.tracing_count, "stats": dict(warm_start.STATS),
                  "library": [warm_start._digest_library(), disk_cache._static_part(start_llvm=False)]}}))
'''
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRAPH_DISABLE_CACHE", "AUTOGRAPH_VERBOSITY")}
    env.update(AUTOGRAPH_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")

    def run(extra):
        proc = subprocess.run([sys.executable, "-c", script.format(root=paths.ROOT, here=str(tmp_path),
                                                                   extra=extra)],
                              env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    cold = run(2)
    assert cold["traces"] == 5
    warm = run(4)   # the last call is new: it alone is traced (with the right value)
    _same_library(cold, warm)
    assert warm["out"][:5] == cold["out"][:5]
    assert warm["out"][5] == [[4.0, 8.0, 12.0], "float64"]
    assert warm["stats"]["hits"] == 5 and warm["traces"] == 6   # five warm starts and one trace
    assert [o[1] for o in warm["out"]] == ["float64", "float64", "float32", "float64", "float64", "float64"]


def test_tampered_and_misfitting_records_are_refused_and_the_normal_path_runs(cold, tmp_path):
    from autograph.codegen.jit import cache_auth
    modules = _copy(cold, tmp_path)
    records = {name: p for p in _index_records(tmp_path / "cache") for name in ("untouched", "global_const",
                                                                               "global_array")
               if f'"name":"{name}"'.encode() in p.read_bytes()}
    # A byte changed: the MAC fails, the record is a miss.
    data = bytearray(records["untouched"].read_bytes())
    at = data.index(b'"slot":0')
    data[at + 7] = ord("1")    # the result would come from another output slot
    records["untouched"].write_bytes(bytes(data))
    # Signed with the user's key but not this call's (defence in depth): refused with a warning.
    record = records["global_const"]
    body = record.read_bytes()[:-cache_auth.TAG_BYTES].replace(b'"nargs":1', b'"nargs":2')
    secret = (tmp_path / "cache" / cache_auth.KEY_NAME).read_bytes()
    record.write_bytes(body + cache_auth.tag(secret, record.name[:-len(".agside")], body))
    out, err = _child(tmp_path, ["global_const", "untouched", "global_array"], modules, AUTOGRAPH_VERBOSITY="1")
    _same_library(cold[1], out)
    assert out["results"] == {n: EXPECTED_BEFORE[n] for n in ("global_const", "untouched", "global_array")}
    assert out["warm"] == {"global_const": 0, "untouched": 0, "global_array": 1}   # the intact one hits
    assert out["converted"] == 2
    assert out["stats"]["refused"] == 1 and out["stats"]["hits"] == 1
    assert "ignoring call-index record" in err and "format, key or argument count differ" in err
    assert "loaded global_array for (float64:(3,)) through the warm-start index: no conversion" in err


def _verifies(path) -> bool:
    """The side record at `path` carries a valid MAC under its directory's key."""
    from autograph.codegen.jit import cache_auth
    data = path.read_bytes()
    secret = (path.parent / cache_auth.KEY_NAME).read_bytes()
    body, mac = data[:-cache_auth.TAG_BYTES], data[-cache_auth.TAG_BYTES:]
    return cache_auth.verify(secret, path.name[:-len(".agside")], body, mac)


def test_concurrent_cold_processes_leave_only_whole_records(tmp_path):
    _write(tmp_path)
    errors, outs = [], []

    def run_cold():
        try:
            outs.append(_child(tmp_path, HERMETIC[:3])[0])
        except AssertionError as exc:   # pragma: no cover - reported below
            errors.append(exc)
    threads = [threading.Thread(target=run_cold) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(o["results"] == {n: EXPECTED_BEFORE[n] for n in HERMETIC[:3]} for o in outs)
    assert not [p for p in os.listdir(tmp_path / "cache") if p.startswith(".tmp-")]
    records = _index_records(tmp_path / "cache")
    assert len(records) == 3 and all(_verifies(p) for p in records)


# ---------------------------------------------------------------- in process


def _import(path, name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, str(path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_code_traced_in_this_process_does_not_consult_the_index(tmp_path, monkeypatch):
    # Within a process the trace caches make a trace cheap, and tracing_count stays what it
    # always was: a second function object of the same code traces as before.
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path / "c"))
    src = "import autograph as ag\n\n@ag.function\ndef f(x):\n    return x * 2.0 + 0.5\n"
    (tmp_path / "inproc.py").write_text(src)
    x = np.arange(3.0)
    first = _import(tmp_path / "inproc.py", "inproc_a").f
    first(x)   # LLVM may start here; the second call records
    first(x.astype(np.float32))
    hits = warm_start.STATS["hits"]
    second = _import(tmp_path / "inproc.py", "inproc_b").f
    np.testing.assert_array_equal(np.asarray(second(x.astype(np.float32))), x * 2.0 + 0.5)
    assert second.tracing_count == 1 and warm_start.STATS["hits"] == hits


def test_graph_needed_after_a_warm_start_traces_lazily(cold, tmp_path):
    modules = _copy(cold, tmp_path)
    script = textwrap.dedent('''
        import json, sys
        sys.path.insert(0, {root!r}); sys.path.insert(0, {here!r})
        import numpy as np
        import wmod
        x = np.array([1.0, 2.0, 3.0])
        from autograph.runtime import warm_start
        from autograph.codegen.jit import disk_cache
        library = [warm_start._digest_library(), disk_cache._static_part(start_llvm=False)]
        r = wmod.global_array(x)
        before = wmod.global_array.tracing_count
        cf = wmod.global_array.get_concrete_function(x)
        after = wmod.global_array.tracing_count
        wmod.global_array(np.ones((2, 3)))   # a new signature: a trace that counts
        print(json.dumps({{"before": before, "after": after, "new": wmod.global_array.tracing_count,
                          "ops": len(list(cf.graph.walk())), "ir": "define" in cf.llvm_ir(),
                          "same": np.asarray(cf(x)).tolist() == np.asarray(r).tolist(),
                          "library": library}}))
    ''').format(root=paths.ROOT, here=str(modules))
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRAPH_DISABLE_CACHE",)}
    env.update(AUTOGRAPH_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, "-c", script], env=env, cwd=str(tmp_path), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    _same_library(cold[1], out)
    del out["library"]
    # The warm start counted as the trace it skipped; the real trace of that signature, made when
    # the graph was needed, does not count again; a new signature does.
    assert out == {"before": 1, "after": 1, "new": 2, "ops": out["ops"], "ir": True, "same": True}
    assert out["ops"] > 0


def test_disable_cache_turns_the_index_off(cold, tmp_path):
    modules = _copy(cold, tmp_path)
    out, _ = _child(tmp_path, ["global_const", "untouched"], modules, AUTOGRAPH_DISABLE_CACHE="1")
    assert out["converted"] == 2 and out["stats"]["hits"] == 0


def test_clear_cache_removes_the_index(cold, tmp_path):
    from autograph.codegen.jit import disk_cache
    _copy(cold, tmp_path)
    assert _index_records(tmp_path / "cache")
    disk_cache.clear_cache(str(tmp_path / "cache"))
    assert _index_records(tmp_path / "cache") == []


# ---------------------------------------------------------------- fingerprints

SCALE = 2.0
ARRAY = np.array([1.0, 2.0])


def _helper(x):
    return x * SCALE


def test_fingerprint_follows_globals_callees_and_closures():
    global SCALE

    def f(x):
        return _helper(x) + ARRAY

    a = fp.fingerprint(f)
    assert a is not None and len(a) == 64 and fp.fingerprint(f) == a
    SCALE = 3.0   # read by the callee only
    try:
        assert fp.fingerprint(f) != a
    finally:
        SCALE = 2.0
    assert fp.fingerprint(f) == a
    ARRAY[1] = 5.0
    try:
        assert fp.fingerprint(f) != a
    finally:
        ARRAY[1] = 2.0

    def make(c):
        return lambda x: x * c
    assert fp.fingerprint(make(1.0)) != fp.fingerprint(make(2.0))
    assert fp.fingerprint(make(1.0)) == fp.fingerprint(make(1.0))
    assert fp.fingerprint(make(0.0)) != fp.fingerprint(make(-0.0))


def _recursive(x, n):
    return x if n == 0 else _recursive(x, n - 1)


def test_fingerprint_of_recursion_and_library_calls():
    assert fp.fingerprint(_recursive) is not None

    def uses_libraries(x):
        return ag.sqrt(np.sin(x)) * np.float32(2) + np.pi + len(x)
    assert fp.why_not(uses_libraries) is None


class _Obj:
    k = 1.0


_OBJ = _Obj()
_VAR = ag.Variable(np.zeros(2))


@pytest.mark.parametrize("source, reason", [
    ("def f(x):\n    print(x)\n    return x", "calls the builtin 'print'"),
    ("def f(x):\n    return x + _VAR", "is an ag.Variable"),
    ("def f(x):\n    return x * np.random.rand()", "np.random is numpy.random"),
    ("def f(x):\n    return x * _OBJ.k", "the global '_OBJ' is a"),
    ("def f(x):\n    import math\n    return x", "imports a module"),
    ("def f(x):\n    global SCALE\n    SCALE = 1.0\n    return x", "assigns a global"),
    ("def f(x):\n    return x + ag.random.uniform((2,))", "ag.random is autograph.tracer.api.random"),
    ("def f(x):\n    return x + len(_BIG)", "more than 100000 elements"),
    ("def f(x):\n    _CALLS.append(1)\n    return x", "the global '_CALLS' is a mutable list"),
    ("def f(x, memo={}):\n    return x", "a default is a mutable dict"),
    ("def f(x):\n    return x * id(x)", "calls the builtin 'id'"),
])
def test_not_hermetic_functions_say_why(source, reason):
    namespace = dict(globals(), _BIG=tuple(range(100_001)), _CALLS=[])
    exec(compile(source, "<warm-start-test>", "exec"), namespace)
    assert fp.fingerprint(namespace["f"]) is None
    assert reason in fp.why_not(namespace["f"])


def test_bound_methods_are_not_hermetic():
    assert "not a plain function" in fp.why_not((lambda self: None).__get__(_OBJ))


def test_a_graph_with_random_ops_is_not_recorded(monkeypatch, tmp_path):
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path / "c"))

    def draw(x):
        return x + ag.random.uniform((3,), dtype=ag.float64)
    f = ag.function(draw)
    x = np.zeros(3)
    f(x)
    cf = f.get_concrete_function(x)
    assert f._fast.tried[cf.call_plan][1] is not None   # it would qualify but for the random op
    assert warm_start._describe(f, cf, (x,)) is None


class _Raising:
    """An object that raises whenever it is looked at."""

    def __getattribute__(self, name):
        raise RuntimeError(f"no {name}")


_RAISING = _Raising()


def test_an_object_that_raises_when_looked_at_is_not_hermetic_and_traces_as_before():
    def f(x):
        return x + 1.0 if _RAISING is not None else x
    assert fp.fingerprint(f) is None
    assert "looking at it raised RuntimeError" in fp.why_not(f)
    g = ag.function(f, autograph=False)
    np.testing.assert_array_equal(np.asarray(g(np.zeros(2))), np.ones(2))
