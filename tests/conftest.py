"""Session-wide test setup.

The disk cache of compiled code (`autograph.codegen.jit.disk_cache`) must never write to the
user's real cache directory: every test session gets its own
AUTOGRAPH_CACHE_DIR (a temporary directory), set before any test runs and
inherited by the subprocesses tests start. Tests that want an empty or
private cache set their own with `monkeypatch.setenv`.
"""
import os
import shutil
import tempfile

import pytest

_SESSION_CACHE = tempfile.mkdtemp(prefix="autograph-test-cache-")
# Set at import (before test modules import the library), not only in a fixture.
os.environ["AUTOGRAPH_CACHE_DIR"] = _SESSION_CACHE
os.environ.pop("AUTOGRAPH_DISABLE_CACHE", None)
# The verifier runs after every IR pass (autograph.tracer.passes.manager), so a
# pass that breaks an invariant fails the test that ran it, naming the pass.
os.environ["AUTOGRAPH_VERIFY_PASSES"] = "1"


@pytest.fixture(autouse=True, scope="session")
def _session_cache_dir():
    """The session's disk-cache directory; removed when the session ends."""
    os.environ["AUTOGRAPH_CACHE_DIR"] = _SESSION_CACHE
    yield _SESSION_CACHE
    shutil.rmtree(_SESSION_CACHE, ignore_errors=True)


# ---------------------------------------------------------------- shared fixtures
# The three steps most tests take, as fixtures (the functions live in
# tests/codegen_support.py, which modules may also import directly):
#   trace(fn, *types)           -> the verified Graph of `fn` traced on inputs of `types`
#   compile(fn, *types, ...)    -> (graph, kernel): traced and compiled to native code
#   run_both(graph, kernel, inputs, rtol=..) -> the compiled results, checked against
#                                  the IR interpreter (the ops' NumPy references)


@pytest.fixture
def trace():
    """`trace(fn, *types, name="f")`: trace `fn` into a verified Graph."""
    from codegen_support import build
    return build


@pytest.fixture
def compile():  # noqa: A001  (the fixture's name is the step it stands for)
    """`compile(fn, *types, boundscheck=True, name="f")`: (graph, compiled kernel)."""
    from codegen_support import compile_fn
    return compile_fn


@pytest.fixture
def run_both():
    """`run_both(graph, kernel, inputs, **tolerances)`: run compiled and interpreted, compare."""
    from codegen_support import run_both as both
    return both
