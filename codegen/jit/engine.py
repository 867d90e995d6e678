"""The process-wide LLVM JIT: target machine, optimiser, and where code lives.

`llvmlite.binding` is imported lazily (it costs ~0.1 s) and every call into
it runs under one global lock: LLVM compilation is not thread-safe.

* The target machine asks for the host CPU name and features (otherwise LLVM
  targets generic x86-64 without AVX) at opt level 3.
* Optimisation uses the new pass manager at O3 with loop vectorisation on
  (`llvm.initialize()` must not be called in llvmlite >= 0.45: it raises).
* Kernels are freed when nothing refers to them. Every kernel module is
  turned into an object file (`tm.emit_object`) and linked as a library of
  its own into one ORC LLJIT (`_link`): its code, data and relocations
  belong to that library's resource tracker, and disposing the tracker
  unmaps them. The owner of a kernel's code is its `JitModule` (held by the
  `CompiledKernel`, which every holder of one of its addresses holds:
  ConcreteFunction, RankedKernel, binding tables, see docs/ARCHITECTURE.md
  "Codegen"); when the JitModule dies, a finalizer queues the tracker and
  it is disposed under LOCK (at once when the lock is free, else at the
  next load). Nothing is freed at interpreter exit: daemon threads may
  still run compiled code then.
  Measured per load of a small kernel object: 0.24 ms (0.07 ms to free)
  against 0.11 ms in one shared MCJIT engine (which never unloads), and
  1.6-2 ms for one MCJIT engine (with its own target machine) per kernel;
  400 loads then freed bring the process's mappings back to where they
  were. See `_Generation` for why there is more than one LLJIT.
* A library's external symbols are resolved as MCJIT resolved them: each
  undefined symbol of the object (`_undefined_symbols`, from its ELF symbol
  table) is imported at the address `llvm.address_of_symbol` gives, which
  looks first at symbols given to `llvm.add_symbol` (the runtime symbols
  published with `publish_symbol`: SIGINT epoch, BLAS table, thread pool,
  result destructor; and tests' counting `malloc`/`free`), then in the
  process (libc, libm, the CPython API). Symbols are looked up by name only
  in the library's own exports (the kernel, its native entry and its
  dispatcher), so libraries never bind to each other and may define the
  same names.
* The glue loaded once per process (the SIGINT handler, `jit/interrupt.py`;
  the thread pool, `jit/threadpool.py`; the result capsules' destructor,
  `autograph_capsule_free`, since result arrays outlive kernels) is
  provided by `jit/glue.py` (which registers its providers here when it is
  imported, `attach_glue`: it sits above this module): bounded, never freed; loaded from stored
  object code by `objload` when it can, else compiled into one shared
  MCJIT engine (`mcjit_glue`), where `function_address` also looks.
* With `emit_object=True` (the disk cache is on) the object file is kept as
  `JitModule.object_code` for the disk cache, so the bytes stored on disk are
  the code that ran. `load_object` is the hit path: it loads the object with
  `jit/objload.py`, without LLVM (the runtime symbols the object imports are
  provided first, `glue.provide`; symbols resolve as in `_link`:
  `resolve_symbol`), and links it into the LLJIT as above when the loader
  refuses it (logged at debug level). A loader library is a mapped region
  owned like an LLJIT library (`_Library`, `loader == "objload"`, no
  generation): unmapped under LOCK when its owner dies, counted by
  `live_libraries`. A zero function address is an error, never called.
* LLVM starts (`_get_state`) only to compile, inspect, link what the loader
  refused, or when a cache key needs the host description (no host record
  yet: `disk_cache._static_part`); `publish_symbol` records symbols in
  `symbols.py`, which hands them to `llvm.add_symbol` once LLVM runs.
* `fork()`: the lock is held across it (`os.register_at_fork`), so a fork
  made while another thread compiles waits for that compilation to end; the
  child then gets the lock back unlocked and LLVM in a consistent state
  (resetting a lock taken mid-compilation would leave LLVM's own state, and
  any mutex inside it, as the vanished thread left them).
"""
from __future__ import annotations

import itertools
import logging
import os
import sys
import threading
import time
import weakref
from typing import Callable, Dict, Iterable, List, Optional

from . import interrupt, objload
from .symbols import attach_llvm, published, resolve_symbol

__all__ = ["LOCK", "compile_ir", "load_object", "function_address", "JitModule", "unique_name",
           "host_description", "ensure_started", "attach_glue", "live_libraries", "release_pending"]

log = logging.getLogger("autograph.codegen")

LOCK = threading.RLock()
# Disk-cache hits load with `objload` (no LLVM) when it can; tests turn it off to compare.
USE_OBJECT_LOADER = objload.supported()
_state = None
_counter = itertools.count(1)
# The runtime glue (jit/glue.py, which sits above this module) registers how to provide
# the runtime symbols kernels import (`attach_glue`): all of them when LLVM starts, or those
# an object loaded without LLVM names.
_glue_provide: Optional[Callable[[Iterable[str]], None]] = None
_glue_provide_all: Optional[Callable[[], None]] = None
# Resource trackers of code whose owner died, disposed under LOCK (_release_pending).
_PENDING: List[object] = []
# Libraries linked and not yet disposed (tests and the mapping check read it).
_live = 0

if hasattr(os, "register_at_fork"):
    # The forking thread takes LOCK before fork() and releases it after, in the parent and in
    # the child (where it is the only thread, and the owner of the copied lock).
    os.register_at_fork(before=LOCK.acquire, after_in_parent=LOCK.release, after_in_child=LOCK.release)


def unique_name(base: str) -> str:
    """A process-unique symbol/module name derived from `base`."""
    safe = "".join(c if c.isalnum() or c == "_" else "_" for c in base)[:48] or "fn"
    return f"ag_{safe}_{next(_counter)}"


class _State:
    def __init__(self) -> None:
        import llvmlite.binding as llvm  # lazy: ~0.1 s

        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        self.llvm = llvm
        self.triple = llvm.get_process_triple()
        self.cpu = llvm.get_host_cpu_name()
        self.features = llvm.get_host_cpu_features().flatten()
        target = llvm.Target.from_triple(self.triple)
        self.tm = target.create_target_machine(
            cpu=self.cpu, features=self.features, opt=3, reloc="static",
            codemodel="jitdefault", jit=True)
        self.data_layout = str(self.tm.target_data)
        root = llvm.parse_assembly("")
        root.name = unique_name("engine_root")
        root.triple = self.triple
        root.data_layout = self.data_layout
        self.engine = llvm.create_mcjit_compiler(root, self.tm)   # glue the loader refused
        # Kernels: one library each, unloadable (see the module docstring). Objects only are
        # added, so the LLJIT's own target machine (the host's) compiles nothing.
        self.generation = _Generation(llvm.create_lljit_compiler())
        # Runtime symbols published before LLVM started (glue loaded without it), and those
        # published later: MCJIT and address_of_symbol see them too. The glue's providers run
        # once this state exists (_get_state: they may compile with it).
        attach_llvm(llvm)

    def optimise(self, mod) -> None:
        llvm = self.llvm
        pto = llvm.create_pipeline_tuning_options(speed_level=3)
        pto.loop_vectorization = True
        pto.slp_vectorization = False  # as Numba: SLP has had miscompiles (numba#8705)
        pto.loop_unrolling = True
        pto.loop_interleaving = True
        pb = llvm.create_pass_builder(self.tm, pto)
        pb.getModulePassManager().run(mod, pb)


def _get_state() -> _State:
    global _state
    if _state is None:
        _state = _State()
    # The runtime glue (SIGINT handler, thread pool, BLAS table, result destructor): anything
    # compiled from now on may import it. Each provider runs once (a failed one again next
    # time); one that compiles comes back here, and is then skipped (glue.py).
    _provide_glue()
    return _state


def attach_glue(provide: Callable[[Iterable[str]], None], provide_all: Callable[[], None]) -> None:
    """Register the runtime glue's providers (`glue.provide`, `glue.provide_all`); the
    glue module calls this when it is imported (`import autograph` imports it)."""
    global _glue_provide, _glue_provide_all
    _glue_provide, _glue_provide_all = provide, provide_all


def _provide_glue(names: Optional[Iterable[str]] = None) -> None:
    """Provide the runtime symbols among `names` (all of them when None) through the glue."""
    if _glue_provide is None or _glue_provide_all is None:
        raise RuntimeError("codegen: the runtime glue is not attached "
                           "(import autograph.codegen.jit.glue before compiling)")
    if names is None:
        _glue_provide_all()
    else:
        _glue_provide(names)


def ensure_started() -> float:
    """Start LLVM (import llvmlite.binding, target machine, engine) if needed;
    the seconds that took (0.0 when it was already running)."""
    if _state is not None:
        return 0.0
    t0 = time.perf_counter()
    with LOCK:
        _get_state()
    return time.perf_counter() - t0


def host_description() -> str:
    """`triple cpu features` of the JIT target (part of any cache key)."""
    with LOCK:
        s = _get_state()
        return f"{s.triple} {s.cpu} {s.features}"


class _Generation:
    """One LLJIT and the kernel libraries linked into it (at most `GENERATION_SIZE`).

    llvmlite disposes a library's resource tracker (its code and data are
    unmapped) but never removes the library itself from the LLJIT's session,
    and each link searches the session's libraries by name: one LLJIT for the
    life of the process would keep ~11 KB per kernel ever loaded and get
    slower with every load (measured: 1.3 ms per load and free after 10,000,
    1.7 ms after 20,000). So an LLJIT takes `GENERATION_SIZE` libraries,
    then a new one takes over; a full generation is disposed, with what
    remains of its libraries, once none of them is alive."""

    __slots__ = ("lljit", "linked", "live", "__weakref__")

    def __init__(self, lljit):
        self.lljit = lljit
        self.linked = 0   # libraries linked into it so far
        self.live = 0     # of which not yet disposed


# Libraries per LLJIT: creating one costs ~1.1 ms, so 1/64 of it per load; a full
# generation kept by one live kernel holds at most 63 dead libraries' bookkeeping.
GENERATION_SIZE = 64


class _Library:
    """The loaded code of one kernel module: an LLJIT library (its resource
    tracker) and its generation, or a region mapped by the object loader
    (`(base, size)`, generation None), and the addresses of the symbols it exports.

    It owns the code: when it dies (its JitModule died: nothing can call the
    code any more), a finalizer queues the tracker (or region), disposed
    (unmapped) under LOCK. `loader` says which: "lljit" or "objload"."""

    __slots__ = ("addresses", "loader", "_finalizer", "__weakref__")

    def __init__(self, tracker, generation: Optional[_Generation], addresses: Dict[str, int]):
        self.addresses = addresses
        self.loader = "lljit" if generation is not None else "objload"
        # The finalizer holds the tracker and generation (not this object) until it runs.
        self._finalizer = weakref.finalize(self, _queue_release, tracker, generation)
        self._finalizer.atexit = False   # at exit the code stays: daemon threads may still run it


def _queue_release(tracker, generation: _Generation) -> None:
    """Finalizer of a `_Library`: free its code under LOCK, now if the lock is free
    (a finalizer runs wherever garbage is collected, maybe while another thread
    holds LOCK for a long compilation), else at the next load or release."""
    if sys.is_finalizing():
        return
    _PENDING.append((tracker, generation))
    if LOCK.acquire(blocking=False):
        try:
            _release_pending()
        finally:
            LOCK.release()


def _release_pending() -> None:
    """Dispose the trackers of dead libraries, and LLJITs left with no live library
    once full (caller holds LOCK)."""
    global _live
    while _PENDING:
        tracker, generation = _PENDING.pop()
        if generation is None:   # a region of the object loader
            objload.unmap(*tracker)
            _live -= 1
            continue
        try:
            tracker._dispose()   # LLVMPY_LLJIT_Dylib_Tracker_Dispose: unmaps the library's code
        except Exception:        # never raise from a finalizer's work: leak instead
            pass
        tracker.detach()
        _live -= 1
        generation.live -= 1
        if generation.live == 0 and generation.linked >= GENERATION_SIZE and _state is not None \
                and _state.generation is not generation:
            generation.lljit.close()


def release_pending() -> None:
    """Free now the code of every kernel already found dead (tests call it after
    `gc.collect()`; otherwise it happens by itself)."""
    with LOCK:
        _release_pending()


def live_libraries() -> int:
    """How many kernel libraries are loaded and not yet freed."""
    return _live


class JitModule:
    """One compiled kernel module: the owner of its loaded code.

    Every object that stores one of the code's addresses (a ctypes function,
    a binding table, a PyMethodDef) must hold this JitModule, or hold
    something that does (its `CompiledKernel`): the code is freed when this
    object dies (`_Library`). `address` is the kernel's; `address_of` gives
    the other symbols exported from its library (its native entry and
    dispatcher).

    `ir_text` is the LLVM IR before optimisation. A module loaded from the
    disk cache has no IR: it is given a `regenerate` callable returning
    that text, called on first inspection.

    The optimised IR and the assembly shown by `optimized_ir`/`asm` come
    from a copy of the module optimised again on first inspection (never
    loaded): code is loaded from object files, so the loaded code has no
    module at all. Optimisation is deterministic, so the copy is the code
    that runs.
    """

    def __init__(self, library: _Library, symbol: str, ir_text: Optional[str], timings: dict,
                 regenerate: Optional[Callable[[], str]] = None, object_code: Optional[bytes] = None,
                 origin: str = "compiled"):
        self._library = library         # owns the code: freed when this object dies
        self.symbol = symbol
        self.address = library.addresses[symbol]
        self._ir_text = ir_text
        self._regenerate = regenerate
        self.timings = timings
        self.object_code = object_code   # the object file that was loaded, if kept
        self.origin = origin             # "compiled" or "disk-cache"
        self.errors = None               # the error-site table (set by codegen/jit/compile.py)
        self._opt_text: Optional[str] = None
        self._asm: Optional[str] = None

    def address_of(self, symbol: str) -> int:
        """The address of exported `symbol` in this module's code, or 0."""
        return self._library.addresses.get(symbol, 0)

    @property
    def ir_text(self) -> str:
        if self._ir_text is None:
            self._ir_text = self._regenerate()
        return self._ir_text

    def _inspect(self) -> None:
        """Make both texts from one optimised copy, then dispose of it (under LOCK: an
        llvmlite object must never be freed by the garbage collector, outside the lock,
        or a fork() at that moment leaves llvmlite's own lock held in the child)."""
        with LOCK:
            if self._opt_text is None:
                mod = _optimised_module(self.ir_text, self.symbol + ".inspect")
                try:
                    self._asm = _get_state().tm.emit_assembly(mod)
                    self._opt_text = str(mod)
                finally:
                    mod.close()

    def optimized_ir(self) -> str:
        self._inspect()
        return self._opt_text

    def asm(self) -> str:
        self._inspect()
        return self._asm


def _parsed(s: _State, ir_text: str, module_name: str):
    """`ir_text` parsed for the host's target and verified (caller holds LOCK); closed
    again if that fails."""
    mod = s.llvm.parse_assembly(ir_text)
    try:
        mod.name = module_name
        mod.triple = s.triple
        mod.data_layout = s.data_layout
        mod.verify()
    except BaseException:
        mod.close()   # under LOCK, not by the garbage collector (see JitModule._inspect)
        raise
    return mod


def _optimised_module(ir_text: str, module_name: str):
    """Parse, verify and optimise `ir_text` (caller holds LOCK); not added to the engine."""
    s = _get_state()
    mod = _parsed(s, ir_text, module_name)
    try:
        s.optimise(mod)
    except BaseException:
        mod.close()   # under LOCK, not by the garbage collector (see JitModule._inspect)
        raise
    return mod


def _link(s: _State, obj: bytes, exports: Iterable[str]) -> Optional[_Library]:
    """Link object file `obj` as a new library (caller holds LOCK); None when it does
    not link or does not define every name of `exports` (the kernel's first)."""
    global _live
    _release_pending()   # free dead code first: its room is reused
    interrupt.ensure_installed()   # in case signal.signal(SIGINT, ...) replaced it
    generation = s.generation
    if generation.linked >= GENERATION_SIZE:
        if generation.live == 0:
            generation.lljit.close()
        generation = s.generation = _Generation(s.llvm.create_lljit_compiler())
    exports = list(exports)
    builder = s.llvm.JITLibraryBuilder().add_object_img(obj).add_current_process()
    imports = published()
    for name in _undefined_symbols(obj):
        if name not in imports:
            # As MCJIT resolved them: symbols given to llvm.add_symbol first (tests route
            # malloc/free through counters that way), then the process (dlsym).
            address = s.llvm.address_of_symbol(name)
            if address:
                imports[name] = address
    for name, address in imports.items():
        builder.import_symbol(name, address)
    for name in exports:
        builder.export_symbol(name)
    generation.linked += 1   # the name is taken even if linking fails
    try:
        tracker = builder.link(generation.lljit, f"{exports[0]}.lib{next(_counter)}")
    except RuntimeError:
        return None
    tracker._owned = True   # disposed only by _release_pending, under LOCK, never by __del__
    generation.live += 1
    _live += 1
    library = _Library(tracker, generation, {name: tracker[name] for name in exports})
    if not all(library.addresses.values()):
        return None   # a zero address is never called; the library is freed as it dies
    return library


def _undefined_symbols(obj: bytes) -> List[str]:
    """The names an ELF64 little-endian object file references without defining
    them (its symbol table's undefined entries); [] for any other format, whose
    references the LLJIT then resolves in the process alone."""
    import struct

    if len(obj) < 64 or obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        return []
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    names = []
    for i in range(shnum):
        at = shoff + i * shentsize
        sh_type, = struct.unpack_from("<I", obj, at + 4)
        if sh_type != 2:   # SHT_SYMTAB
            continue
        offset, size = struct.unpack_from("<QQ", obj, at + 0x18)
        link, = struct.unpack_from("<I", obj, at + 0x28)
        entsize, = struct.unpack_from("<Q", obj, at + 0x38)
        str_at = shoff + link * shentsize
        str_offset, = struct.unpack_from("<Q", obj, str_at + 0x18)
        for sym in range(offset + entsize, offset + size, entsize):   # entry 0 is null
            st_name, st_info, _, st_shndx = struct.unpack_from("<IBBH", obj, sym)
            if st_shndx == 0 and st_name and (st_info >> 4) in (1, 2):   # undefined, global or weak
                end = obj.index(b"\0", str_offset + st_name)
                names.append(obj[str_offset + st_name:end].decode())
    return names


def load_object(obj: bytes, symbol: str, exports: Iterable[str] = ()) -> Optional[_Library]:
    """Load an object file as a library of its own; None when it does not define
    `symbol` and each name of `exports` (the caller must then not use it).

    Without LLVM (`objload`) when it can, else linked into the LLJIT (starting
    LLVM). The result owns the code (pass it to a `JitModule`); the code is
    freed when it dies.
    """
    names = [symbol, *exports]
    with LOCK:
        if USE_OBJECT_LOADER:
            library = _load_without_llvm(obj, names)
            if library is not None:
                return library
        return _link(_get_state(), obj, names)


def _load_without_llvm(obj: bytes, exports: List[str]) -> Optional[_Library]:
    """Load `obj` with the object loader (caller holds LOCK), after providing the runtime
    symbols it imports (`glue.provide`); None (logged at debug level) when the loader
    refuses it: the caller links it with LLVM, which may know more (compiler-rt, ...)."""
    global _live
    _release_pending()
    undefined = _undefined_symbols(obj)
    _provide_glue(undefined)
    interrupt.ensure_installed()   # in case signal.signal(SIGINT, ...) replaced it
    try:
        loaded = objload.load(obj, exports, resolve_symbol)
    except objload.ObjectError as exc:
        log.debug("the object loader refused %s (%s): linking it in the LLJIT", exports[0], exc)
        return None
    _live += 1
    return _Library((loaded.base, loaded.size), None, loaded.addresses)


def emit_glue_object(ir_text: str, module_name: str) -> bytes:
    """The object code of glue module `ir_text` (parsed, verified, not optimised: as
    MCJIT compiles the glue), for `glue.load_code`. Caller holds LOCK."""
    s = _get_state()
    mod = _parsed(s, ir_text, module_name)
    try:
        return s.tm.emit_object(mod)
    finally:
        mod.close()   # under LOCK (see JitModule._inspect)


def mcjit_glue(ir_text: str, module_name: str, symbols: Iterable[str]) -> Dict[str, int]:
    """Compile glue module `ir_text` into the shared MCJIT engine (never freed) and
    return the addresses of `symbols` (the fallback of `glue.load_code`). Caller holds LOCK."""
    s = _get_state()
    mod = _parsed(s, ir_text, module_name)
    s.engine.add_module(mod)   # owned by the engine from here on
    s.engine.finalize_object()
    addresses = {name: s.engine.get_function_address(name) for name in symbols}
    if not all(addresses.values()):
        raise RuntimeError(f"codegen: glue module {module_name} gave no address for "
                           f"{[n for n, a in addresses.items() if not a]}")
    return addresses


def function_address(symbol: str) -> int:
    """The address of a published runtime symbol, or of `symbol` in the shared MCJIT
    engine (glue the object loader refused), or 0. Kernels' own symbols are looked
    up in their library: `JitModule.address_of`."""
    with LOCK:
        return published().get(symbol) or _get_state().engine.get_function_address(symbol)


def _defined(mod, name: str) -> bool:
    try:
        return not mod.get_function(name).is_declaration
    except NameError:
        return False


def compile_ir(ir_text: str, module_name: str, symbol: str, emit_object: bool = False,
               exports: Iterable[str] = ()) -> JitModule:
    """Parse, verify, optimise (O3, host CPU), emit as an object file and load
    `ir_text`; return the module with the non-zero address of `symbol`, and
    of those names of `exports` that the module defines (`address_of`).

    With `emit_object`, the object file is kept as `JitModule.object_code`
    for the disk cache.
    """
    with LOCK:
        s = _get_state()
        llvm = s.llvm
        t0 = time.perf_counter()
        mod = llvm.parse_assembly(ir_text)
        try:
            mod.name = module_name
            mod.triple = s.triple
            mod.data_layout = s.data_layout
            mod.verify()
            t1 = time.perf_counter()
            s.optimise(mod)
            t2 = time.perf_counter()
            obj = s.tm.emit_object(mod)
            exports = [n for n in exports if _defined(mod, n)]
        finally:
            mod.close()   # here, under LOCK: never by the garbage collector (see JitModule._inspect)
        library = _link(s, obj, [symbol, *exports])
        t3 = time.perf_counter()
        if library is None:
            raise RuntimeError(f"codegen: the JIT returned no address for {symbol!r} "
                               f"(module {module_name!r}); refusing to call it")
        timings = {"parse": t1 - t0, "optimise": t2 - t1, "jit": t3 - t2}
        return JitModule(library, symbol, ir_text, timings, object_code=obj if emit_object else None)
