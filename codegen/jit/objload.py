"""A loader of ELF64 x86-64 relocatable object files, without LLVM.

The disk cache's hit path (`engine.load_object`) loads the object files that
`tm.emit_object` made for our kernels and glue with this loader, so that a
process whose code all comes from the cache never imports `llvmlite.binding`
nor starts LLVM (~35 ms). It handles exactly what our objects contain and
refuses (`ObjectError`) anything else; the engine then links the object in
its ORC LLJIT as before, which knows more (other machines, compiler-rt
builtins, TLS, ...).

What it does, for one object (`load`):

* parses the ELF header, section headers, symbol and string tables and
  RELA sections with `struct` (little-endian ELF64, `ET_REL`, `EM_X86_64`);
* maps one anonymous private region (libc `mmap`) laid out as
  [executable sections, call stubs] [read-only sections, GOT] [writable
  sections, .bss], each part page-aligned, every section at its alignment;
* resolves each undefined symbol with the caller's `resolve(name)` (the
  engine gives the runtime symbols published with `publish_symbol`, then
  the process: `dlsym`); an unresolved one (0) is an `ObjectError`, never
  a zero address called;
* applies the relocations: R_X86_64_64, PC32, PLT32, 32, 32S, PC64,
  GOTPCREL, GOTPCRELX, REX_GOTPCRELX (NONE is skipped). External functions
  reached by PLT32 go through a stub in the region (`jmp *GOT(%rip)`), and
  GOT-relative loads through a GOT slot in the region, so every
  PC-relative reference stays in range; a PC32 to data that is out of
  range, or an absolute 32-bit value that does not fit, is refused;
* then makes the executable part read+execute, the read-only part
  read-only and leaves the writable part read+write: never writable and
  executable at once.

Skipped sections: everything not `SHF_ALLOC` (.comment, .note*,
.llvm_addrsig, symbol and string tables, debug info) and `.eh_frame`
(with its relocations). Unwind tables are only needed to unwind *through*
our code (C++ exceptions, `backtrace`, a debugger's stack walk): kernels
are leaves called by ctypes or by the CPython glue and never throw, and a
signal handler returns into them, so nothing unwinds through them. Refused:
another machine or class, SHT_REL, TLS (`SHF_TLS`, `STT_TLS`), COMDAT
groups, .init_array/.fini_array/.preinit_array/.ctors/.dtors (code that
would have to run at load), common or ifunc symbols, and unknown
relocation or section types.

The region belongs to the returned `LoadedObject`; the caller unmaps it
(`unmap`) when the code's owner dies (the engine does that under its lock,
like LLJIT libraries).
"""
from __future__ import annotations

import ctypes
import struct
import sys
from typing import Callable, Dict, Iterable, List, Tuple

__all__ = ["ObjectError", "LoadedObject", "supported", "load", "unmap"]


class ObjectError(Exception):
    """This object cannot be loaded by this loader (the message says why): link it with LLVM."""


# ELF constants (System V gABI and the x86-64 psABI).
_SHT_PROGBITS, _SHT_SYMTAB, _SHT_RELA, _SHT_NOBITS, _SHT_REL = 1, 2, 4, 8, 9
_SHT_INIT_ARRAY, _SHT_FINI_ARRAY, _SHT_PREINIT_ARRAY, _SHT_GROUP = 14, 15, 16, 17
_SHT_X86_64_UNWIND = 0x70000001
_SHF_WRITE, _SHF_ALLOC, _SHF_EXECINSTR, _SHF_TLS = 0x1, 0x2, 0x4, 0x400
_SHN_UNDEF, _SHN_LORESERVE, _SHN_ABS, _SHN_COMMON, _SHN_XINDEX = 0, 0xFF00, 0xFFF1, 0xFFF2, 0xFFFF
_STB_LOCAL, _STB_GLOBAL, _STB_WEAK = 0, 1, 2
_STT_SECTION, _STT_TLS, _STT_GNU_IFUNC = 3, 6, 10

R_NONE, R_64, R_PC32, R_PLT32, R_GOTPCREL, R_32, R_32S, R_PC64 = 0, 1, 2, 4, 9, 10, 11, 24
R_GOTPCRELX, R_REX_GOTPCRELX = 41, 42
_GOT_RELOCS = (R_GOTPCREL, R_GOTPCRELX, R_REX_GOTPCRELX)
_KNOWN_RELOCS = frozenset((R_NONE, R_64, R_PC32, R_PLT32, R_32, R_32S, R_PC64) + _GOT_RELOCS)

_SECTION = struct.Struct("<IIQQQQIIQQ")   # Elf64_Shdr
_SYMBOL = struct.Struct("<IBBHQQ")        # Elf64_Sym
_RELA = struct.Struct("<QQq")             # Elf64_Rela
_STUB = 8                                 # jmp *rel32(%rip) (6 bytes), padded to 8
_PAGE = 4096

_PROT_READ, _PROT_WRITE, _PROT_EXEC = 1, 2, 4
_MAP_PRIVATE, _MAP_ANONYMOUS = 0x02, 0x20
_MAP_FAILED = ctypes.c_void_p(-1).value


def supported() -> bool:
    """True where this loader can run code: 64-bit x86-64 Linux."""
    import platform
    return sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64") \
        and ctypes.sizeof(ctypes.c_void_p) == 8


_LIBC = None


def _libc():
    global _LIBC
    if _LIBC is None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                              ctypes.c_long]
        libc.mmap.restype = ctypes.c_void_p
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        libc.mprotect.restype = ctypes.c_int
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        libc.munmap.restype = ctypes.c_int
        _LIBC = libc
    return _LIBC


class LoadedObject:
    """One loaded object: its mapping (`base`, `size`) and the addresses of its exports."""

    __slots__ = ("base", "size", "addresses", "__weakref__")

    def __init__(self, base: int, size: int, addresses: Dict[str, int]):
        self.base = base
        self.size = size
        self.addresses = addresses


def unmap(base: int, size: int) -> None:
    """Unmap a region `load` mapped (its code must never run again)."""
    _libc().munmap(base, size)


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment if alignment > 1 else value


class _Elf:
    """The parsed parts of an object file that loading needs."""

    def __init__(self, obj: bytes):
        if len(obj) < 64 or obj[:4] != b"\x7fELF":
            raise ObjectError("not an ELF file")
        if obj[4] != 2 or obj[5] != 1:
            raise ObjectError("not a little-endian ELF64 file")
        e_type, e_machine = struct.unpack_from("<HH", obj, 16)
        if e_type != 1:
            raise ObjectError(f"ELF type {e_type} is not a relocatable object")
        if e_machine != 62:
            raise ObjectError(f"ELF machine {e_machine} is not x86-64")
        shoff, = struct.unpack_from("<Q", obj, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", obj, 0x3A)
        if shentsize != _SECTION.size or shnum == 0 or shstrndx >= shnum \
                or shoff + shnum * shentsize > len(obj):
            raise ObjectError("bad section header table")
        self.obj = obj
        self.sections = [_SECTION.unpack_from(obj, shoff + i * shentsize) for i in range(shnum)]
        names_at = self.sections[shstrndx][4]
        self.names = [self._string(names_at, s[0]) for s in self.sections]
        for s in self.sections:
            if s[1] != _SHT_NOBITS and s[4] + s[5] > len(obj):
                raise ObjectError("a section lies outside the file")

    def _string(self, table_offset: int, at: int) -> str:
        end = self.obj.find(b"\0", table_offset + at)
        if end < 0:
            raise ObjectError("unterminated string")
        return self.obj[table_offset + at:end].decode("utf-8", "replace")

    def symbols(self) -> List[Tuple[str, int, int, int, int]]:
        """(name, bind, type, section index, value) of each symbol-table entry."""
        tables = [s for s in self.sections if s[1] == _SHT_SYMTAB]
        if len(tables) != 1:
            raise ObjectError(f"{len(tables)} symbol tables")
        _, _, _, _, offset, size, link, _, _, entsize = tables[0]
        if entsize != _SYMBOL.size or link >= len(self.sections):
            raise ObjectError("bad symbol table")
        strings = self.sections[link][4]
        out = []
        for at in range(offset, offset + size, entsize):
            st_name, st_info, _, st_shndx, st_value, _ = _SYMBOL.unpack_from(self.obj, at)
            out.append((self._string(strings, st_name), st_info >> 4, st_info & 15, st_shndx, st_value))
        return out


def _parts(elf: _Elf) -> List[List[int]]:
    """The indices of the sections to load, in three parts: executable, read-only,
    writable (refusing what this loader does not handle)."""
    parts: List[List[int]] = [[], [], []]   # text, read-only, writable
    for i, (_, sh_type, flags, _, _, _, _, _, align, _) in enumerate(elf.sections):
        name = elf.names[i]
        if sh_type == _SHT_GROUP:
            raise ObjectError(f"COMDAT group section {name}")
        if sh_type == _SHT_REL:
            raise ObjectError(f"SHT_REL section {name}")
        if not flags & _SHF_ALLOC:
            continue
        if name == ".eh_frame" or sh_type == _SHT_X86_64_UNWIND:
            continue   # unwind tables: nothing unwinds through our code (module docstring)
        if flags & _SHF_TLS:
            raise ObjectError(f"thread-local section {name}")
        if sh_type in (_SHT_INIT_ARRAY, _SHT_FINI_ARRAY, _SHT_PREINIT_ARRAY) \
                or name.startswith((".ctors", ".dtors", ".init", ".fini")):
            raise ObjectError(f"section {name} would need code run at load")
        if sh_type not in (_SHT_PROGBITS, _SHT_NOBITS):
            raise ObjectError(f"section {name} of type {sh_type:#x}")
        if align > _PAGE:   # the region is page-aligned, no more
            raise ObjectError(f"section {name} wants {align}-byte alignment")
        part = 0 if flags & _SHF_EXECINSTR else 2 if flags & _SHF_WRITE else 1
        parts[part].append(i)
    return parts


def load(obj: bytes, exports: Iterable[str], resolve: Callable[[str], int]) -> LoadedObject:
    """Load object file `obj`, resolving its undefined symbols with `resolve` (name ->
    address, 0 when unknown); the result holds the addresses of `exports`, each
    defined by the object. Raises ObjectError for anything this loader does not
    handle (nothing is left mapped then)."""
    elf = _Elf(obj)
    parts = _parts(elf)
    symbols = elf.symbols()
    sections = elf.sections

    # Relocation sections that apply to loaded sections; which symbols need a stub or GOT slot.
    wanted = set(i for p in parts for i in p)
    relocs: List[Tuple[int, int, int, int, int]] = []   # (section, offset, type, symbol, addend)
    for i, (_, sh_type, _, _, offset, size, link, info, _, entsize) in enumerate(sections):
        if sh_type != _SHT_RELA or info not in wanted:
            continue
        if entsize != _RELA.size or link >= len(sections) or sections[link][1] != _SHT_SYMTAB:
            raise ObjectError(f"bad relocation section {elf.names[i]}")
        for at in range(offset, offset + size, entsize):
            r_offset, r_info, r_addend = _RELA.unpack_from(obj, at)
            r_type, r_sym = r_info & 0xFFFFFFFF, r_info >> 32
            if r_type not in _KNOWN_RELOCS:
                raise ObjectError(f"relocation type {r_type} in {elf.names[i]}")
            if r_sym >= len(symbols):
                raise ObjectError("relocation against a symbol out of the table")
            if r_offset + (8 if r_type in (R_64, R_PC64) else 4) > sections[info][5]:
                raise ObjectError("relocation outside its section")
            relocs.append((info, r_offset, r_type, r_sym, r_addend))
    got_slots: Dict[int, int] = {}    # symbol index -> GOT slot index
    stubs: Dict[int, int] = {}        # symbol index -> stub index (PLT32 to an undefined function)
    for _, _, r_type, r_sym, _ in relocs:
        if r_type in _GOT_RELOCS or (r_type == R_PLT32 and symbols[r_sym][3] == _SHN_UNDEF):
            got_slots.setdefault(r_sym, len(got_slots))
        if r_type == R_PLT32 and symbols[r_sym][3] == _SHN_UNDEF:
            stubs.setdefault(r_sym, len(stubs))

    # Layout: section offsets in the region, stubs after the text, GOT after the read-only data.
    offsets: Dict[int, int] = {}
    cursor = 0
    starts = []
    for part, indices in enumerate(parts):
        cursor = _align(cursor, _PAGE)
        starts.append(cursor)
        for i in indices:
            cursor = _align(cursor, max(sections[i][8], 1))
            offsets[i] = cursor
            cursor += sections[i][5]
        if part == 0:
            cursor = _align(cursor, 16)
            stub_at = cursor
            cursor += _STUB * len(stubs)
        elif part == 1:
            cursor = _align(cursor, 8)
            got_at = cursor
            cursor += 8 * len(got_slots)
    size = max(_align(cursor, _PAGE), _PAGE)

    libc = _libc()
    base = libc.mmap(None, size, _PROT_READ | _PROT_WRITE, _MAP_PRIVATE | _MAP_ANONYMOUS, -1, 0)
    if base in (None, _MAP_FAILED):
        raise ObjectError(f"mmap of {size} bytes failed (errno {ctypes.get_errno()})")
    try:
        image = bytearray(size)
        addresses = _symbol_addresses(elf, symbols, offsets, base, resolve, relocs)
        for i, at in offsets.items():
            sh = sections[i]
            if sh[1] == _SHT_PROGBITS:
                image[at:at + sh[5]] = obj[sh[4]:sh[4] + sh[5]]
        for sym, slot in got_slots.items():
            struct.pack_into("<Q", image, got_at + 8 * slot, addresses[sym])
        for sym, k in stubs.items():
            at = stub_at + _STUB * k
            rel = (got_at + 8 * got_slots[sym]) - (at + 6)
            image[at:at + 2] = b"\xff\x25"   # jmp *rel32(%rip)
            struct.pack_into("<i", image, at + 2, rel)
            image[at + 6:at + 8] = b"\xcc\xcc"
        for section, r_offset, r_type, r_sym, addend in relocs:
            at = offsets[section] + r_offset
            place = base + at
            s = addresses[r_sym]
            if r_type == R_NONE:
                continue
            if r_type == R_64:
                struct.pack_into("<Q", image, at, (s + addend) & 0xFFFFFFFFFFFFFFFF)
            elif r_type == R_PC64:
                struct.pack_into("<q", image, at, s + addend - place)
            elif r_type == R_32:
                _put32(image, at, s + addend, signed=False)
            elif r_type == R_32S:
                _put32(image, at, s + addend, signed=True)
            else:
                if r_type in _GOT_RELOCS:
                    target = base + got_at + 8 * got_slots[r_sym]
                elif r_type == R_PLT32 and r_sym in stubs:
                    target = base + stub_at + _STUB * stubs[r_sym]
                else:   # PC32, or PLT32 to a symbol of this object
                    target = s
                _put32(image, at, target + addend - place, signed=True)
        ctypes.memmove(base, (ctypes.c_char * size).from_buffer(image), size)
        exported = {}
        by_name = {sym[0]: k for k, sym in enumerate(symbols)
                   if sym[1] in (_STB_GLOBAL, _STB_WEAK) and sym[3] != _SHN_UNDEF}
        for name in exports:
            k = by_name.get(name)
            if k is None or not addresses.get(k):
                raise ObjectError(f"the object does not define {name!r}")
            exported[name] = addresses[k]
        for part, (lo, hi) in enumerate(zip(starts, starts[1:] + [size])):
            if hi > lo and part != 2:
                prot = _PROT_READ | (_PROT_EXEC if part == 0 else 0)
                if libc.mprotect(base + lo, hi - lo, prot) != 0:
                    raise ObjectError(f"mprotect failed (errno {ctypes.get_errno()})")
    except BaseException:
        libc.munmap(base, size)
        raise
    return LoadedObject(base, size, exported)


def _put32(image: bytearray, at: int, value: int, signed: bool) -> None:
    lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, (1 << 32) - 1)
    if not lo <= value <= hi:
        raise ObjectError(f"a 32-bit relocation is out of range ({value:#x})")
    struct.pack_into("<i" if signed else "<I", image, at, value)


def _symbol_addresses(elf: _Elf, symbols, offsets: Dict[int, int], base: int,
                      resolve: Callable[[str], int], relocs) -> Dict[int, int]:
    """The address of every symbol that a relocation uses or that may be exported."""
    used = {r[3] for r in relocs}
    out: Dict[int, int] = {}
    for k, (name, bind, typ, shndx, value) in enumerate(symbols):
        if k == 0:
            out[k] = 0
            continue
        if typ in (_STT_TLS, _STT_GNU_IFUNC):
            raise ObjectError(f"symbol {name!r} of type {typ}")
        if shndx == _SHN_UNDEF:
            if k not in used and bind == _STB_LOCAL:
                continue
            address = resolve(name) if name else 0
            if not address:
                if k in used or bind == _STB_GLOBAL:
                    raise ObjectError(f"unresolved symbol {name!r}")
                continue
            out[k] = address
        elif shndx == _SHN_ABS:
            out[k] = value
        elif shndx == _SHN_COMMON or shndx == _SHN_XINDEX:
            raise ObjectError(f"symbol {name!r} in special section {shndx:#x}")
        elif shndx >= _SHN_LORESERVE:
            raise ObjectError(f"symbol {name!r} in reserved section {shndx:#x}")
        elif shndx in offsets:
            out[k] = base + offsets[shndx] + value
        elif k in used:
            raise ObjectError(f"symbol {name!r} is in a section that is not loaded")
    return out
