"""Which bytes of an ELF file hold its strings: the ranges the identification stage reads.

With section headers, the allocated data sections (``.rodata``, ``.data`` …: not executable code,
not ``NOBITS``) and the sections naming its package (``.note.package``, ``.gnu_debugaltlink``),
less those that hold no text: relocated pointers, unwind and exception tables, the GOT, Go's line
and type tables (``NO_TEXT``: half the data bytes of a host's ``/usr`` and ``/opt``); without
section headers (sstripped files), the whole file. Every offset and size is bounded by the file,
ranges that overlap are merged (65,000 headers over the same bytes are read once: the bytes
matched are at most the file's size), and the ranges are read in windows of ``WINDOW`` bytes that
overlap by ``OVERLAP``, so memory stays bounded whatever a header claims.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import BinaryIO

WINDOW = 16 << 20
OVERLAP = 1024  # longer than any signature's match: a match across a window edge is still seen
SHT_PROGBITS = 1
# sections that are not allocated data and hold text naming the file's package: the distribution's
# package name and version (ELF package metadata), Debian's shared debugging data (named after the
# binary package)
PACKAGE_SECTIONS = frozenset({b".note.package", b".gnu_debugaltlink"})
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
MAX_SECTIONS = 1 << 16
MAX_NAMES = 1 << 20  # bytes of the section-name table read at most
# allocated data sections that hold no string literals (their pointers point into .rodata)
NO_TEXT = frozenset(
    {
        b".data.rel.ro",
        b".data.rel.ro.local",
        b".eh_frame",
        b".eh_frame_hdr",
        b".gcc_except_table",
        b".got",
        b".got.plt",
        b".gopclntab",
        b".typelink",
        b".itablink",
    }
)


def _sections(head: bytes, fh: BinaryIO, size: int) -> list[tuple[int, int]] | None:
    """(offset, size) of the allocated, not executable PROGBITS sections; None without usable headers."""
    if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
        return None
    wide, order = head[4] == 2, "<" if head[5] == 1 else ">"
    if wide:
        shoff, shentsize, shnum = (
            struct.unpack_from(order + "Q", head, 0x28)[0],
            *struct.unpack_from(order + "HH", head, 0x3A),
        )
        entry = struct.Struct(order + "IIQQQQ")  # name, type, flags, addr, offset, size
    else:
        shoff, shentsize, shnum = (
            struct.unpack_from(order + "I", head, 0x20)[0],
            *struct.unpack_from(order + "HH", head, 0x2E),
        )
        entry = struct.Struct(order + "IIIIII")
    if shoff == 0 or shnum == 0 or shnum > MAX_SECTIONS or shentsize < entry.size or shoff + shnum * shentsize > size:
        return None
    fh.seek(shoff)
    table = fh.read(shnum * shentsize)
    rows = [entry.unpack_from(table, i * shentsize) for i in range(shnum)]
    names = _names(fh, size, rows, struct.unpack_from(order + "H", head, 0x3E if wide else 0x32)[0])
    out = []
    for name, kind, flags, _addr, offset, length in rows:
        data = kind == SHT_PROGBITS and flags & SHF_ALLOC and not flags & SHF_EXECINSTR
        section = _name_at(names, name)
        data = data or section in PACKAGE_SECTIONS
        if data and length and offset < size and section not in NO_TEXT:
            out.append((offset, min(length, size - offset)))
    return out


def _names(fh: BinaryIO, size: int, rows: list[tuple[int, ...]], index: int) -> bytes:
    """The section-name table (bounded by the file and ``MAX_NAMES``); empty when there is none."""
    if not 0 < index < len(rows):
        return b""
    offset, length = rows[index][4], rows[index][5]
    if offset >= size:
        return b""
    fh.seek(offset)
    return fh.read(min(length, size - offset, MAX_NAMES))


def _name_at(names: bytes, at: int) -> bytes:
    end = names.find(b"\0", at)
    return names[at:end] if 0 <= at < len(names) and end >= 0 else b""


def merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``ranges`` (offset, size) sorted, those that overlap joined into one (ranges that only touch
    stay apart, as their sections are): no byte is in two of them, so their sizes add up to at
    most the file's size."""
    out: list[tuple[int, int]] = []
    for start, length in sorted(ranges):
        if out and start < out[-1][0] + out[-1][1]:
            last_start, last_length = out[-1]
            out[-1] = (last_start, max(last_length, start + length - last_start))
        else:
            out.append((start, length))
    return out


def string_ranges(fh: BinaryIO, size: int) -> list[tuple[int, int]]:
    """The (offset, size) ranges of ``fh`` (``size`` bytes) to match signatures in: disjoint, so the
    bytes matched in a file are at most its size, however many section headers cover the same bytes."""
    fh.seek(0)
    found = _sections(fh.read(64), fh, size)
    return merged(found) if found else [(0, size)]


def windows(fh: BinaryIO, ranges: list[tuple[int, int]]) -> Iterator[tuple[int, bytes]]:
    """(file offset, bytes) of each window of the ranges, in order."""
    for start, length in ranges:
        done = 0
        while done < length:
            fh.seek(start + done)
            data = fh.read(min(WINDOW, length - done))
            if not data:
                break
            yield start + done, data
            if done + len(data) >= length or len(data) <= OVERLAP:
                break
            done += len(data) - OVERLAP
