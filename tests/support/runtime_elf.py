"""The ELF reading of the runtime oracle (runtime_oracle.py): each loaded file read as the loader reads it.

:class:`DynElf` parses a file from its program headers (not its section headers, which firmware often
strips): ``PT_LOAD``, ``PT_DYNAMIC``, ``PT_TLS``, ``PT_INTERP``, the dynamic tags, the dynamic symbols and
their versions, and every *slot*: a relocation of ``DT_REL``/``DT_RELA``/``DT_JMPREL`` that names a
symbol, or on MIPS a global GOT entry (:class:`Slot`).  :data:`RELOC_KINDS` says how each machine's
relocation types compute their value.
"""

from __future__ import annotations

import dataclasses
import os
import struct
from dataclasses import dataclass
from pathlib import Path

PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_TLS = 1, 2, 3, 7
DT_NULL, DT_PLTRELSZ, DT_PLTGOT, DT_STRTAB, DT_SYMTAB = 0, 2, 3, 5, 6
DT_RELA, DT_RELASZ, DT_RELAENT, DT_STRSZ, DT_SYMENT = 7, 8, 9, 10, 11
DT_REL, DT_RELSZ, DT_RELENT, DT_PLTREL, DT_DEBUG, DT_JMPREL = 17, 18, 19, 20, 21, 23
DT_HASH, DT_INIT, DT_INIT_ARRAY, DT_INIT_ARRAYSZ, DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ = 4, 12, 25, 27, 32, 33
DT_GNU_HASH, DT_GNU_LIBLIST = 0x6FFFFEF5, 0x6FFFFEF9
DT_VERSYM, DT_VERDEF, DT_VERDEFNUM, DT_VERNEED, DT_VERNEEDNUM = (
    0x6FFFFFF0,
    0x6FFFFFFC,
    0x6FFFFFFD,
    0x6FFFFFFE,
    0x6FFFFFFF,
)
DT_MIPS_LOCAL_GOTNO, DT_MIPS_SYMTABNO, DT_MIPS_GOTSYM = 0x7000000A, 0x70000011, 0x70000013
DT_MIPS_RLD_MAP, DT_MIPS_RLD_MAP_REL = 0x70000016, 0x70000035
STB_LOCAL, STT_SECTION, STT_TLS = 0, 3, 6
STO_MIPS_PLT = 0x8  # an undefined MIPS symbol whose value is a canonical PLT entry (the lookup may find it)
VER_FLG_BASE = 1
MACHINES = {3: "EM_386", 8: "EM_MIPS", 40: "EM_ARM", 62: "EM_X86_64", 183: "EM_AARCH64"}
AT_NULL, AT_PHDR, AT_PAGESZ, AT_BASE, AT_ENTRY = 0, 3, 6, 7, 9

# Relocation kinds by machine and type: (kind, size in bytes or 0 for a word).
#   abs: S + A          got: S (REL) / S + A (RELA)      pcrel: S + A - P       copy: R_*_COPY
#   tpoff: offset = value - A   tpoff_neg: offset = A - value   tlsdesc: RELA, offset in the 2nd word
#   dtpmod: module id          dtpoff: offset inside the module's block
RELOC_KINDS: dict[str, dict[int, tuple[str, int]]] = {
    "EM_386": {1: ("abs", 4), 2: ("pcrel", 4), 5: ("copy", 0), 6: ("got", 4), 7: ("got", 4), 14: ("tpoff", 4),
               35: ("dtpmod", 4), 36: ("dtpoff", 4), 37: ("tpoff_neg", 4)},
    "EM_X86_64": {1: ("abs", 8), 2: ("pcrel", 4), 5: ("copy", 0), 6: ("got", 8), 7: ("got", 8), 10: ("abs", 4),
                  11: ("abs", 4), 16: ("dtpmod", 8), 17: ("dtpoff", 8), 18: ("tpoff", 8), 24: ("pcrel", 8),
                  36: ("tlsdesc", 16)},
    "EM_ARM": {2: ("abs", 4), 3: ("pcrel", 4), 17: ("dtpmod", 4), 18: ("dtpoff", 4), 19: ("tpoff", 4),
               20: ("copy", 0), 21: ("got", 4), 22: ("got", 4)},
    "EM_AARCH64": {257: ("abs", 8), 258: ("abs", 4), 1024: ("copy", 0), 1025: ("got", 8), 1026: ("got", 8),
                   1028: ("dtpmod", 8), 1029: ("dtpoff", 8), 1030: ("tpoff", 8), 1031: ("tlsdesc", 16)},
    "EM_MIPS": {2: ("abs", 4), 3: ("abs", 4), 38: ("dtpmod", 4), 39: ("dtpoff", 4), 47: ("tpoff", 4),
                126: ("copy", 0), 127: ("got", 4)},
}  # fmt: skip
TLS_KINDS = {"tpoff", "tpoff_neg", "tlsdesc", "dtpmod", "dtpoff"}


class ElfFormatError(ValueError):
    """A loaded file whose dynamic information cannot be read (bounds, missing tables)."""


@dataclass(frozen=True, slots=True)
class Segment:
    vaddr: int
    memsz: int
    offset: int
    filesz: int


@dataclass(frozen=True, slots=True)
class Slot:
    """One relocated word that names a symbol, at ``vaddr`` (unbiased) of its object."""

    vaddr: int
    size: int
    kind: str  # see RELOC_KINDS, or "mips_got", or "unknown"
    rtype: int
    name: str
    version: str | None
    local: bool  # no symbol, or an STB_LOCAL one: binds in its own object without a lookup
    defined: bool
    st_value: int
    addend: int  # RELA r_addend; REL: the slot's content in the file for adding kinds, else 0
    lazy: bool = False  # a PLT slot (DT_JMPREL) or a MIPS global GOT entry of an undefined symbol: a loader
    # that binds lazily leaves the object's own stub in it (never a lookup result in that object)


class DynElf:
    """The dynamic view of one ELF file, read as the loader reads it (program headers, PT_DYNAMIC)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self.data = data = Path(path).read_bytes()
        if data[:4] != b"\x7fELF" or len(data) < 52:
            raise ElfFormatError(f"{path}: not an ELF file")
        self.bits = {1: 32, 2: 64}.get(data[4], 0)
        self.endian = {1: "<", 2: ">"}.get(data[5], "")
        if not self.bits or not self.endian:
            raise ElfFormatError(f"{path}: bad ELF class or byte order")
        self.word = self.bits // 8
        e = self.endian
        if self.bits == 32:
            (self.e_type, machine, _v, self.e_entry, phoff, _sh, self.e_flags, _eh, phentsize, phnum) = self._unpack(
                e + "HHIIIIIHHH", 16
            )
        else:
            (self.e_type, machine, _v, self.e_entry, phoff, _sh, self.e_flags, _eh, phentsize, phnum) = self._unpack(
                e + "HHIQQQIHHH", 16
            )
        self.machine = MACHINES.get(machine, f"EM_{machine}")
        self.loads: list[Segment] = []
        self.dynamic: Segment | None = None
        self.tls: Segment | None = None
        self.interp: str | None = None
        for i in range(phnum):
            at = phoff + i * phentsize
            if self.bits == 32:
                p_type, p_offset, p_vaddr, _pa, p_filesz, p_memsz, _fl, _al = self._unpack(e + "8I", at)
            else:
                p_type, _fl, p_offset, p_vaddr, _pa, p_filesz, p_memsz, _al = self._unpack(e + "IIQQQQQQ", at)
            seg = Segment(p_vaddr, p_memsz, p_offset, p_filesz)
            if p_type == PT_LOAD:
                self.loads.append(seg)
            elif p_type == PT_DYNAMIC:
                self.dynamic = seg
            elif p_type == PT_TLS:
                self.tls = seg
            elif p_type == PT_INTERP:
                self.interp = self._bytes(p_offset, p_filesz).split(b"\0")[0].decode(errors="surrogateescape")
        self.tags: dict[int, int] = {}
        self.tag_list: list[tuple[int, int]] = []
        if self.dynamic is not None:
            self._read_dynamic(e)
        self._slots: list[Slot] | None = None
        self._defined: dict[str, set[str | None]] | None = None

    def _read_dynamic(self, e: str) -> None:
        """The dynamic array as the loader reads it: at ``p_vaddr`` in the loaded segments, up to
        DT_NULL (``p_offset``/``p_filesz`` may be 0 or short: the loader never looks at them)."""
        dynamic = self.dynamic
        assert dynamic is not None
        fmt, size = (e + "iI", 8) if self.bits == 32 else (e + "qQ", 16)
        loaded = any(seg.vaddr <= dynamic.vaddr < seg.vaddr + seg.memsz for seg in self.loads)
        count = (dynamic.memsz if loaded else dynamic.filesz) // size
        for i in range(min(count, len(self.data) // size)):
            if loaded:
                tag, val = struct.unpack(fmt, self.read_at(dynamic.vaddr + i * size, size))
            else:  # not in any PT_LOAD (no loader would run it): the file's headers
                tag, val = self._unpack(fmt, dynamic.offset + i * size)
            if tag == DT_NULL:
                break
            self.tag_list.append((tag, val))
            self.tags.setdefault(tag, val)

    # ------------------------------------------------------------------ raw access

    def _unpack(self, fmt: str, offset: int) -> tuple:
        size = struct.calcsize(fmt)
        if offset < 0 or offset + size > len(self.data):
            raise ElfFormatError(f"{self.path}: read of {size} bytes at {offset:#x} beyond the file")
        return struct.unpack_from(fmt, self.data, offset)

    def _bytes(self, offset: int, size: int) -> bytes:
        if offset < 0 or size < 0 or offset + size > len(self.data):
            raise ElfFormatError(f"{self.path}: {size} bytes at {offset:#x} beyond the file")
        return self.data[offset : offset + size]

    def offset_of(self, vaddr: int) -> int | None:
        """File offset of an address that has file bytes (None in .bss or outside every PT_LOAD)."""
        for seg in self.loads:
            if seg.vaddr <= vaddr < seg.vaddr + seg.filesz:
                return seg.offset + vaddr - seg.vaddr
        return None

    def read_at(self, vaddr: int, size: int) -> bytes:
        """The file's bytes at an address; zeros for .bss."""
        off = self.offset_of(vaddr)
        if off is None:
            if any(seg.vaddr <= vaddr < seg.vaddr + seg.memsz for seg in self.loads):
                return b"\0" * size
            raise ElfFormatError(f"{self.path}: address {vaddr:#x} is in no PT_LOAD segment")
        return self._bytes(off, size)

    def uint(self, vaddr: int, size: int) -> int:
        return int.from_bytes(self.read_at(vaddr, size), "little" if self.endian == "<" else "big")

    def _cstr(self, vaddr: int) -> str:
        off = self.offset_of(vaddr)
        if off is None:
            raise ElfFormatError(f"{self.path}: string at {vaddr:#x} outside the file")
        end = self.data.find(b"\0", off)
        if end < 0:
            raise ElfFormatError(f"{self.path}: unterminated string at {vaddr:#x}")
        return self.data[off:end].decode(errors="surrogateescape")

    # ------------------------------------------------------------------ symbols

    def symbol(self, index: int) -> tuple[str, int, int, int, int, int]:
        """(name, value, size, info, other, shndx) of dynamic symbol ``index``."""
        symtab, strtab = self.tags.get(DT_SYMTAB), self.tags.get(DT_STRTAB)
        if symtab is None or strtab is None:
            raise ElfFormatError(f"{self.path}: no DT_SYMTAB/DT_STRTAB")
        entsize = self.tags.get(DT_SYMENT, 16 if self.bits == 32 else 24)
        off = self.offset_of(symtab + index * entsize)
        if off is None:
            raise ElfFormatError(f"{self.path}: symbol {index} outside the file")
        if self.bits == 32:
            st_name, value, size, info, other, shndx = self._unpack(self.endian + "IIIBBH", off)
        else:
            st_name, info, other, shndx, value, size = self._unpack(self.endian + "IBBHQQ", off)
        return self._cstr(strtab + st_name), value, size, info, other, shndx

    def symbol_count(self) -> int:
        """Number of dynamic symbols: DT_HASH's nchain, else the end of DT_GNU_HASH's last chain."""
        if DT_MIPS_SYMTABNO in self.tags and self.machine == "EM_MIPS":
            return self.tags[DT_MIPS_SYMTABNO]
        if DT_HASH in self.tags:
            return self.uint(self.tags[DT_HASH] + 4, 4)
        at = self.tags.get(DT_GNU_HASH)
        if at is None:
            return 0
        nbuckets, symoffset, bloom_size, _shift = (self.uint(at + 4 * i, 4) for i in range(4))
        buckets = at + 16 + bloom_size * self.word
        last = max((self.uint(buckets + 4 * i, 4) for i in range(min(nbuckets, 1 << 20))), default=0)
        if last < symoffset:
            return symoffset
        chains = buckets + 4 * nbuckets
        while not self.uint(chains + 4 * (last - symoffset), 4) & 1:
            last += 1
        return last + 1

    def defines(self, name: str, version: str | None) -> bool:
        """Whether a dynamic symbol could satisfy a reference to ``name`` (``version``) by its address: any
        definition for an unversioned reference; for a versioned one a definition with that version or
        without one, or a canonical PLT entry.  A diagnostic only (RuntimeTrace.redirected), not a lookup."""
        if self._defined is None:
            names: dict[str, set[str | None]] = {}
            versions = self._version_names()
            versym = self.tags.get(DT_VERSYM)
            for i in range(1, self.symbol_count()):
                sname, value, _size, _info, _other, shndx = self.symbol(i)
                if not value:
                    continue
                ndx = self.uint(versym + 2 * i, 2) & 0x7FFF if versym is not None else 1
                names.setdefault(sname, set()).add("*" if shndx == 0 else versions.get(ndx) if ndx >= 2 else None)
            self._defined = names
        found = self._defined.get(name, set())
        return bool(found) if version is None else bool(found & {None, version, "*"})

    def _version_names(self) -> dict[int, str]:
        """Version index -> name, from DT_VERNEED (requested) and DT_VERDEF (own, non-base)."""
        names: dict[int, str] = {}
        strtab = self.tags.get(DT_STRTAB, 0)
        e = self.endian
        at, count = self.tags.get(DT_VERNEED), self.tags.get(DT_VERNEEDNUM, 0)
        for _ in range(count if at is not None else 0):
            off = self.offset_of(at)
            if off is None:
                raise ElfFormatError(f"{self.path}: DT_VERNEED outside the file")
            _ver, cnt, _file, aux, nxt = self._unpack(e + "HHIII", off)
            a = at + aux
            for _ in range(cnt):
                aoff = self.offset_of(a)
                if aoff is None:
                    raise ElfFormatError(f"{self.path}: vernaux outside the file")
                _hash, _flags, other, name, anext = self._unpack(e + "IHHII", aoff)
                names[other & 0x7FFF] = self._cstr(strtab + name)
                if not anext:
                    break
                a += anext
            if not nxt:
                break
            at += nxt
        at, count = self.tags.get(DT_VERDEF), self.tags.get(DT_VERDEFNUM, 0)
        for _ in range(count if at is not None else 0):
            off = self.offset_of(at)
            if off is None:
                raise ElfFormatError(f"{self.path}: DT_VERDEF outside the file")
            _ver, flags, ndx, _cnt, _hash, aux, nxt = self._unpack(e + "HHHHIII", off)
            if not flags & VER_FLG_BASE:
                aoff = self.offset_of(at + aux)
                if aoff is None:
                    raise ElfFormatError(f"{self.path}: verdaux outside the file")
                names.setdefault(ndx & 0x7FFF, self._cstr(strtab + self._unpack(e + "I", aoff)[0]))
            if not nxt:
                break
            at += nxt
        return names

    # ------------------------------------------------------------------ slots

    def slots(self) -> list[Slot]:
        """Every symbol-naming relocation and (MIPS) global GOT entry, in file order."""
        if self._slots is None:
            self._slots = self._compute_slots()
        return self._slots

    def _compute_slots(self) -> list[Slot]:
        if self.machine == "EM_MIPS" and self.bits == 64:
            raise ElfFormatError(f"{self.path}: 64-bit MIPS relocations are not supported")
        kinds = RELOC_KINDS.get(self.machine)
        if kinds is None:
            raise ElfFormatError(f"{self.path}: relocations of {self.machine} are not supported")
        versions = self._version_names()
        versym = self.tags.get(DT_VERSYM)
        e, w = self.endian, self.word
        out: list[Slot] = []
        tables: list[tuple[int, int, bool]] = []  # (address, size, rela)
        if DT_REL in self.tags:
            tables.append((self.tags[DT_REL], self.tags.get(DT_RELSZ, 0), False))
        if DT_RELA in self.tags:
            tables.append((self.tags[DT_RELA], self.tags.get(DT_RELASZ, 0), True))
        if DT_JMPREL in self.tags:
            tables.append((self.tags[DT_JMPREL], self.tags.get(DT_PLTRELSZ, 0), self.tags.get(DT_PLTREL) == DT_RELA))
        seen: set[int] = set()  # file offsets of entries done (DT_RELSZ may include the DT_JMPREL entries)
        sym_cache: dict[int, tuple[str, int, int, int, int, int]] = {}

        def sym(i: int) -> tuple[str, int, int, int, int, int]:
            if i not in sym_cache:
                sym_cache[i] = self.symbol(i)
            return sym_cache[i]

        def version_of(i: int) -> str | None:
            if versym is None:
                return None
            ndx = self.uint(versym + 2 * i, 2) & 0x7FFF
            return versions.get(ndx) if ndx >= 2 else None

        plt = self.offset_of(self.tags[DT_JMPREL]) if DT_JMPREL in self.tags else None
        plt_end = -1 if plt is None else plt + self.tags.get(DT_PLTRELSZ, 0)
        for start, size, rela in tables:
            ent = (3 if rela else 2) * w
            fmt = e + ("iIi" if rela else "II") if self.bits == 32 else e + ("QQq" if rela else "QQ")
            base = self.offset_of(start)
            if base is None and size:
                raise ElfFormatError(f"{self.path}: relocation table at {start:#x} outside the file")
            for k in range(size // ent):
                if base + k * ent in seen:
                    continue
                seen.add(base + k * ent)
                fields = self._unpack(fmt, base + k * ent)
                r_offset, r_info = fields[0], fields[1]
                r_addend = fields[2] if rela else 0
                if self.bits == 32:
                    isym, rtype = r_info >> 8, r_info & 0xFF
                else:
                    isym, rtype = r_info >> 32, r_info & 0xFFFFFFFF
                kind, rsize = kinds.get(rtype, ("unknown", 0))
                if isym == 0:
                    if kind in TLS_KINDS:  # calibration of the object's own TLS (no lookup)
                        out.append(self._slot(r_offset, rsize, kind, rtype, "", None, True, True, 0, r_addend, rela))
                    continue
                name, value, _sz, info, _other, shndx = sym(isym)
                local = (info >> 4) == STB_LOCAL
                if local and kind not in TLS_KINDS:
                    continue  # binds in its own object without a lookup
                slot = self._slot(
                    r_offset, rsize, kind, rtype, name, version_of(isym), local, shndx != 0, value, r_addend, rela
                )
                if plt is not None and plt <= base + k * ent < plt_end and not slot.defined and kind not in TLS_KINDS:
                    slot = dataclasses.replace(slot, lazy=True)
                out.append(slot)
        if self.machine == "EM_MIPS" and DT_MIPS_GOTSYM in self.tags:
            got = self.tags.get(DT_PLTGOT)
            local_gotno = self.tags.get(DT_MIPS_LOCAL_GOTNO, 0)
            gotsym = self.tags[DT_MIPS_GOTSYM]
            symtabno = self.tags.get(DT_MIPS_SYMTABNO, gotsym)
            if got is None:
                raise ElfFormatError(f"{self.path}: MIPS GOT without DT_PLTGOT")
            for i in range(gotsym, symtabno):
                name, value, _sz, info, other, shndx = sym(i)
                if info & 0xF == STT_SECTION:
                    continue
                out.append(
                    Slot(
                        got + (local_gotno + i - gotsym) * w,
                        w,
                        "mips_got",
                        0,
                        name,
                        version_of(i),
                        (info >> 4) == STB_LOCAL,
                        shndx != 0,
                        value,
                        0,
                        lazy=shndx == 0 and not other & STO_MIPS_PLT,
                    )
                )
        return out

    def _slot(
        self,
        r_offset: int,
        rsize: int,
        kind: str,
        rtype: int,
        name: str,
        version: str | None,
        local: bool,
        defined: bool,
        value: int,
        r_addend: int,
        rela: bool,
    ) -> Slot:
        size = rsize or self.word
        if rela:
            addend = r_addend
        elif kind in ("abs", "pcrel", "tpoff", "tpoff_neg", "dtpoff"):
            addend = int.from_bytes(self.read_at(r_offset, min(size, 8)), "little" if self.endian == "<" else "big")
            if kind in ("pcrel", "tpoff", "tpoff_neg", "dtpoff") and addend >= 1 << (8 * size - 1):
                addend -= 1 << (8 * size)  # these addends are signed
        else:
            addend = 0
        if kind == "tlsdesc" and not rela:
            kind = "unknown"  # REL TLS descriptors (ARM, i386): where the addend lives is ABI-specific
        return Slot(r_offset, size, kind, rtype, name, version, local, defined, value, addend)


def _find_symbol(elf: DynElf, name: str) -> int | None:
    """Value of a defined dynamic symbol of that name (None if there is none)."""
    for i in range(1, elf.symbol_count()):
        try:
            sname, value, _sz, _info, _other, shndx = elf.symbol(i)
        except ElfFormatError:
            return None
        if sname == name and shndx != 0 and value:
            return value
    return None
