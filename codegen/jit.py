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
"""
from __future__ import annotations

import itertools
import threading
import time
from typing import Optional

__all__ = ["LOCK", "compile_ir", "JitModule", "unique_name", "host_description"]

LOCK = threading.RLock()
_state = None
_counter = itertools.count(1)


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


def host_description() -> str:
    """`triple cpu features` of the JIT target (part of any cache key)."""
    with LOCK:
        s = _get_state()
        return f"{s.triple} {s.cpu} {s.features}"


class JitModule:
    """One compiled module living in the shared engine."""

    def __init__(self, modref, symbol: str, address: int, ir_text: str, timings: dict):
        self._modref = modref
        self.symbol = symbol
        self.address = address
        self.ir_text = ir_text
        self.timings = timings
        self._opt_text: Optional[str] = None
        self._asm: Optional[str] = None

    def optimized_ir(self) -> str:
        with LOCK:
            if self._opt_text is None:
                self._opt_text = str(self._modref)
            return self._opt_text

    def asm(self) -> str:
        with LOCK:
            if self._asm is None:
                self._asm = _get_state().tm.emit_assembly(self._modref)
            return self._asm


def compile_ir(ir_text: str, module_name: str, symbol: str) -> JitModule:
    """Parse, verify, optimise (O3, host CPU) and JIT `ir_text`; return the
    module with the non-zero address of `symbol`."""
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
        s.engine.add_module(mod)
        s.engine.finalize_object()
        address = s.engine.get_function_address(symbol)
        t3 = time.perf_counter()
        if not address:
            raise RuntimeError(f"codegen: the JIT returned no address for {symbol!r} "
                               f"(module {module_name!r}); refusing to call it")
        timings = {"parse": t1 - t0, "optimise": t2 - t1, "jit": t3 - t2}
        return JitModule(mod, symbol, address, ir_text, timings)
