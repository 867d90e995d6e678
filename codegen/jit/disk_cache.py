"""The disk cache of compiled native code.

A fresh process that calls a function it has called before re-runs
conversion and tracing (they are cheap and decide *which* graph is needed)
but skips lowering, LLVM optimisation and machine-code generation: the
object file the JIT produced last time is read back and loaded into the
MCJIT engine with `add_object_file` (~1 ms).

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
* `boundscheck`;
* the cache format, the library version and a digest of the code
  generator's own source files (`codegen/*.py`: lowering, pass pipeline,
  kernel ABI), so that editing the compiler invalidates its output even
  while the version number stays the same;
* the llvmlite and LLVM versions;
* the host: target triple, CPU name and CPU feature string.

Numba keys its cache on the function's *source*: a hash of the bytecode
and closure cells, with freshness from the file's mtime/size/hash. That
misses changes in callees defined elsewhere and in globals frozen into the
code (numba#1833, #9483), and invalidates every function of a file when
any line of it changes. Here the key is the typed IR that the trace
produced, which already reflects every callee, global and Python value that
influenced it, so a changed input to the compiler always means a changed
key: the cache cannot serve stale code for changed source. The price is
that conversion and tracing still run before the cache is consulted;
locations are part of the key, so moving a function down a line recompiles
it (its error messages quote the line).

Graphs containing an op named in `NOT_CACHEABLE` (lowerings that would bake
process-specific state, such as an address, into the code) bypass the
cache.

The format: one file per entry, `<key>.agobj`
---------------------------------------------
    b"AGOBJ\\n"  u32-le: length of the metadata  metadata (UTF-8 JSON)  object file bytes

The metadata holds the cache format number, the key, the kernel symbol, the
error-site table (message templates, locations, value kinds), the input and
output types (the kernel's slot layout), the object's size and SHA-256, and
informational fields (function name, creation time, compile timings). No
pickle: loading never runs code from the file. Entries are written to a
temporary file in the cache directory and renamed into place
(`os.replace`), so a concurrent reader sees the old entry, the new one or
none, never half of one. An entry that is unreadable, truncated, of another
format or whose object does not match its SHA-256 is ignored (and logged)
and replaced by a fresh compile.

Symbols: the engine resolves symbols across everything loaded in the
process, so a symbol must never be loaded twice. Kernel symbols of cached
code are `ag_<name>_<16 hex of key>_<8 hex counter>`; on load the stored
symbol is renamed, in the object bytes, to one with this process's next
counter (same length, so the string table stays valid).

Environment: `AUTOGRAPH_CACHE_DIR` (default `$XDG_CACHE_HOME/autograph`,
`~/.cache/autograph`; the platform's cache directory on macOS/Windows),
`AUTOGRAPH_DISABLE_CACHE=1` turns the cache off. `clear_cache()` empties
the directory (`autograph cache clear`).
"""
from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import re
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

from autograph.tracer.core.ir import Graph, Location
from autograph.tracer.core.printer import format_attr, format_graph

from ..lowering.error_sites import ErrorTable

__all__ = ["enabled", "cache_dir", "graph_key", "keyed_symbol", "load", "store", "clear_cache",
           "ClearResult", "NOT_CACHEABLE", "LIBRARY_VERSION", "CACHE_FORMAT", "STATS"]

log = logging.getLogger("autograph.cache")

CACHE_FORMAT = 1
# Kept equal to autograph.__version__ (a test checks it); codegen may not import autograph.
LIBRARY_VERSION = "0.1.0"
SUFFIX = ".agobj"
_MAGIC = b"AGOBJ\n"
_HEADER = struct.Struct("<I")

NOT_CACHEABLE: set = set()   # op names whose lowering embeds process-specific state

# Counters for tests and benchmarks: hits, misses, stores, bad (ignored entries), uncacheable.
STATS: Dict[str, int] = {"hits": 0, "misses": 0, "stores": 0, "bad": 0, "uncacheable": 0}

_INLINE_ELEMENTS = 64   # array attributes up to this size are printed in the key, larger ones hashed
_SYMBOL_RE = re.compile(r"^ag_[A-Za-z0-9_]+_[0-9a-f]{16}_[0-9a-f]{8}$")
_counter = itertools.count(1)
_lock = threading.Lock()
_statics: Optional[str] = None


# --------------------------------------------------------------------------- settings


def enabled() -> bool:
    """False when AUTOGRAPH_DISABLE_CACHE is set to a true value (1, true, yes, on)."""
    flag = os.environ.get("AUTOGRAPH_DISABLE_CACHE", "")
    return flag.strip().lower() not in ("1", "true", "yes", "on")


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


def _static_part() -> str:
    """The part of every key that is fixed for the process (computed once)."""
    global _statics
    if _statics is None:
        import llvmlite
        import llvmlite.binding as llvm

        from .engine import host_description

        _statics = "\n".join([
            f"autograph-cache {CACHE_FORMAT}",
            f"library {LIBRARY_VERSION}",
            f"codegen {_codegen_digest()}",
            f"llvmlite {llvmlite.__version__} llvm {'.'.join(map(str, llvm.llvm_version_info))}",
            f"host {host_description()}",
        ])
    return _statics


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


def graph_key(graph: Graph, boundscheck: bool) -> Optional[str]:
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
    for part in (_static_part(), f"boundscheck {bool(boundscheck)}", text, locs):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def keyed_symbol(name: str, key: str) -> str:
    """A fresh, process-unique kernel symbol for code with cache key `key`."""
    # ASCII only: the symbol must match _SYMBOL_RE when the entry is read back.
    safe = "".join(c if (c.isascii() and c.isalnum()) or c == "_" else "_" for c in name)[:40] or "fn"
    return f"ag_{safe}_{key[:16]}_{next(_counter):08x}"


def _entry_path(key: str) -> str:
    return os.path.join(cache_dir(), key + SUFFIX)


# --------------------------------------------------------------------------- store


def _loc_json(loc: Optional[Location]):
    if loc is None:
        return None
    return [loc.file, loc.line, loc.col, loc.function, loc.source]


def store(key: str, graph: Graph, symbol: str, obj: bytes, errors: ErrorTable, timings: dict) -> bool:
    """Write the entry for `key` atomically; False (logged) if it could not be written."""
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
        "object_sha256": hashlib.sha256(obj).hexdigest(),
        "created": time.time(),
        "timings_ms": {k: round(v * 1e3, 3) for k, v in timings.items()},
    }
    import tempfile  # lazy, like shutil below: a process that only hits never needs them

    blob = json.dumps(meta, separators=(",", ":")).encode("utf-8", "surrogatepass")
    directory = cache_dir()
    tmp = None
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=SUFFIX, dir=directory)
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + _HEADER.pack(len(blob)) + blob + obj)
        os.replace(tmp, os.path.join(directory, key + SUFFIX))
        tmp = None
    except OSError as exc:
        log.warning("could not write to the disk cache %s: %s", directory, exc)
        return False
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
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


def _read(path: str, key: str, graph: Graph) -> Entry:
    with open(path, "rb") as fh:
        data = fh.read()
    if not data.startswith(_MAGIC) or len(data) < len(_MAGIC) + _HEADER.size:
        raise _Bad("not an autograph cache entry")
    (n,) = _HEADER.unpack_from(data, len(_MAGIC))
    start = len(_MAGIC) + _HEADER.size
    if start + n > len(data):
        raise _Bad("truncated metadata")
    try:
        meta = json.loads(data[start:start + n].decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _Bad(f"unreadable metadata ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != CACHE_FORMAT:
        raise _Bad(f"cache format {meta.get('format') if isinstance(meta, dict) else '?'}, "
                   f"expected {CACHE_FORMAT}")
    if meta.get("key") != key:
        raise _Bad("key mismatch")
    obj = data[start + n:]
    if len(obj) != meta.get("object_size") or hashlib.sha256(obj).hexdigest() != meta.get("object_sha256"):
        raise _Bad("object code does not match its checksum")
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

    Unreadable or corrupt entries count as misses and are logged (and later
    overwritten by `store`); this never raises for a bad file.
    """
    path = _entry_path(key)
    try:
        entry = _read(path, key, graph)
    except FileNotFoundError:
        STATS["misses"] += 1
        return None
    except (OSError, _Bad, struct.error) as exc:
        STATS["bad"] += 1
        STATS["misses"] += 1
        log.warning("ignoring disk-cache entry %s: %s", path, exc)
        return None
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
    """What `clear_cache` did."""

    path: str
    existed: bool
    removed: int = 0
    bytes: int = 0
    failed: List[str] = field(default_factory=list)


def _tree_size(path: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for fname in files:
            try:
                total += os.lstat(os.path.join(root, fname)).st_size
            except OSError:
                pass
    return total


def clear_cache(path: Optional[str] = None) -> ClearResult:
    """Remove every entry of the cache directory (default `cache_dir()`).

    The directory itself is kept. Refuses (ValueError) to clear the root,
    home or current directory, in case AUTOGRAPH_CACHE_DIR points there.
    Files that cannot be removed are listed in `failed`.
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
    import shutil

    result = ClearResult(path, True)
    with _lock, os.scandir(path) as entries:
        for entry in list(entries):
            try:
                if entry.is_dir(follow_symlinks=False):
                    size = _tree_size(entry.path)
                    shutil.rmtree(entry.path)
                else:
                    size = entry.stat(follow_symlinks=False).st_size
                    os.unlink(entry.path)
            except OSError as exc:
                result.failed.append(f"{entry.path}: {exc}")
                continue
            result.removed += 1
            result.bytes += size
    return result
