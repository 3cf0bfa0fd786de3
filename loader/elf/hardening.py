"""Hardening facts of one ELF module, read from what the kernel and the dynamic loaders read:
the ELF type, the program headers and the dynamic section (docs/graph.md, "Hardening").

* **PIE**: ``ET_DYN`` with a ``PT_INTERP`` (the kernel loads it at a random base and starts its
  interpreter) or with ``DF_1_PIE`` (a static PIE has no interpreter). A library with neither is
  not a program: ``pie`` is False for it.
* **NX**: the stack is not executable. The kernel (``load_elf_binary``) and glibc
  (``_dl_map_object_from_fd``, ``dl_main``) both take the flags of the last ``PT_GNU_STACK``.
  Without one, the stack is executable wherever glibc's ``DEFAULT_STACK_PERMS`` has ``PF_X``
  (``sysdeps/generic/stackinfo.h``: every architecture but the ones in ``NX_WITHOUT_MARKING``,
  whose ``stackinfo.h`` gives ``PF_R|PF_W``; the kernel also gives their native programs a
  non-executable stack). musl and uClibc ignore the marking of libraries; the kernel still
  reads the program's.
* **RELRO**: ``none`` without ``PT_GNU_RELRO``; ``full`` with it and immediate binding
  (``DT_BIND_NOW``, ``DF_BIND_NOW`` in ``DT_FLAGS`` or ``DF_1_NOW`` in ``DT_FLAGS_1``: glibc's
  ``_dl_relocate_object`` binds everything before ``_dl_protect_relro``, so the GOT is read-only);
  ``partial`` otherwise.
* **stack protector**: the module references (an undefined dynamic symbol) ``__stack_chk_fail`` or
  ``__stack_chk_guard`` (the guard is a global on uClibc, musl and some glibc ports).
* **FORTIFY**: the module references glibc's checking functions ``__NAME_chk`` (``-D_FORTIFY_SOURCE``
  replaces a call whose object size is known at compile time by one of them); ``fortified``
  lists the names.
* **RPATH / RUNPATH**: the ``DT_RPATH`` / ``DT_RUNPATH`` strings as they are (their risky entries
  are the warnings of ``ldso.risky_paths``).
* **TEXTREL**: ``DT_TEXTREL`` or ``DF_TEXTREL``: relocations write into the text segment, which
  the loader makes writable for the time of the relocation.

Kernel modules and files without program headers that a loader reads get no hardening facts.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from ..model import ElfFacts, Kind
from .dynsym import undefined_names
from .facts import PT_GNU_RELRO, PT_GNU_STACK
from .tables import DT_BIND_NOW, DT_TEXTREL

PF_X = 0x1
DF_TEXTREL, DF_BIND_NOW = 0x4, 0x8
DF_1_NOW, DF_1_PIE = 0x1, 0x08000000
NX_WITHOUT_MARKING = frozenset({"EM_AARCH64", "EM_RISCV", "EM_LOONGARCH"})
STACK_PROTECTOR = frozenset({"__stack_chk_fail", "__stack_chk_guard"})
_FORTIFIED = re.compile(r"__(\w+)_chk")


class Relro(enum.StrEnum):
    """How much of the module's relocated data is read-only after loading."""

    NONE = "none"  # no PT_GNU_RELRO
    PARTIAL = "partial"  # PT_GNU_RELRO, lazy binding: the GOT's PLT slots stay writable
    FULL = "full"  # PT_GNU_RELRO and immediate binding


@dataclass(frozen=True, slots=True)
class Hardening:
    """The hardening facts of one module (see the module's docstring for each)."""

    pie: bool
    nx: bool
    stack_marking: bool  # a PT_GNU_STACK is there (False: ``nx`` is the architecture's default)
    relro: Relro
    bind_now: bool
    stack_protector: bool
    fortify: bool
    fortified: tuple[str, ...]  # the NAMEs of the __NAME_chk functions referenced, sorted
    textrel: bool
    rpath: str | None
    runpath: str | None


def hardening(facts: ElfFacts) -> Hardening | None:
    """The hardening facts of a module, None for a kernel module or a relocatable file."""
    if facts.kind is Kind.KERNEL_MODULE or facts.elf_type == "ET_REL":
        return None
    marks, stack = facts.marks, facts.marks.get(PT_GNU_STACK)
    bind_now = DT_BIND_NOW in marks or bool(facts.dt_flags & DF_BIND_NOW) or bool(facts.dt_flags_1 & DF_1_NOW)
    relro = Relro.NONE if PT_GNU_RELRO not in marks else Relro.FULL if bind_now else Relro.PARTIAL
    nx = facts.machine in NX_WITHOUT_MARKING if stack is None else not stack & PF_X
    undefined = set(undefined_names(facts.symbols))
    fortified = tuple(sorted(m.group(1) for name in undefined if (m := _FORTIFIED.fullmatch(name))))
    return Hardening(
        pie=facts.elf_type == "ET_DYN" and (facts.interpreter is not None or bool(facts.dt_flags_1 & DF_1_PIE)),
        nx=nx,
        stack_marking=stack is not None,
        relro=relro,
        bind_now=bind_now,
        stack_protector=bool(undefined & STACK_PROTECTOR),
        fortify=bool(fortified),
        fortified=fortified,
        textrel=DT_TEXTREL in marks or bool(facts.dt_flags & DF_TEXTREL),
        rpath=facts.rpath_raw,
        runpath=facts.runpath_raw,
    )
