"""An ELF file as the loader sees it in memory: the PT_LOAD mappings, the dynamic array, strings.

The loaders map ``filesz`` bytes of each PT_LOAD segment at ``vaddr`` and zero-fill up to
``memsz``; they find the dynamic array at PT_DYNAMIC's ``p_vaddr`` and read it up to DT_NULL, and
read each string up to its NUL (docs/loaders.md, "Reading a file as the loaders read it").
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterator, Sequence

from ..errors import ElfError

DT_NULL = 0
DYNAMIC_CHUNK = 4096  # bytes of the dynamic array decoded at a time (a real one ends in the first)

Buffer = bytes | bytearray | mmap.mmap  # a file's bytes: in a scan, a read-only map (pages read when touched)
Bytes = bytes | bytearray  # a slice of a Buffer (a map's slices are bytes)


class Image:
    """The bytes of an ELF file with its class, byte order and PT_LOAD address map.

    ``loads`` holds ``(vaddr, filesz, offset, memsz)`` per PT_LOAD: the loader maps ``filesz``
    bytes of the file at ``vaddr`` and zero-fills up to ``memsz`` (glibc ``_dl_map_segments``,
    uClibc ``_dl_load_elf_shared_library``, musl ``map_library``; the kernel for the program).
    """

    __slots__ = ("data", "e", "is64", "loads")

    def __init__(self, data: Buffer, e: str, is64: bool, loads: list[tuple[int, int, int, int]]) -> None:
        self.data, self.e, self.is64, self.loads = data, e, is64, loads

    def offset(self, addr: int, size: int, what: str) -> int:
        """File offset of ``size`` bytes at virtual address ``addr``; ElfError if not in the file."""
        for vaddr, filesz, off, _memsz in self.loads:
            if vaddr <= addr < vaddr + filesz or (size == 0 and addr == vaddr + filesz):
                pos = off + addr - vaddr
                if size < 0 or pos + size > len(self.data):
                    raise ElfError(f"{what} at {addr:#x} (+{size:#x}) extends past the end of the file")
                return pos
        raise ElfError(f"{what} address {addr:#x} is not in any loaded segment")

    def mapped(self, addr: int) -> tuple[int, int, int] | None:
        """Where ``addr`` lies in the process image: (file offset, file bytes from there on, zero-filled
        bytes after those) within its PT_LOAD segment, or None when no segment maps it."""
        for vaddr, filesz, off, memsz in self.loads:
            if vaddr <= addr < vaddr + max(filesz, memsz):
                inside = addr - vaddr
                in_file = max(0, min(filesz, len(self.data) - off) - inside)
                return off + inside, in_file, max(filesz, memsz) - inside - in_file
        return None

    def u32(self, pos: int, what: str) -> int:
        if pos < 0 or pos + 4 > len(self.data):
            raise ElfError(f"{what} extends past the end of the file")
        return struct.unpack_from(self.e + "I", self.data, pos)[0]


def dynamic_entries(img: Image, addr: int) -> tuple[list[tuple[int, int]], bool]:
    """The dynamic array at ``addr`` as the loader reads it: from the mapped image, up to DT_NULL
    (glibc ``elf_get_dynamic_info``, uClibc ``_dl_parse_dynamic_info``, musl ``decode_vec``).

    Memory past a segment's file bytes is zero-filled (``sstrip`` cuts trailing zero bytes off a
    file and lowers ``p_filesz``), so a DT_NULL may lie there. Returns the (tag, value) pairs
    before DT_NULL and whether a DT_NULL was found (False: the array runs to the segment's end).
    """
    where = img.mapped(addr)
    if where is None:
        raise ElfError(f"PT_DYNAMIC address {addr:#x} is not in any loaded segment")
    pos, in_file, zeros = where
    fmt = img.e + ("QQ" if img.is64 else "II")
    pairs: list[tuple[int, int]] = []
    for chunk in _dynamic_chunks(img.data, pos, in_file, zeros, 16 if img.is64 else 8):
        for tag, val in struct.iter_unpack(fmt, chunk):
            if tag == DT_NULL:
                return pairs, True
            pairs.append((tag, val))
    return pairs, False


def _dynamic_chunks(data: Buffer, pos: int, in_file: int, zeros: int, entsize: int) -> Iterator[Bytes]:
    """Whole entries from ``pos`` on, a chunk at a time (only what is read up to DT_NULL is copied),
    then the last file bytes and the zero-filled memory after them."""
    whole = pos + in_file - in_file % entsize
    for at in range(pos, whole, DYNAMIC_CHUNK):
        yield data[at : min(at + DYNAMIC_CHUNK, whole)]
    tail = data[whole : pos + in_file] + bytes(min(zeros, 2 * entsize))
    yield tail[: len(tail) - len(tail) % entsize]


class Strings:
    """DT_STRTAB as DT_STRSZ sizes it, with a NUL after it: decoded once when it is plain ASCII
    (the common case), else bytes. ``table`` outlives the file's map: symbol names are cut from it
    when they are asked for (``dynsym.DynSymbols``).

    The loaders never look at DT_STRSZ: they read a string at ``DT_STRTAB + offset`` up to its NUL,
    wherever that is in the mapped image. So an offset past DT_STRSZ is still read, from ``memory``
    (``(data, start, end)``: the file bytes of the segment from DT_STRTAB on), and noted in ``beyond``.
    """

    __slots__ = ("beyond", "memory", "size", "table")

    def __init__(self, raw: Bytes, memory: tuple[Buffer, int, int] | None = None) -> None:
        self.size = len(raw)
        self.table: str | bytes = raw.decode("ascii") + "\0" if raw.isascii() else bytes(raw) + b"\0"  # NUL for find()
        self.memory = memory
        self.beyond: set[str] = set()  # what was read past DT_STRSZ

    def get(self, off: int, what: str = "string") -> str:
        return self.many([off], what)[0]

    def many(self, offsets: Sequence[int], what: str) -> list[str]:
        """The NUL-terminated strings at each offset (ElfError if one is outside the mapped image)."""
        if offsets and not 0 <= min(offsets) <= max(offsets) < self.size:
            return [self._one(off, what) for off in offsets]
        table = self.table
        if isinstance(table, str):
            find = table.find
            return [table[off : find("\0", off)] for off in offsets]
        find_b = table.find
        return [table[off : find_b(b"\0", off)].decode("utf-8", "surrogateescape") for off in offsets]

    def outside(self, offsets: Sequence[int], what: str) -> dict[int, str]:
        """The strings at the offsets past DT_STRSZ, by their position in ``offsets``, read now from the
        mapped image (ElfError if one is outside it); the others are cut from ``table`` when wanted."""
        if not offsets or 0 <= min(offsets) <= max(offsets) < self.size:
            return {}
        return {i: self._one(off, what) for i, off in enumerate(offsets) if not 0 <= off < self.size}

    def _one(self, off: int, what: str) -> str:
        if 0 <= off < self.size:
            return self.many([off], what)[0]
        data, start, end = self.memory or (b"", 0, 0)
        if off < 0 or start + off >= end:
            raise ElfError(f"{what} offset {off:#x} is outside the dynamic string table and its segment")
        self.beyond.add(what)
        stop = data.find(b"\0", start + off, end)
        return data[start + off : end if stop < 0 else stop].decode("utf-8", "surrogateescape")
