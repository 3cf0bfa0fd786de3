"""Read what the dynamic loader needs from one ELF file: headers, dynamic segment, symbols, relocations.

For dynamic objects everything comes from the ELF header, the program headers and ``PT_DYNAMIC``,
never from section headers: firmware binaries are often ``sstrip``-ed and have none. Only
relocatable objects (kernel modules) are read through their section headers, for ``.modinfo``.
"""

from __future__ import annotations

import hashlib
import struct
from typing import NamedTuple

from elftools.elf.enums import ENUM_E_MACHINE, ENUM_E_TYPE, ENUM_EI_OSABI

from ..errors import ElfError
from ..model import ElfFacts, Kind
from ..problems import ProblemCode
from . import tables as t
from .anomalies import check_dynamic, check_entry_sizes, check_sections
from .image import Buffer, Bytes, Image, Strings, dynamic_entries
from .prelink import is_prelinked, read_prelink
from .sections import SectionHeaders

ELF_MAGIC = b"\x7fELF"
ET_REL, ET_EXEC, ET_DYN = 1, 2, 3
PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
PT_GNU_STACK, PT_GNU_RELRO = 0x6474E551, 0x6474E552
PN_XNUM = 0xFFFF
DF_SYMBOLIC, DF_1_PIE = 0x2, 0x08000000

# e_type / e_machine / EI_OSABI spelled as pyelftools decodes them (its enum maps, reversed).
_NAMES = {
    key: {v: k for k, v in enum.items() if k != "_default_"}
    for key, enum in (("ET", ENUM_E_TYPE), ("EM", ENUM_E_MACHINE), ("ELFOSABI", ENUM_EI_OSABI))
}

_EHDR = {False: "HHIIIIIHHHHHH", True: "HHIQQQIHHHHHH"}  # after e_ident
_PHDR = {False: ("IIIIIIII", 32), True: ("IIQQQQQQ", 56)}


class Digests(NamedTuple):
    """A file's content hashes (hex), both from one read of it: SHA-256, which names a module
    everywhere, and SHA-1, which SPDX 2.3 requires of every File (docs/sbom.md)."""

    sha256: str
    sha1: str


def is_elf(head: Buffer) -> bool:
    """True if ``head`` (the first bytes of a file) starts with the ELF magic."""
    return head[:4] == ELF_MAGIC


def _name(prefix: str, value: int) -> str:
    return _NAMES[prefix].get(value) or f"{prefix}_{value:#x}"


def read_elf_facts(data: Buffer, path: str, digests: Digests | None = None) -> ElfFacts:
    """Parse one ELF image (the whole file content: bytes, or a map of the file) whose device path
    is ``path``. Nothing returned refers to ``data``: a map can be closed once this returns.

    ``digests`` are the content's hashes when the caller has them already. Raises ElfError with a
    one-line message for truncated, corrupt or hostile input.
    """
    try:
        return _read(data, path, digests)
    except ElfError as exc:
        raise ElfError(f"{path}: {exc}") from None
    except (struct.error, IndexError, ValueError, KeyError, OverflowError, UnicodeDecodeError) as exc:
        raise ElfError(f"{path}: corrupt ELF file ({type(exc).__name__}: {exc})") from None


def header_facts(data: Buffer, path: str, digests: Digests | None = None) -> ElfFacts | None:
    """What the ELF header alone says of a file whose rest cannot be read (``Kind.OTHER_ELF``:
    class, byte order, machine, type), or None when the header itself is not complete."""
    try:
        return _header(data, path, digests)[0]
    except (ElfError, struct.error):
        return None


def _header(data: Buffer, path: str, digests: Digests | None) -> tuple[ElfFacts, tuple[int, ...], str, bool]:
    """The facts of the ELF header, the header's fields after ``e_ident``, the byte order and the class."""
    if not is_elf(data):
        raise ElfError("not an ELF file (bad magic)")
    if len(data) < 16 or data[4] not in (1, 2) or data[5] not in (1, 2):
        raise ElfError("truncated or invalid ELF identification (class / byte order)")
    is64, e = data[4] == 2, "<" if data[5] == 1 else ">"
    if len(data) < (64 if is64 else 52):
        raise ElfError("truncated ELF header")
    header = struct.unpack_from(e + _EHDR[is64], data, 16)
    e_type, e_machine, e_version, _entry, _phoff, _shoff, e_flags, _ehsize, phentsize = header[:9]
    if digests is None:
        digests = Digests(hashlib.sha256(data).hexdigest(), hashlib.sha1(data).hexdigest())
    facts = ElfFacts(
        path=path,
        size=len(data),
        sha256=digests.sha256,
        sha1=digests.sha1,
        kind=Kind.OTHER_ELF,
        elf_class=64 if is64 else 32,
        endian="little" if e == "<" else "big",
        machine=_name("EM", e_machine),
        osabi=_name("ELFOSABI", data[7]),
        elf_type=_name("ET", e_type),
        flags=e_flags,
        ident=bytes(data[:16]),
        version=e_version,
        phentsize_ok=phentsize == _PHDR[is64][1],
    )
    return facts, header, e, is64


def _read(data: Buffer, path: str, digests: Digests | None) -> ElfFacts:
    facts, header, e, is64 = _header(data, path, digests)
    e_type, e_machine, _version, entry, phoff, shoff, _flags, _ehsize, phentsize, phnum = header[:10]
    sections = SectionHeaders(data, e, is64, shoff, *header[10:])  # e_shentsize, e_shnum, e_shstrndx
    if phnum == PN_XNUM:
        phnum = sections.first()[7]  # sh_info of section 0 holds the real count
    loads, dynamic, interp = _program_headers(data, e, is64, phoff, phentsize, phnum, facts)
    if interp is not None:
        pos, size = interp
        end = data.find(b"\0", pos, pos + size)
        facts.interpreter = data[pos : pos + size if end < 0 else end].decode("utf-8", "surrogateescape")
    if dynamic is not None:
        facts.dynamic = True
        tags = _read_dynamic(Image(data, e, is64, loads), dynamic, e_machine, facts)
        if e_type != ET_REL:
            check_sections(sections, dynamic[1], tags, facts)
    facts.kind = _kind(facts, e_type, entry, sections, path)
    return facts


def _program_headers(
    data: Buffer, e: str, is64: bool, phoff: int, phentsize: int, phnum: int, facts: ElfFacts
) -> tuple[list[tuple[int, int, int, int]], tuple[int, int, int] | None, tuple[int, int] | None]:
    """(PT_LOAD map, PT_DYNAMIC (offset, vaddr, filesz) or None, PT_INTERP (offset, size) or None).

    The kernel reads PT_INTERP from the file (``load_elf_binary``: ``p_offset``, ``p_filesz``);
    the loaders find the dynamic array at PT_DYNAMIC's ``p_vaddr`` in the mapped image, so its
    file offset and size are only compared (``elf_anomalies.check_dynamic``), never trusted.
    PT_GNU_STACK's and PT_GNU_RELRO's flags go to ``facts.marks`` (``elf.hardening``; the last
    PT_GNU_STACK, as the kernel and glibc keep the last).
    """
    fmt, base = _PHDR[is64]
    if phnum and phentsize < base:
        raise ElfError(f"program header entry size {phentsize} is smaller than {base}")
    if phnum and phoff + phnum * phentsize > len(data):
        raise ElfError("program headers extend past the end of the file (truncated?)")
    loads: list[tuple[int, int, int, int]] = []
    dynamic = interp = None
    for i in range(phnum):
        rec = struct.unpack_from(e + fmt, data, phoff + i * phentsize)
        if is64:
            p_type, pflags, offset, vaddr, _paddr, filesz, memsz, _align = rec
        else:
            p_type, offset, vaddr, _paddr, filesz, memsz, pflags, _align = rec
        if p_type in (PT_GNU_STACK, PT_GNU_RELRO):
            facts.marks[p_type] = pflags
        if p_type not in (PT_LOAD, PT_DYNAMIC, PT_INTERP):
            continue
        if p_type != PT_DYNAMIC and offset + filesz > len(data):
            kind = "PT_LOAD" if p_type == PT_LOAD else "PT_INTERP"
            raise ElfError(
                f"{kind} segment at offset {offset:#x} (+{filesz:#x}) extends past the end "
                f"of the file ({len(data):#x} bytes, truncated?)"
            )
        if p_type == PT_LOAD:
            loads.append((vaddr, filesz, offset, memsz))
        elif p_type == PT_DYNAMIC:
            dynamic = (offset, vaddr, filesz)
        elif interp is None:
            interp = (offset, filesz)
    return loads, dynamic, interp


def _read_dynamic(img: Image, dynamic: tuple[int, int, int], machine: int, facts: ElfFacts) -> dict[int, int]:
    """Fill ``facts`` from the dynamic array the loader reads; returns its tags (the last of each)."""
    entries, terminated = dynamic_entries(img, dynamic[1])
    check_dynamic(img, dynamic, len(entries), facts)
    if not terminated:
        facts.note(
            ProblemCode.DYNAMIC_SIZE_MISMATCH,
            f"the dynamic array at {dynamic[1]:#x} has no DT_NULL before the end of its segment",
        )
    tags: dict[int, int] = {}
    needed: list[int] = []
    for tag, val in entries:
        if tag == t.DT_NEEDED:
            needed.append(val)
        tags[tag] = val  # the last one wins, as in glibc's l_info
    check_entry_sizes(img.is64, tags, facts)
    if t.DT_STRTAB in tags:
        strings = _strings(img, tags[t.DT_STRTAB], tags.get(t.DT_STRSZ, 0))
    elif needed or {t.DT_SONAME, t.DT_RPATH, t.DT_RUNPATH, t.DT_SYMTAB} & tags.keys():
        raise ElfError("dynamic section has strings or symbols but no DT_STRTAB")
    else:
        strings = Strings(b"")
    facts.needed = strings.many(needed, "DT_NEEDED")
    if t.DT_SONAME in tags:
        facts.soname = strings.get(tags[t.DT_SONAME], "DT_SONAME")
    if t.DT_RPATH in tags:
        facts.rpath_raw = strings.get(tags[t.DT_RPATH], "DT_RPATH")
        facts.rpath = [p for p in facts.rpath_raw.split(":") if p]
    if t.DT_RUNPATH in tags:
        facts.runpath_raw = strings.get(tags[t.DT_RUNPATH], "DT_RUNPATH")
        facts.runpath = [p for p in facts.runpath_raw.split(":") if p]
    facts.dt_flags = tags.get(t.DT_FLAGS, 0)
    facts.dt_flags_1 = tags.get(t.DT_FLAGS_1, 0)
    facts.marks.update((tag, tags[tag]) for tag in (t.DT_BIND_NOW, t.DT_TEXTREL) if tag in tags)
    facts.symbolic = t.DT_SYMBOLIC in tags or bool(facts.dt_flags & DF_SYMBOLIC)
    facts.has_versym = t.DT_VERSYM in tags
    if t.DT_SYMTAB in tags:
        facts.symbols = t.read_symbols(img, tags, strings, machine, note=facts.note)
        try:
            facts.references = t.read_references(img, tags, machine, facts.elf_class, facts.symbols)
        except t.SymbolsBeyondCount as short:
            facts.symbols = t.read_symbols(img, tags, strings, machine, at_least=short.needed)
            facts.references = t.read_references(img, tags, machine, facts.elf_class, facts.symbols)
    if is_prelinked(tags):
        facts.prelink = read_prelink(img, tags, strings)
    if strings.beyond:
        facts.note(
            ProblemCode.STRTAB_SIZE_MISMATCH,
            f"DT_STRSZ {tags.get(t.DT_STRSZ, 0):#x} is smaller than the strings the loader reads "
            f"({', '.join(sorted(strings.beyond))} past it); read up to each NUL as the loader does",
        )
    return tags


def _strings(img: Image, addr: int, strsz: int) -> Strings:
    """DT_STRTAB as DT_STRSZ sizes it, and the rest of its segment for strings read past DT_STRSZ."""
    where = img.mapped(addr)
    if where is None:
        raise ElfError(f"DT_STRTAB address {addr:#x} is not in any loaded segment")
    pos, in_file, _zeros = where
    return Strings(img.data[pos : pos + min(strsz, in_file)], (img.data, pos, pos + in_file))


def _kind(facts: ElfFacts, e_type: int, entry: int, sections: SectionHeaders, path: str) -> Kind:
    """A PIE is an executable; an ET_DYN object with PT_INTERP but no soname is one only when it has
    an entry point (plugins built with the program's flags carry PT_INTERP and e_entry 0)."""
    if e_type == ET_EXEC:
        return Kind.EXECUTABLE
    if e_type == ET_DYN:
        if facts.dt_flags_1 & DF_1_PIE:
            return Kind.EXECUTABLE
        if facts.soname is not None:
            return Kind.LIBRARY
        return Kind.EXECUTABLE if facts.interpreter is not None and entry else Kind.LIBRARY
    if e_type == ET_REL:
        modinfo = sections.find(".modinfo")
        if modinfo is not None:
            facts.modinfo = parse_modinfo(sections.contents(modinfo))
        if modinfo is not None or path.endswith(".ko"):
            return Kind.KERNEL_MODULE
    return Kind.OTHER_ELF


def parse_modinfo(raw: Bytes) -> dict[str, str]:
    """``key=value`` strings separated by NULs; repeated keys (alias, parm) are joined by newlines."""
    values: dict[str, list[str]] = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.decode("utf-8", "surrogateescape").partition("=")
        if sep and key:
            values.setdefault(key, []).append(value)
    return {key: "\n".join(parts) for key, parts in values.items()}  # joined once: linear in the bytes
