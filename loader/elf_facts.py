"""Read what the dynamic loader needs from one ELF file: headers, dynamic segment, symbols, relocations.

For dynamic objects everything comes from the ELF header, the program headers and ``PT_DYNAMIC``,
never from section headers: firmware binaries are often ``sstrip``-ed and have none. Only
relocatable objects (kernel modules) are read through their section headers, for ``.modinfo``.
"""

from __future__ import annotations

import hashlib
import struct

from elftools.elf.enums import ENUM_E_MACHINE, ENUM_E_TYPE, ENUM_EI_OSABI

from . import elf_tables as t
from .errors import ElfError
from .model import ElfFacts, Kind

ELF_MAGIC = b"\x7fELF"
ET_REL, ET_EXEC, ET_DYN = 1, 2, 3
PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
PN_XNUM, SHN_XINDEX, SHT_NOBITS = 0xFFFF, 0xFFFF, 8
DF_SYMBOLIC, DF_1_PIE = 0x2, 0x08000000

# e_type / e_machine / EI_OSABI spelled as pyelftools decodes them (its enum maps, reversed).
_NAMES = {
    key: {v: k for k, v in enum.items() if k != "_default_"}
    for key, enum in (("ET", ENUM_E_TYPE), ("EM", ENUM_E_MACHINE), ("ELFOSABI", ENUM_EI_OSABI))
}

_EHDR = {False: "HHIIIIIHHHHHH", True: "HHIQQQIHHHHHH"}  # after e_ident
_PHDR = {False: ("IIIIIIII", 32), True: ("IIQQQQQQ", 56)}
_SHDR = {False: ("IIIIIIIIII", 40), True: ("IIQQQQIIQQ", 64)}


def is_elf(head: bytes) -> bool:
    """True if ``head`` (the first bytes of a file) starts with the ELF magic."""
    return head[:4] == ELF_MAGIC


def _name(prefix: str, value: int) -> str:
    return _NAMES[prefix].get(value) or f"{prefix}_{value:#x}"


def read_elf_facts(data: bytes, path: str, digest: str | None = None) -> ElfFacts:
    """Parse one ELF image (the whole file content) whose device path is ``path``.

    ``digest`` is the content's sha256 when the caller has it already. Raises ElfError with a
    one-line message for truncated, corrupt or hostile input.
    """
    try:
        return _read(data, path, digest)
    except ElfError as exc:
        raise ElfError(f"{path}: {exc}") from None
    except (struct.error, IndexError, ValueError, KeyError, OverflowError, UnicodeDecodeError) as exc:
        raise ElfError(f"{path}: corrupt ELF file ({type(exc).__name__}: {exc})") from None


def _read(data: bytes, path: str, digest: str | None = None) -> ElfFacts:
    if not is_elf(data):
        raise ElfError("not an ELF file (bad magic)")
    if len(data) < 16 or data[4] not in (1, 2) or data[5] not in (1, 2):
        raise ElfError("truncated or invalid ELF identification (class / byte order)")
    is64, e = data[4] == 2, "<" if data[5] == 1 else ">"
    if len(data) < (64 if is64 else 52):
        raise ElfError("truncated ELF header")
    header = struct.unpack_from(e + _EHDR[is64], data, 16)
    e_type, e_machine, _version, _entry, phoff, shoff, e_flags, _ehsize, phentsize, phnum = header[:10]
    facts = ElfFacts(
        path=path,
        size=len(data),
        sha256=digest or hashlib.sha256(data).hexdigest(),
        kind=Kind.OTHER_ELF,
        elf_class=64 if is64 else 32,
        endian="little" if e == "<" else "big",
        machine=_name("EM", e_machine),
        osabi=_name("ELFOSABI", data[7]),
        elf_type=_name("ET", e_type),
        flags=e_flags,
    )
    sections = _Sections(data, e, is64, shoff, *header[10:])  # e_shentsize, e_shnum, e_shstrndx
    if phnum == PN_XNUM:
        phnum = sections.first()[7]  # sh_info of section 0 holds the real count
    loads, dynamic, interp = _program_headers(data, e, is64, phoff, phentsize, phnum)
    if interp is not None:
        pos, size = interp
        facts.interpreter = data[pos : pos + size].split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
    if dynamic is not None:
        facts.dynamic = True
        _read_dynamic(t.Image(data, e, is64, loads), dynamic, e_machine, facts)
    facts.kind = _kind(facts, e_type, sections, path)
    return facts


def _program_headers(
    data: bytes, e: str, is64: bool, phoff: int, phentsize: int, phnum: int
) -> tuple[list[tuple[int, int, int]], tuple[int, int] | None, tuple[int, int] | None]:
    """(PT_LOAD map, PT_DYNAMIC (offset, size) or None, PT_INTERP (offset, size) or None)."""
    fmt, base = _PHDR[is64]
    if phnum and phentsize < base:
        raise ElfError(f"program header entry size {phentsize} is smaller than {base}")
    if phnum and phoff + phnum * phentsize > len(data):
        raise ElfError("program headers extend past the end of the file (truncated?)")
    loads: list[tuple[int, int, int]] = []
    dynamic = interp = None
    for i in range(phnum):
        rec = struct.unpack_from(e + fmt, data, phoff + i * phentsize)
        if is64:
            p_type, _pflags, offset, vaddr, _paddr, filesz, _memsz, _align = rec
        else:
            p_type, offset, vaddr, _paddr, filesz, _memsz, _pflags, _align = rec
        if p_type not in (PT_LOAD, PT_DYNAMIC, PT_INTERP):
            continue
        if offset + filesz > len(data):
            kind = {PT_LOAD: "PT_LOAD", PT_DYNAMIC: "PT_DYNAMIC", PT_INTERP: "PT_INTERP"}[p_type]
            raise ElfError(
                f"{kind} segment at offset {offset:#x} (+{filesz:#x}) extends past the end "
                f"of the file ({len(data):#x} bytes, truncated?)"
            )
        if p_type == PT_LOAD:
            loads.append((vaddr, filesz, offset))
        elif p_type == PT_DYNAMIC:
            dynamic = (offset, filesz)
        elif interp is None:
            interp = (offset, filesz)
    return loads, dynamic, interp


def _read_dynamic(img: t.Image, dynamic: tuple[int, int], machine: int, facts: ElfFacts) -> None:
    pos, size = dynamic
    entsize = 16 if img.is64 else 8
    tags: dict[int, int] = {}
    needed: list[int] = []
    for tag, val in struct.iter_unpack(
        img.e + ("QQ" if img.is64 else "II"), img.data[pos : pos + size - size % entsize]
    ):
        if tag == t.DT_NULL:
            break
        if tag == t.DT_NEEDED:
            needed.append(val)
        tags[tag] = val  # the last one wins, as in glibc's l_info
    if t.DT_STRTAB in tags:
        strsz = tags.get(t.DT_STRSZ, 0)
        spos = img.offset(tags[t.DT_STRTAB], strsz, "DT_STRTAB")
        strings = t.Strings(img.data[spos : spos + strsz])
    elif needed or {t.DT_SONAME, t.DT_RPATH, t.DT_RUNPATH, t.DT_SYMTAB} & tags.keys():
        raise ElfError("dynamic section has strings or symbols but no DT_STRTAB")
    else:
        strings = t.Strings(b"")
    facts.needed = [strings.get(off, "DT_NEEDED") for off in needed]
    if t.DT_SONAME in tags:
        facts.soname = strings.get(tags[t.DT_SONAME], "DT_SONAME")
    if t.DT_RPATH in tags:
        facts.rpath = [p for p in strings.get(tags[t.DT_RPATH], "DT_RPATH").split(":") if p]
    if t.DT_RUNPATH in tags:
        facts.runpath = [p for p in strings.get(tags[t.DT_RUNPATH], "DT_RUNPATH").split(":") if p]
    facts.dt_flags = tags.get(t.DT_FLAGS, 0)
    facts.dt_flags_1 = tags.get(t.DT_FLAGS_1, 0)
    facts.symbolic = t.DT_SYMBOLIC in tags or bool(facts.dt_flags & DF_SYMBOLIC)
    facts.has_versym = t.DT_VERSYM in tags
    if t.DT_SYMTAB in tags:
        facts.symbols = t.read_symbols(img, tags, strings, machine)
        try:
            facts.references = t.read_references(img, tags, machine, facts.elf_class, facts.symbols)
        except t.SymbolsBeyondCount as short:
            facts.symbols = t.read_symbols(img, tags, strings, machine, at_least=short.needed)
            facts.references = t.read_references(img, tags, machine, facts.elf_class, facts.symbols)


class _Sections:
    """Lazy access to section headers, used only for ET_REL files and the PN_XNUM escape."""

    def __init__(
        self, data: bytes, e: str, is64: bool, shoff: int, shentsize: int, shnum: int, shstrndx: int
    ) -> None:
        self.data, self.e, self.is64 = data, e, is64
        self.shoff, self.shentsize, self.shnum, self.shstrndx = shoff, shentsize, shnum, shstrndx

    def _header(self, index: int) -> tuple[int, ...]:
        fmt, base = _SHDR[self.is64]
        if not self.shoff or self.shentsize < base:
            raise ElfError("no usable section headers")
        pos = self.shoff + index * self.shentsize
        if pos + base > len(self.data):
            raise ElfError("section headers extend past the end of the file (truncated?)")
        return struct.unpack_from(self.e + fmt, self.data, pos)

    def first(self) -> tuple[int, ...]:
        return self._header(0)  # both classes: name, type, flags, addr, offset, size, link, info, ...

    def contents(self, sh: tuple[int, ...]) -> bytes:
        offset, size = sh[4], sh[5]
        if sh[1] == SHT_NOBITS:
            return b""
        if offset + size > len(self.data):
            raise ElfError("section contents extend past the end of the file (truncated?)")
        return self.data[offset : offset + size]

    def find(self, wanted: str) -> tuple[int, ...] | None:
        if not self.shoff:
            return None
        shnum = self.shnum or self.first()[5]  # section 0's sh_size holds a count >= SHN_LORESERVE
        if shnum * self.shentsize > len(self.data):
            raise ElfError(f"absurd section header count {shnum}")
        strndx = self.first()[6] if self.shstrndx == SHN_XINDEX else self.shstrndx
        names = self.contents(self._header(strndx))
        target = wanted.encode() + b"\0"
        for i in range(shnum):
            sh = self._header(i)
            if names[sh[0] : sh[0] + len(target)] == target:
                return sh
        return None


def _kind(facts: ElfFacts, e_type: int, sections: _Sections, path: str) -> Kind:
    if e_type == ET_EXEC:
        return Kind.EXECUTABLE
    if e_type == ET_DYN:
        if facts.dt_flags_1 & DF_1_PIE:
            return Kind.EXECUTABLE
        if facts.soname is not None:
            return Kind.LIBRARY
        return Kind.EXECUTABLE if facts.interpreter is not None else Kind.LIBRARY
    if e_type == ET_REL:
        modinfo = sections.find(".modinfo")
        if modinfo is not None:
            facts.modinfo = _parse_modinfo(sections.contents(modinfo))
        if modinfo is not None or path.endswith(".ko"):
            return Kind.KERNEL_MODULE
    return Kind.OTHER_ELF


def _parse_modinfo(raw: bytes) -> dict[str, str]:
    """``key=value`` strings separated by NULs; repeated keys (alias, parm) are joined by newlines."""
    info: dict[str, str] = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.decode("utf-8", "surrogateescape").partition("=")
        if sep and key:
            info[key] = f"{info[key]}\n{value}" if key in info else value
    return info
