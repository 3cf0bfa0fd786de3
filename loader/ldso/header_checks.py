"""What each loader checks in a file's ELF header before it maps it as a library.

A file the search finds is loaded, skipped (the search goes on) or refused (the load fails
there: the name is missing and nothing further is tried). The rules, from each loader's source:

* glibc ``elf/dl-load.c`` ``open_verify``: a wrong ``EI_CLASS`` or a machine that
  ``elf_machine_matches_host`` rejects (ARM float ABI, MIPS ABI and NaN encoding) is skipped
  (``close_and_out``); anything else wrong in ``e_ident`` (magic, byte order, ``EI_VERSION``,
  OS ABI other than SYSV/GNU, ABI version, non-zero padding), ``e_version``, an ``e_type`` other
  than ``ET_DYN``/``ET_EXEC``, a wrong ``e_phentsize`` is fatal (``lose``); so is an ``ET_EXEC``
  file (``_dl_map_object_from_fd``: "cannot dynamically load executable") and a PIE
  (``DF_1_PIE``, glibc 2.30 and later).
* uClibc ``ldso/ldso/dl-elf.c`` ``_dl_load_elf_shared_library``: only the magic, ``e_type ==
  ET_DYN`` (``ET_EXEC`` too with ``LDSO_STANDALONE_SUPPORT``, off by default and in OpenWrt) and
  ``e_machine`` (``MAGIC1``/``MAGIC2``, read in the loader's byte order) are compared; a mismatch
  returns NULL and the search goes on ("is not an ELF executable for ..."). Class and ABI flags
  are not looked at.
* musl ``ldso/dynlink.c`` ``map_library``: only ``e_type`` (``ET_DYN`` or ``ET_EXEC``) is
  checked, and a file that fails it fails the load (``load_library`` does not search on).
  Neither machine, class, byte order nor ``e_flags`` (float ABI) is compared.
"""

from __future__ import annotations

import enum

from ..model import ElfFacts

EF_MIPS_ABI2, EF_MIPS_ABI, EF_MIPS_NAN2008 = 0x20, 0x0000F000, 0x400
EF_ARM_ABI_FLOAT_HARD, EF_ARM_ABI_FLOAT_SOFT = 0x400, 0x200
DF_1_PIE = 0x08000000
_GNU_OSABIS = ("ELFOSABI_SYSV", "ELFOSABI_LINUX")  # pyelftools' names for 0 and 3 (GNU)
_MAX_GNU_ABIVERSION = 4  # LIBC_ABI_MAX in current glibc: ABI versions it knows


class Verdict(enum.Enum):
    LOAD = "load"
    SKIP = "skip"  # not for this loader: the search goes on
    REFUSE = "refuse"  # the load fails with this file


def _flags_match(exe: ElfFacts, lib: ElfFacts) -> bool:
    """``elf_machine_matches_host`` for the ABI bits glibc compares (the program's flags stand for
    the loader's build, which they match)."""
    if exe.machine == "EM_MIPS":
        if (exe.flags ^ lib.flags) & (EF_MIPS_ABI2 | EF_MIPS_NAN2008):
            return False
        mine, theirs = exe.flags & EF_MIPS_ABI, lib.flags & EF_MIPS_ABI
        return not (mine and theirs and mine != theirs)
    if exe.machine == "EM_ARM":
        floats = EF_ARM_ABI_FLOAT_HARD | EF_ARM_ABI_FLOAT_SOFT
        mine, theirs = exe.flags & floats, lib.flags & floats
        return not (mine and theirs and mine != theirs)
    return True


def glibc_verdict(exe: ElfFacts, lib: ElfFacts | None) -> tuple[Verdict, str]:
    if lib is None:
        return Verdict.REFUSE, "invalid ELF header"
    if lib.elf_class != exe.elf_class:
        return Verdict.SKIP, "wrong ELF class"
    if lib.endian != exe.endian:
        return Verdict.REFUSE, f"ELF file data encoding not {exe.endian}-endian"
    ident = lib.ident
    if len(ident) == 16:
        if ident[6] != 1:
            return Verdict.REFUSE, "ELF file version ident does not match current one"
        if lib.osabi not in _GNU_OSABIS:
            return Verdict.REFUSE, "ELF file OS ABI invalid"
        if ident[8] and not (lib.osabi == "ELFOSABI_LINUX" and ident[8] < _MAX_GNU_ABIVERSION):
            return Verdict.REFUSE, "ELF file ABI version invalid"
        if any(ident[9:]):
            return Verdict.REFUSE, "nonzero padding in e_ident"
    if lib.version != 1:
        return Verdict.REFUSE, "ELF file version does not match current one"
    if lib.machine != exe.machine or not _flags_match(exe, lib):
        return Verdict.SKIP, "machine or ABI flags do not match"
    if lib.elf_type not in ("ET_DYN", "ET_EXEC"):
        return Verdict.REFUSE, "only ET_DYN and ET_EXEC can be loaded"
    if lib.phentsize_ok is False:
        return Verdict.REFUSE, "ELF file's phentsize not the expected size"
    if not lib.dynamic:
        return Verdict.REFUSE, "object file has no dynamic section"
    if lib.elf_type == "ET_EXEC":
        return Verdict.REFUSE, "cannot dynamically load executable"
    if lib.dt_flags_1 & DF_1_PIE:
        return Verdict.REFUSE, "cannot dynamically load position-independent executable"
    return Verdict.LOAD, ""


def uclibc_verdict(exe: ElfFacts, lib: ElfFacts | None) -> tuple[Verdict, str]:
    if lib is None:
        return Verdict.SKIP, "not an ELF file"
    machines = ("EM_MIPS", "EM_MIPS_RS3_LE") if exe.machine in ("EM_MIPS", "EM_MIPS_RS3_LE") else (exe.machine,)
    if lib.elf_type != "ET_DYN" or lib.endian != exe.endian or lib.machine not in machines:
        return Verdict.SKIP, "is not an ELF executable for this machine"
    if not lib.dynamic:
        return Verdict.SKIP, "no dynamic section"
    return Verdict.LOAD, ""


def musl_verdict(exe: ElfFacts, lib: ElfFacts | None) -> tuple[Verdict, str]:
    if lib is None or lib.elf_type not in ("ET_DYN", "ET_EXEC") or not lib.dynamic:
        return Verdict.REFUSE, "Exec format error"
    return Verdict.LOAD, ""
