"""What a musl loader was built as, read from its file: its ``LDSO_ARCH`` (for the path file) and
its version (for the lookup rule that changed in 1.1.17)."""

from __future__ import annotations

import posixpath
import re

from ..model import ElfFacts

# musl's LDSO_ARCH names, for /etc/ld-musl-ARCH.path.
MUSL_ARCH = {
    ("EM_X86_64", 64, "little"): "x86_64",
    ("EM_386", 32, "little"): "i386",
    ("EM_AARCH64", 64, "little"): "aarch64",
    ("EM_ARM", 32, "little"): "arm",
    ("EM_ARM", 32, "big"): "armeb",
    ("EM_MIPS", 32, "big"): "mips",
    ("EM_MIPS", 32, "little"): "mipsel",
    ("EM_MIPS", 64, "big"): "mips64",
    ("EM_MIPS", 64, "little"): "mips64el",
    ("EM_PPC", 32, "big"): "powerpc",
    ("EM_PPC64", 64, "big"): "powerpc64",
    ("EM_PPC64", 64, "little"): "powerpc64le",
    ("EM_RISCV", 64, "little"): "riscv64",
}


_MUSL_PATH_FILE = re.compile(rb"/etc/ld-musl-([A-Za-z0-9_+.-]+?)\.path\x00")
_MUSL_INTERP = re.compile(r"^ld-musl-([A-Za-z0-9_+.-]+)\.so\.1$")


def musl_arch_of_loader(loader_bytes: bytes | None, interpreter: str | None) -> str | None:
    """musl's ``LDSO_ARCH`` as the device's loader was built: the name in the format string
    ``"%.*s/etc/ld-musl-" LDSO_ARCH ".path"`` compiled into it (``mips-sf`` for soft-float MIPS,
    which the ELF header does not tell), else the one in the interpreter's file name
    (``ld-musl-$(ARCH)$(SUBARCH).so.1``, the same string in musl's build)."""
    if loader_bytes:
        found = _MUSL_PATH_FILE.search(loader_bytes)
        if found:
            return found.group(1).decode("ascii")
    found_name = _MUSL_INTERP.match(posixpath.basename(interpreter or ""))
    return found_name.group(1) if found_name else None


def musl_arch(facts: ElfFacts) -> str | None:
    """musl's ``LDSO_ARCH`` guessed from the ELF header alone (when the loader cannot be read)."""
    arch = MUSL_ARCH.get((facts.machine, facts.elf_class, facts.endian))
    if arch and facts.machine == "EM_MIPS" and facts.flags & 0x20 and facts.elf_class == 32:  # EF_MIPS_ABI2
        arch = arch.replace("mips", "mipsn32", 1)
    return arch


#: musl's ``find_sym`` from 0.8.0 (commit e01ac675) to 1.1.16 passes over a weak definition while a
#: later object defines the name global (or unique); commit c9783e4d, first in 1.1.17, made the
#: first definition win whatever its binding.
FIRST_DEFINITION_WINS = (1, 1, 17)

# src/internal/version.c: the string VERSION (from the VERSION file or ``git describe``), which
# the loader prints as "Version %s" when run by its own name; a NUL before and after it.
_VERSION = re.compile(rb"\x00(\d{1,2})\.(\d{1,2})\.(\d{1,3})(?:[-+][\x21-\x7e]{0,40})?\x00")
_BANNER = b"musl libc ("


def musl_version(loader_bytes: bytes | None) -> tuple[int, int, int] | None:
    """The version a musl loader states (``1.1.16``), or None where the file does not say it
    (musl before 0.9.15 kept none; a loader without its banner is not trusted to be musl)."""
    if not loader_bytes or _BANNER not in loader_bytes:
        return None
    found = {(int(a), int(b), int(c)) for a, b, c in _VERSION.findall(loader_bytes)}
    return found.pop() if len(found) == 1 else None
