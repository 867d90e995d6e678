"""Error sites: how a fault in native code becomes InvalidArgumentError.

Every place where compiled code can fail (an op plus a kind of fault) gets an
`ErrorSite` with a small integer id. On a fault the kernel writes
`[site id, v0, ..., v6]` (i64) into its `err` frame and returns non-zero; the
Python side looks the id up, formats the site's message template with the
runtime values and appends the op's source line.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.core.ir import Location

from ..abi.interrupt import INTERRUPT_SITE
from ..abi.slots import ERR_SLOTS  # site id + up to seven runtime values (the kernel ABI)

__all__ = ["ErrorSite", "ErrorTable", "ERR_SLOTS"]


@dataclass(frozen=True, slots=True)
class ErrorSite:
    """One fault site: a message template ({0}..{6} are runtime values) and a location."""

    id: int
    template: str
    loc: Optional[Location]
    kinds: Tuple[str, ...] = ()   # per value: "i" (int), "f32"/"f64" (float bits in the slot)

    def message(self, values: Sequence[int]) -> str:
        shown = [_decode(v, k) for v, k in zip(values, self.kinds)] + list(values[len(self.kinds):])
        text = self.template.format(*shown)
        if self.loc is not None:
            text += "\n" + self.loc.describe()
        return text


class ErrorTable:
    """The error sites of one kernel; ids start at 1 (0 means "no error")."""

    def __init__(self) -> None:
        self.sites: List[ErrorSite] = [ErrorSite(0, "unknown error in compiled code", None)]
        self._index = {}

    def add(self, template: str, loc: Optional[Location], kinds: Sequence[str] = ()) -> int:
        """The id of the site (template, loc, value kinds), created on first use."""
        key = (template, loc, tuple(kinds))
        sid = self._index.get(key)
        if sid is None:
            sid = len(self.sites)
            self.sites.append(ErrorSite(sid, template, loc, tuple(kinds)))
            self._index[key] = sid
        return sid

    def error(self, site_id: int, values: Sequence[int]) -> InvalidArgumentError:
        """The exception for a fault reported by the kernel."""
        if site_id == INTERRUPT_SITE:
            return _interrupted()
        if not 0 < site_id < len(self.sites):
            return InvalidArgumentError(f"compiled code reported an unknown error (site {site_id})")
        return InvalidArgumentError(self.sites[site_id].message(values))


def _decode(v: int, kind: str):
    if kind == "i":
        return v
    f = struct.unpack("<d", struct.pack("<q", v))[0]
    return np.float32(f) if kind == "f32" else np.float64(f)


def _interrupted() -> BaseException:
    """A loop stopped because SIGINT arrived: let CPython run its pending
    signal handlers now (the default one raises KeyboardInterrupt here, and
    the signal is then consumed, so it does not fire a second time later);
    if none raised, the call still cannot return a result."""
    import ctypes
    ctypes.pythonapi.PyErr_CheckSignals()   # PyDLL: raises the handler's exception
    return KeyboardInterrupt()
