"""One kernel module file read as the module loader and depmod read it: its undefined symbols
(``.symtab`` entries in ``SHN_UNDEF``, as kernel/module/main.c ``simplify_symbols`` and kmod's
``kmod_elf_get_dependency_symbols`` take them), its exports (``ksymtab``) and its ``.modinfo``.

pyelftools reads the sections and relocations (``ET_REL`` files are read through their section
headers, unlike the dynamic objects of ``loader.elf``); every section read is checked against
the file's size first.
"""

from __future__ import annotations

import io
import struct
from pathlib import Path

from elftools.common.exceptions import ELFError, ELFParseError
from elftools.construct import ConstructError
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from ..elf.facts import parse_modinfo
from .decompress import ModuleReadError, module_stem, read_module_bytes
from .ksymtab import ExportTableError, read_exports, section_bytes
from .model import KernelModule, Layout, Undefined

ET_REL = "ET_REL"


def _first(info: dict[str, str], key: str) -> str | None:
    value = info.get(key)
    return None if value is None else value.split("\n", 1)[0]


def _names(value: str | None) -> list[str]:
    """``depends=a,b-c`` -> ["a", "b_c"] (kmod compares module names with '-' as '_')."""
    return [n.strip().replace("-", "_") for n in (value or "").split(",") if n.strip()]


def _undefined(elf: ELFFile, size: int) -> list[Undefined]:
    symtab = elf.get_section_by_name(".symtab")
    if not isinstance(symtab, SymbolTableSection):
        raise ExportTableError("no .symtab")
    header = symtab.header
    if header["sh_offset"] + header["sh_size"] > size or not header["sh_entsize"]:
        raise ExportTableError(".symtab extends past the end of the file")
    seen: dict[str, Undefined] = {}
    for sym in symtab.iter_symbols():
        if sym["st_shndx"] == "SHN_UNDEF" and sym.name and sym.name not in seen:
            seen[sym.name] = Undefined(sym.name, sym["st_info"]["bind"] == "STB_WEAK")
    return list(seen.values())


def parse_module(data: bytes, path: str, compression: str | None = None) -> KernelModule:
    """Read one module's ELF bytes. ModuleReadError for anything the kernel would refuse too."""
    try:
        elf = ELFFile(io.BytesIO(data))
        if elf["e_type"] != ET_REL:
            raise ModuleReadError(f"not a relocatable object ({elf['e_type']})")
        modinfo = elf.get_section_by_name(".modinfo")
        info = parse_modinfo(section_bytes(modinfo, len(data))) if modinfo is not None else {}
        exports, flagged = read_exports(elf, len(data))
        undefined = _undefined(elf, len(data))
    except (ELFError, ELFParseError, ConstructError, ExportTableError, struct.error) as exc:
        raise ModuleReadError(f"{path}: {exc}") from None
    except (ValueError, IndexError, KeyError, OverflowError, AttributeError, TypeError) as exc:
        raise ModuleReadError(f"{path}: corrupt module ({type(exc).__name__}: {exc})") from None
    layout = Layout.FLAGS if flagged else Layout.SECTIONS if exports else Layout.NONE
    name = _first(info, "name")
    return KernelModule(
        path=path,
        name=(name or module_stem(path)).replace("-", "_"),
        licence=_first(info, "license"),
        depends=_names(_first(info, "depends")),
        vermagic=_first(info, "vermagic"),
        undefined=undefined,
        exports=exports,
        layout=layout,
        compression=compression,
    )


def read_module(file: Path, path: str) -> KernelModule:
    """Read the module file ``file`` (plain or compressed), known on the device as ``path``."""
    data, compression = read_module_bytes(file)
    return parse_module(data, path, compression)
