"""Tampering with the disk cache (autograph.codegen.jit.disk_cache, cache_files, cache_auth).

Every attack of issue 11 is refused, logged with its reason, and the
function still returns its own results (compiled afresh): a renamed entry,
a planted one with a valid checksum, foreign owners, writable directories,
symlinks (to /dev/zero, to a FIFO, to a valid entry elsewhere), FIFOs and
oversized entries; the secret key's own checks; and `cache clear` leaving
everything that is not the cache's own. Attacks that would hang the process
or take all its memory if they were not refused run in a subprocess with a
timeout.

Files are given to another user with os.chown, which needs root (as CI
runs); elsewhere those tests stand in another uid for the cache's user, or
skip when that cannot express the attack.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import subprocess
import sys
import textwrap

import numpy as np
import paths
import pytest

from autograph.codegen import compile_graph
from autograph.codegen.jit import cache_auth, cache_files
from autograph.codegen.jit import disk_cache as cache


@pytest.fixture(autouse=True)
def _no_code_reuse(request, monkeypatch):
    """These tests are about the disk cache: every compile reads or writes it, rather than
    reusing code this process loaded already (codegen/jit/compile.py _LOADED), unless a
    test is about that reuse."""
    from autograph.codegen.jit import compile as jit_compile
    monkeypatch.setattr(jit_compile, "_LOADED", {})
    if "reuses_the_loaded_code" not in request.node.name:
        monkeypatch.setattr(jit_compile, "_loaded", lambda *args: None)

ROOT = paths.ROOT
OTHER_UID = 4242   # not this user: the attacker


def _graphs():
    """Two graphs of the same signature: f(x) = 4x + 1, and g(x) = 100x (the attacker's)."""
    from codegen_support import T, build
    from autograph.tracer import api

    f = build(lambda x: api.add(api.multiply(x, 4.0), 1.0), T("float32", (None,)), name="f")
    g = build(lambda x: api.multiply(x, 100.0), T("float32", (None,)), name="g")
    return f, g


X = np.arange(3, dtype=np.float32)
F_OF_X = X * 4.0 + 1.0


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A private cache directory with f's (and g's) entries; returns (dir, f, g, entry of f, entry of g)."""
    d = tmp_path / "c"
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(d))
    f, g = _graphs()
    compile_graph(f)
    compile_graph(g)
    ef, eg = (d / (cache.graph_key(x, True) + cache.SUFFIX) for x in (f, g))
    assert ef.is_file() and eg.is_file()
    return d, f, g, ef, eg


def _recompiles(f, caplog, reason, bad=1):
    """Compile f again: it must be compiled afresh (not loaded), logged with `reason`, and right."""
    before = dict(cache.STATS)
    with caplog.at_level(logging.WARNING, logger="autograph"):
        k = compile_graph(f)
    assert k._jit.origin == "compiled"
    assert cache.STATS["hits"] == before["hits"]
    assert cache.STATS["bad"] == before["bad"] + bad
    messages = [r.getMessage() for r in caplog.records]
    assert any(reason in m for m in messages), messages
    assert np.array_equal(k(X)[0], F_OF_X)
    return k, messages


def _give_away(path, monkeypatch):
    """Make `path` another user's: chown as root; otherwise skip (only root can give files away)."""
    try:
        os.chown(path, OTHER_UID, OTHER_UID, follow_symlinks=False)
    except PermissionError:
        pytest.skip("giving a file to another user needs root")


# --------------------------------------------------------------------------- entries: MAC


def test_entry_renamed_to_another_key_is_refused(store, caplog):
    d, f, g, ef, eg = store
    os.replace(eg, ef)   # g's entry under f's name: without the MAC's binding, f would return 100x
    _recompiles(f, caplog, "MAC does not match")
    assert compile_graph(f)._jit.origin == "disk-cache"   # the bad entry was overwritten


def _planted(entry_of_g, key_of_f: str, secret: bytes) -> bytes:
    """g's code dressed as f's entry: consistent metadata (f's key, a symbol of f's key, types,
    size) and a correct SHA-256 checksum, signed with `secret`."""
    data = entry_of_g.read_bytes()[:-cache_auth.TAG_BYTES]
    n = int.from_bytes(data[6:10], "little")
    meta = json.loads(data[10:10 + n])
    obj = data[10 + n:]
    old = meta["symbol"]
    new = old[:-25] + key_of_f[:16] + old[-9:]
    obj = obj.replace(old.encode(), new.encode())
    meta.update(key=key_of_f, symbol=new, object_size=len(obj),
                object_sha256=hashlib.sha256(obj).hexdigest())
    blob = json.dumps(meta).encode()
    body = data[:6] + len(blob).to_bytes(4, "little") + blob + obj
    return body + cache_auth.tag(secret, key_of_f, body)


def test_planted_entry_with_a_valid_checksum_is_refused(store, caplog):
    d, f, g, ef, eg = store
    key = cache.graph_key(f, True)
    ef.write_bytes(_planted(eg, key, os.urandom(32)))   # the attacker does not have the key
    _recompiles(f, caplog, "MAC does not match")
    # Control: the very same bytes signed with this user's key would load and run g's code,
    # so it is the MAC, and nothing else, that refuses the planted code.
    ef.write_bytes(_planted(eg, key, (d / cache_auth.KEY_NAME).read_bytes()))
    k = compile_graph(f)
    assert k._jit.origin == "disk-cache" and np.array_equal(k(X)[0], X * 100.0)


def test_entry_of_another_cache_key_file_is_refused(store, tmp_path, monkeypatch, caplog):
    # The same entry, copied into another cache directory that has its own key.
    d, f, g, ef, eg = store
    other = tmp_path / "other"
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(other))
    compile_graph(g)                         # makes the directory and its key
    (other / ef.name).write_bytes(ef.read_bytes())
    _recompiles(f, caplog, "MAC does not match")


# --------------------------------------------------------------------------- entries: files


def test_entry_owned_by_another_user_is_refused(store, monkeypatch, caplog):
    d, f, g, ef, eg = store
    _give_away(ef, monkeypatch)
    _recompiles(f, caplog, f"is owned by uid {OTHER_UID}, not by this user")


@pytest.mark.parametrize("mode,who", [(0o666, "everyone"), (0o620, "its group")])
def test_entry_writable_by_others_is_refused(store, caplog, mode, who):
    d, f, g, ef, eg = store
    os.chmod(ef, mode)
    _recompiles(f, caplog, f"is writable by {who} (mode {mode:04o})")


def test_directory_at_an_entry_name_is_refused(store, caplog):
    d, f, g, ef, eg = store
    ef.unlink()
    ef.mkdir()
    before = dict(cache.STATS)
    with caplog.at_level(logging.WARNING, logger="autograph"):
        k = compile_graph(f)
    assert any("is not a regular file (a directory)" in r.getMessage() for r in caplog.records)
    assert np.array_equal(k(X)[0], F_OF_X) and cache.STATS["bad"] == before["bad"] + 1


def test_oversized_entry_is_refused_unread(store, caplog):
    d, f, g, ef, eg = store
    with open(ef, "r+b") as fh:   # sparse: costs no disk, but would cost 64 MiB of memory to read
        fh.truncate(cache.MAX_ENTRY_BYTES + 1)
    _recompiles(f, caplog, f"has {cache.MAX_ENTRY_BYTES + 1} bytes, more than the limit")


def test_entry_larger_than_a_lowered_limit(store, monkeypatch, caplog):
    d, f, g, ef, eg = store
    before, stores = ef.read_bytes(), cache.STATS["stores"]
    monkeypatch.setattr(cache, "MAX_ENTRY_BYTES", 100)
    _recompiles(f, caplog, "more than the limit of 100")
    # ... and an entry that would be refused when read is not written either.
    assert ef.read_bytes() == before and cache.STATS["stores"] == stores


def test_read_regular_stops_at_the_limit_while_reading(tmp_path):
    # A file that grows between fstat and read (here: /proc files report size 0).
    fd = os.open("/proc/self", os.O_RDONLY | os.O_DIRECTORY)
    try:
        st = os.stat("/proc/self/environ")
        if st.st_uid != os.geteuid():
            pytest.skip("/proc/self/environ is not ours")
        with pytest.raises(cache_files.Unsafe, match="grew past the limit of 1 bytes"):
            cache_files.read_regular(fd, "environ", 1)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- the directory


def _refused_dir(f, caplog, reason):
    """Two compiles with a refused cache directory: one warning, nothing loaded or written."""
    before = dict(cache.STATS)
    with caplog.at_level(logging.WARNING, logger="autograph"):
        ks = [compile_graph(f), compile_graph(f)]
    warnings = [r.getMessage() for r in caplog.records if "is not used" in r.getMessage()]
    assert len(warnings) == 1 and reason in warnings[0], [r.getMessage() for r in caplog.records]
    assert all(k._jit.origin == "compiled" and np.array_equal(k(X)[0], F_OF_X) for k in ks)
    assert cache.STATS["stores"] == before["stores"] and cache.STATS["hits"] == before["hits"]
    assert cache.STATS["refused"] >= before["refused"] + 2
    return warnings[0]


@pytest.mark.parametrize("mode,who", [(0o777, "everyone"), (0o770, "its group"), (0o1777, "everyone")])
def test_writable_cache_directory_is_not_used(store, caplog, mode, who):
    d, f, g, ef, eg = store
    os.chmod(d, mode)
    names = sorted(os.listdir(d))
    msg = _refused_dir(f, caplog, f"is writable by {who} (mode {mode:04o})")
    assert f"chmod go-w {d}" in msg
    assert sorted(os.listdir(d)) == names


def test_cache_directory_of_another_user_is_not_used(store, monkeypatch, caplog):
    d, f, g, ef, eg = store
    _give_away(d, monkeypatch)
    _refused_dir(f, caplog, f"cache directory {d} is owned by uid {OTHER_UID}")


def test_cache_directory_of_another_user_without_root(store, monkeypatch, caplog):
    # The same check, standing in another uid for this user (works without root).
    d, f, g, ef, eg = store
    monkeypatch.setattr(cache_files, "euid", lambda: os.geteuid() + 1)
    _refused_dir(f, caplog, f"is owned by uid {os.geteuid()}, not by this user (uid {os.geteuid() + 1})")


def test_new_cache_directory_is_private(tmp_path, monkeypatch):
    d = tmp_path / "new" / "cache"
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(d))
    f, _ = _graphs()
    compile_graph(f)
    assert stat.S_IMODE(os.stat(d).st_mode) == 0o700
    for p in d.iterdir():
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p


# --------------------------------------------------------------------------- the secret key


def test_key_is_made_once_with_mode_0600(store):
    d, f, g, ef, eg = store
    key = d / cache_auth.KEY_NAME
    st = key.stat()
    assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_size == cache_auth.SECRET_BYTES
    before = key.read_bytes()
    compile_graph(f)
    assert key.read_bytes() == before


def test_key_lives_in_the_config_directory_by_default(tmp_path, monkeypatch):
    monkeypatch.delenv("AUTOGRAPH_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    if sys.platform == "darwin":  # pragma: no cover - the test machines are Linux
        pytest.skip("macOS keeps it under ~/Library")
    f, _ = _graphs()
    compile_graph(f)
    entries = tmp_path / "cache-home" / "autograph"
    key = tmp_path / "config-home" / "autograph" / cache_auth.KEY_NAME
    assert key.is_file() and not (entries / cache_auth.KEY_NAME).exists()
    assert stat.S_IMODE(os.stat(key.parent).st_mode) == 0o700
    assert [p.name for p in entries.iterdir()] == [cache.graph_key(f, True) + cache.SUFFIX]
    assert compile_graph(f)._jit.origin == "disk-cache"
    # A cache directory restored from elsewhere brings no key: its entries are not loaded.
    monkeypatch.setattr(cache_auth, "_secrets", {})
    key.write_bytes(os.urandom(32))
    assert compile_graph(f)._jit.origin == "compiled"


def _bad_key(d, f, caplog, monkeypatch, reason):
    monkeypatch.setattr(cache_auth, "_secrets", {})   # as in a new process
    _refused_dir(f, caplog, reason)


def test_key_readable_by_others_is_refused(store, caplog, monkeypatch):
    d, f, g, ef, eg = store
    os.chmod(d / cache_auth.KEY_NAME, 0o644)
    _bad_key(d, f, caplog, monkeypatch, "can be read by others (mode 0644); run `chmod 600")


@pytest.mark.parametrize("size", [0, 16, 33])
def test_key_of_the_wrong_size_is_refused(store, caplog, monkeypatch, size):
    d, f, g, ef, eg = store
    (d / cache_auth.KEY_NAME).write_bytes(b"k" * size)
    reason = "more than the limit of 32" if size > 32 else f"has {size} bytes, not 32; delete it"
    _bad_key(d, f, caplog, monkeypatch, reason)


def test_key_symlink_is_refused(store, tmp_path, caplog, monkeypatch):
    d, f, g, ef, eg = store
    elsewhere = tmp_path / "k"
    elsewhere.write_bytes((d / cache_auth.KEY_NAME).read_bytes())
    os.chmod(elsewhere, 0o600)
    (d / cache_auth.KEY_NAME).unlink()
    os.symlink(elsewhere, d / cache_auth.KEY_NAME)
    _bad_key(d, f, caplog, monkeypatch, "the cache key")
    assert "is a symbolic link" in caplog.text


def test_key_of_another_user_is_refused(store, caplog, monkeypatch):
    d, f, g, ef, eg = store
    _give_away(d / cache_auth.KEY_NAME, monkeypatch)
    _bad_key(d, f, caplog, monkeypatch, f"is owned by uid {OTHER_UID}")


def test_key_is_never_replaced(tmp_path):
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        cache_files.write_atomic(fd, "k", b"first", ".key", replace=False)
        with pytest.raises(FileExistsError):
            cache_files.write_atomic(fd, "k", b"second", ".key", replace=False)
    finally:
        os.close(fd)
    assert (tmp_path / "k").read_bytes() == b"first" and os.listdir(tmp_path) == ["k"]


def test_mac_binds_the_name_and_every_byte():
    secret = os.urandom(32)
    mac = cache_auth.tag(secret, "a" * 64, b"body")
    assert cache_auth.verify(secret, "a" * 64, b"body", mac)
    assert not cache_auth.verify(secret, "b" * 64, b"body", mac)
    assert not cache_auth.verify(secret, "a" * 64, b"bodY", mac)
    assert not cache_auth.verify(os.urandom(32), "a" * 64, b"body", mac)


# --------------------------------------------------------------------------- in a subprocess

# Attacks that, unrefused, would hang (FIFO) or exhaust memory (/dev/zero): each runs in a
# child process with a timeout (and an address-space limit, so an unbounded read fails fast).
CHILD = textwrap.dedent('''
    import json, logging, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    sys.path.insert(0, {root!r})
    import numpy as np
    import autograph as ag
    from autograph.codegen.jit import disk_cache as cache
    messages = []
    class Keep(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())
    logging.getLogger("autograph").addHandler(Keep())
    f = ag.function(lambda x: x * 4.0 + 1.0, autograph=False)   # -c code has no source to convert
    x = np.arange(3, dtype=np.float32)
    out = f(x).numpy().tolist()
    cf = f.get_concrete_function(x)
    print(json.dumps(dict(out=out, stats=cache.STATS, log=messages, origin=cf.kernel._jit.origin,
                          key=cache.graph_key(cf.graph, True))))
''')


def _run_child(d, timeout=120):
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRAPH_VERBOSITY", "AUTOGRAPH_DISABLE_CACHE")}
    env["AUTOGRAPH_CACHE_DIR"] = str(d)
    proc = subprocess.run([sys.executable, "-c", CHILD.format(root=ROOT)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _attack(tmp_path, plant, reason):
    d = tmp_path / "c"
    cold = _run_child(d)
    assert cold["origin"] == "compiled" and cold["stats"]["stores"] == 1
    entry = d / (cold["key"] + cache.SUFFIX)
    original = entry.read_bytes()
    entry.unlink()
    plant(entry, original)
    out = _run_child(d)   # a hang or a MemoryError here is the bug
    assert out["out"] == [1.0, 5.0, 9.0] and out["origin"] == "compiled"
    # Refused by each reader: the warm-start index's lookup (autograph.runtime.warm_start: the cold
    # process left a record pointing at this entry) and then the normal path's.
    assert out["stats"]["bad"] in (1, 2) and out["stats"]["hits"] == 0
    assert any("ignoring disk-cache entry" in m and reason in m for m in out["log"]), out["log"]
    # The planted file was replaced by a real entry: the next process loads it.
    assert _run_child(d)["origin"] == "disk-cache"


def test_symlink_to_dev_zero_is_refused(tmp_path):
    _attack(tmp_path, lambda p, _: os.symlink("/dev/zero", p), "is a symbolic link")


def test_symlink_to_a_fifo_is_refused(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    _attack(tmp_path, lambda p, _: os.symlink(fifo, p), "is a symbolic link")


def test_fifo_entry_is_refused(tmp_path):
    _attack(tmp_path, lambda p, _: os.mkfifo(p, 0o600), "is not a regular file (a FIFO)")


def test_symlink_to_a_valid_entry_elsewhere_is_refused(tmp_path):
    def plant(p, original):
        # The correct, signed entry, this user's, 0600: only its being reached by a symlink is wrong.
        saved = tmp_path / "saved.agobj"
        saved.write_bytes(original)
        os.chmod(saved, 0o600)
        os.symlink(saved, p)
    _attack(tmp_path, plant, "is a symbolic link")


# --------------------------------------------------------------------------- cache clear


def test_cache_clear_leaves_a_users_folder_alone(tmp_path):
    # AUTOGRAPH_CACHE_DIR pointing at a user's folder by mistake.
    home = tmp_path / "thesis"
    (home / "photos").mkdir(parents=True)
    (home / "thesis.tex").write_text("\\documentclass{article}")
    (home / "photos" / "a.jpg").write_bytes(b"\xff\xd8")
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    entry_name = "ab" * 32 + cache.SUFFIX
    os.symlink(outside, home / entry_name)                # named like an entry, links outside
    (home / ("cd" * 32 + cache.SUFFIX)).mkdir()           # a folder named like an entry
    os.symlink(home / "photos", home / "linked-photos")   # a symlink to a folder
    _run_child(home)                                      # a real entry and the key
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(home))
    proc = subprocess.run([sys.executable, "-m", "autograph", "cache", "clear"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "removed 2 entries" in proc.stdout and "kept 5 files that are not cache entries" in proc.stdout
    assert sorted(os.listdir(home)) == sorted(["photos", "thesis.tex", "cd" * 32 + cache.SUFFIX,
                                               "linked-photos", cache_auth.KEY_NAME])
    assert (home / "photos" / "a.jpg").read_bytes() == b"\xff\xd8"
    assert outside.read_text() == "keep me"               # the link went, not its target


def test_cache_clear_counts_and_failures(tmp_path, monkeypatch):
    d = tmp_path / "c"
    d.mkdir()
    (d / ("ef" * 32 + cache.SUFFIX)).write_bytes(b"123")

    def refuse(name, dir_fd=None):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cache.os, "unlink", refuse)
    r = cache.clear_cache(str(d))
    assert r.removed == 0 and len(r.failed) == 1 and "Permission denied" in r.failed[0]
