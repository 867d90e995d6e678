"""Inspection without the CPython glue: the LLVM IR and assembly of a kernel's
module minus the entry, the dispatcher and the capsule destructor
(`autograph.codegen.entry.emit`), so `cf.llvm_ir()` and `cf.asm()` show the
kernel. Text only: no llvmlite.
"""
from __future__ import annotations

from ..abi.binding import GLUE_GLOBALS, GLUE_SUFFIXES

__all__ = ["strip_glue_ir", "strip_glue_asm"]


def _glue_names(symbol: str):
    return {symbol + s for s in GLUE_SUFFIXES}


def strip_glue_ir(text: str, symbol: str) -> str:
    """`text` (LLVM IR of kernel `symbol`'s module) without the definitions of
    the entry, dispatcher and capsule destructor: inspection shows the kernel."""
    names = _glue_names(symbol)
    out, skipping = [], False
    for line in text.splitlines(keepends=True):
        if skipping:
            skipping = line.rstrip("\n") != "}"
            continue
        if line.startswith("define ") and any(f'@"{n}"(' in line or f"@{n}(" in line for n in names):
            skipping = not line.rstrip().endswith("}")
            continue
        if line.startswith("@") and any(line.startswith((f'@"{g}"', f"@{g} ")) for g in GLUE_GLOBALS):
            continue
        out.append(line)
    return "".join(out)


def strip_glue_asm(text: str, symbol: str) -> str:
    """Assembly text of kernel `symbol`'s module without the glue functions and
    constants (from each one's `.globl`/`.type` line to its `.size` line)."""
    names = _glue_names(symbol) | {".L" + g for g in GLUE_GLOBALS}
    out, skipping, after = [], None, False
    for line in text.splitlines(keepends=True):
        words = line.replace(",", " ").split()
        if skipping is not None:
            if len(words) >= 2 and words[0] == ".size" and words[1] == skipping:
                skipping, after = None, True
            continue
        if after and words == [".cfi_endproc"]:   # may follow the .size of a function
            after = False
            continue
        after = False
        if len(words) >= 2 and words[0] in (".globl", ".type") and words[1] in names:
            skipping = words[1]
            continue
        out.append(line)
    return "".join(out)
