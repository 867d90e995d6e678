"""Locks that a child process made by `fork()` gets back unlocked.

`fork()` copies a process with only the thread that called it. A lock held
at that moment by another thread (tracing a function, converting one,
compiling one) stays held in the child forever, and the child's first
call that needs it hangs. The library's long-held locks are therefore made
here: each one is registered (weakly), and `os.register_at_fork` resets
all of them in the child. What they protected is then as the other thread
left it; every user of these locks keeps its state valid between steps
(a trace that did not finish is not in the cache; a kernel that was not
compiled is compiled again).

The JIT's own lock is different: a child must never see LLVM half-way
through a compilation, so `autograph.codegen.jit.engine` holds it across
`fork()` instead (the fork waits for a running compilation to end).

This module imports only the standard library: every layer may use it.
"""
from __future__ import annotations

import os
import threading
import weakref

__all__ = ["Lock", "lock", "rlock", "lock_of"]

_ALL: "weakref.WeakSet[Lock]" = weakref.WeakSet()


class Lock:
    """A `threading.Lock` (or `RLock` with `reentrant`) that is unlocked in a fork child."""

    __slots__ = ("_impl", "_reentrant", "__weakref__")

    def __init__(self, reentrant: bool = False):
        self._reentrant = reentrant
        self._impl = threading.RLock() if reentrant else threading.Lock()
        _ALL.add(self)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """As `threading.Lock.acquire`."""
        return self._impl.acquire(blocking, timeout)

    def release(self) -> None:
        """As `threading.Lock.release`."""
        self._impl.release()

    def __enter__(self) -> bool:
        return self._impl.acquire()

    def __exit__(self, *exc) -> None:
        self._impl.release()

    def _reset(self) -> None:
        # A fresh lock rather than `_at_fork_reinit` (CPython-private): the old one may be held
        # by a thread that does not exist in this process.
        self._impl = threading.RLock() if self._reentrant else threading.Lock()


def lock() -> Lock:
    """A new fork-safe lock."""
    return Lock()


def rlock() -> Lock:
    """A new fork-safe re-entrant lock."""
    return Lock(reentrant=True)


def lock_of(owner, attr: str = "_ag_lock") -> Lock:
    """The re-entrant fork-safe lock kept in `owner.__dict__[attr]`, made on first use
    (atomically: two threads asking at once get the same lock)."""
    d = owner.__dict__
    found = d.get(attr)
    if found is None:
        found = d.setdefault(attr, Lock(reentrant=True))
    return found


def _after_fork_in_child() -> None:
    for lk in list(_ALL):
        lk._reset()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
