"""Every symbol slot of a program, read with pyelftools (not with the runtime oracle's own ELF reader),
to check that the oracle gave each one an outcome: no slot silently missing.

* each relocation of ``DT_REL``, ``DT_RELA`` and ``DT_JMPREL`` that names a symbol which is not
  local (a local symbol binds in its own object without a lookup): on MIPS the PLT slots
  (``R_MIPS_JUMP_SLOT``) of non-PIC programs, their copies and ``R_MIPS_REL32`` words;
* on MIPS also the global GOT, dynamic symbols ``DT_MIPS_GOTSYM`` up to ``DT_MIPS_SYMTABNO``
  (section symbols left out: no lookup).

Both are read from the dynamic segment, so sstripped files (no section headers) are read too, and
the dynamic segment is read where the loader reads it: at its address in the loaded segments
(``loaded_dynamic``), whatever its ``p_offset`` and ``p_filesz`` say.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from elftools.construct.lib.container import Container
from elftools.elf.dynamic import DynamicSegment
from elftools.elf.elffile import ELFFile

from .runtime_trace import RuntimeTrace

STO_MIPS_PLT = 0x8  # pyelftools does not keep this bit of st_other: read from the file's bytes


def program_slot_symbols(path: Path) -> dict[str, bool]:
    """Symbol name -> whether a loader that binds lazily leaves the object's own stub in its slots,
    for every slot that needs a lookup: an undefined symbol whose every slot is a ``DT_JMPREL`` one
    or (MIPS) a global GOT entry that is no canonical ``STO_MIPS_PLT`` entry."""
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        dynamic = loaded_dynamic(elf)
        if dynamic is None:
            return {}
        lazy: dict[str, bool] = {}
        for kind, table in dynamic.get_relocation_tables().items():
            for rel in table.iter_relocations():
                index = rel["r_info_sym"]
                symbol = dynamic.get_symbol(index) if index else None
                if symbol is not None and symbol["st_info"]["bind"] != "STB_LOCAL":
                    plt = kind == "JMPREL" and symbol["st_shndx"] == "SHN_UNDEF"
                    lazy[symbol.name] = lazy.get(symbol.name, True) and plt
        if elf["e_machine"] == "EM_MIPS":
            for name, stub in _mips_global_got(elf, dynamic, fh).items():
                lazy[name] = lazy.get(name, True) and stub
        return lazy


def loaded_dynamic(elf: ELFFile) -> DynamicSegment | None:
    """The dynamic segment at its ``p_vaddr`` in the ``PT_LOAD`` segments, as the loader finds it
    (a file whose ``PT_DYNAMIC`` has ``p_filesz`` 0, or a wrong ``p_offset``, still has one)."""
    header = next((s.header for s in elf.iter_segments() if s["p_type"] == "PT_DYNAMIC"), None)
    if header is None:
        return None
    offsets = list(elf.address_offsets(header["p_vaddr"], header["p_memsz"] or 1))
    if not offsets:  # not loaded (no loader would run it): the header as it is
        return DynamicSegment(header, elf.stream, elf)
    loaded = Container(**header)
    loaded["p_offset"], loaded["p_filesz"] = offsets[0], header["p_memsz"]
    return DynamicSegment(loaded, elf.stream, elf)


def _mips_global_got(elf: ELFFile, dynamic: DynamicSegment, fh: BinaryIO) -> dict[str, bool]:
    """Name -> lazy stub possible, for the symbols ``DT_MIPS_GOTSYM`` up to ``DT_MIPS_SYMTABNO``."""
    tags = {t.entry.d_tag: t.entry.d_val for t in dynamic.iter_tags()}
    if "DT_MIPS_GOTSYM" not in tags:
        return {}
    first, end = tags["DT_MIPS_GOTSYM"], tags.get("DT_MIPS_SYMTABNO", tags["DT_MIPS_GOTSYM"])
    symtab = next(iter(elf.address_offsets(tags["DT_SYMTAB"])), None)
    entsize = tags.get("DT_SYMENT", 16 if elf.elfclass == 32 else 24)
    other_at = 13 if elf.elfclass == 32 else 5
    out = {}
    for i in range(first, end):
        symbol = dynamic.get_symbol(i)
        if symbol["st_info"]["type"] == "STT_SECTION":
            continue
        other = 0
        if symtab is not None:
            fh.seek(symtab + i * entsize + other_at)
            other = fh.read(1)[0]
        out[symbol.name] = symbol["st_shndx"] == "SHN_UNDEF" and not other & STO_MIPS_PLT
    return out


def outcome_names(trace: RuntimeTrace, module: str) -> set[str]:
    """The symbols of ``module``'s slots the oracle gave an outcome: a binding, a self binding, an
    unresolved weak reference, a copy, or an unobserved slot with its reason."""
    outcomes = (trace.bindings, trace.self_bindings, trace.unresolved, trace.copies, trace.unobserved)
    return {key[1] for keys in outcomes for key in keys if key[0] == module}


def lazy_self_bindings(trace: RuntimeTrace, module: str, lazy: dict[str, bool]) -> list[str]:
    """Lazy-stub symbols of ``module`` (:func:`program_slot_symbols`) the oracle calls bound to ``module``
    itself: a stub taken for a binding (a lookup never finds an undefined symbol in its own object)."""
    return sorted(b[1] for b in trace.self_bindings if b[0] == module and lazy.get(b[1], False))


class BlindOracle(AssertionError):
    """The oracle read no relocation slot of a program that has some: it judged nothing there."""


def check_not_blind(trace: RuntimeTrace, slot_symbols: dict[str, bool]) -> None:
    """Fail when the oracle reached a program's entry point yet read none of its relocation slots
    while the program has some (``slot_symbols``: :func:`program_slot_symbols`, read with
    pyelftools where the loader reads the dynamic segment)."""
    if trace.covered and trace.program_slots == 0 and slot_symbols:
        raise BlindOracle(
            f"{trace.executable}: the oracle read 0 relocation slots of the program, which has "
            f"{len(slot_symbols)} symbols in its slots ({', '.join(sorted(slot_symbols)[:5])} ...)"
        )
