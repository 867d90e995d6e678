"""Where the disk cache lives, whether it is used, and opening it checked.

Both stores in the cache directory use this: kernel entries (`disk_cache`)
and side records (`side_cache`: the host record, glue objects, the call
index). Opening runs the directory's ownership and permission checks and
reads its secret key (`cache_files`, `cache_auth`); a directory that fails
them is not used, with one warning per directory and process. The counters
of both stores live here too, so `disk_cache.STATS` counts a refusal
whichever store met it.
"""
from __future__ import annotations

import logging
import os
import sys
from typing import Dict, Optional, Tuple

from . import cache_auth, cache_files
from .cache_files import Unsafe

__all__ = ["enabled", "cache_dir", "open_checked", "STATS"]

log = logging.getLogger("autograph.cache")

# Counters for tests and benchmarks: hits, misses, stores, bad (ignored entries), uncacheable,
# refused (lookups or stores skipped because the directory or the key failed a check).
STATS: Dict[str, int] = {"hits": 0, "misses": 0, "stores": 0, "bad": 0, "uncacheable": 0, "refused": 0}

_SUPPORTED = cache_files.supported()
_warned: set = set()   # cache directories already warned about: one warning each per process


def enabled() -> bool:
    """False when AUTOGRAPH_DISABLE_CACHE is set to a true value (1, true, yes, on),
    or where the cache's file checks cannot be made (not POSIX). Another value than
    those or 0, false, no, off is an EnvironmentSettingError naming the choices."""
    from autograph.tracer.core.env import flag
    return not flag("AUTOGRAPH_DISABLE_CACHE") and _SUPPORTED


def cache_dir() -> str:
    """The cache directory: $AUTOGRAPH_CACHE_DIR, else the user's cache directory."""
    env = os.environ.get("AUTOGRAPH_CACHE_DIR")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser(r"~\AppData\Local")
        return os.path.join(base, "autograph", "Cache")
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/autograph")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "autograph")


def open_checked(create: bool) -> Optional[Tuple[str, int, bytes]]:
    """(path, file descriptor, secret key) of the checked cache directory.

    None when it does not exist (and `create` is False) or when it or the
    key fails a check (logged once per directory: the cache is then not
    used). Other OSErrors (cannot create, cannot read) propagate.
    """
    path = cache_dir()
    try:
        fd = cache_files.open_dir(path, create)
    except FileNotFoundError:
        if create:
            raise
        return None
    except Unsafe as exc:
        _refuse(path, exc)
        return None
    try:
        return path, fd, cache_auth.secret(path, fd)
    except Unsafe as exc:
        os.close(fd)
        _refuse(path, exc)
        return None
    except BaseException:
        os.close(fd)
        raise


def _refuse(path: str, exc: Exception) -> None:
    STATS["refused"] += 1
    if path not in _warned:
        _warned.add(path)
        log.warning("the disk cache %s is not used: %s", path, exc)
