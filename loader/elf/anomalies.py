"""Where the file-level view of an ELF file disagrees with what the loader reads in memory.

The loaders locate everything through PT_DYNAMIC's ``p_vaddr`` and the PT_LOAD mappings; vendor
toolchains, ``sstrip`` and damaged headers leave ``p_offset``/``p_filesz`` and section headers
that say otherwise. The loaded view wins; each disagreement is an anomaly (a warning problem with
a stable code), which is evidence a reader of the report wants to see.
"""

from __future__ import annotations

from ..errors import ElfError
from ..model import ElfFacts
from ..problems import ProblemCode
from . import tables as t
from .image import Image
from .sections import SHT_DYNAMIC, SHT_DYNSYM, SectionHeaders


def check_dynamic(img: Image, dynamic: tuple[int, int, int], count: int, facts: ElfFacts) -> None:
    """Record where PT_DYNAMIC's file-level fields disagree with the array the loader reads."""
    offset, vaddr, filesz = dynamic
    size = (count + 1) * (16 if img.is64 else 8)  # the entries and their DT_NULL
    where = img.mapped(vaddr)
    if where is not None and where[0] != offset:
        facts.note(
            ProblemCode.DYNAMIC_OFFSET_MISMATCH,
            f"PT_DYNAMIC p_offset {offset:#x} is not where its p_vaddr {vaddr:#x} is mapped from "
            f"({where[0]:#x}); the loader reads the dynamic array at p_vaddr",
        )
    if filesz < size:
        facts.note(
            ProblemCode.DYNAMIC_SIZE_MISMATCH,
            f"PT_DYNAMIC p_filesz {filesz:#x} is smaller than the {count} entries and DT_NULL the loader "
            f"reads ({size:#x} bytes); read up to DT_NULL as the loader does",
        )


def check_sections(sections: SectionHeaders, dyn_vaddr: int, tags: dict[int, int], facts: ElfFacts) -> None:
    """Compare ``.dynamic``, ``.dynsym`` and its string table (by type, as ``readelf`` finds them)
    with PT_DYNAMIC, DT_SYMTAB and DT_STRTAB. No section headers (sstrip): nothing to compare."""
    try:
        headers = sections.headers()
    except ElfError as exc:
        facts.note(
            ProblemCode.SECTION_HEADERS_DISAGREE, f"section headers unusable ({exc}); the loader does not need them"
        )
        return
    by_type = {}
    for sh in headers:
        by_type.setdefault(sh[1], sh)
    wanted = [
        (SHT_DYNAMIC, ".dynamic", "PT_DYNAMIC", dyn_vaddr),
        (SHT_DYNSYM, ".dynsym", "DT_SYMTAB", tags.get(t.DT_SYMTAB)),
    ]
    dynsym = by_type.get(SHT_DYNSYM)
    if dynsym is not None and 0 < dynsym[6] < len(headers):
        wanted.append((-1, "the .dynsym string table", "DT_STRTAB", tags.get(t.DT_STRTAB)))
        by_type[-1] = headers[dynsym[6]]
    wrong = [
        f"{name} at {by_type[kind][3]:#x} but {what} at {addr:#x}"
        for kind, name, what, addr in wanted
        if kind in by_type and addr is not None and by_type[kind][3] != addr
    ]
    if wrong:
        facts.note(
            ProblemCode.SECTION_HEADERS_DISAGREE,
            f"section headers disagree with the dynamic segment ({'; '.join(wrong)}); the loader reads the latter",
        )


_NATIVE = {t.DT_SYMENT: (16, 24), t.DT_RELENT: (8, 16), t.DT_RELAENT: (12, 24)}


def check_entry_sizes(is64: bool, tags: dict[int, int], facts: ElfFacts) -> None:
    """DT_SYMENT, DT_RELENT, DT_RELAENT other than the ABI's record sizes: the loaders step through
    the tables by ``sizeof`` (glibc's ld.so asserts DT_RELENT/DT_RELAENT and stops)."""
    names = {t.DT_SYMENT: "DT_SYMENT", t.DT_RELENT: "DT_RELENT", t.DT_RELAENT: "DT_RELAENT"}
    odd = [f"{names[tag]} {tags[tag]} (not {sizes[is64]})" for tag, sizes in _NATIVE.items()
           if tag in tags and tags[tag] != sizes[is64]]  # fmt: skip
    if odd:
        facts.note(
            ProblemCode.ENTRY_SIZE_MISMATCH,
            f"{', '.join(odd)}: the tables are read with the ABI's record sizes, as the loaders read them",
        )
