"""The object loader (codegen/jit/objload.py): disk-cached kernels load without
LLVM, run exactly as the same object linked by the LLJIT, are unmapped when
dropped, and anything the loader does not handle falls back to the LLJIT.

Loads that run code a bug could crash on run in child processes."""
from __future__ import annotations

import ctypes
import gc
import json
import logging
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import paths
import autograph as ag
from autograph.codegen.jit import compile as cg_compile
from autograph.codegen.jit import engine, objload, symbols

pytestmark = pytest.mark.skipif(not objload.supported(), reason="the loader handles x86-64 Linux only")

# Kernels of examples/kernels.py, a few of examples/numpy_style.py, a threaded map (>= 2^18
# elements), a BLAS matmul, a fault and a result kept after its kernel is gone.
MODULE = r'''
import numpy as np
import autograph as ag
from examples import kernels as K
from examples import numpy_style as N

running_max = ag.function(N.running_max)
histogram = ag.function(N.histogram)
newton_sqrt = ag.function(N.newton_sqrt)
gcd_arrays = ag.function(N.gcd_arrays)

@ag.function
def threaded_map(x):   # heavy enough per element for the pool (abi/threads.py: MIN_WORK)
    return ag.sqrt(x * x + 1.0) * 0.5 - ag.exp(x * 0.25) + ag.log(x * x + 2.0)

@ag.function
def matmul(a, b):
    return a @ b

@ag.function
def pick(x, i):
    return x[i]

def results():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(5000)
    x32 = x.astype(np.float32)
    xs, ys = np.linspace(-2.0, 1.0, 40), np.linspace(-1.2, 1.2, 30)
    a = rng.standard_normal((64, 48))
    b = rng.standard_normal((48, 32))
    w = rng.standard_normal((16, 8)).astype(np.float32)
    big = rng.standard_normal(1 << 18)
    calls = {
        "K1": (K.mean_square, (x32, x32[::-1].copy())),
        "K2": (K.scaled_elu, (x32,)),
        "K3": (K.collatz_total, (np.int64(3000),)),
        "K4": (K.branchy_sum, (x,)),
        "K5": (K.mandelbrot_total, (xs, ys)),
        "K5b": (K.mandelbrot, (xs, ys)),
        "K6": (K.dense_relu, (x32[:64].reshape(4, 16), w, x32[:8])),
        "K7": (K.add_one, (np.float32(2.5),)),
        "K9": (K.softmax, (x32[:4000].reshape(40, 100),)),
        "K10": (K.prefix_sum, (x,)),
        "K10ta": (K.prefix_sum_ta, (x,)),
        "running_max": (running_max, (x,)),
        "histogram": (histogram, (x, -2.0, 2.0, 10)),
        "newton_sqrt": (newton_sqrt, (np.abs(x[:100]) + 0.5, 1e-12)),
        "gcd": (gcd_arrays, (np.arange(1, 200, dtype=np.int64), np.arange(7, 206, dtype=np.int64))),
        "threaded_map": (threaded_map, (big,)),
        "matmul": (matmul, (a, b)),
    }
    out, loaders = {}, {}
    for name, (f, args) in calls.items():
        out[name] = np.asarray(f(*args))
        loaders[name] = f.get_concrete_function(*args).kernel._jit._library.loader
    try:
        pick(x, 10**6)
        out["fault"] = "no error"
    except Exception as exc:
        out["fault"] = f"{type(exc).__name__}: {exc}"
    return out, loaders
'''

CHILD = r'''
import gc, json, sys
sys.path[:0] = [{root!r}, {here!r}]
import numpy as np
import objload_kernels as m
from autograph.codegen.jit import disk_cache, engine, threadpool
from autograph.codegen.abi import threads
out, loaders = m.results()
fault = out.pop("fault")
np.savez({npz!r}, **out)
# A result outlives its function and kernel (its destructor is process-wide glue).
kept = np.asarray(m.threaded_map(np.arange(4.0)))
del m.threaded_map
gc.collect(); engine.release_pending()
print(json.dumps(dict(loaders=loaders, fault=fault, stats=disk_cache.STATS, kept=kept.tolist(),
                      pool_jobs=threads.jobs()[1], workers=threadpool._state["threads"],
                      llvm="llvmlite.binding" in sys.modules)))
'''


def _child(tmp_path, tag, **env_extra):
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRAPH_VERBOSITY", "AUTOGRAPH_DISABLE_CACHE")}
    env.update(AUTOGRAPH_CACHE_DIR=str(tmp_path / "cache"), AUTOGRAPH_NUM_THREADS="2", **env_extra)
    npz = str(tmp_path / f"{tag}.npz")
    code = CHILD.format(root=paths.ROOT, here=str(tmp_path), npz=npz)
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), dict(np.load(npz))


def test_warm_process_loads_every_kernel_without_llvm_and_gets_the_same_results(tmp_path):
    (tmp_path / "objload_kernels.py").write_text(MODULE)
    cold, cold_out = _child(tmp_path, "cold")     # compiled: linked by the LLJIT, stored
    warm, warm_out = _child(tmp_path, "warm")     # loaded from the disk cache by objload
    assert cold["stats"]["hits"] == 0 and set(cold["loaders"].values()) == {"lljit"}
    assert warm["stats"]["misses"] == 0 and warm["stats"]["hits"] == len(warm["loaders"]) + 1   # + pick
    assert set(warm["loaders"].values()) == {"objload"}, warm["loaders"]
    assert warm["llvm"] is False                  # llvmlite.binding never imported
    assert cold_out.keys() == warm_out.keys()
    for name in cold_out:                         # the same code: bit for bit the same results
        assert cold_out[name].dtype == warm_out[name].dtype, name
        np.testing.assert_array_equal(warm_out[name], cold_out[name], err_msg=name)
    assert warm["fault"] == cold["fault"] and "InvalidArgumentError" in warm["fault"]
    assert "index" in warm["fault"]
    assert warm["kept"] == cold["kept"]
    assert warm["workers"] == 1 and warm["pool_jobs"] >= 1   # the pool's glue ran the threaded map
    # Against NumPy, for a few (the differential tests of each op live elsewhere).
    rng = np.random.default_rng(0)
    x = rng.standard_normal(5000)
    np.testing.assert_allclose(warm_out["K10"], np.cumsum(x), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(warm_out["running_max"], np.maximum.accumulate(x))


SIGINT_CHILD = r'''
import faulthandler, os, signal, sys, threading, time
faulthandler.dump_traceback_later(60, exit=True)
sys.path[:0] = [{root!r}, {here!r}]
import autograph as ag
from spin_module import spin
assert int(spin(ag.constant(1000, ag.int64))) == 2997
threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    spin(ag.constant(10**15, ag.int64))
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted", "llvmlite.binding" in sys.modules)
'''

SPIN = r'''
import autograph as ag

@ag.function
def spin(n):
    i = ag.constant(0, ag.int64)
    s = ag.constant(0, ag.int64)
    while i < n:
        s += i % 7
        i += 1
    return s
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the SIGINT handler is Linux only")
def test_ctrl_c_stops_a_loop_loaded_without_llvm(tmp_path):
    (tmp_path / "spin_module.py").write_text(SPIN)
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRAPH_VERBOSITY", "AUTOGRAPH_DISABLE_CACHE")}
    env["AUTOGRAPH_CACHE_DIR"] = str(tmp_path / "cache")
    code = SIGINT_CHILD.format(root=paths.ROOT, here=str(tmp_path))
    lines = []
    for _ in range(2):   # cold (compiles, stores the handler's glue), then warm
        proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(tmp_path),
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        lines.append(proc.stdout.strip().splitlines()[-1])
    assert lines == ["interrupted True", "interrupted False"]


GLUE_CHILD = r'''
import logging, sys
sys.path[:0] = [{root!r}, {here!r}]
logging.basicConfig(level=logging.DEBUG, format="%(name)s %(message)s")
import numpy as np
from autograph.codegen.jit import objload
logging.getLogger("autograph").setLevel(logging.DEBUG)   # after its import: it sets the level
if {refuse!r}:
    objload._KNOWN_RELOCS = frozenset()          # the loader refuses every object
import autograph as ag
from spin_module import spin
print("result", int(spin(ag.constant(1000, ag.int64))), "llvm", "llvmlite.binding" in sys.modules)
'''


def _glue_child(tmp_path, refuse):
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRAPH_VERBOSITY", "AUTOGRAPH_DISABLE_CACHE")}
    env["AUTOGRAPH_CACHE_DIR"] = str(tmp_path / "cache")
    code = GLUE_CHILD.format(root=paths.ROOT, here=str(tmp_path), refuse=refuse)
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()[-1], proc.stderr


def test_glue_and_kernels_the_loader_refuses_go_to_llvm(tmp_path):
    (tmp_path / "spin_module.py").write_text(SPIN)
    _glue_child(tmp_path, refuse=False)                  # fills the cache and the side records
    out, log = _glue_child(tmp_path, refuse=True)        # warm, but nothing loads without LLVM
    assert out == "result 2997 llvm True"
    assert "glue ag_sigint_handler_module: the object loader refused it (relocation type 1" in log
    assert "compiling it into the shared MCJIT engine" in log
    assert "the object loader refused ag_spin" in log and "linking it in the LLJIT" in log


def test_tampered_side_records_are_ignored_and_rewritten(tmp_path):
    (tmp_path / "spin_module.py").write_text(SPIN)
    _glue_child(tmp_path, refuse=False)
    records = sorted((tmp_path / "cache").glob("*.agside"))
    assert len(records) >= 2                             # the host record and the handler's glue
    for path in records:
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 1
        path.write_bytes(bytes(data))
    out, log = _glue_child(tmp_path, refuse=False)       # the host record fails: LLVM starts
    assert out == "result 2997 llvm True"
    assert "its MAC does not match" in log
    out, _ = _glue_child(tmp_path, refuse=False)         # rewritten: warm again
    assert out == "result 2997 llvm False"


# ----------------------------------------------------------------------------- in process


def _object_of(fn, *args):
    """(object code, kernel symbol, exports, result) of compiling `fn` afresh here."""
    seen = {}
    original = cg_compile.compile_ir

    def spy(ir_text, module_name, symbol, emit_object=False, exports=()):
        jm = original(ir_text, module_name, symbol, emit_object=True, exports=exports)
        seen.update(obj=jm.object_code, symbol=symbol, exports=[e for e in exports if jm.address_of(e)])
        return jm

    cg_compile.compile_ir = spy
    try:
        result = ag.function(fn, autograph=False)(*args)
    finally:
        cg_compile.compile_ir = original
    return seen["obj"], seen["symbol"], seen["exports"], np.asarray(result)


def _scaled(x):
    return ag.reduce_sum(x * 3.0 + 1.0)


_CALL = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def _call(library, symbol, x):
    """Call the kernel `symbol` of `library` on float64 vector `x`; its scalar result."""
    args = np.array([x.ctypes.data, len(x)], np.int64)
    res = np.zeros(2, np.int64)
    err = np.zeros(8, np.int64)
    assert _CALL(library.addresses[symbol])(args.ctypes.data, res.ctypes.data, err.ctypes.data) == 0
    return float(res.view(np.float64)[0])


@pytest.fixture
def scaled_object(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_DISABLE_CACHE", "1")
    monkeypatch.setattr(cg_compile, "_remember", lambda *a, **k: None)   # compile afresh each time
    x = np.arange(5.0)
    obj, symbol, exports, want = _object_of(_scaled, x)
    return obj, symbol, exports, x, float(want)


def test_load_object_uses_the_loader_and_the_code_is_right(scaled_object):
    obj, symbol, exports, x, want = scaled_object
    library = engine.load_object(obj, symbol, exports)
    assert library.loader == "objload"
    assert _call(library, symbol, x) == want == float(np.sum(x * 3.0 + 1.0))


def _relocations(obj):
    """(file offset of each RELA entry's r_info) of an ELF64 object."""
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    out = []
    for i in range(shnum):
        at = shoff + i * shentsize
        sh_type, = struct.unpack_from("<I", obj, at + 4)
        if sh_type == 4:
            offset, size = struct.unpack_from("<QQ", obj, at + 0x18)
            out.extend(range(offset + 8, offset + size, 24))
    return out


def test_an_unknown_relocation_type_is_refused(scaled_object):
    obj = bytearray(scaled_object[0])
    at = _relocations(obj)[0]
    struct.pack_into("<I", obj, at, 99)
    with pytest.raises(objload.ObjectError, match="relocation type 99"):
        objload.load(bytes(obj), [], symbols.resolve_symbol)


def test_other_machines_and_files_are_refused(scaled_object):
    obj = bytearray(scaled_object[0])
    struct.pack_into("<H", obj, 18, 183)   # EM_AARCH64
    with pytest.raises(objload.ObjectError, match="machine 183 is not x86-64"):
        objload.load(bytes(obj), [], symbols.resolve_symbol)
    with pytest.raises(objload.ObjectError, match="not an ELF file"):
        objload.load(b"\0" * 100, [], symbols.resolve_symbol)
    with pytest.raises(objload.ObjectError, match="does not define 'no_such_symbol'"):
        objload.load(scaled_object[0], ["no_such_symbol"], symbols.resolve_symbol)


def _section_header(obj, name):
    """The file offset of section `name`'s header."""
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", obj, 0x3A)
    names, = struct.unpack_from("<Q", obj, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        at = shoff + i * shentsize
        st_name, = struct.unpack_from("<I", obj, at)
        if obj[names + st_name:obj.index(b"\0", names + st_name)].decode() == name:
            return at
    raise KeyError(name)


def _symbol_entry(obj, symbol):
    """The file offset of `symbol`'s symbol-table entry."""
    at = _section_header(obj, ".symtab")
    offset, size = struct.unpack_from("<QQ", obj, at + 0x18)
    strings, = struct.unpack_from("<Q", obj, _section_header(obj, ".strtab") + 0x18)
    for entry in range(offset, offset + size, 24):
        st_name, = struct.unpack_from("<I", obj, entry)
        if obj[strings + st_name:obj.index(b"\0", strings + st_name)] == symbol.encode():
            return entry
    raise KeyError(symbol)


def _put(fmt, where):
    def mutate(obj, symbol):
        at, value = where(obj, symbol)
        struct.pack_into(fmt, obj, at, value)
    return mutate


_TEXT = ".ltext"   # the JIT's large code model puts code there
_BROKEN = [
    (_put("<B", lambda o, s: (4, 1)), "not a little-endian ELF64 file"),
    (_put("<H", lambda o, s: (16, 2)), "ELF type 2 is not a relocatable object"),
    (_put("<Q", lambda o, s: (0x28, 1 << 40)), "bad section header table"),
    (_put("<Q", lambda o, s: (_section_header(o, _TEXT) + 0x18, 1 << 40)), "lies outside the file"),
    (_put("<I", lambda o, s: (_section_header(o, _TEXT) + 4, 17)), "COMDAT group section .ltext"),
    (_put("<I", lambda o, s: (_section_header(o, _TEXT) + 4, 9)), "SHT_REL section .ltext"),
    (_put("<I", lambda o, s: (_section_header(o, _TEXT) + 4, 14)), ".ltext would need code run at load"),
    (_put("<I", lambda o, s: (_section_header(o, _TEXT) + 4, 7)), "section .ltext of type 0x7"),
    (_put("<Q", lambda o, s: (_section_header(o, _TEXT) + 8, 0x2 | 0x4 | 0x400)), "thread-local section"),
    (_put("<Q", lambda o, s: (_section_header(o, _TEXT) + 0x30, 1 << 13)), "wants 8192-byte alignment"),
    (_put("<I", lambda o, s: (_section_header(o, ".strtab") + 4, 2)), "2 symbol tables"),
    (_put("<Q", lambda o, s: (_relocations(o)[0] - 8, 1 << 30)), "relocation outside its section"),
    (_put("<I", lambda o, s: (_relocations(o)[0] + 4, 1 << 20)), "relocation against a symbol out of"),
    (_put("<B", lambda o, s: (_symbol_entry(o, s) + 4, 0x16)), "of type 6"),
    (_put("<H", lambda o, s: (_symbol_entry(o, s) + 6, 0xFFF2)), "in special section 0xfff2"),
]


@pytest.mark.parametrize("mutate, message", _BROKEN, ids=[m for _, m in _BROKEN])
def test_what_the_loader_does_not_handle_is_refused_with_a_reason(scaled_object, mutate, message):
    obj = bytearray(scaled_object[0])
    mutate(obj, scaled_object[1])
    with pytest.raises(objload.ObjectError, match=message):
        objload.load(bytes(obj), [scaled_object[1]], symbols.resolve_symbol)


def test_a_relocation_the_loader_does_not_handle_falls_back_to_the_lljit(scaled_object, monkeypatch, caplog):
    obj, symbol, exports, x, want = scaled_object
    monkeypatch.setattr(objload, "_KNOWN_RELOCS", objload._KNOWN_RELOCS - {objload.R_64})
    with caplog.at_level(logging.DEBUG, logger="autograph.codegen"):
        library = engine.load_object(obj, symbol, exports)
    assert library.loader == "lljit"
    assert any("object loader refused" in r.getMessage() and "relocation type 1" in r.getMessage()
               for r in caplog.records)
    assert _call(library, symbol, x) == want


def test_an_unresolved_symbol_falls_back_to_the_lljit(scaled_object, monkeypatch, caplog):
    obj, symbol, exports, x, want = scaled_object
    undefined = engine._undefined_symbols(obj)
    assert undefined   # the CPython glue imports the C API
    real = symbols.resolve_symbol
    monkeypatch.setattr(engine, "resolve_symbol", lambda n: 0 if n == undefined[0] else real(n))
    with caplog.at_level(logging.DEBUG, logger="autograph.codegen"):
        library = engine.load_object(obj, symbol, exports)
    assert library.loader == "lljit"
    assert any(f"unresolved symbol {undefined[0]!r}" in r.getMessage() for r in caplog.records)
    assert _call(library, symbol, x) == want


def _maps() -> int:
    with open("/proc/self/maps") as fh:
        return sum(1 for _ in fh)


def _mapped(address: int) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.msync.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return libc.msync(address & ~4095, 4096, 1) == 0   # MS_ASYNC; ENOMEM when unmapped


def test_loaded_code_is_unmapped_when_dropped(scaled_object):
    obj, symbol, exports, x, want = scaled_object
    gc.collect()
    engine.release_pending()
    live0, maps0 = engine.live_libraries(), _maps()
    libraries = [engine.load_object(obj, symbol, exports) for _ in range(50)]
    assert engine.live_libraries() == live0 + 50
    addresses = [lib.addresses[symbol] for lib in libraries]
    assert all(_mapped(a) for a in addresses)
    assert _call(libraries[-1], symbol, x) == want
    del libraries
    gc.collect()
    engine.release_pending()
    assert engine.live_libraries() == live0
    assert not any(_mapped(a) for a in addresses)
    assert _maps() <= maps0 + 2   # the process's mappings are back (give or take the heap's)


def test_symbols_resolve_as_the_lljit_resolves_them(monkeypatch):
    import llvmlite.binding as llvm
    libc = ctypes.CDLL(None)
    malloc = ctypes.cast(libc.malloc, ctypes.c_void_p).value
    assert symbols.resolve_symbol("malloc") == malloc                 # the process
    assert symbols.resolve_symbol("ag_no_such_symbol_anywhere") == 0
    buf = ctypes.create_string_buffer(8)
    llvm.add_symbol("ag_test_objload_symbol", ctypes.addressof(buf))  # as tests route malloc
    assert symbols.resolve_symbol("ag_test_objload_symbol") == ctypes.addressof(buf)
    other = ctypes.create_string_buffer(8)
    monkeypatch.setitem(symbols._PUBLISHED, "ag_test_objload_symbol", ctypes.addressof(other))
    assert symbols.resolve_symbol("ag_test_objload_symbol") == ctypes.addressof(other)   # published first


# Our kernels are compiled for the JIT's large code model (only R_X86_64_64); position-independent
# small-model code has the other relocations: PLT32 calls to the process (stubs), GOTPCRELX loads
# of external data (GOT), PC32 references to its own data, .data and .bss.
_PIC_IR = r"""
@counter = internal global i64 0
@table = internal global [3 x i64] [i64 10, i64 20, i64 30]
@fns = internal global [1 x ptr] [ptr @helper]
@ag_test_objload_value = external global i64
declare ptr @malloc(i64)
declare void @free(ptr)

define internal i64 @helper(i64 %x) noinline {
  %y = mul i64 %x, 3
  ret i64 %y
}

define i64 @pic_kernel(i64 %i) {
  %c = load i64, ptr @counter
  %c1 = add i64 %c, 1
  store i64 %c1, ptr @counter
  %p = getelementptr [3 x i64], ptr @table, i64 0, i64 %i
  %t = load i64, ptr %p
  %e = load i64, ptr @ag_test_objload_value
  %f = load ptr, ptr @fns
  %h = call i64 %f(i64 %t)
  %m = call ptr @malloc(i64 8)
  store i64 %h, ptr %m
  %v = load volatile i64, ptr %m
  call void @free(ptr %m)
  %s = add i64 %v, %e
  %r = mul i64 %c1, 1000
  %out = add i64 %s, %r
  ret i64 %out
}
"""


def _pic_object(reloc, codemodel):
    with engine.LOCK:   # llvmlite objects are made and closed under the engine's lock
        s = engine._get_state()
        tm = s.llvm.Target.from_triple(s.triple).create_target_machine(
            cpu=s.cpu, features=s.features, opt=2, reloc=reloc, codemodel=codemodel)
        mod = s.llvm.parse_assembly(_PIC_IR)
        try:
            mod.triple = s.triple
            mod.data_layout = str(tm.target_data)
            return tm.emit_object(mod)
        finally:
            mod.close()
            tm.close()


def _relocation_types(obj):
    return {struct.unpack_from("<I", obj, at)[0] for at in _relocations(obj)}


def _perms(lo, hi):
    with open("/proc/self/maps") as fh:
        for line in fh:
            span, perms = line.split()[:2]
            a, b = (int(v, 16) for v in span.split("-"))
            if a < hi and b > lo:
                yield perms


def test_position_independent_code_with_stubs_got_data_and_bss(monkeypatch):
    value = ctypes.c_int64(7)
    monkeypatch.setitem(symbols._PUBLISHED, "ag_test_objload_value", ctypes.addressof(value))
    obj = _pic_object("pic", "small")
    kinds = _relocation_types(obj)
    assert objload.R_PLT32 in kinds and kinds & {objload.R_GOTPCREL, objload.R_GOTPCRELX,
                                                 objload.R_REX_GOTPCRELX}
    assert objload.R_PC32 in kinds and objload.R_64 in kinds   # own data; the pointer table
    loaded = objload.load(obj, ["pic_kernel"], symbols.resolve_symbol)
    try:
        fn = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(loaded.addresses["pic_kernel"])
        assert fn(1) == 20 * 3 + 7 + 1000          # table, helper via pointer, malloc/free, extern
        value.value = 100
        assert fn(2) == 30 * 3 + 100 + 2000        # the counter in .bss/.data persists
        perms = list(_perms(loaded.base, loaded.base + loaded.size))
        assert any("x" in p for p in perms)
        assert not any("w" in p and "x" in p for p in perms)   # never writable and executable
    finally:
        objload.unmap(loaded.base, loaded.size)


def test_absolute_32_bit_addresses_out_of_range_are_refused(monkeypatch):
    value = ctypes.c_int64(7)
    monkeypatch.setitem(symbols._PUBLISHED, "ag_test_objload_value", ctypes.addressof(value))
    obj = _pic_object("static", "small")          # R_X86_64_32S: the region lies above 4 GiB
    assert _relocation_types(obj) & {objload.R_32, objload.R_32S}
    with pytest.raises(objload.ObjectError, match="32-bit relocation is out of range"):
        objload.load(obj, ["pic_kernel"], symbols.resolve_symbol)
