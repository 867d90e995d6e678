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


@pytest.fixture(autouse=True, scope="session")
def _session_cache_dir():
    """The session's disk-cache directory; removed when the session ends."""
    os.environ["AUTOGRAPH_CACHE_DIR"] = _SESSION_CACHE
    yield _SESSION_CACHE
    shutil.rmtree(_SESSION_CACHE, ignore_errors=True)
