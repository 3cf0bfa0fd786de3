"""A module's hardening facts (``loader.elf.hardening``) as the columns of its ``Module`` row."""

from __future__ import annotations

from typing import Any

from ..elf.hardening import hardening
from ..model import ElfFacts

HARDENING_COLUMNS: tuple[str, ...] = (
    "pie",
    "nx",
    "relro",
    "stack_protector",
    "fortify",
    "fortified",
    "textrel",
    "rpath",
    "runpath",
)


def hardening_columns(facts: ElfFacts) -> dict[str, Any]:
    """The hardening columns of a module's row (``HARDENING_COLUMNS``), all None for a kernel module."""
    found = hardening(facts)
    if found is None:
        return dict.fromkeys(HARDENING_COLUMNS)
    return {
        "pie": found.pie,
        "nx": found.nx,
        "relro": found.relro.value,
        "stack_protector": found.stack_protector,
        "fortify": found.fortify,
        "fortified": list(found.fortified),
        "textrel": found.textrel,
        "rpath": found.rpath,
        "runpath": found.runpath,
    }
