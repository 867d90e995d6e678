"""The disk cache's secret key and the MAC that authenticates its entries.

Every entry ends with HMAC-SHA256, under a per-user secret key, of a
domain string, the entry's cache key (its file name) and all of its other
bytes. An entry is loaded only if the MAC matches, so only a process that
can read the key (this user's autograph) can make an entry that loads, and
an entry moved or copied to another key's name fails: the MAC binds the
bytes to the name they are looked up by.

Where the key lives (`key_dir`):

* by default in the user's configuration directory
  (`$XDG_CONFIG_HOME/autograph/cache.key`, `~/.config/autograph/cache.key`;
  `~/Library/Application Support/autograph` on macOS), apart from the
  entries in `~/.cache/autograph`: a cache directory restored or shared from
  elsewhere (a CI cache, a backup, a synced folder) brings no valid key, so
  its entries are recompiled, never loaded;
* with `AUTOGRAPH_CACHE_DIR` set, beside the entries (`$AUTOGRAPH_CACHE_DIR/cache.key`),
  so that a cache chosen for a test session, a container or a sandbox is
  self-contained and writes nothing to the user's configuration.

The key is 32 bytes from `os.urandom`, created on first use by linking a
fully written 0600 temporary file to its name (never replacing one: two
processes starting at once agree on the first). It is used only if it is a
regular file of exactly 32 bytes owned by this user and readable by no one
else, in a directory that passes the same checks as the cache directory;
otherwise the cache is not used (`Unsafe`). It is read once per process.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import sys
from typing import Dict

from .cache_files import Unsafe, open_dir, read_regular, write_atomic

__all__ = ["SECRET_BYTES", "TAG_BYTES", "KEY_NAME", "config_dir", "key_dir", "secret", "tag", "verify"]

SECRET_BYTES = 32
TAG_BYTES = 32          # HMAC-SHA256
KEY_NAME = "cache.key"
_DOMAIN = b"autograph disk-cache entry, format 2\0"

_secrets: Dict[str, bytes] = {}   # key directory -> key, read once per process


def config_dir() -> str:
    """The user's configuration directory for autograph."""
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Application Support/autograph")
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return os.path.join(base, "autograph")


def key_dir(cache_directory: str) -> str:
    """The directory of the secret key: the cache directory itself when
    AUTOGRAPH_CACHE_DIR chose it, else the user's configuration directory."""
    return cache_directory if os.environ.get("AUTOGRAPH_CACHE_DIR") else config_dir()


def secret(cache_directory: str, cache_fd: int) -> bytes:
    """This user's secret key for the (checked, open) cache directory; created on first use.

    Raises Unsafe when the key or its directory fails a check, OSError when
    it cannot be read or created.
    """
    directory = key_dir(cache_directory)
    known = _secrets.get(directory)
    if known is not None:
        return known
    if directory == cache_directory:
        value = _read_or_create(cache_fd, directory)
    else:
        fd = open_dir(directory, create=True, what="configuration directory")
        try:
            value = _read_or_create(fd, directory)
        finally:
            os.close(fd)
    _secrets[directory] = value
    return value


def _read_or_create(fd: int, directory: str) -> bytes:
    path = os.path.join(directory, KEY_NAME)
    for _attempt in range(2):
        try:
            data = read_regular(fd, KEY_NAME, SECRET_BYTES, "the cache key", path, secret=True)
        except FileNotFoundError:
            try:
                write_atomic(fd, KEY_NAME, os.urandom(SECRET_BYTES), ".key", replace=False)
            except FileExistsError:
                pass   # another process made it first: use theirs
            continue
        if len(data) != SECRET_BYTES:
            raise Unsafe(f"the cache key {path} has {len(data)} bytes, not {SECRET_BYTES}; "
                         "delete it and a new one is made")
        return data
    raise Unsafe(f"the cache key {path} vanished while it was created")


def tag(key: bytes, name: str, body: bytes) -> bytes:
    """The MAC of the entry for cache key `name` whose other bytes are `body`."""
    h = hmac.new(key, _DOMAIN, hashlib.sha256)
    h.update(name.encode("ascii"))
    h.update(b"\0")
    h.update(body)
    return h.digest()


def verify(key: bytes, name: str, body: bytes, mac: bytes) -> bool:
    """True if `mac` is the MAC of (`name`, `body`), compared in constant time."""
    return hmac.compare_digest(tag(key, name, body), mac)
