"""The process-wide LLVM JIT: target machine, optimiser and MCJIT engine.

`llvmlite.binding` is imported lazily (it costs ~0.1 s) and every call into
it runs under one global lock: LLVM compilation is not thread-safe.

* The target machine asks for the host CPU name and features (otherwise LLVM
  targets generic x86-64 without AVX) at opt level 3.
* Optimisation uses the new pass manager at O3 with loop vectorisation on
  (`llvm.initialize()` must not be called in llvmlite >= 0.45: it raises).
* One shared MCJIT engine holds every module. Each module and each kernel
  symbol gets a unique name: the engine resolves symbols across modules and
  object caches are keyed by module name. A zero function address is an
  error, never called.
* With `emit_object=True` (the disk cache is on) the optimised module is
  turned into an object file once (`tm.emit_object`) and loaded with
  `add_object_file`, exactly as a cache hit loads it, so the bytes stored on
  disk are the code that ran; `load_object` is the hit path.
* `fork()`: the lock is held across it (`os.register_at_fork`), so a fork
  made while another thread compiles waits for that compilation to end; the
  child then gets the lock back unlocked and LLVM in a consistent state
  (resetting a lock taken mid-compilation would leave LLVM's own state, and
  any mutex inside it, as the vanished thread left them).
"""
from __future__ import annotations

import itertools
import os
import threading
import time
from typing import Callable, Optional

from . import interrupt

__all__ = ["LOCK", "compile_ir", "load_object", "function_address", "JitModule", "unique_name",
           "host_description", "ensure_started"]

LOCK = threading.RLock()
_state = None
_counter = itertools.count(1)

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
        self.engine = llvm.create_mcjit_compiler(root, self.tm)
        # Kernels with loops poll the SIGINT epoch (resolved by symbol when loaded).
        interrupt.start(self)

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
    return _state


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


class JitModule:
    """One compiled module living in the shared engine.

    `ir_text` is the LLVM IR before optimisation. A module loaded from the
    disk cache has no IR: it is given a `regenerate` callable returning
    that text, called on first inspection.

    The optimised IR and the assembly shown by `optimized_ir`/`asm` come
    from a copy of the module optimised again on first inspection (never
    added to the engine): machine-code generation rewrites the IR of the
    module it runs on (constant hoisting, CodeGenPrepare), so the engine's
    own module no longer shows the optimiser's output, and cache-loaded
    code has no module at all. Optimisation is deterministic, so the copy
    is the code that runs.
    """

    def __init__(self, modref, symbol: str, address: int, ir_text: Optional[str], timings: dict,
                 regenerate: Optional[Callable[[], str]] = None, object_code: Optional[bytes] = None,
                 origin: str = "compiled"):
        self._engine_module = modref    # kept alive with the code (None for object files)
        self._modref = None             # the inspection copy, made on first use
        self.symbol = symbol
        self.address = address
        self._ir_text = ir_text
        self._regenerate = regenerate
        self.timings = timings
        self.object_code = object_code   # the object file loaded into the engine, if any
        self.origin = origin             # "compiled" or "disk-cache"
        self._opt_text: Optional[str] = None
        self._asm: Optional[str] = None

    @property
    def ir_text(self) -> str:
        if self._ir_text is None:
            self._ir_text = self._regenerate()
        return self._ir_text

    def _module(self):
        if self._modref is None:
            self._modref = _optimised_module(self.ir_text, self.symbol + ".inspect")
        return self._modref

    def optimized_ir(self) -> str:
        with LOCK:
            if self._opt_text is None:
                self._opt_text = str(self._module())
            return self._opt_text

    def asm(self) -> str:
        with LOCK:
            if self._asm is None:
                self._asm = _get_state().tm.emit_assembly(self._module())
            return self._asm


def _optimised_module(ir_text: str, module_name: str):
    """Parse, verify and optimise `ir_text` (caller holds LOCK); not added to the engine."""
    s = _get_state()
    mod = s.llvm.parse_assembly(ir_text)
    mod.name = module_name
    mod.triple = s.triple
    mod.data_layout = s.data_layout
    mod.verify()
    s.optimise(mod)
    return mod


def _add_object(s: _State, obj: bytes, symbol: str) -> int:
    # MCJIT takes the binary out of the ObjectFileRef; relocations (malloc,
    # free, libm) are resolved by finalize_object, like for add_module.
    interrupt.ensure_installed()   # in case signal.signal(SIGINT, ...) replaced it
    s.engine.add_object_file(s.llvm.ObjectFileRef.from_data(obj))
    s.engine.finalize_object()
    return s.engine.get_function_address(symbol)


def load_object(obj: bytes, symbol: str) -> int:
    """Load an object file into the engine; the address of `symbol`, or 0 if missing.

    `symbol` must be unique in the process (the engine resolves symbols
    across all loaded code); the caller must not call a zero address.
    """
    with LOCK:
        return _add_object(_get_state(), obj, symbol)


def function_address(symbol: str) -> int:
    """The address of `symbol` in any code loaded into the engine, or 0 if missing
    (the glue functions that share a kernel's module: its native entry and dispatcher)."""
    with LOCK:
        return _get_state().engine.get_function_address(symbol)


def compile_ir(ir_text: str, module_name: str, symbol: str, emit_object: bool = False) -> JitModule:
    """Parse, verify, optimise (O3, host CPU) and JIT `ir_text`; return the
    module with the non-zero address of `symbol`.

    With `emit_object`, the code is emitted as an object file and loaded from
    it; the bytes are kept as `JitModule.object_code` for the disk cache.
    """
    with LOCK:
        s = _get_state()
        llvm = s.llvm
        t0 = time.perf_counter()
        mod = llvm.parse_assembly(ir_text)
        mod.name = module_name
        mod.triple = s.triple
        mod.data_layout = s.data_layout
        mod.verify()
        t1 = time.perf_counter()
        s.optimise(mod)
        t2 = time.perf_counter()
        obj = None
        if emit_object:
            obj = s.tm.emit_object(mod)
            address = _add_object(s, obj, symbol)
        else:
            s.engine.add_module(mod)
            s.engine.finalize_object()
            address = s.engine.get_function_address(symbol)
        interrupt.ensure_installed()
        t3 = time.perf_counter()
        if not address:
            raise RuntimeError(f"codegen: the JIT returned no address for {symbol!r} "
                               f"(module {module_name!r}); refusing to call it")
        timings = {"parse": t1 - t0, "optimise": t2 - t1, "jit": t3 - t2}
        return JitModule(None if emit_object else mod, symbol, address, ir_text, timings, object_code=obj)
