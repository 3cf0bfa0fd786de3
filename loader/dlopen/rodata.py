"""What a module says about the libraries it may dlopen: the strings of its allocated read-only
data, and the sonames of its ELF ``.note.dlopen`` notes.

Strings come from the allocated, read-only, non-executable ``SHT_PROGBITS`` sections (``.rodata``,
``.rodata.str1.1`` ...) when the file has section headers; without them (``sstrip``) from the
PT_LOAD segments the loader maps without write permission, less the dynamic string table (whose
names are DT_NEEDED entries, not dlopen arguments). Every range is bounded by the file.

The note is the FDO dlopen metadata note of the UAPI group's "ELF dlopen metadata" specification
(https://uapi-group.org/specifications/specs/elf_dlopen_metadata/, also systemd's
``docs/ELF_DLOPEN_METADATA.md`` and ``SD_ELF_NOTE_DLOPEN(3)``): a 4-byte aligned note of owner
``FDO`` and type ``0x407c0c0a`` whose descriptor is a NUL-terminated JSON array of objects, each
with ``soname`` (a list of sonames, alternatives for one feature), ``feature``, ``description``
and ``priority`` (``required``, ``recommended``, ``suggested``). Parsers look the note up by type,
not by section name, in ``SHT_NOTE`` sections or, without section headers, in ``PT_NOTE`` segments.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..elf.image import Buffer, Bytes, Image, dynamic_entries
from ..elf.sections import SectionHeaders

FDO_DLOPEN_METADATA = 0x407C0C0A
NOTE_OWNER = b"FDO\0"
PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_NOTE = 1, 2, 3, 4
PF_X, PF_W = 1, 2
SHT_PROGBITS, SHT_NOTE = 1, 7
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 1, 2, 4
DT_STRTAB, DT_STRSZ = 5, 10
MAX_STRING = 4096  # longer printable runs are not file names
MAX_NOTE_SONAMES = 4096  # sonames taken from one file's notes
_PHDR = {False: ("IIIIIIII", 32), True: ("IIQQQQQQ", 56)}
_PRINTABLE = re.compile(rb"[\x20-\x7e]+")


@dataclass
class DlopenHints:
    """The strings that may name libraries, and the sonames the module's notes declare."""

    strings: list[str] = field(default_factory=list)
    declared: list[str] = field(default_factory=list)


def read_hints(data: Buffer) -> DlopenHints:
    """The hints of one ELF file's content (raises ``struct.error``/``ValueError``/``ElfError``/
    ``IndexError`` on a corrupt file; the caller records a problem)."""
    is64, e = data[4] == 2, "<" if data[5] == 1 else ">"
    head = struct.unpack_from(e + ("HHIQQQIHHHHHH" if is64 else "HHIIIIIHHHHHH"), data, 16)
    phoff, shoff, phentsize, phnum = head[4], head[5], head[8], head[9]
    segments = _segments(data, e, is64, phoff, phentsize, phnum)
    sections = SectionHeaders(data, e, is64, shoff, *head[10:])
    headers = sections.headers() if shoff else []
    ranges: list[tuple[int, int]] = []
    notes: list[tuple[int, int]] = []
    if headers:
        for sh in headers:
            kind, flags, offset, size = sh[1], sh[2], sh[4], sh[5]
            if kind == SHT_NOTE:
                notes.append((offset, size))
            elif kind == SHT_PROGBITS and flags & SHF_ALLOC and not flags & (SHF_WRITE | SHF_EXECINSTR):
                ranges.append((offset, size))
    else:
        notes = [(off, size) for kind, _flags, off, _vaddr, size in segments if kind == PT_NOTE]
        ranges = _read_only_segments(data, e, is64, segments)
    interp = [(off, off + size) for kind, _f, off, _v, size in segments if kind == PT_INTERP]
    ranges = _without(ranges, interp)  # the interpreter's name is no dlopen argument
    hints = DlopenHints()
    for offset, size in ranges:
        hints.strings += _library_strings(data, offset, min(offset + size, len(data)))
    hints.strings = list(dict.fromkeys(hints.strings))  # each once, in file order
    for offset, size in notes:
        for soname in _note_sonames(data[offset : min(offset + size, len(data))], e):
            if soname not in hints.declared and len(hints.declared) < MAX_NOTE_SONAMES:
                hints.declared.append(soname)
    return hints


def _library_strings(data: Buffer, start: int, end: int) -> Iterator[str]:
    """The C strings of ``data[start:end]`` with ``.so`` in them: the printable ASCII run (4 to
    MAX_STRING characters) that ends in a NUL, whatever byte precedes it (the data before a string
    need not end in a NUL: a pointer, say). Found from each ``.so`` outwards, so the time is linear
    in the range (a scan of every printable run would be quadratic in long ones)."""
    pos = start
    while (at := data.find(b".so", pos, end)) >= 0:
        stop = data.find(b"\0", at, min(end, at + MAX_STRING))
        if stop < 0:  # no NUL soon after: not a C string (or too long for a file name)
            pos = at + 3
            continue
        pos = stop + 1
        low = max(start, stop - MAX_STRING)
        window = bytes(data[low:stop])
        if not _PRINTABLE.fullmatch(window, at - low):  # a byte that is no text between .so and the NUL
            continue
        first = at - low
        while first and 0x20 <= window[first - 1] <= 0x7E:  # back to the byte before the printable run
            first -= 1
        if first == 0 and low > start:  # longer than MAX_STRING
            continue
        if len(window) - first >= 4:
            yield window[first:].decode("ascii")


def _segments(
    data: Buffer, e: str, is64: bool, phoff: int, phentsize: int, phnum: int
) -> list[tuple[int, int, int, int, int]]:
    """(type, flags, offset, vaddr, filesz) of every program header that lies in the file."""
    fmt, base = _PHDR[is64]
    if phentsize < base or phoff + phnum * phentsize > len(data):
        return []
    out = []
    for i in range(phnum):
        rec = struct.unpack_from(e + fmt, data, phoff + i * phentsize)
        if is64:
            kind, flags, offset, vaddr, _paddr, filesz = rec[:6]
        else:
            kind, offset, vaddr, _paddr, filesz, _memsz, flags = rec[:7]
        if offset + filesz <= len(data):
            out.append((kind, flags, offset, vaddr, filesz))
    return out


def _read_only_segments(
    data: Buffer, e: str, is64: bool, segments: list[tuple[int, int, int, int, int]]
) -> list[tuple[int, int]]:
    """File ranges of the PT_LOAD segments mapped without write permission, the dynamic string
    table cut out of them."""
    loads = [(vaddr, size, off, size) for kind, _f, off, vaddr, size in segments if kind == PT_LOAD]
    ranges = [(off, size) for kind, flags, off, _v, size in segments if kind == PT_LOAD and not flags & PF_W]
    dynamic = next((vaddr for kind, _f, _o, vaddr, _s in segments if kind == PT_DYNAMIC), None)
    if dynamic is None:
        return ranges
    img = Image(data, e, is64, loads)
    tags = dict(dynamic_entries(img, dynamic)[0])
    where = img.mapped(tags[DT_STRTAB]) if DT_STRTAB in tags else None
    if where is None:
        return ranges
    return _without(ranges, [(where[0], where[0] + min(tags.get(DT_STRSZ, 0), where[1]))])


def _without(ranges: list[tuple[int, int]], cuts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """File ranges ``(offset, size)`` less the ``(start, end)`` ranges of ``cuts``."""
    for start, end in cuts:
        kept = []
        for off, size in ranges:
            if start < off + size and off < end:
                kept += [(off, start - off), (end, off + size - end)]
            else:
                kept.append((off, size))
        ranges = [(off, size) for off, size in kept if size > 0]
    return ranges


def _note_sonames(raw: Bytes, e: str) -> list[str]:
    """The sonames of every FDO dlopen note in a run of notes (others skipped; malformed JSON or a
    note running past its section ends the reading of that note)."""
    out: list[str] = []
    pos = 0
    while pos + 12 <= len(raw):
        namesz, descsz, kind = struct.unpack_from(e + "III", raw, pos)
        name_at = pos + 12
        desc_at = name_at + (namesz + 3) // 4 * 4
        end = desc_at + (descsz + 3) // 4 * 4
        if desc_at + descsz > len(raw):
            break
        if kind == FDO_DLOPEN_METADATA and raw[name_at : name_at + namesz] == NOTE_OWNER:
            out += _sonames(raw[desc_at : desc_at + descsz])
        pos = end
    return out


def _sonames(desc: Bytes) -> list[str]:
    try:
        entries = json.loads(desc.split(b"\0", 1)[0].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return []
    found: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        names = entry.get("soname") if isinstance(entry, dict) else None
        found += (
            [n for n in names or [] if isinstance(n, str) and n and "\0" not in n] if isinstance(names, list) else []
        )
    return found
