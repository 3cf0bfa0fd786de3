"""The ld.so.cache reader: every format glibc and uClibc-ng write, in either byte order.

Cache formats (glibc ``elf/cache.c``, ``sysdeps/generic/dl-cache.h``; uClibc-ng ``ldso/include/dl-defs.h``):

* ``glibc-old`` / ``uclibc``: ``"ld.so-1.7.0"`` + pad + ``uint32 nlibs``, then ``nlibs`` entries
  ``{int32 flags; uint32 key, value}``; offsets count from the end of the entry table.  Both
  libraries write the same bytes; a table holding uClibc flag values (``LIB_ELF_LIBC0`` = 4,
  ``LIB_ELF64`` = 0x80) or no glibc ones (type ``FLAG_ELF_LIBC6`` = 3, an ABI byte) is ``uclibc``.
* ``glibc-new``: ``"glibc-ld.so.cache1.1"``, ``nlibs``, ``len_strings``, ``flags`` (endianness:
  2 little, 3 big, 1 invalid, 0 unknown), ``extension_offset``; 48 bytes, then entries
  ``{int32 flags; uint32 key, value, osversion; uint64 hwcap}``; offsets count from the header.
* ``glibc-old+new``: a new cache at the 8-byte aligned end of an old table; the new one is read.

Byte order comes from the endianness flag, else from which reading of ``nlibs`` fits the file.
``LdCache.lookup`` answers as the loader would, with the flags each ABI accepts
(``_dl_cache_check_flags``). The configuration ldconfig builds the cache from is read by ``ld_conf``.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass

from ..errors import LdconfigError

FLAG_TYPE_MASK, FLAG_REQUIRED_MASK = 0x00FF, 0xFF00
FLAG_ELF, FLAG_ELF_LIBC5, FLAG_ELF_LIBC6 = 0x0001, 0x0002, 0x0003
FLAG_SPARC_LIB64, FLAG_IA64_LIB64, FLAG_X8664_LIB64 = 0x0100, 0x0200, 0x0300
FLAG_S390_LIB64, FLAG_POWERPC_LIB64 = 0x0400, 0x0500
FLAG_MIPS64_LIBN32, FLAG_MIPS64_LIBN64, FLAG_X8664_LIBX32 = 0x0600, 0x0700, 0x0800
FLAG_ARM_LIBHF, FLAG_AARCH64_LIB64, FLAG_ARM_LIBSF = 0x0900, 0x0A00, 0x0B00
FLAG_MIPS_LIB32_NAN2008, FLAG_MIPS64_LIBN32_NAN2008, FLAG_MIPS64_LIBN64_NAN2008 = 0x0C00, 0x0D00, 0x0E00
FLAG_RISCV_FLOAT_ABI_SOFT, FLAG_RISCV_FLOAT_ABI_DOUBLE = 0x0F00, 0x1000
FLAG_LARCH_FLOAT_ABI_SOFT, FLAG_LARCH_FLOAT_ABI_DOUBLE = 0x1100, 0x1200
LIB_ELF64, LIB_ELF_LIBC0 = 0x80, 4  # uClibc only
UCLIBC_ACCEPTED = frozenset({FLAG_ELF, FLAG_ELF_LIBC5, LIB_ELF_LIBC0})  # ldso/ldso/dl-elf.c, exact match

OLD_MAGIC = b"ld.so-1.7.0"
NEW_MAGIC = b"glibc-ld.so.cache1.1"
EXTENSION_MAGIC = 0xEAA42174
HWCAP_EXTENSION = 1 << 62
_OLD_HEAD, _OLD_ENTRY = "11sxI", "iII"  # 16 and 12 bytes
_ORDER_NAME = {"<": "little", ">": "big"}
_NEW_HEAD, _NEW_ENTRY = "20sIIB3xI12x", "iIIIQ"  # 48 and 24 bytes


def _libc6(*abi: int) -> frozenset[int]:
    return frozenset(a | FLAG_ELF_LIBC6 for a in abi)


# (machine, ELF class) -> flags glibc's _dl_cache_check_flags accepts; absent: generic (1 or 3).
_ABI_FLAGS: dict[tuple[str, int], frozenset[int]] = {
    ("EM_X86_64", 64): _libc6(FLAG_X8664_LIB64),
    ("EM_X86_64", 32): _libc6(FLAG_X8664_LIBX32),
    ("EM_AARCH64", 64): _libc6(FLAG_AARCH64_LIB64),
    ("EM_PPC64", 64): _libc6(FLAG_POWERPC_LIB64),
    ("EM_S390", 64): _libc6(FLAG_S390_LIB64),
    ("EM_SPARCV9", 64): _libc6(FLAG_SPARC_LIB64),
    ("EM_IA_64", 64): _libc6(FLAG_IA64_LIB64),
    ("EM_MIPS", 64): _libc6(FLAG_MIPS64_LIBN64, FLAG_MIPS64_LIBN64_NAN2008),
    ("EM_MIPS", 32): _libc6(0, FLAG_MIPS_LIB32_NAN2008, FLAG_MIPS64_LIBN32, FLAG_MIPS64_LIBN32_NAN2008) | {FLAG_ELF},
    ("EM_ARM", 32): _libc6(0, FLAG_ARM_LIBHF, FLAG_ARM_LIBSF),
    **{("EM_RISCV", c): _libc6(FLAG_RISCV_FLOAT_ABI_SOFT, FLAG_RISCV_FLOAT_ABI_DOUBLE) for c in (32, 64)},
    ("EM_LOONGARCH", 64): _libc6(FLAG_LARCH_FLOAT_ABI_SOFT, FLAG_LARCH_FLOAT_ABI_DOUBLE),
}
_GENERIC = frozenset({FLAG_ELF, FLAG_ELF_LIBC6})


def accepted_flags(elf_class: int, machine: str, e_flags: int | None = None) -> frozenset[int]:
    """Cache flags a glibc loader for this ABI accepts (sysdeps ``_dl_cache_check_flags``).

    Without ``e_flags`` every float/NaN/N32 variant of the machine is accepted; with it the set
    narrows the way ldconfig's ``readelflib.c`` classifies an object with those ``e_flags``.
    """
    bits = {1: 32, 2: 64}.get(elf_class, elf_class)
    flags = _ABI_FLAGS.get((str(machine), bits), _GENERIC)
    if e_flags is None:
        return flags
    if machine == "EM_MIPS":
        nan2008 = bool(e_flags & 0x400)  # EF_MIPS_NAN2008
        if bits == 64:
            return _libc6(FLAG_MIPS64_LIBN64_NAN2008 if nan2008 else FLAG_MIPS64_LIBN64)
        if e_flags & 0x20:  # EF_MIPS_ABI2: n32
            return _libc6(FLAG_MIPS64_LIBN32_NAN2008 if nan2008 else FLAG_MIPS64_LIBN32)
        return _libc6(FLAG_MIPS_LIB32_NAN2008) if nan2008 else _GENERIC
    if machine == "EM_ARM" and e_flags >> 24 == 5:  # EABI version 5
        if e_flags & 0x400:  # EF_ARM_ABI_FLOAT_HARD
            return _libc6(0, FLAG_ARM_LIBHF)
        if e_flags & 0x200:  # EF_ARM_ABI_FLOAT_SOFT
            return _libc6(0, FLAG_ARM_LIBSF)
    if machine == "EM_RISCV" and e_flags & 0x6 in (0, 4):  # EF_RISCV_FLOAT_ABI soft / double
        return _libc6(FLAG_RISCV_FLOAT_ABI_DOUBLE if e_flags & 0x6 else FLAG_RISCV_FLOAT_ABI_SOFT)
    if machine == "EM_LOONGARCH" and e_flags & 0x7 in (1, 3):
        return _libc6(FLAG_LARCH_FLOAT_ABI_DOUBLE if e_flags & 0x7 == 3 else FLAG_LARCH_FLOAT_ABI_SOFT)
    return flags


def _libcmp_key(name: str) -> tuple[str | int, ...]:
    """Equal keys iff glibc's ``_dl_cache_libcmp`` says equal (digit runs compare as numbers)."""
    return tuple(int(p) if i % 2 else p for i, p in enumerate(re.split(r"([0-9]+)", name)))


@dataclass(frozen=True)
class CacheEntry:
    name: str
    path: str
    flags: int
    hwcap: int | None  # None in formats without the field (old glibc table, uClibc)
    hwcaps_subdir: str | None = None  # glibc-hwcaps subdirectory of an extension entry


@dataclass
class LdCache:
    format: str  # "glibc-old", "glibc-new", "glibc-old+new", "uclibc"
    entries: list[CacheEntry]
    byteorder: str = "little"
    generator: str | None = None

    def lookup(self, name: str, elf_class: int, machine: str, e_flags: int | None = None) -> list[str]:
        """Paths the loader would try for ``name``, in cache order, for a requester of this ABI.

        uClibc tries every entry named exactly ``name`` whose flags are 1, 2 or 4, in order.  glibc
        keeps entries whose flags pass ``_dl_cache_check_flags`` (see ``accepted_flags``) and
        whose ``hwcap`` is 0: glibc-hwcaps entries need a CPU better than the baseline (a static
        tool cannot know the CPU, so it assumes the baseline) and legacy hwcap entries are ignored
        since glibc 2.37.  The old glibc table has no hwcap field, so its entries from glibc-hwcaps
        directories are kept: ld.so reading that table opens them.  glibc opens only one path;
        as ldconfig sorts a name's entries by flags descending, it is the first one here.
        """
        if self.format == "uclibc":
            return [e.path for e in self.entries if e.name == name and e.flags in UCLIBC_ACCEPTED]
        ok = accepted_flags(elf_class, machine, e_flags)
        return [e.path for e in self._by_key().get(_libcmp_key(name), ()) if e.flags in ok and not e.hwcap]

    def _by_key(self) -> dict[tuple[str | int, ...], list[CacheEntry]]:
        """Entries grouped by comparison key, in cache order (built once)."""
        index = self.__dict__.get("_index")
        if index is None:
            index = {}
            for e in self.entries:
                index.setdefault(_libcmp_key(e.name), []).append(e)
            self.__dict__["_index"] = index
        return index


def _cstr(data: bytes, offset: int, what: str) -> str:
    end = data.find(b"\0", offset) if 0 <= offset < len(data) else -1
    if end < 0:
        raise LdconfigError(f"ld.so.cache: {what} string at {offset:#x} outside the data ({len(data)} bytes)")
    return os.fsdecode(data[offset:end])


def _count_fits(data: bytes, order: str, head: str, entry: str) -> int | None:
    """``nlibs`` read in ``order`` if the header and that many entries fit in ``data``."""
    size = struct.calcsize(head)
    if len(data) < size:
        return None
    nlibs = struct.unpack_from(order + head, data)[1]
    return nlibs if size + nlibs * struct.calcsize(entry) <= len(data) else None


def _extension(data: bytes, order: str, offset: int, base: int) -> tuple[list[str | None], str | None]:
    """glibc-hwcaps names and generator string; malformed extensions are ignored, as ld.so does."""
    names: list[str | None] = []
    generator = None
    if offset == 0 or offset % 4 or offset + 8 > len(data):
        return names, generator
    magic, count = struct.unpack_from(order + "II", data, offset)
    if magic != EXTENSION_MAGIC or offset + 8 + 16 * count > len(data):
        return names, generator
    for tag, _flags, start, size in struct.iter_unpack(order + "IIII", data[offset + 8 :][: 16 * count]):
        if start + size > len(data):
            return [], None
        if tag == 0:
            generator = data[start : start + size].decode("utf-8", "replace")
        elif tag == 1 and size % 4 == 0 and start % 4 == 0:
            for (index,) in struct.iter_unpack(order + "I", data[start : start + size]):
                # ldconfig writes these relative to the new header; ld.so reads them from the file
                # start, which only agrees without an old table in front (a glibc bug for compat).
                try:
                    names.append(_cstr(data, base + index, "glibc-hwcaps"))
                except LdconfigError:
                    names.append(None)
    return names, generator


def _read_new(data: bytes, base: int, fmt: str, order: str | None) -> LdCache:
    view = data[base:]
    if len(view) < 48:
        raise LdconfigError(f"ld.so.cache: truncated new-format header ({len(data)} bytes)")
    endian = view[28] & 3
    if endian == 1:
        raise LdconfigError("ld.so.cache: the new-format header marks the cache invalid (endianness 1)")
    if endian:
        order = "<" if endian == 2 else ">"
    order = order or next((o for o in "<>" if _count_fits(view, o, _NEW_HEAD, _NEW_ENTRY) is not None), "<")
    if _count_fits(view, order, _NEW_HEAD, _NEW_ENTRY) is None:
        raise LdconfigError(f"ld.so.cache: truncated: entry table runs past the end ({len(data)} bytes)")
    _magic, nlibs, len_strings, _flags, ext_offset = struct.unpack_from(order + _NEW_HEAD, view)
    table_end = 48 + 24 * nlibs
    if table_end + len_strings > len(view):
        need = base + table_end + len_strings
        raise LdconfigError(f"ld.so.cache: truncated: string table needs {need} bytes, file has {len(data)}")
    hwcaps, generator = _extension(data, order, ext_offset, base)
    entries = []
    for flags, key, value, _os, hwcap in struct.iter_unpack(order + _NEW_ENTRY, view[48:table_end]):
        subdir = None
        if (hwcap >> 32) & ~0x3FF == HWCAP_EXTENSION >> 32 and (hwcap & 0xFFFFFFFF) < len(hwcaps):
            subdir = hwcaps[hwcap & 0xFFFFFFFF]
        entries.append(CacheEntry(_cstr(view, key, "name"), _cstr(view, value, "path"), flags, hwcap, subdir))
    return LdCache(fmt, entries, _ORDER_NAME[order], generator)


def _read_old(data: bytes) -> LdCache:
    orders = [o for o in "<>" if _count_fits(data, o, _OLD_HEAD, _OLD_ENTRY) is not None]
    if not orders:
        raise LdconfigError(f"ld.so.cache: truncated old-format cache ({len(data)} bytes)")
    for order in orders:  # both fit only when nlibs reads the same both ways (0): try each
        nlibs = struct.unpack_from(order + _OLD_HEAD, data)[1]
        end = 16 + 12 * nlibs
        for new_at in ((end + 7) & -8, (end + 3) & -4):  # a new cache hidden in the string table?
            if data[new_at : new_at + len(NEW_MAGIC)] == NEW_MAGIC:
                return _read_new(data, new_at, "glibc-old+new", order)
        try:
            entries = [
                CacheEntry(_cstr(data[end:], key, "name"), _cstr(data[end:], value, "path"), flags, None)
                for flags, key, value in struct.iter_unpack(order + _OLD_ENTRY, data[16:end])
            ]
        except LdconfigError:
            if order == orders[-1]:
                raise
            continue
        kinds = {e.flags & FLAG_TYPE_MASK for e in entries}
        uclibc = LIB_ELF_LIBC0 in kinds or any(e.flags & LIB_ELF64 for e in entries)
        glibc = FLAG_ELF_LIBC6 in kinds or any(e.flags & FLAG_REQUIRED_MASK for e in entries)
        return LdCache("uclibc" if uclibc or not glibc else "glibc-old", entries, _ORDER_NAME[order])
    raise AssertionError("unreachable")


def read_ld_so_cache(data: bytes) -> LdCache:
    """Parse an ld.so.cache of any supported format and byte order (see the module docstring)."""
    if data.startswith(NEW_MAGIC):
        return _read_new(data, 0, "glibc-new", None)
    if data.startswith(OLD_MAGIC):
        return _read_old(data)
    raise LdconfigError(f"ld.so.cache: unknown magic {data[:20]!r}")
