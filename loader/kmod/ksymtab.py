"""A relocatable module's export tables, read through their relocations.

Every layout since Linux 2.6 writes one ``struct kernel_symbol`` per export into a table section
and the names into ``__ksymtab_strings``; in a ``.ko`` (``ET_REL``) the fields are not filled in
but relocated, so each field is found through its relocation, whatever the field width:

* before 4.19 (and on architectures without ``CONFIG_HAVE_ARCH_PREL32_RELOCATIONS``, such as
  MIPS): ``{unsigned long value; const char *name;}``, absolute relocations;
* 4.19 (commit 7290d5809571 "module: use relative references for __ksymtab entries"):
  ``{int value_offset; int name_offset;}``, place-relative relocations;
* 5.4 (commit 8651ec01daed "module: add support for symbol namespaces"): a third field, the
  namespace, pointing into ``__ksymtab_strings`` as well;
* 6.5 (commit ddb5cdbafaaa "kbuild: generate KSYMTAB entries by modpost"): the same entries,
  now written by modpost into the ``.mod.c`` file instead of by ``EXPORT_SYMBOL`` itself.

Which kind an export is was, until the flag table, the section it sits in (``__ksymtab``,
``__ksymtab_gpl``, ``__ksymtab_gpl_future`` and, before 5.13, ``__ksymtab_unused(_gpl)``). The
series "scalable symbol flags with __kflagstab" (Siddharth Nayyar, 2025; kernel commits 55fcb92
"module: use kflagstab instead of *_gpl sections" and b4760ff "module: deprecate usage of *_gpl
sections in module loader", in mainline by 2026) puts every export into ``__ksymtab`` and one
byte per entry, in the same order, into ``__kflagstab``; bit 0 (``KSYM_FLAG_GPL_ONLY``,
include/linux/module_symbol.h) marks GPL-only exports. Both tables are sorted by symbol name by
the module linker script (``SORT(___ksymtab+*)``, ``SORT(___kflagstab+*)``), so entry *i* of one
is entry *i* of the other.

An entry starts at a relocation whose target lies outside ``__ksymtab_strings`` (the exported
symbol); the next relocation into the strings is its name, the one after that its namespace.

Sections are read as kmod reads them: their bytes in the file as they are (``SHF_COMPRESSED``
is not undone, ``SHT_NOBITS`` is not special), refused past the end of the file. The
relocations of a table are bounded before they are read: one per 4 bytes of the table at most,
:data:`MAX_TABLE_RELOCATIONS` in all, from relocation sections that do not overlap.
"""

from __future__ import annotations

import itertools
import struct
from dataclasses import dataclass

from elftools.common.exceptions import ELFError, ELFParseError
from elftools.construct import ConstructError
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import Section, SymbolTableSection

from ..problems import ProblemCode
from .model import Export, ExportKind

STRINGS = "__ksymtab_strings"
FLAGS = "__kflagstab"
KSYM_FLAG_GPL_ONLY = 1 << 0
# Two or three relocated fields per export; the kernel itself has about 30,000 exports, the
# largest modules a few thousand: a table with more relocations than this is not read.
MAX_TABLE_RELOCATIONS = 1 << 17
FIELD_BYTES = 4  # the narrowest relocated field of a struct kernel_symbol
TABLES: dict[str, ExportKind] = {
    "__ksymtab": ExportKind.PLAIN,
    "__ksymtab_gpl": ExportKind.GPL,
    "__ksymtab_gpl_future": ExportKind.GPL_FUTURE,
    "__ksymtab_unused": ExportKind.UNUSED,
    "__ksymtab_unused_gpl": ExportKind.UNUSED_GPL,
}


# What reading a corrupt ELF file through pyelftools and struct raises: a reader of kernel files
# turns these into a record at its boundary (a MemoryError included: a size believed too soon).
CORRUPT: tuple[type[Exception], ...] = (
    ELFError,
    ELFParseError,
    ConstructError,
    struct.error,
    ValueError,
    IndexError,
    KeyError,
    OverflowError,
    AttributeError,
    TypeError,
    ZeroDivisionError,
    MemoryError,
)


class ExportTableError(ValueError):
    """An export table that cannot be read as any kernel writes it (``code``: the problem it is)."""

    def __init__(self, message: str, code: ProblemCode = ProblemCode.KMOD_UNREADABLE) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class _Target:
    offset: int  # of the relocated field in the table section
    section: int  # section index of what it points to
    address: int  # S + A within that section


def section_bytes(section: Section | None, data: bytes) -> bytes:
    """A section's bytes in the file ``data`` as they are; refused when its header claims bytes
    the file does not hold."""
    if section is None:
        raise ExportTableError("a section named by another is missing")
    offset, size = section.header["sh_offset"], section.header["sh_size"]
    if size > len(data):
        raise ExportTableError(
            f"section {section.name} of {size} bytes in a file of {len(data)}", ProblemCode.TOO_LARGE
        )
    if offset + size > len(data):
        raise ExportTableError(f"section {section.name} extends past the end of the file")
    return data[offset : offset + size]


def _in_place_addend(table: bytes, offset: int, width: int, little: bool) -> int:
    fmt = ("<" if little else ">") + ("i" if width == 4 else "q")
    if offset + width > len(table):
        raise ExportTableError(f"relocation at {offset:#x} outside its table")
    return struct.unpack_from(fmt, table, offset)[0]


def _relocation_sections(elf: ELFFile, index: int, table: bytes, size: int) -> list[RelocationSection]:
    """The relocation sections of the table section ``index``, checked against the file, each
    other and the table before any relocation is read."""
    found = [r for r in elf.iter_sections() if isinstance(r, RelocationSection) and r.header["sh_info"] == index]
    spans = sorted((r.header["sh_offset"], r.header["sh_offset"] + r.header["sh_size"], r.name) for r in found)
    for (_, end, name), (start, _, other) in itertools.pairwise(spans):
        if start < end:
            raise ExportTableError(f"relocation sections {name} and {other} overlap")
    if spans and spans[-1][1] > size:
        raise ExportTableError(f"a relocation section of table {index} extends past the end of the file")
    count = sum(r.num_relocations() for r in found)
    bound = min(len(table) // FIELD_BYTES, MAX_TABLE_RELOCATIONS)
    if count > bound:
        raise ExportTableError(
            f"{count} relocations for a table of {len(table)} bytes (at most {bound} read)",
            ProblemCode.TOO_MANY_ENTRIES,
        )
    return found


def _targets(elf: ELFFile, index: int, table: bytes, size: int) -> list[_Target]:
    """Every relocated field of the table section ``index``, in offset order."""
    out: list[_Target] = []
    for rel in _relocation_sections(elf, index, table, size):
        symtab = elf.get_section(rel.header["sh_link"])
        if not isinstance(symtab, SymbolTableSection):
            raise ExportTableError(f"{rel.name} does not link to a symbol table")
        relocs = list(rel.iter_relocations())
        offsets = sorted(r["r_offset"] for r in relocs)
        gaps = [b - a for a, b in itertools.pairwise(offsets) if b > a]
        width = 4 if elf.elfclass == 32 else min([*gaps, 8])
        for r in relocs:
            sym_index = r["r_info_sym"]
            if sym_index >= symtab.num_symbols():
                raise ExportTableError(f"{rel.name}: symbol index {sym_index} out of range")
            sym = symtab.get_symbol(sym_index)
            if rel.is_RELA():
                addend = r["r_addend"]
            else:
                addend = _in_place_addend(table, r["r_offset"], width, elf.little_endian)
            shndx = sym["st_shndx"]
            out.append(_Target(r["r_offset"], shndx if isinstance(shndx, int) else -1, sym["st_value"] + addend))
    out.sort(key=lambda t: t.offset)
    return out


def _string(strings: bytes, at: int) -> str:
    if not 0 <= at < len(strings):
        raise ExportTableError(f"name offset {at:#x} outside {STRINGS}")
    end = strings.find(b"\0", at)
    return strings[at : end if end >= 0 else len(strings)].decode("utf-8", "surrogateescape")


def read_table(elf: ELFFile, name: str, data: bytes) -> list[tuple[str, str]]:
    """(name, namespace) of every entry of the export table ``name``, in table order."""
    index = next((i for i, s in enumerate(elf.iter_sections()) if s.name == name), None)
    strings_index = next((i for i, s in enumerate(elf.iter_sections()) if s.name == STRINGS), None)
    if index is None:
        return []
    if strings_index is None:
        raise ExportTableError(f"{name} without {STRINGS}")
    table = section_bytes(elf.get_section(index), data)
    strings = section_bytes(elf.get_section(strings_index), data)
    entries: list[list[str]] = []
    for target in _targets(elf, index, table, len(data)):
        if target.section != strings_index:
            entries.append([])
        elif not entries:
            raise ExportTableError(f"{name}: a name at {target.offset:#x} before any symbol")
        elif len(entries[-1]) < 2:
            entries[-1].append(_string(strings, target.address))
    if any(not e for e in entries):
        raise ExportTableError(f"{name}: an entry without a name")
    return [(e[0], e[1] if len(e) > 1 else "") for e in entries]


def read_exports(elf: ELFFile, data: bytes) -> tuple[list[Export], bool]:
    """Every export of a relocatable module, and whether its kinds came from ``__kflagstab``."""
    names = {s.name for s in elf.iter_sections()}
    exports: list[Export] = []
    if FLAGS in names:
        entries = read_table(elf, "__ksymtab", data)
        flags = section_bytes(elf.get_section_by_name(FLAGS), data)
        if len(flags) != len(entries):
            raise ExportTableError(f"{FLAGS} has {len(flags)} entries for {len(entries)} exports")
        for (sym, ns), flag in zip(entries, flags, strict=True):
            kind = ExportKind.GPL if flag & KSYM_FLAG_GPL_ONLY else ExportKind.PLAIN
            exports.append(Export(sym, kind, ns))
        return exports, True
    for table, kind in TABLES.items():
        if table in names:
            exports += [Export(sym, kind, ns) for sym, ns in read_table(elf, table, data)]
    return exports, False
