"""Installing the native dispatcher (`autograph.codegen.entry.dispatcher`) as a
class's `__call__`.

`dispatch_address(kernel)` finds the dispatcher in a kernel's code;
`install_call(cls, address)` makes it `cls.__call__`, a method descriptor
(`PyDescr_NewMethod`) that reads the instance's `_native_call` slot at
`DISPATCH_SLOT` (`autograph.codegen.abi.binding`). The caller
(`autograph.runtime.fastpath`) checks that the class has its slot there.
"""
from __future__ import annotations

from ..abi.binding import METH_FASTCALL, METH_KEYWORDS, dispatch_symbol
from .methods import method_def, new_method

__all__ = ["dispatch_address", "install_call"]


def dispatch_address(kernel) -> int:
    """Address of the dispatcher in `kernel`'s code (0 if it has none: the
    dispatcher is emitted with the entry, so only a kernel with an entry has one)."""
    if kernel.native_entry is None:
        return 0
    return kernel.address_of(dispatch_symbol(kernel.symbol))


def install_call(cls, address: int) -> None:
    """Make the dispatcher at `address` the `__call__` of `cls`, whose instances
    have their `_native_call` slot at `DISPATCH_SLOT` (the caller checks)."""
    d = method_def(b"__call__", address, METH_FASTCALL | METH_KEYWORDS,
                   b"Call the function (native dispatcher: autograph.runtime.fastpath).")
    cls.__call__ = new_method(cls, d)
