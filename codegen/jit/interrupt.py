"""Ctrl-C for long compiled loops: the interrupt epoch and its SIGINT handler.

CPython's own SIGINT handler only records the signal; the `KeyboardInterrupt`
is raised when the main thread next runs bytecode, which a compiled loop
(GIL released or not) never does. So, once LLVM starts or a kernel that
polls the epoch is loaded (`glue.py`), this module

* makes a process-wide i64, the *interrupt epoch*, visible to native code
  under `abi.interrupt.EPOCH_SYMBOL` (kernels with a `while` poll it: see
  `lowering/control.py`);
* installs a small native SIGINT handler (glue code, `glue.load_code`: it
  reaches the epoch and the previous handler's word by symbol, so its object
  code is the same in every process and is kept in the disk cache) that
  increments the epoch and then calls the handler that was installed before
  it, normally CPython's, so Python still sees the signal exactly as before.

A handler installed later by `signal.signal(SIGINT, ...)` replaces ours;
`ensure_installed` (called whenever code is compiled or loaded) chains in
front of it again. Where SIGINT is ignored or left to its default action
(the process dies anyway) nothing is installed. Linux only: elsewhere the
epoch never moves and loops run to the end as before.
"""
from __future__ import annotations

import ctypes
import signal
import sys

from ..abi.interrupt import EPOCH_SYMBOL
from .symbols import publish_symbol

__all__ = ["start", "ensure_installed", "epoch", "installed"]

# [0]: the epoch; [1]: the previous handler (called after counting). Never freed.
_words = (ctypes.c_int64 * 2)()
_handler_address = 0

_SA_SIGINFO = 4
_SUPPORTED = sys.platform.startswith("linux") and ctypes.sizeof(ctypes.c_void_p) == 8


class _Sigaction(ctypes.Structure):
    # glibc's `struct sigaction` on 64-bit Linux (x86-64 and aarch64).
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16),
                ("flags", ctypes.c_int), ("restorer", ctypes.c_void_p)]


# `_words` is published as EPOCH_SYMBOL: word 0 is the epoch, word 1 the previous handler.
_HANDLER_IR = """
@{epoch} = external global i64

define void @{name}(i32 %sig, ptr %info, ptr %ctx) nounwind {{
entry:
  %old = atomicrmw add ptr @{epoch}, i64 1 monotonic
  %p = getelementptr i64, ptr @{epoch}, i64 1
  %prev = load volatile i64, ptr %p
  %real = icmp ugt i64 %prev, 1
  br i1 %real, label %chain, label %done
chain:
  %f = inttoptr i64 %prev to ptr
  call void %f(i32 %sig, ptr %info, ptr %ctx)
  br label %done
done:
  ret void
}}
"""


def epoch() -> int:
    """How many SIGINTs the native handler has counted in this process."""
    return int(_words[0])


def installed() -> bool:
    """Is the native handler SIGINT's handler right now?"""
    if not (_SUPPORTED and _handler_address):
        return False
    old = _Sigaction()
    if _libc().sigaction(signal.SIGINT, None, ctypes.byref(old)) != 0:
        return False
    return (old.handler or 0) == _handler_address


def start(load_code) -> None:
    """Called once per process by `glue` (engine LOCK held): publish the epoch
    symbol, load the handler's code with `load_code` (`glue.load_code`, passed in
    because the glue sits above this module) and install it."""
    global _handler_address
    publish_symbol(EPOCH_SYMBOL, ctypes.addressof(_words))
    if not _SUPPORTED:
        return
    name = "ag_sigint_handler"
    _handler_address = load_code("ag_sigint_handler_module", _HANDLER_IR.format(name=name, epoch=EPOCH_SYMBOL),
                                 [name])[name]
    ensure_installed()


def ensure_installed() -> None:
    """Put the native handler in front of SIGINT's current handler, unless it
    is there already or SIGINT is ignored / left to its default action."""
    if not (_SUPPORTED and _handler_address):
        return
    libc = _libc()
    old = _Sigaction()
    if libc.sigaction(signal.SIGINT, None, ctypes.byref(old)) != 0:
        return
    current = old.handler or 0
    if current == _handler_address or current in (0, 1):   # ours, SIG_DFL, SIG_IGN
        return
    # A handler written for one argument ignores the other two (SysV calling convention).
    _words[1] = current
    new = _Sigaction()
    new.handler = _handler_address
    new.mask = old.mask
    new.flags = old.flags | _SA_SIGINFO
    libc.sigaction(signal.SIGINT, ctypes.byref(new), None)


_LIBC = None


def _libc():
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
        _LIBC.sigaction.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        _LIBC.sigaction.restype = ctypes.c_int
    return _LIBC
