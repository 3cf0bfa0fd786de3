"""Struct-level decoding of the tables the dynamic loader reads, located through the dynamic segment.

Nothing here looks at section headers: addresses from ``PT_DYNAMIC`` are translated to file offsets
through the ``PT_LOAD`` segments, as the loader sees the image in memory. Memory follows what the
file holds, never what a header claims: the symbol table is kept as columns (``dynsym``, a few
bytes per symbol), relocations are decoded as arrays and folded per symbol, and every count is
bounded by the bytes present. The symbol version tables are read by ``versions``.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

from ..errors import ElfError
from ..model import DynSymbol, Reference, RelocClass
from .dynsym import UNVERSIONED, DynSymbols, column
from .image import Buffer, Image, Strings
from .versions import Note, version_table

# Dynamic tags (gABI, GNU and MIPS extensions).
DT_NULL, DT_NEEDED, DT_PLTRELSZ, DT_HASH, DT_STRTAB, DT_SYMTAB = 0, 1, 2, 4, 5, 6
DT_RELA, DT_RELASZ, DT_RELAENT, DT_STRSZ, DT_SYMENT, DT_SONAME, DT_RPATH = 7, 8, 9, 10, 11, 14, 15
DT_SYMBOLIC, DT_REL, DT_RELSZ, DT_RELENT, DT_PLTREL, DT_TEXTREL, DT_JMPREL, DT_BIND_NOW = 16, 17, 18, 19, 20, 22, 23, 24
DT_RUNPATH, DT_FLAGS = 29, 30
DT_GNU_HASH, DT_VERSYM, DT_FLAGS_1 = 0x6FFFFEF5, 0x6FFFFFF0, 0x6FFFFFFB
DT_MIPS_SYMTABNO, DT_MIPS_GOTSYM = 0x70000011, 0x70000013

EM_MIPS, EM_MIPS_RS3_LE = 8, 10
MIPS_MACHINES = (EM_MIPS, EM_MIPS_RS3_LE)
STT_SECTION = 3

# Relocation types glibc's elf_machine_type_class puts in the COPY and PLT classes, per e_machine
# (and per ELF class where the numbers differ). PLT covers JUMP_SLOT and, as in glibc, the TLS
# relocations, whose symbol must not resolve to an executable's undefined PLT symbol.
_X86_64 = ({5}, {7, 16, 17, 18, 36})
_RISCV32, _RISCV64 = ({4}, {5, 6, 8, 10, 12}), ({4}, {5, 7, 9, 11, 12})  # 12: TLSDESC
_LARCH32, _LARCH64 = ({4}, {5, 6, 8, 10}), ({4}, {5, 7, 9, 11})  # (12 is IRELATIVE there)
_SPARC = ({19}, {21, *range(56, 80)})
_MIPS, _S390, _ARC = ({126}, {127}), ({9}, {11, 54, 55, 56}), ({0x35}, {0x37, 0x42, 0x43, 0x44})
_RELOC_CLASSES: dict[tuple[int, int], tuple[set[int], set[int]]] = {
    (3, 32): ({5}, {7, 14, 35, 36, 37, 41}),  # i386
    (62, 64): _X86_64,
    (62, 32): _X86_64,  # x32
    (40, 32): ({20}, {22, 13, 17, 18, 19}),  # ARM
    (183, 64): ({1024}, {1026, 1028, 1029, 1030, 1031}),  # AArch64
    (183, 32): ({180}, {182, 184, 185, 186, 187}),  # AArch64 ILP32
    (8, 32): _MIPS,
    (8, 64): _MIPS,
    (10, 32): _MIPS,  # EM_MIPS_RS3_LE
    (20, 32): ({19}, {21, 10, 2, *range(68, 79)}),  # PowerPC
    (21, 64): ({19}, {2, *range(68, 101)}),  # PowerPC64: glibc leaves JMP_SLOT out of PLT
    (243, 32): _RISCV32,
    (243, 64): _RISCV64,
    (258, 32): _LARCH32,  # LoongArch
    (258, 64): _LARCH64,
    (2, 32): _SPARC,
    (18, 32): _SPARC,  # SPARC32PLUS
    (43, 64): _SPARC,  # SPARCV9
    (42, 32): ({162}, {164, 149, 150, 151}),  # SuperH
    (22, 32): _S390,
    (22, 64): _S390,
    (4, 32): ({19}, {21, 40, 41, 42}),  # m68k
    (93, 32): _ARC,
    (195, 32): _ARC,  # ARCv2
    (189, 32): ({21}, {17, 25, 26, 29}),  # MicroBlaze
    (113, 32): ({36}, {38, 33, 34, 35}),  # Nios II
    (252, 32): ({10}, {12, 56, 57, 58}),  # C-SKY
}
# Per-relocation flags folded per symbol: bit 0 = a non-PLT relocation, bit 1 = a COPY relocation.
_NORMAL, _PLT, _COPY = 1, 4, 2  # bits: a symbol can be named by relocations of several classes


def reloc_flags(machine: int, elf_class: int) -> dict[int, int]:
    """Relocation type -> fold flag (types missing from the map are NORMAL)."""
    copy, plt = _RELOC_CLASSES.get((machine, elf_class), (set(), set()))
    flags = dict.fromkeys(plt, _PLT)
    flags.update(dict.fromkeys(copy, _COPY))
    return flags


def symbol_count(img: Image, tags: dict[int, int], machine: int) -> int:
    """Number of dynamic symbols, from DT_HASH, DT_GNU_HASH or DT_MIPS_SYMTABNO."""
    if DT_HASH in tags:
        return img.u32(img.offset(tags[DT_HASH], 8, "DT_HASH") + 4, "DT_HASH")
    if DT_GNU_HASH in tags:
        return _gnu_hash_count(img, img.offset(tags[DT_GNU_HASH], 16, "DT_GNU_HASH"))
    if machine in MIPS_MACHINES and DT_MIPS_SYMTABNO in tags:
        return tags[DT_MIPS_SYMTABNO]
    if tags.get(DT_STRTAB, 0) > tags[DT_SYMTAB]:  # no hash table: assume .dynstr follows .dynsym
        return (tags[DT_STRTAB] - tags[DT_SYMTAB]) // (24 if img.is64 else 16)
    return 0


def _gnu_hash_count(img: Image, pos: int) -> int:
    data, e = img.data, img.e
    nbuckets, symoffset, bloom_size, _shift = struct.unpack_from(e + "4I", data, pos)
    buckets = pos + 16 + bloom_size * (8 if img.is64 else 4)
    chains = buckets + 4 * nbuckets
    if chains > len(data):
        raise ElfError("DT_GNU_HASH table extends past the end of the file")
    last = max(column(data[buckets:chains], "I", 0, 1, e == ">"), default=0)
    if last < symoffset:
        return symoffset
    return last + _chain_length(data, chains + 4 * (last - symoffset), e)


_LOW_BIT = bytes(i & 1 for i in range(256))


def _chain_length(data: Buffer, start: int, e: str) -> int:
    """Words from ``start`` up to and including the first with its low bit set (the end of a
    DT_GNU_HASH chain), found a chunk at a time: a hostile chain can run to the end of the file."""
    end = len(data) - (len(data) - start) % 4  # whole words only
    at, step = start, 256
    while at < end:
        stop = min(at + step, end)
        hit = data[at + (3 if e == ">" else 0) : stop : 4].translate(_LOW_BIT).find(1)
        if hit >= 0:
            return (at - start) // 4 + hit + 1
        at, step = stop, min(step * 4, 1 << 20)
    raise ElfError("DT_GNU_HASH chain extends past the end of the file")


class SymbolsBeyondCount(ElfError):
    """A relocation names a symbol past the count the hash table gives (``needed`` symbols)."""

    def __init__(self, needed: int, count: int) -> None:
        super().__init__(f"relocation names symbol {needed - 1} beyond the {count} dynamic symbols")
        self.needed = needed


def read_symbols(
    img: Image, tags: dict[int, int], strings: Strings, machine: int, at_least: int = 0, note: Note | None = None
) -> DynSymbols:
    """The whole dynamic symbol table, index 0 included, with versions resolved (``note`` hears of
    version chains that overlap).

    The hash table gives the count; ``at_least`` raises it when relocations name later symbols
    (a GNU hash table counts only the symbols it hashes: binutils writes an empty one for an
    executable that exports nothing, whatever it imports). glibc itself never needs the count.
    """
    data, e, is64 = img.data, img.e, img.is64
    entsize = 24 if is64 else 16  # every loader indexes an array of ElfW(Sym): DT_SYMENT is not read
    pos = img.offset(tags[DT_SYMTAB], 0, "DT_SYMTAB")
    count = min(max(symbol_count(img, tags, machine), at_least), (len(data) - pos) // entsize)
    raw = data[pos : pos + count * entsize]
    big = e == ">"
    if is64:  # Elf64_Sym: st_name, st_info, st_other, st_shndx, st_value, st_size
        name, value, shndx = column(raw, "I", 0, 6, big), column(raw, "Q", 1, 3, big), column(raw, "H", 3, 12, big)
        info, other = raw[4::24], raw[5::24]
    else:  # Elf32_Sym: st_name, st_value, st_size, st_info, st_other, st_shndx
        name, value, shndx = column(raw, "I", 0, 4, big), column(raw, "I", 1, 4, big), column(raw, "H", 7, 8, big)
        info, other = raw[12::16], raw[13::16]
    del raw
    far = strings.outside(name, "symbol name")
    versym, versions = None, UNVERSIONED
    if DT_VERSYM in tags:
        vpos = img.offset(tags[DT_VERSYM], 2 * count, "DT_VERSYM")
        versym = column(data[vpos : vpos + 2 * count], "H", 0, 1, big)
        vtab = version_table(img, tags, strings, note)
        versions = {}
        for entry_value in set(versym):
            index = entry_value & 0x7FFF
            entry = vtab[index] if 2 <= index < len(vtab) else None
            vname, vfile = entry if entry is not None else (None, None)
            versions[entry_value] = (vname, entry_value >= 0x8000, vfile, index)
    return DynSymbols(strings.table, far, name, info, other, shndx, value, versym, versions, machine in MIPS_MACHINES)


def _reloc_columns(img: Image, addr: int, size: int, rela: bool, mips64: bool) -> tuple[np.ndarray, np.ndarray]:
    """The symbol index and relocation type of each entry of one relocation table that names a
    symbol, as two arrays (decoded by numpy: a big library has hundreds of thousands).

    The entries are ElfW(Rel) or ElfW(Rela), as the loaders step through them; DT_RELENT and
    DT_RELAENT are not used for that (``elf_anomalies.check_entry_sizes`` reports odd values)."""
    is64, e = img.is64, img.e
    ent = (24 if rela else 16) if is64 else (12 if rela else 8)
    pos = img.offset(addr, size, "relocation table")
    count = size // ent
    if mips64:  # Elf64_Mips_Rel: r_sym (32 bits), r_ssym, r_type3, r_type2, r_type (bytes)
        fields = {"names": ["sym", "type"], "formats": [e + "u4", "u1"], "offsets": [8, 15], "itemsize": ent}
    elif is64:  # r_info = sym << 32 | type
        fields = {"names": ["info"], "formats": [e + "u8"], "offsets": [8], "itemsize": ent}
    else:  # r_info = sym << 8 | type
        fields = {"names": ["info"], "formats": [e + "u4"], "offsets": [4], "itemsize": ent}
    entries = np.frombuffer(bytes(img.data[pos : pos + count * ent]), dtype=np.dtype(fields))  # type: ignore[call-overload]
    if mips64:
        sym, rtype = entries["sym"].astype(np.int64), entries["type"].astype(np.int64)
    else:
        info = entries["info"].astype(np.uint64)
        shift, mask = (32, 0xFFFFFFFF) if is64 else (8, 0xFF)
        sym, rtype = (info >> np.uint64(shift)).astype(np.int64), (info & np.uint64(mask)).astype(np.int64)
    named = sym != 0
    return sym[named], rtype[named]


def relocation_tables(tags: dict[int, int], is64: bool) -> list[tuple[int, int, int, bool]]:
    """(address, size, entry size, rela) of each relocation table, in glibc's processing order:
    DT_REL then DT_RELA, each followed by DT_JMPREL when that is of its kind and not inside it."""
    has_rela = DT_RELA in tags or (DT_REL not in tags and is64)
    plt_rela = tags.get(DT_PLTREL, DT_RELA if has_rela else DT_REL) == DT_RELA
    tables = []
    for rela, (t_addr, t_size, t_ent) in (
        (False, (DT_REL, DT_RELSZ, DT_RELENT)),
        (True, (DT_RELA, DT_RELASZ, DT_RELAENT)),
    ):
        start, size = tags.get(t_addr), tags.get(t_size, 0)
        if start is not None and size:
            tables.append((start, size, tags.get(t_ent, 0), rela))
        if DT_JMPREL in tags and tags.get(DT_PLTRELSZ) and plt_rela == rela:
            jstart, jsize = tags[DT_JMPREL], tags[DT_PLTRELSZ]
            if start is None or not start <= jstart < start + size:  # not already inside DT_REL(A)
                tables.append((jstart, jsize, tags.get(t_ent, 0), rela))
    return tables


def read_references(
    img: Image, tags: dict[int, int], machine: int, elf_class: int, symbols: Sequence[DynSymbol]
) -> list[Reference]:
    """One Reference per symbol named by a relocation (or, on MIPS, by the global GOT)."""
    tables = relocation_tables(tags, img.is64)
    flags = reloc_flags(machine, elf_class)
    mips64 = machine in MIPS_MACHINES and img.is64
    nsyms = len(symbols)
    columns = [_reloc_columns(img, start, size, rela, mips64) for start, size, _ent, rela in tables]
    syms = np.concatenate([c[0] for c in columns]) if columns else np.zeros(0, np.int64)
    rtypes = np.concatenate([c[1] for c in columns]) if columns else np.zeros(0, np.int64)
    if len(syms) and int(syms.max()) >= nsyms:
        raise SymbolsBeyondCount(int(syms.max()) + 1, nsyms)
    bits = np.full(len(syms), _NORMAL, dtype=np.uint8)
    for rtype, flag in flags.items():
        bits[rtypes == rtype] = flag
    # folded per symbol, in order of first appearance: glibc looks each name up when it first needs it
    named, first, which = np.unique(syms, return_index=True, return_inverse=True)
    folded_bits = np.zeros(len(named), dtype=np.uint8)
    for bit in (_NORMAL, _PLT, _COPY):
        folded_bits[which[(bits & bit) != 0]] |= bit
    order = np.argsort(first, kind="stable")
    folded = dict(zip(named[order].tolist(), folded_bits[order].tolist(), strict=True))
    if machine in MIPS_MACHINES and DT_MIPS_GOTSYM in tags:
        # The global GOT entries gotsym..symtabno-1 are relocated by the loader without relocations.
        end = min(tags.get(DT_MIPS_SYMTABNO, nsyms), nsyms)
        for sym in range(max(tags[DT_MIPS_GOTSYM], 1), end):
            if symbols[sym].type != STT_SECTION:
                folded[sym] = folded.get(sym, 0) | _NORMAL
    # glibc looks a symbol up once per relocation class (its lookup cache is keyed by class too):
    # the same name can bind differently for a PLT slot and for a data reference.
    return [
        Reference(sym, cls)
        for sym, f in folded.items()
        for bit, cls in ((_COPY, RelocClass.COPY), (_NORMAL, RelocClass.NORMAL), (_PLT, RelocClass.PLT))
        if f & bit
    ]
