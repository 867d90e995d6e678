"""Ctrl-C in compiled loops: the names native code and Python share.

A process-wide i64 *interrupt epoch* counts the SIGINTs the process has
received since autograph started LLVM (`autograph.codegen.jit.interrupt`
installs a tiny native handler that increments it, then chains to the
handler that was there, CPython's). A kernel with a `while` reads the epoch
once on entry and again every `POLL_PERIOD` iterations of a loop whose body
is scalar work (every iteration when the body runs loops of its own); when it
changed, the kernel leaves through its fault exit with site id
`INTERRUPT_SITE`, which `ErrorTable.error` turns into `KeyboardInterrupt`.

The epoch is reached by symbol (`EPOCH_SYMBOL`, resolved when the code is
loaded, like `malloc`), so cached object code holds no process address.
"""
from __future__ import annotations

__all__ = ["EPOCH_SYMBOL", "INTERRUPT_SITE", "POLL_PERIOD"]

EPOCH_SYMBOL = "autograph_interrupt_epoch"
INTERRUPT_SITE = -1          # the err frame's site id for "stopped by SIGINT"
POLL_PERIOD = 1024           # a power of two: iterations of a scalar loop body between polls
