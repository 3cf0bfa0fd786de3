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
from ..problems import ProblemCode
from .decompress import ModuleReadError, module_stem, read_module_bytes
from .ksymtab import CORRUPT, ExportTableError, read_exports, section_bytes
from .model import KernelModule, Layout, Undefined

ET_REL = "ET_REL"


def _first(info: dict[str, str], key: str) -> str | None:
    value = info.get(key)
    return None if value is None else value.split("\n", 1)[0]


def _names(value: str | None) -> list[str]:
    """``depends=a,b-c`` -> ["a", "b_c"] (kmod compares module names with '-' as '_')."""
    return [n.strip().replace("-", "_") for n in (value or "").split(",") if n.strip()]


# Elf32_Sym / Elf64_Sym: name, info and shndx positions differ; read with struct (pyelftools'
# per-symbol parsing is most of a module's reading time)
_SYM = {32: ("IIIBBH", 0, 3, 5), 64: ("IBBHQQ", 0, 1, 3)}
STB_WEAK, SHN_UNDEF = 2, 0


def _undefined(elf: ELFFile, data: bytes) -> list[Undefined]:
    symtab = elf.get_section_by_name(".symtab")
    if not isinstance(symtab, SymbolTableSection):
        raise ExportTableError("no .symtab")
    table = section_bytes(symtab, data)
    names = section_bytes(elf.get_section(symtab.header["sh_link"]), data)
    fmt, at_name, at_info, at_shndx = _SYM[elf.elfclass]
    fmt = ("<" if elf.little_endian else ">") + fmt
    entry = struct.calcsize(fmt)
    seen: dict[str, Undefined] = {}
    for fields in struct.iter_unpack(fmt, table[: len(table) - len(table) % entry]):
        start = fields[at_name]
        if fields[at_shndx] != SHN_UNDEF or not 0 < start < len(names):
            continue
        end = names.find(b"\0", start)
        name = names[start : end if end >= 0 else len(names)].decode("utf-8", "surrogateescape")
        if name and name not in seen:
            seen[name] = Undefined(name, fields[at_info] >> 4 == STB_WEAK)
    return list(seen.values())


def parse_module(data: bytes, path: str, compression: str | None = None) -> KernelModule:
    """Read one module's ELF bytes. ModuleReadError for anything the kernel would refuse too."""
    try:
        elf = ELFFile(io.BytesIO(data))
        if elf["e_type"] != ET_REL:
            raise ModuleReadError(f"not a relocatable object ({elf['e_type']})")
        modinfo = elf.get_section_by_name(".modinfo")
        info = parse_modinfo(section_bytes(modinfo, data)) if modinfo is not None else {}
        exports, flagged = read_exports(elf, data)
        undefined = _undefined(elf, data)
    except ExportTableError as exc:
        raise ModuleReadError(f"{path}: {exc}", exc.code) from None
    except (ELFError, ELFParseError, ConstructError, struct.error) as exc:
        raise ModuleReadError(f"{path}: {exc}") from None
    except CORRUPT as exc:
        code = ProblemCode.TOO_LARGE if isinstance(exc, MemoryError) else ProblemCode.KMOD_UNREADABLE
        raise ModuleReadError(f"{path}: corrupt module ({type(exc).__name__}: {exc})", code) from None
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
