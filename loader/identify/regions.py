"""Which bytes of an ELF file hold its strings: the ranges the identification stage reads.

With section headers, the allocated data sections (``.rodata``, ``.data``, ``.data.rel.ro`` …: not
executable code, not ``NOBITS``); without them (sstripped files), the whole file. Every offset and
size is bounded by the file, and the ranges are read in windows of ``WINDOW`` bytes that overlap by
``OVERLAP``, so memory stays bounded whatever a header claims.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import BinaryIO

WINDOW = 16 << 20
OVERLAP = 1024  # longer than any signature's match: a match across a window edge is still seen
SHT_PROGBITS = 1
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
MAX_SECTIONS = 1 << 16


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
    out = []
    for i in range(shnum):
        _name, kind, flags, _addr, offset, length = entry.unpack_from(table, i * shentsize)
        if kind == SHT_PROGBITS and flags & SHF_ALLOC and not flags & SHF_EXECINSTR and length and offset < size:
            out.append((offset, min(length, size - offset)))
    return out


def string_ranges(fh: BinaryIO, size: int) -> list[tuple[int, int]]:
    """The (offset, size) ranges of ``fh`` (``size`` bytes) to match signatures in."""
    fh.seek(0)
    found = _sections(fh.read(64), fh, size)
    return sorted(found) if found else [(0, size)]


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
