"""Kernel files built from scratch: ELF files of named sections (:func:`elf64`), kernel modules
with export tables as each kernel generation writes them (:func:`exporting_module`), a ``vmlinux``
with linked export tables (:func:`vmlinux`) and a raw image whose tables are found only by their
shape (:func:`raw_image`). Little-endian x86-64, the field layouts of include/linux/export.h."""

from __future__ import annotations

import struct
from dataclasses import dataclass

SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_NOBITS = 1, 2, 3, 4, 8
SHF_ALLOC, SHF_COMPRESSED = 0x2, 0x800
ET_REL, ET_EXEC = 1, 2
R_X86_64_64, R_X86_64_PC32 = 1, 2
BANNER = b"Linux version 6.1.0 (builder@host) (gcc 12) #1 SMP\n"


@dataclass
class Sec:
    name: str
    type: int
    data: bytes = b""
    flags: int = 0
    addr: int = 0
    link: int = 0
    info: int = 0
    entsize: int = 0
    size: int | None = None  # the header's sh_size, when not len(data)
    same_as: str | None = None  # the header's offset and size are those of this section


def elf64(sections: list[Sec], e_type: int = ET_REL) -> bytes:
    """An ELF file of these sections (indexes from 1, after the null one), ``.shstrtab`` last."""
    names = bytearray(b"\0")
    name_at = []
    for sec in [*sections, Sec(".shstrtab", SHT_STRTAB)]:
        name_at.append(len(names))
        names += sec.name.encode() + b"\0"
    secs = [*sections, Sec(".shstrtab", SHT_STRTAB, bytes(names))]
    body = bytearray(64)
    placed: dict[str, tuple[int, int]] = {}
    for sec in secs:
        placed[sec.name] = (len(body), len(sec.data) if sec.size is None else sec.size)
        body += sec.data
    shoff = len(body)
    body += bytes(64)  # the null section
    for sec, name in zip(secs, name_at, strict=True):
        offset, size = placed[sec.same_as or sec.name]
        body += struct.pack(
            "<IIQQQQIIQQ", name, sec.type, sec.flags, sec.addr, offset, size, sec.link, sec.info, 1, sec.entsize
        )
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    fields = (e_type, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(secs) + 1, len(secs))
    body[:64] = ident + struct.pack("<HHIQQQIHHHHHH", *fields)
    return bytes(body)


def _symbol(name: int, info: int, shndx: int, value: int = 0) -> bytes:
    return struct.pack("<IBBHQQ", name, info, 0, shndx, value, 0)


def module(modinfo: Sec, *extra: Sec, defined: tuple[str, ...] = ()) -> bytes:
    """A module needing ``printk``: ``modinfo`` (section 1), ``.symtab`` (2), ``.strtab`` (3),
    ``.text`` (4) holding the functions ``defined`` (8 bytes each), then ``extra`` (from 5). Symbol 1
    is the section symbol of section 6 (an export module's ``__ksymtab_strings``), symbols 2.. the
    ``defined`` functions, the last ``printk``."""
    strtab = bytearray(b"\0")
    symbols = bytearray(bytes(24) + _symbol(0, 0x03, 6))  # null; STB_LOCAL STT_SECTION
    for i, name in enumerate(defined):
        symbols += _symbol(len(strtab), 0x12, 4, 8 * i)  # STB_GLOBAL STT_FUNC in .text
        strtab += name.encode() + b"\0"
    symbols += _symbol(len(strtab), 0x10, 0)  # STB_GLOBAL, undefined
    strtab += b"printk\0"
    sections = [
        modinfo,
        Sec(".symtab", SHT_SYMTAB, bytes(symbols), link=3, info=2, entsize=24),
        Sec(".strtab", SHT_STRTAB, bytes(strtab)),
        Sec(".text", SHT_PROGBITS, bytes(8 * len(defined)), flags=SHF_ALLOC | 0x4),
        *extra,
    ]
    return elf64(sections)


def exporting_module(
    exports: dict[str, str], relative: bool, namespace: bool, flags: dict[str, int] | None = None
) -> bytes:
    """A module exporting ``exports`` (name -> table section) through relocated entries, as
    ``EXPORT_SYMBOL`` (or modpost) writes them; ``flags``: a ``__kflagstab`` byte per export."""
    names = list(exports)
    strings = bytearray()
    at: dict[str, int] = {}
    for name in names:
        at[name] = len(strings)
        strings += name.encode() + b"\0"
    empty = len(strings)
    strings += b"\0"
    width = 4 if relative else 8
    kind, fmt = (R_X86_64_PC32, "<i") if relative else (R_X86_64_64, "<Q")
    # section 5 is empty, 6 the strings (symbol 1 is its section symbol), then each table and its relocations
    extra = [Sec(".note.pad", SHT_PROGBITS), Sec("__ksymtab_strings", SHT_PROGBITS, bytes(strings), flags=SHF_ALLOC)]
    for table in dict.fromkeys(exports.values()):
        entries, relocs = bytearray(), bytearray()
        for name in [n for n in names if exports[n] == table]:
            base = len(entries)
            targets = [(2 + names.index(name), 0), (1, at[name])] + ([(1, empty)] if namespace else [])
            for field, (sym, addend) in enumerate(targets):
                relocs += struct.pack("<QQq", base + field * width, (sym << 32) | kind, addend)
            entries += struct.pack(fmt, 0) * len(targets)
        index = 5 + len(extra)
        extra += [
            Sec(table, SHT_PROGBITS, bytes(entries), flags=SHF_ALLOC),
            Sec(f".rela{table}", SHT_RELA, bytes(relocs), link=2, info=index, entsize=24),
        ]
    if flags is not None:
        extra.append(Sec("__kflagstab", SHT_PROGBITS, bytes(flags[n] for n in names), flags=SHF_ALLOC))
    return module(Sec(".modinfo", SHT_PROGBITS, b"license=GPL\0name=exporter\0"), *extra, defined=tuple(names))


def vmlinux(names: list[str], strings_at: int = 0x200000, table_at: int = 0x100000) -> bytes:
    """A linked kernel whose ``__ksymtab`` has one absolute ``{value, name}`` entry per name."""
    strings = b"".join(n.encode() + b"\0" for n in names)
    offsets = [strings.index(n.encode() + b"\0") for n in names]
    table = b"".join(struct.pack("<QQ", 0xFFFF0000 + 8 * i, strings_at + o) for i, o in enumerate(offsets))
    return elf64(
        [
            Sec("__ksymtab", SHT_PROGBITS, table, flags=SHF_ALLOC, addr=table_at),
            Sec("__ksymtab_strings", SHT_PROGBITS, strings, flags=SHF_ALLOC, addr=strings_at),
        ],
        ET_EXEC,
    )


def raw_image(count: int = 80) -> bytes:
    """A raw image (banner, x86-64 prologues) whose export table, place-relative entries of three
    fields (Linux 5.4 and later), is found only by its shape: ``count`` names, sorted."""
    names = [f"sym_{i:04}" for i in range(count)]
    head = BANNER + b"\x55\x48\x89\xe5" * 16
    head += bytes(-len(head) % 16)
    strings_at = len(head) + 12 * count + 16
    strings = b"".join(n.encode() + b"\0" for n in names) + b"\0"
    offsets = [strings.index(n.encode() + b"\0") for n in names]
    table = bytearray()
    for off in offsets:
        place = len(head) + len(table)
        fields = (-place - 0x1000, strings_at + off - (place + 4), strings_at + len(strings) - 1 - (place + 8))
        table += struct.pack("<iii", *fields)
    return head + bytes(table) + bytes(16) + strings
