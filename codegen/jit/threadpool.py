"""The native thread pool behind `autograph_parallel_for` (see `abi/threads.py`).

Glue code (`glue.load_code`), loaded once per process when LLVM starts or
when a kernel loaded from the disk cache calls it. It reaches the pool's
state and the thread count by symbol (`abi.threads.POOL_SYMBOL`,
`THREADS_SYMBOL`), so its object code holds no address of this process and
is kept in the disk cache:

* A job is [0, n) cut into `_CHUNKS_PER_THREAD` chunks per thread (bounds
  multiples of `align`); the caller and the workers claim chunks one at a
  time from an atomic word holding (job generation, next chunk), so on a
  busy machine a worker the OS does not run soon is simply not waited for:
  whoever runs takes the next chunk. The caller then waits only for chunks
  already claimed (a count of finished chunks, a condition variable).
* `ag_pool_worker(i64 index)`: the loop each worker runs, forever, inside a
  ctypes call made by a daemon Python thread (so the GIL is released): wait
  on the pool's condition variable for a generation it has not seen
  (workers start from generation 0, so one that starts late still joins),
  claim and run chunks of it until none is left. A worker that wakes after
  its job ended claims nothing and never touches the job's `ctx`.
* `autograph_parallel_for(ptr chunk, ptr ctx, i64 n, i64 align)`: called by
  kernels. Runs `chunk(ctx, 0, n)` itself when there are no workers, the
  range is small, or another job is in progress (a nested or concurrent
  call: never blocks on the pool); else publishes the job, wakes the
  workers, claims chunks like them, and returns once every chunk is done.

No Python runs while a kernel uses the pool, so a SIGINT meanwhile is seen
by Python only when the kernel returns, as for any compiled loop. The
pool's state (`abi.threads.POOL`: job fields, a pthread mutex and two
condition variables) is reset in a forked child, which starts new workers.
"""
from __future__ import annotations

import ctypes
import os
import platform
import threading
import time

from ..abi import threads
from .symbols import publish_symbol

__all__ = ["start"]

_IR = """
@{pool_symbol} = external global i8
@{count_symbol} = external global i64

declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare i32 @pthread_cond_signal(ptr)
declare i64 @llvm.smax.i64(i64, i64)
declare i64 @llvm.smin.i64(i64, i64)
declare i32 @clock_gettime(i32, ptr)
declare i32 @sched_yield()
{pause_decl}

; Nanoseconds on the monotonic clock.
define internal i64 @ag_pool_now() {{
entry:
  %ts = alloca [2 x i64], align 8
  call i32 @clock_gettime(i32 {clock}, ptr %ts)
  %sec = load i64, ptr %ts, align 8
  %nsp = getelementptr i64, ptr %ts, i64 1
  %ns = load i64, ptr %nsp, align 8
  %s9 = mul i64 %sec, 1000000000
  %t = add i64 %s9, %ns
  ret i64 %t
}}

; Spin for at most {spin_ns} ns until the word at %p equals %v (%equal) or
; differs from it (not %equal); the caller then checks under the mutex as before. Workers spin before sleeping on
; the condition variable, so a job that follows soon after the last one (a
; kernel called in a loop) starts on every core at once instead of paying a
; futex wake-up per worker; the caller spins likewise for the last chunks.
; Every 64 polls the spinner yields its CPU: when the OS has put a worker on
; the caller's core, the one holding the chunk awaited gets to run (without
; the yield, a call after a 1 ms pause took twice its one-thread time).
define internal void @ag_pool_spin(ptr %p, i64 %v, i1 %equal) {{
entry:
  %t0 = call i64 @ag_pool_now()
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %pause ], [ %i1, %clock ]
  %x = load atomic i64, ptr %p acquire, align 8
  %eq = icmp eq i64 %x, %v
  %hit = xor i1 %eq, %equal
  br i1 %hit, label %no, label %yes
no:
  %i1 = add i64 %i, 1
  %low = and i64 %i1, 63
  %look = icmp eq i64 %low, 0
  br i1 %look, label %clock, label %pause
pause:
  {pause_call}
  br label %loop
clock:
  call i32 @sched_yield()
  %t = call i64 @ag_pool_now()
  %dt = sub i64 %t, %t0
  %over = icmp sgt i64 %dt, {spin_ns}
  br i1 %over, label %yes, label %loop
yes:
  ret void
}}

; The next unclaimed chunk of job generation %g, or -1 (another job, or none left).
; The claim word holds (generation << 32) | next chunk index.
define internal i64 @ag_pool_claim(ptr %claimp, i64 %g, i64 %chunks) {{
entry:
  %gl = and i64 %g, 4294967295
  br label %again
again:
  %v = load atomic i64, ptr %claimp acquire, align 8
  %vg = lshr i64 %v, 32
  %idx = and i64 %v, 4294967295
  %same = icmp eq i64 %vg, %gl
  %left = icmp ult i64 %idx, %chunks
  %ok = and i1 %same, %left
  br i1 %ok, label %try, label %none
try:
  %v1 = add i64 %v, 1
  %pair = cmpxchg ptr %claimp, i64 %v, i64 %v1 acq_rel monotonic
  %won = extractvalue {{ i64, i1 }} %pair, 1
  br i1 %won, label %mine, label %again
mine:
  ret i64 %idx
none:
  ret i64 -1
}}

; Run chunk %c of the job, then count it; wake the caller after the last one.
define internal void @ag_pool_run(ptr %pool, ptr %fn, ptr %ctx, i64 %c, i64 %n, i64 %step,
                                  i64 %chunks) {{
entry:
  %lo = mul i64 %c, %step
  %end = add i64 %lo, %step
  %hi = call i64 @llvm.smin.i64(i64 %end, i64 %n)
  call void %fn(ptr %ctx, i64 %lo, i64 %hi)
  %finp = getelementptr i64, ptr %pool, i64 11
  %f = atomicrmw add ptr %finp, i64 1 acq_rel
  %f1 = add i64 %f, 1
  %last = icmp eq i64 %f1, %chunks
  br i1 %last, label %wake, label %done
wake:
  %mutex = getelementptr i8, ptr %pool, i64 {mutex}
  %cdone = getelementptr i8, ptr %pool, i64 {done}
  call i32 @pthread_mutex_lock(ptr %mutex)
  call i32 @pthread_cond_signal(ptr %cdone)
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %done
done:
  ret void
}}

define void @ag_pool_worker(i64 %index) {{
entry:
  %pool = getelementptr i8, ptr @{pool_symbol}, i64 0
  %mutex = getelementptr i8, ptr %pool, i64 {mutex}
  %work = getelementptr i8, ptr %pool, i64 {work}
  %genp = getelementptr i64, ptr %pool, i64 0
  %fnp = getelementptr i64, ptr %pool, i64 1
  %ctxp = getelementptr i64, ptr %pool, i64 2
  %np = getelementptr i64, ptr %pool, i64 3
  %stepp = getelementptr i64, ptr %pool, i64 4
  %chunksp = getelementptr i64, ptr %pool, i64 5
  %claimp = getelementptr i64, ptr %pool, i64 10
  br label %outer
outer:
  %seen = phi i64 [ 0, %entry ], [ %gen, %work_loop ]
  call void @ag_pool_spin(ptr %genp, i64 %seen, i1 false)
  call i32 @pthread_mutex_lock(ptr %mutex)
  br label %wait
wait:
  %g = load atomic i64, ptr %genp acquire, align 8
  %same = icmp eq i64 %g, %seen
  br i1 %same, label %sleep, label %take
sleep:
  call i32 @pthread_cond_wait(ptr %work, ptr %mutex)
  br label %wait
take:
  %gen = load i64, ptr %genp, align 8
  %fn = load ptr, ptr %fnp, align 8
  %ctx = load ptr, ptr %ctxp, align 8
  %n = load i64, ptr %np, align 8
  %step = load i64, ptr %stepp, align 8
  %chunks = load i64, ptr %chunksp, align 8
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %work_loop
work_loop:
  %c = call i64 @ag_pool_claim(ptr %claimp, i64 %gen, i64 %chunks)
  %none = icmp slt i64 %c, 0
  br i1 %none, label %outer, label %run
run:
  call void @ag_pool_run(ptr %pool, ptr %fn, ptr %ctx, i64 %c, i64 %n, i64 %step, i64 %chunks)
  br label %work_loop
}}

define void @{symbol}(ptr %chunk, ptr %ctx, i64 %n, i64 %align) {{
entry:
  %pool = getelementptr i8, ptr @{pool_symbol}, i64 0
  %mutex = getelementptr i8, ptr %pool, i64 {mutex}
  %work = getelementptr i8, ptr %pool, i64 {work}
  %cdone = getelementptr i8, ptr %pool, i64 {done}
  %genp = getelementptr i64, ptr %pool, i64 0
  %fnp = getelementptr i64, ptr %pool, i64 1
  %ctxp = getelementptr i64, ptr %pool, i64 2
  %np = getelementptr i64, ptr %pool, i64 3
  %stepp = getelementptr i64, ptr %pool, i64 4
  %chunksp = getelementptr i64, ptr %pool, i64 5
  %workersp = getelementptr i64, ptr %pool, i64 6
  %busyp = getelementptr i64, ptr %pool, i64 7
  %jobsp = getelementptr i64, ptr %pool, i64 8
  %callsp = getelementptr i64, ptr %pool, i64 9
  %claimp = getelementptr i64, ptr %pool, i64 10
  %finp = getelementptr i64, ptr %pool, i64 11
  %countp = getelementptr i64, ptr @{count_symbol}, i64 0
  %c0 = atomicrmw add ptr %callsp, i64 1 monotonic
  %workers = load atomic i64, ptr %workersp acquire, align 8
  %wanted = load i64, ptr %countp, align 8
  %wanted1 = sub i64 %wanted, 1
  %helpers = call i64 @llvm.smin.i64(i64 %wanted1, i64 %workers)
  %a = call i64 @llvm.smax.i64(i64 %align, i64 1)
  %two = mul i64 %a, 2
  %small = icmp slt i64 %n, %two
  %alone = icmp slt i64 %helpers, 1
  %seq = or i1 %small, %alone
  br i1 %seq, label %serial, label %claim
claim:
  %pair = cmpxchg ptr %busyp, i64 0, i64 1 acquire monotonic
  %got = extractvalue {{ i64, i1 }} %pair, 1
  br i1 %got, label %dispatch, label %serial
serial:
  call void %chunk(ptr %ctx, i64 0, i64 %n)
  ret void
dispatch:
  %j0 = atomicrmw add ptr %jobsp, i64 1 monotonic
  ; {per} chunks per thread, so a thread the OS does not run soon is not waited for:
  ; whoever is running takes the next chunk.
  %parts = add i64 %helpers, 1
  %target = mul i64 %parts, {per}
  %t1 = sub i64 %target, 1
  %s0 = add i64 %n, %t1
  %s1 = udiv i64 %s0, %target
  %am1 = sub i64 %a, 1
  %s2 = add i64 %s1, %am1
  %s3 = udiv i64 %s2, %a
  %step = mul i64 %s3, %a
  %stm1 = sub i64 %step, 1
  %k0 = add i64 %n, %stm1
  %chunks = udiv i64 %k0, %step
  call i32 @pthread_mutex_lock(ptr %mutex)
  store ptr %chunk, ptr %fnp, align 8
  store ptr %ctx, ptr %ctxp, align 8
  store i64 %n, ptr %np, align 8
  store i64 %step, ptr %stepp, align 8
  store i64 %chunks, ptr %chunksp, align 8
  store atomic i64 0, ptr %finp release, align 8
  %g = load i64, ptr %genp, align 8
  %g1 = add i64 %g, 1
  %gl = and i64 %g1, 4294967295
  %word = shl i64 %gl, 32
  store atomic i64 %word, ptr %claimp release, align 8
  store atomic i64 %g1, ptr %genp release, align 8
  call i32 @pthread_cond_broadcast(ptr %work)
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %mine
mine:
  %c = call i64 @ag_pool_claim(ptr %claimp, i64 %g1, i64 %chunks)
  %none = icmp slt i64 %c, 0
  br i1 %none, label %join, label %run
run:
  call void @ag_pool_run(ptr %pool, ptr %chunk, ptr %ctx, i64 %c, i64 %n, i64 %step, i64 %chunks)
  br label %mine
join:
  call void @ag_pool_spin(ptr %finp, i64 %chunks, i1 true)
  call i32 @pthread_mutex_lock(ptr %mutex)
  br label %check
check:
  %f = load atomic i64, ptr %finp acquire, align 8
  %finished = icmp eq i64 %f, %chunks
  br i1 %finished, label %leave, label %sleep
sleep:
  call i32 @pthread_cond_wait(ptr %cdone, ptr %mutex)
  br label %check
leave:
  call i32 @pthread_mutex_unlock(ptr %mutex)
  store atomic i64 0, ptr %busyp release, align 8
  ret void
}}
"""

_CHUNKS_PER_THREAD = 8
# How long a worker polls for the next job before it sleeps: kernels called in a
# loop keep their workers awake (as OpenMP runtimes do, with a far shorter wait),
# and an idle process costs at most this much of a core after each job.
_SPIN_NS = 200_000
_keep: list = []          # the worker entry: for the process's life
_state = {"worker": None, "threads": 0}


def _pause() -> dict:
    """The spin-wait hint of this machine's architecture as IR (none elsewhere)."""
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64", "i686", "i386"):
        return {"pause_decl": "declare void @llvm.x86.sse2.pause()",
                "pause_call": "call void @llvm.x86.sse2.pause()"}
    if machine in ("aarch64", "arm64"):
        return {"pause_decl": "declare void @llvm.aarch64.hint(i32)",
                "pause_call": "call void @llvm.aarch64.hint(i32 1)"}
    return {"pause_decl": "", "pause_call": ""}


def _libc():
    libc = ctypes.CDLL(None)
    for name in ("pthread_mutex_init", "pthread_cond_init"):
        getattr(libc, name).argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        getattr(libc, name).restype = ctypes.c_int
    return libc


def _reset_pool() -> None:
    """Zero the job fields and (re)initialise the mutex and condition variables."""
    base = ctypes.addressof(threads.POOL)
    ctypes.memset(base, 0, ctypes.sizeof(threads.POOL))
    libc = _libc()
    libc.pthread_mutex_init(base + threads.POOL_MUTEX, None)
    libc.pthread_cond_init(base + threads.POOL_WORK, None)
    libc.pthread_cond_init(base + threads.POOL_DONE, None)


def _spawn(count: int) -> None:
    """Start `count` workers (daemon threads, each inside one endless ctypes call)."""
    worker = _state["worker"]
    started = 0
    for index in range(count):
        try:
            t = threading.Thread(target=worker, args=(index,), name=f"autograph-worker-{index}",
                                 daemon=True)
            t.start()
        except RuntimeError:      # no more threads: the pool runs with those it has
            break
        started += 1
    threads.POOL[threads.POOL_WORKERS] = started
    _state["threads"] = started


def _after_fork_in_child() -> None:
    if _state["worker"] is None:
        return
    _reset_pool()                 # the parent's workers do not exist here; their locks may be held
    _spawn(max(int(threads.THREADS[0]) - 1, 0))


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def start(load_code) -> None:
    """Called once per process by `glue` (engine LOCK held): read the thread
    count, load the pool's code with `load_code` (`glue.load_code`, passed in
    because the glue sits above this module), publish `autograph_parallel_for`,
    start the workers."""
    count = threads.configure()
    publish_symbol(threads.THREADS_SYMBOL, ctypes.addressof(threads.THREADS))
    publish_symbol(threads.POOL_SYMBOL, ctypes.addressof(threads.POOL))
    _reset_pool()
    addresses = load_code("ag_thread_pool_module", _IR.format(
        pool_symbol=threads.POOL_SYMBOL, count_symbol=threads.THREADS_SYMBOL,
        mutex=threads.POOL_MUTEX, work=threads.POOL_WORK, done=threads.POOL_DONE,
        symbol=threads.PARALLEL_FOR_SYMBOL, per=_CHUNKS_PER_THREAD, clock=time.CLOCK_MONOTONIC,
        spin_ns=_SPIN_NS, **_pause()),
        [threads.PARALLEL_FOR_SYMBOL, "ag_pool_worker"])
    address, worker = addresses[threads.PARALLEL_FOR_SYMBOL], addresses["ag_pool_worker"]
    if not (address and worker):
        raise RuntimeError("codegen: the thread pool's code has no address")
    publish_symbol(threads.PARALLEL_FOR_SYMBOL, address)
    _state["worker"] = ctypes.CFUNCTYPE(None, ctypes.c_int64)(worker)
    _keep.append(_state["worker"])
    _spawn(max(count - 1, 0))
