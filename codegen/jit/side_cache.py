"""Small signed records kept beside the disk cache's entries, so that a warm
process needs no LLVM at all (see `objload`):

* the host record: what LLVM says about this machine and itself (the
  `triple cpu features` string of the JIT target, LLVM's version), which
  every cache key contains (`disk_cache._static_part`). It is stored under
  a fingerprint computed without LLVM (`host_fingerprint`): the llvmlite
  version and the size and modification time of its LLVM library, the
  machine, and the CPU as /proc/cpuinfo describes it (vendor, family,
  model, stepping, model name, feature flags). Another CPU, a changed
  kernel view of the CPU or another llvmlite build gives another
  fingerprint, hence no record and LLVM is asked (and a record written);
* the glue's object code (`glue`): the process-wide runtime code compiled
  from IR (SIGINT handler, thread pool, result destructor), keyed by its IR
  text and the cache key's static part (library, code generator digest,
  LLVM, host).

Records follow the entries' trust rules (`disk_cache`, `cache_files`,
`cache_auth`): the checked cache directory, regular files of this user only,
size-bounded reads, atomic writes, and a MAC under the user's secret key
over the record's name and bytes, checked before anything else is read. A
record that fails is ignored (logged at debug level) and rewritten. Files
are `<64 hex>.agside`, removed by `clear_cache` with the entries.
"""
from __future__ import annotations

import hashlib
import logging
import os
import platform
import sys
from typing import Optional

from . import cache_auth, cache_files
from .cache_directory import enabled, open_checked

__all__ = ["SUFFIX", "host_fingerprint", "read", "write"]

log = logging.getLogger("autograph.cache")

SUFFIX = ".agside"
_MAGIC = b"AGSIDE1\n"
MAX_RECORD_BYTES = 4 << 20

_CPU_FIELDS = ("vendor_id", "cpu family", "model", "stepping", "model name", "flags")
_fingerprint: Optional[str] = None


def host_fingerprint() -> Optional[str]:
    """64 hex digits naming this machine and llvmlite build without LLVM, or None
    where it cannot be made (no /proc/cpuinfo, llvmlite's library not found)."""
    global _fingerprint
    if _fingerprint is not None:
        return _fingerprint or None
    _fingerprint = ""
    try:
        import llvmlite   # the package only (its version): not llvmlite.binding
        lib = os.path.join(os.path.dirname(llvmlite.__file__), "binding", "libllvmlite.so")
        st = os.stat(lib)
        with open("/proc/cpuinfo", "rb") as fh:
            # The first processor's block only: on a many-core machine the whole file is
            # hundreds of KB that the kernel makes as it is read.
            text = b""
            while b"\n\n" not in text and len(text) < (1 << 20):
                chunk = fh.read(8192)
                if not chunk:
                    break
                text += chunk
    except (OSError, ImportError):
        return None
    first = text.decode("utf-8", "replace").split("\n\n", 1)[0]
    fields = {}
    for line in first.splitlines():
        k, _, v = line.partition(":")
        if k.strip() in _CPU_FIELDS:
            fields[k.strip()] = " ".join(v.split())
    if "flags" not in fields:
        return None
    parts = [f"llvmlite {llvmlite.__version__} {st.st_size} {st.st_mtime_ns}",
             f"{sys.platform} {platform.machine()}"] + [f"{k}: {fields.get(k, '')}" for k in _CPU_FIELDS]
    _fingerprint = hashlib.sha256("\n".join(parts).encode()).hexdigest()
    return _fingerprint


def _name(kind: str, key: str) -> str:
    return hashlib.sha256(f"{kind}\0{key}".encode("utf-8", "surrogatepass")).hexdigest()


def read(kind: str, key: str) -> Optional[bytes]:
    """The payload of record (`kind`, `key`), or None (absent, or failed a check: logged)."""
    if not enabled():
        return None
    try:
        opened = open_checked(create=False)
    except OSError:
        return None
    if opened is None:
        return None
    directory, fd, secret = opened
    name = _name(kind, key)
    try:
        data = cache_files.read_regular(fd, name + SUFFIX, MAX_RECORD_BYTES, "record")
    except FileNotFoundError:
        return None
    except (OSError, cache_files.Unsafe) as exc:
        log.debug("ignoring side record %s%s: %s", name, SUFFIX, exc)
        return None
    finally:
        os.close(fd)
    tag = cache_auth.TAG_BYTES
    body, mac = data[:-tag], data[-tag:]
    if len(data) < len(_MAGIC) + tag or not cache_auth.verify(secret, name, body, mac) \
            or not body.startswith(_MAGIC):
        log.debug("ignoring side record %s%s: its MAC does not match", name, SUFFIX)
        return None
    return body[len(_MAGIC):]


def write(kind: str, key: str, payload: bytes) -> bool:
    """Store record (`kind`, `key`) atomically; False (logged at debug level) if not written."""
    if not enabled():
        return False
    try:
        opened = open_checked(create=True)
    except OSError as exc:
        log.debug("cannot write a side record: %s", exc)
        return False
    if opened is None:
        return False
    directory, fd, secret = opened
    name = _name(kind, key)
    try:
        body = _MAGIC + payload
        cache_files.write_atomic(fd, name + SUFFIX, body + cache_auth.tag(secret, name, body), SUFFIX)
    except OSError as exc:
        log.debug("cannot write a side record in %s: %s", directory, exc)
        return False
    finally:
        os.close(fd)
    return True
