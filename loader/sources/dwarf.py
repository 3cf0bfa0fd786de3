"""The source paths a module's DWARF names (the check's tier 2, docs/sources.md): each compile unit's
``DW_AT_name``, joined to its ``DW_AT_comp_dir`` when relative. Only the units' top entries are
read, at most ``MAX_UNITS`` of them; compressed debug sections are opened only up to
``MAX_SECTION`` bytes; a DWARF that cannot be read gives what was read before and a message.

The units of GCC's own runtime (``libgcc``: built in ``…/libgcc``, linked into most programs) are
left out: they say which toolchain built the module, not which source folder."""

from __future__ import annotations

import io
import posixpath
import struct
from dataclasses import dataclass, field

from elftools.common.exceptions import DWARFError, ELFError, ELFParseError
from elftools.construct import ConstructError
from elftools.elf.elffile import ELFFile

MAX_UNITS = 20_000  # compile units read from one module
MAX_SECTION = 64 << 20  # bytes a compressed debug section may claim once inflated
MAX_PATH = 4096  # characters of one path kept
_RUNTIME = ("/libgcc", "/libgcc/")  # GCC's runtime: its comp_dir ends so, or its name passes through it
_ERRORS = (
    ELFError,
    ELFParseError,
    DWARFError,
    ConstructError,
    struct.error,
    KeyError,
    IndexError,
    ValueError,
    TypeError,
    AttributeError,
    AssertionError,
    UnicodeDecodeError,
    OverflowError,
    RecursionError,
)


@dataclass(slots=True)
class CompilePaths:
    """The source file of every compile unit read, and why the reading stopped early (or None)."""

    paths: list[str] = field(default_factory=list)
    problem: str | None = None


def compile_paths(data: bytes) -> CompilePaths:
    """The compile units' source paths of the ELF image ``data`` (none when it has no DWARF)."""
    out = CompilePaths()
    if b"debug_info" not in data:  # no section of that name (a section header table is slow to parse)
        return out
    try:
        elf = ELFFile(io.BytesIO(data))
        if elf.get_section_by_name(".debug_info") is None and elf.get_section_by_name(".zdebug_info") is None:
            return out
        for section in elf.iter_sections():
            if (
                section.name.startswith((".debug", ".zdebug"))
                and section.compressed
                and section.data_size > MAX_SECTION
            ):
                out.problem = f"compressed debug section {section.name} claims {section.data_size:,} bytes"
                return out
        # never a file named by the module's debug links: nothing outside the module is opened
        dwarf = elf.get_dwarf_info(relocate_dwarf_sections=elf.header["e_type"] == "ET_REL", follow_links=False)
        for number, unit in enumerate(dwarf.iter_CUs()):
            if number >= MAX_UNITS:
                out.problem = f"more than {MAX_UNITS:,} compile units: the rest is not read"
                break
            top = unit.get_top_DIE()
            path = _unit_path(top.attributes)
            if path is not None:
                out.paths.append(path)
    except _ERRORS as exc:
        out.problem = f"DWARF not readable past {len(out.paths)} compile units ({type(exc).__name__}: {exc})"[:500]
    return out


def _unit_path(attributes: dict) -> str | None:
    name = _text(attributes.get("DW_AT_name"))
    if not name:
        return None
    directory = _text(attributes.get("DW_AT_comp_dir")) or ""
    name = name.replace("\\", "/")
    full = posixpath.normpath(posixpath.join(directory.replace("\\", "/"), name))
    if directory.rstrip("/").endswith(_RUNTIME[0]) or _RUNTIME[1] in full:
        return None
    return full[-MAX_PATH:]


def _text(attribute: object) -> str | None:
    value = getattr(attribute, "value", None)
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return value if isinstance(value, str) else None
