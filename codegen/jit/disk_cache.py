"""The disk cache of compiled native code.

A fresh process that calls a function it has called before re-runs
conversion and tracing (they decide *which* graph is needed; the call index
described below lets hermetic functions skip them too) but skips lowering,
LLVM optimisation and machine-code generation: the object file the JIT
produced last time is read back and loaded as a library of its own
(`autograph.codegen.jit.engine.load_object`, ~1 ms with the read), freed
like compiled code when nothing refers to it.

The key: what the code is made from, not where it came from
------------------------------------------------------------
An entry is keyed by the SHA-256 of

* the graph's full printed IR *with locations* (`graph.format(locations=True)`)
  plus, for every op, the function name and source text of its location
  (they end up in the kernel's error messages). Array attributes are spelled
  with their dtype, and those above `_INLINE_ELEMENTS` elements by their
  shape and the SHA-256 of their bytes instead of their values: exact, and
  fast for large captured constants, which the printer spells element by
  element (~4 us each);
* `boundscheck` and `fastmath`;
* the cache format, the library version and a digest of the code
  generator's own source files (`codegen/*.py`: lowering, pass pipeline,
  kernel ABI), so that editing the compiler invalidates its output even
  while the version number stays the same;
* the llvmlite and LLVM versions;
* the host: target triple, CPU name and CPU feature string.

LLVM's version and host description are read from a signed host record
(`side_cache`) stored under a fingerprint of the machine and llvmlite build
made without LLVM, so a warm process computes keys, and loads entries
(`objload`), without importing `llvmlite.binding`; without a record LLVM
starts and writes one.

Numba keys its cache on the function's *source*: a hash of the bytecode
and closure cells, with freshness from the file's mtime/size/hash. That
misses changes in callees defined elsewhere and in globals frozen into the
code (numba#1833, #9483), and invalidates every function of a file when
any line of it changes. Here the key is the typed IR that the trace
produced, which already reflects every callee, global and Python value that
influenced it, so a changed input to the compiler always means a changed
key: the cache cannot serve stale code for changed source. The price is
that conversion and tracing run before the cache is consulted (unless the
call index below knows the key already);
locations are part of the key, so moving a function down a line recompiles
it (its error messages quote the line).

A second level skips conversion and tracing too: the call index of
`autograph.runtime.warm_start`, signed side records (`side_cache`) in this
directory mapping a fingerprint of the function's Python inputs
(`autograph.runtime.fingerprint`: code, source lines, defaults, closures,
the globals it reads and its callees, recursively) and of the call to the
IR key of an entry here. Only *hermetic* functions get a record (no Python
side effects or state a skipped trace would miss); anything the fingerprint
cannot spell sends the call down the path above, so the guarantee holds:
an edit of the function, of a callee or of a global it reads changes the
fingerprint, and the record is not found.

Graphs containing an op named in `NOT_CACHEABLE` (lowerings that would bake
process-specific state, such as an address, into the code) bypass the
cache.

The format: one file per entry, `<key>.agobj`
---------------------------------------------
    b"AGOBJ\\n"  u32-le: length of the metadata  metadata (UTF-8 JSON)  object file bytes  MAC

The metadata holds the cache format number, the key, the kernel symbol, the
error-site table (message templates, locations, value kinds), the input and
output types (the kernel's slot layout), the object's size and
informational fields (function name, creation time, compile timings). No
pickle: loading never runs code from the file. Entries are written to a
temporary file in the cache directory and renamed into place
(`os.replace`), so a concurrent reader sees the old entry, the new one or
none, never half of one.

Trust: an entry is native code that will run in this process
--------------------------------------------------------------
So it is loaded only if all of these hold (`cache_files`, `cache_auth`):

* the cache directory is owned by this user and writable by no one else
  (else the cache is not used at all, with one warning per process);
* the entry is a regular file (opened with `O_NOFOLLOW | O_NONBLOCK`: a
  symlink, a FIFO or a device is refused without being read), owned by this
  user, not writable by others, of at most `MAX_ENTRY_BYTES`;
* its last 32 bytes are the HMAC-SHA256, under this user's secret key, of
  the entry's key and all its other bytes: a planted entry (even with a
  correct checksum) or one renamed to another key's name fails;
* and finally format, key, symbol, types and error table agree with the
  graph being compiled (defence in depth: a signed entry was written by this
  library, but perhaps by another version of it).

The secret key lives in the user's configuration directory, or beside the
entries when AUTOGRAPH_CACHE_DIR is set (see `cache_auth`).

Anything that fails is ignored (logged), compiled afresh and overwritten:
it is never loaded. `clear_cache` removes only files named like the cache's
own (`<64 hex>.agobj`, `.tmp-*.agobj`, and the side records of `side_cache`,
`<64 hex>.agside`), never follows a symlink, and leaves everything else in
the directory alone.

Symbols: the engine resolves symbols across everything loaded in the
process, so a symbol must never be loaded twice. Kernel symbols of cached
code are `ag_<name>_<16 hex of key>_<8 hex counter>`; on load the stored
symbol is renamed, in the object bytes, to one with this process's next
counter (same length, so the string table stays valid).

Environment: `AUTOGRAPH_CACHE_DIR` (default `$XDG_CACHE_HOME/autograph`,
`~/.cache/autograph`; the platform's cache directory on macOS/Windows),
`AUTOGRAPH_DISABLE_CACHE=1` turns the cache off. `clear_cache()` removes its
entries (`autograph cache clear`). The cache needs POSIX (`O_NOFOLLOW`,
file owners): elsewhere it is off.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import re
import struct
import time
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np

from autograph.tracer.core.ir import Graph, Location
from autograph.tracer.core.printer import format_attr, format_graph

from ..lowering.error_sites import ErrorTable
from . import cache_auth, cache_files, side_cache
from .cache_directory import STATS, cache_dir, enabled, open_checked as _open
from .cache_files import Unsafe
from autograph.tracer.core import forksafe

__all__ = ["enabled", "cache_dir", "graph_key", "keyed_symbol", "load", "store", "clear_cache",
           "ClearResult", "NOT_CACHEABLE", "LIBRARY_VERSION", "CACHE_FORMAT", "STATS", "MAX_ENTRY_BYTES"]

log = logging.getLogger("autograph.cache")

CACHE_FORMAT = 2   # 2: entries end with a MAC
# Kept equal to autograph.__version__ (a test checks it); codegen may not import autograph.
LIBRARY_VERSION = "0.1.0"
SUFFIX = ".agobj"
_MAGIC = b"AGOBJ\n"
_HEADER = struct.Struct("<I")

# An entry is an object file of one kernel (tens of KiB); anything larger is refused unread.
MAX_ENTRY_BYTES = 64 << 20
# The names of the cache's own files, the only ones `clear_cache` removes.
# Side records (side_cache: host record, glue objects) are the cache's own files too.
_OWN_FILE = re.compile(r"^(?:[0-9a-f]{64}|\.tmp-[A-Za-z0-9_]+)(?:" + re.escape(SUFFIX) + r"|\.agside)$")

NOT_CACHEABLE: set = set()   # op names whose lowering embeds process-specific state

_INLINE_ELEMENTS = 64   # array attributes up to this size are printed in the key, larger ones hashed
_SYMBOL_RE = re.compile(r"^ag_[A-Za-z0-9_]+_[0-9a-f]{16}_[0-9a-f]{8}$")
_counter = itertools.count(1)
_lock = forksafe.lock()   # a fork child gets it back unlocked
_statics: Optional[str] = None


# --------------------------------------------------------------------------- key


def _codegen_digest() -> str:
    """SHA-256 of the code generator's source files (what turns IR into code):
    every module below `autograph.codegen`, by its path relative to it."""
    h = hashlib.sha256()
    codegen_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        names = sorted(os.path.relpath(os.path.join(d, n), codegen_dir)
                       for d, _, files in os.walk(codegen_dir) for n in files if n.endswith(".py"))
        for n in names:
            with open(os.path.join(codegen_dir, n), "rb") as fh:
                h.update(n.encode() + b"\0" + fh.read() + b"\0")
    except OSError:  # e.g. a zip import: fall back to the version alone
        return "unknown"
    return h.hexdigest()


def _static_part(start_llvm: bool = True) -> Optional[str]:
    """The part of every key that is fixed for the process (computed once).

    LLVM's version and host description come from the host record
    (`side_cache`) when there is one for this machine, so a warm process
    computes keys without starting LLVM; otherwise LLVM is started (unless
    `start_llvm` is False: then None) and the record written.
    """
    global _statics
    if _statics is None:
        import llvmlite   # the package's version only: not llvmlite.binding

        fingerprint = side_cache.host_fingerprint()
        record = side_cache.read("host", fingerprint) if fingerprint else None
        try:
            llvm_version, host = json.loads(record.decode()) if record else (None, None)
        except (ValueError, TypeError, UnicodeDecodeError):
            llvm_version = host = None
        if not (isinstance(llvm_version, str) and isinstance(host, str)):
            if not start_llvm:
                return None
            import llvmlite.binding as llvm

            from .engine import host_description

            llvm_version, host = '.'.join(map(str, llvm.llvm_version_info)), host_description()
            if fingerprint:
                side_cache.write("host", fingerprint, json.dumps([llvm_version, host]).encode())
        _statics = "\n".join([
            f"autograph-cache {CACHE_FORMAT}",
            f"library {LIBRARY_VERSION}",
            f"codegen {_codegen_digest()}",
            f"llvmlite {llvmlite.__version__} llvm {llvm_version}",
            f"host {host}",
        ])
    return _statics


def key_needs_llvm() -> bool:
    """True when computing a cache key in this process would start LLVM (no host
    record for this machine yet); computes the key's fixed part when it would not."""
    return _static_part(start_llvm=False) is None


def _location_text(graph: Graph) -> str:
    # file:line is in the printed IR; the function name and source line are
    # not, but error messages quote them.
    seen, out = set(), []
    for op in graph.walk():
        loc = op.loc
        if loc is not None and loc not in seen:
            seen.add(loc)
            out.append(f"{loc.file}:{loc.line}:{loc.col} {loc.function} {loc.source!r}")
    return "\n".join(out)


def _key_attr(v) -> str:
    """An attribute as spelled in the key: printed, plus dtype and digest for arrays."""
    if isinstance(v, (np.ndarray, np.generic)) and v.dtype != object:
        if v.size > _INLINE_ELEMENTS:
            data = np.ascontiguousarray(v).tobytes()
            return f"<{v.dtype.str} {v.shape} sha256:{hashlib.sha256(data).hexdigest()}>"
        return f"{format_attr(v)}:{v.dtype.str}"
    return format_attr(v)


def graph_key(graph: Graph, boundscheck: bool, fastmath: bool = False) -> Optional[str]:
    """The cache key (64 hex digits) of compiling `graph`, or None if it is not cacheable."""
    try:
        if NOT_CACHEABLE and any(op.name in NOT_CACHEABLE for op in graph.walk()):
            STATS["uncacheable"] += 1
            return None
        text = format_graph(graph, locations=True, attr_format=_key_attr)
        locs = _location_text(graph)
    except Exception as exc:  # an attribute the printer cannot spell: compile without the cache
        STATS["uncacheable"] += 1
        log.debug("graph %s is not cacheable: %s", graph.name, exc)
        return None
    h = hashlib.sha256()
    flags = f"boundscheck {bool(boundscheck)}" + (" fastmath" if fastmath else "")
    for part in (_static_part(), flags, text, locs):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def keyed_symbol(name: str, key: str) -> str:
    """A fresh, process-unique kernel symbol for code with cache key `key`."""
    # ASCII only: the symbol must match _SYMBOL_RE when the entry is read back.
    safe = "".join(c if (c.isascii() and c.isalnum()) or c == "_" else "_" for c in name)[:40] or "fn"
    return f"ag_{safe}_{key[:16]}_{next(_counter):08x}"


# --------------------------------------------------------------------------- store


def _loc_json(loc: Optional[Location]):
    if loc is None:
        return None
    return [loc.file, loc.line, loc.col, loc.function, loc.source]


def store(key: str, graph: Graph, symbol: str, obj: bytes, errors: ErrorTable, timings: dict) -> bool:
    """Write the signed entry for `key` atomically; False (logged) if it was not written."""
    meta = {
        "format": CACHE_FORMAT,
        "key": key,
        "symbol": symbol,
        "name": graph.name,
        "inputs": [str(v.type) for v in graph.inputs],
        "outputs": [str(v.type) for v in graph.outputs],
        "errors": [{"template": s.template, "loc": _loc_json(s.loc), "kinds": list(s.kinds)}
                   for s in errors.sites[1:]],
        "object_size": len(obj),
        "created": time.time(),
        "timings_ms": {k: round(v * 1e3, 3) for k, v in timings.items()},
    }
    blob = json.dumps(meta, separators=(",", ":")).encode("utf-8", "surrogatepass")
    try:
        opened = _open(create=True)
    except OSError as exc:
        log.warning("could not write to the disk cache %s: %s", cache_dir(), exc)
        return False
    if opened is None:
        return False
    directory, fd, secret = opened
    try:
        body = _MAGIC + _HEADER.pack(len(blob)) + blob + obj
        data = body + cache_auth.tag(secret, key, body)
        if len(data) > MAX_ENTRY_BYTES:  # it would be refused when read back
            log.info("not caching %s: its entry would have %d bytes (limit %d)", graph.name, len(data),
                     MAX_ENTRY_BYTES)
            return False
        cache_files.write_atomic(fd, key + SUFFIX, data, SUFFIX)
    except OSError as exc:
        log.warning("could not write to the disk cache %s: %s", directory, exc)
        return False
    finally:
        os.close(fd)
    STATS["stores"] += 1
    return True


# --------------------------------------------------------------------------- load


@dataclass
class Entry:
    """A cache entry read back and checked: the object bytes and what the kernel needs."""

    symbol: str
    obj: bytes
    errors: ErrorTable
    meta: dict


class _Bad(Exception):
    """An entry that must be ignored; the message says why."""


def _parse(data: bytes, key: str, graph: Graph, secret: bytes) -> Entry:
    """The entry in `data`, authenticated first (nothing else is looked at before) and checked."""
    start = len(_MAGIC) + _HEADER.size
    if not data.startswith(_MAGIC) or len(data) < start + cache_auth.TAG_BYTES:
        raise _Bad("not an autograph cache entry")
    body, mac = data[:-cache_auth.TAG_BYTES], data[-cache_auth.TAG_BYTES:]
    if not cache_auth.verify(secret, key, body, mac):
        raise _Bad("its MAC does not match: it was not written for this key by this user's autograph "
                   "(planted, renamed, copied from elsewhere or modified)")
    (n,) = _HEADER.unpack_from(body, len(_MAGIC))
    if start + n > len(body):
        raise _Bad("truncated metadata")
    try:
        meta = json.loads(body[start:start + n].decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _Bad(f"unreadable metadata ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != CACHE_FORMAT:
        raise _Bad(f"cache format {meta.get('format') if isinstance(meta, dict) else '?'}, "
                   f"expected {CACHE_FORMAT}")
    if meta.get("key") != key:
        raise _Bad("key mismatch")
    obj = body[start + n:]
    if len(obj) != meta.get("object_size"):
        raise _Bad("object code of the wrong size")
    symbol = meta.get("symbol")
    if not isinstance(symbol, str) or not _SYMBOL_RE.match(symbol) or symbol[-25:-9] != key[:16]:
        raise _Bad(f"bad kernel symbol {symbol!r}")
    if meta.get("inputs") != [str(v.type) for v in graph.inputs] or \
            meta.get("outputs") != [str(v.type) for v in graph.outputs]:
        raise _Bad("input/output types differ from the graph")
    try:
        errors = ErrorTable()
        for i, site in enumerate(meta["errors"], start=1):
            loc = site["loc"]
            loc = None if loc is None else Location(str(loc[0]), int(loc[1]), int(loc[2]), loc[3], loc[4])
            if errors.add(str(site["template"]), loc, [str(k) for k in site["kinds"]]) != i:
                raise _Bad("duplicate error site")
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise _Bad(f"bad error-site table ({exc!r})") from None
    return Entry(symbol, obj, errors, meta)


def load(key: str, graph: Graph, name: str) -> Optional[Entry]:
    """The checked entry for `key`, renamed to a fresh symbol; None on a miss.

    Entries that fail a check (see the module docstring) count as misses and
    are logged (and later overwritten by `store`); this never raises for a
    bad file and never reads more than MAX_ENTRY_BYTES.
    """
    try:
        opened = _open(create=False)
    except OSError as exc:   # e.g. a path component is a file: `store` will say so
        log.debug("cannot open the disk cache %s: %s", cache_dir(), exc)
        opened = None
    if opened is None:
        STATS["misses"] += 1
        return None
    directory, fd, secret = opened
    fname = key + SUFFIX
    path = os.path.join(directory, fname)
    try:
        entry = _parse(cache_files.read_regular(fd, fname, MAX_ENTRY_BYTES, "file", fname), key, graph, secret)
    except FileNotFoundError:
        STATS["misses"] += 1
        return None
    except (OSError, Unsafe, _Bad, struct.error) as exc:
        STATS["bad"] += 1
        STATS["misses"] += 1
        log.warning("ignoring disk-cache entry %s: %s", path, exc)
        return None
    finally:
        os.close(fd)
    old = entry.symbol.encode()
    if entry.obj.count(old) == 0:
        STATS["bad"] += 1
        STATS["misses"] += 1
        log.warning("ignoring disk-cache entry %s: symbol %s not in the object", path, entry.symbol)
        return None
    new = entry.symbol[:-8] + f"{next(_counter):08x}"
    entry.obj = entry.obj.replace(old, new.encode())
    entry.symbol = new
    return entry


# --------------------------------------------------------------------------- clear


@dataclass
class ClearResult:
    """What `clear_cache` did: entries removed, side records removed (`side_cache`),
    the bytes of both, other files kept, failures."""

    path: str
    existed: bool
    removed: int = 0
    bytes: int = 0
    kept: int = 0
    failed: List[str] = field(default_factory=list)
    records: int = 0


def clear_cache(path: Optional[str] = None) -> ClearResult:
    """Remove the cache's own files from the cache directory (default `cache_dir()`).

    Only files named like entries (`<64 hex>.agobj`), side records
    (`<64 hex>.agside`) or their temporary files are removed, symlinks as links (never followed);
    everything else (the secret key, files and folders that are not the
    cache's) is kept and counted in `kept`. Refuses (ValueError) to clear
    the root, home or current directory. Files that cannot be removed are
    listed in `failed`.
    """
    path = path or cache_dir()
    if not os.path.isdir(path):
        if os.path.exists(path):
            raise ValueError(f"cache path {path} exists but is not a directory")
        return ClearResult(path, False)
    real = os.path.realpath(path)
    forbidden = {os.path.realpath(p) for p in (os.sep, os.path.expanduser("~"), os.getcwd())}
    if real in forbidden or os.path.dirname(real) == real:
        raise ValueError(f"refusing to clear {path}: it is the root, home or current "
                         "directory; point AUTOGRAPH_CACHE_DIR at a cache directory")
    result = ClearResult(path, True)
    # Names are looked up and removed relative to the directory's descriptor: swapping a path
    # component for a symlink meanwhile cannot send the removals elsewhere.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)) \
        if cache_files.supported() else None
    try:
        with _lock, os.scandir(path if fd is None else fd) as entries:
            for entry in list(entries):
                if not _OWN_FILE.match(entry.name) or entry.is_dir(follow_symlinks=False):
                    result.kept += 1
                    continue
                try:
                    size = entry.stat(follow_symlinks=False).st_size
                    if fd is None:
                        os.unlink(os.path.join(path, entry.name))
                    else:
                        os.unlink(entry.name, dir_fd=fd)
                except FileNotFoundError:   # removed meanwhile (another `clear`, a store's rename)
                    continue
                except OSError as exc:
                    result.failed.append(f"{os.path.join(path, entry.name)}: {exc}")
                    continue
                if entry.name.endswith(SUFFIX):
                    result.removed += 1
                else:
                    result.records += 1
                result.bytes += size
    finally:
        if fd is not None:
            os.close(fd)
    return result
