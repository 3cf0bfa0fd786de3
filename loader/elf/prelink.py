"""Read the prelink data glibc's loader uses: DT_GNU_LIBLIST, DT_CHECKSUM, DT_GNU_PRELINKED,
DT_GNU_CONFLICT, and the value prelink wrote into each symbol slot (loader/ldso/prelink.py uses them).

Every table is found by its dynamic tag's address through the PT_LOAD mappings, as glibc reads
it (``l_info``), and each count is bounded by the bytes the file holds.
"""

from __future__ import annotations

import struct

from ..errors import ElfError
from ..model import PrelinkInfo
from . import tables as t
from .image import Image, Strings

DT_GNU_PRELINKED, DT_GNU_CONFLICTSZ, DT_GNU_LIBLISTSZ, DT_CHECKSUM = 0x6FFFFDF5, 0x6FFFFDF6, 0x6FFFFDF7, 0x6FFFFDF8
DT_GNU_CONFLICT, DT_GNU_LIBLIST = 0x6FFFFEF8, 0x6FFFFEF9
LIB_SIZE = 20  # Elf32_Lib and Elf64_Lib: l_name, l_time_stamp, l_checksum, l_version, l_flags (all 32-bit words)


def is_prelinked(tags: dict[int, int]) -> bool:
    """A prelinked library (DT_GNU_PRELINKED) or program (DT_GNU_LIBLIST)."""
    return DT_GNU_PRELINKED in tags or DT_GNU_LIBLIST in tags


def read_prelink(img: Image, tags: dict[int, int], strings: Strings) -> PrelinkInfo | None:
    """The prelink data, or None when a table cannot be read (the object is then bound by lookups)."""
    try:
        return _read(img, tags, strings)
    except (ElfError, struct.error):
        return None


def _read(img: Image, tags: dict[int, int], strings: Strings) -> PrelinkInfo:
    liblist = None
    if DT_GNU_LIBLIST in tags:
        liblist = []
        for name, stamp, checksum, _version, _flags in _records(
            img, tags[DT_GNU_LIBLIST], tags.get(DT_GNU_LIBLISTSZ, 0), LIB_SIZE, "5I"
        ):
            liblist.append((strings.get(name, "DT_GNU_LIBLIST name"), stamp, checksum))
    conflicts = []
    if DT_GNU_CONFLICT in tags:
        size, fmt = (24, "QQq") if img.is64 else (12, "IIi")
        for r_offset, r_info, r_addend in _records(
            img, tags[DT_GNU_CONFLICT], tags.get(DT_GNU_CONFLICTSZ, 0), size, fmt
        ):
            conflicts.append((r_offset, r_info & (0xFFFFFFFF if img.is64 else 0xFF), r_addend))
    return PrelinkInfo(
        checksum=tags.get(DT_CHECKSUM),
        timestamp=tags.get(DT_GNU_PRELINKED),
        liblist=liblist,
        conflicts=conflicts,
        loads=[(vaddr, max(filesz, memsz)) for vaddr, filesz, _off, memsz in img.loads],
        slots=_slots(img, tags),
    )


def _records(img: Image, addr: int, size: int, entsize: int, fmt: str) -> list[tuple]:
    """The ``size // entsize`` records at ``addr``, as many as the file holds there."""
    where = img.mapped(addr)
    if where is None:
        raise ElfError(f"prelink table address {addr:#x} is not in any loaded segment")
    pos, in_file, _zeros = where
    count = min(size, in_file) // entsize
    return list(struct.iter_unpack(img.e + fmt, img.data[pos : pos + count * entsize]))


def _slots(img: Image, tags: dict[int, int]) -> list[tuple[int, int, int, int | None, int]]:
    """(symbol index, r_offset, type, value in the file, addend) of each relocation naming a symbol.

    REL relocations get addend 0: prelink keeps no REL relocation of an adding type with a non-zero
    addend (it turns such a section into RELA), so a REL slot holds the symbol's address itself."""
    is64 = img.is64
    word = 8 if is64 else 4
    out = []
    for start, size, ent, rela in t.relocation_tables(tags, is64):
        base = (24 if rela else 16) if is64 else (12 if rela else 8)
        ent = ent or base
        if ent < base:
            raise ElfError(f"relocation entry size {ent} is smaller than {base}")
        if ent > min(size, len(img.data)):
            continue  # no whole entry (and no format string as large as a hostile DT_RELENT)
        fmt = ("QQ" if is64 else "II") + ("q" if is64 else "i") * rela + "x" * (ent - base)
        for rec in _records(img, start, size, ent, fmt):
            r_offset, r_info = rec[0], rec[1]
            sym, rtype = (r_info >> 32, r_info & 0xFFFFFFFF) if is64 else (r_info >> 8, r_info & 0xFF)
            if sym:
                out.append((sym, r_offset, rtype, _word(img, r_offset, word), rec[2] if rela else 0))
    return out


def _word(img: Image, addr: int, word: int) -> int | None:
    """The word at ``addr`` in the process image before relocation (zero-filled past the file bytes)."""
    where = img.mapped(addr)
    if where is None:
        return None
    pos, in_file, zeros = where
    if in_file + zeros < word:
        return None
    raw = img.data[pos : pos + min(in_file, word)] + bytes(max(0, word - in_file))
    return int.from_bytes(raw, "little" if img.e == "<" else "big")
