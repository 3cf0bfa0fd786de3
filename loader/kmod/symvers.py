"""``Module.symvers`` as modpost writes it (scripts/mod/modpost.c ``write_dump``): one export a line,
tab-separated. Three layouts have been written:

* before 5.4: ``CRC  SYMBOL  MODULE  EXPORT_TYPE``
* 5.4 to 5.9 (namespaces, commit cb9b55d21fe0): ``CRC  SYMBOL  NAMESPACE  MODULE  EXPORT_TYPE``
* since 5.10 (commit 5190044c2965 "modpost: move the namespace field in Module.symvers last"):
  ``CRC  SYMBOL  MODULE  EXPORT_TYPE  NAMESPACE``

The export type is recognised by its ``EXPORT_`` prefix, so each line is read by where it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .model import KERNEL, ExportKind

MAX_SYMVERS_BYTES = 64 << 20  # an allmodconfig Module.symvers is about 3 MiB
_KINDS = {k.value: k for k in ExportKind}


@dataclass(frozen=True, slots=True)
class SymversEntry:
    symbol: str
    module: str  # "vmlinux" or the module's path in the build tree without .ko
    kind: ExportKind
    namespace: str


def parse_symvers(text: str) -> tuple[list[SymversEntry], list[str]]:
    """Every entry, and the lines that are not entries (for a problem record)."""
    entries: list[SymversEntry] = []
    bad: list[str] = []
    for line in text.splitlines():
        fields = line.split("\t")
        if not line.strip():
            continue
        if len(fields) >= 4 and fields[3] in _KINDS:
            namespace = fields[4] if len(fields) > 4 else ""
            entries.append(SymversEntry(fields[1], fields[2], _KINDS[fields[3]], namespace))
        elif len(fields) == 5 and fields[4] in _KINDS:
            entries.append(SymversEntry(fields[1], fields[3], _KINDS[fields[4]], fields[2]))
        else:
            bad.append(line[:200])
    return entries, bad


def read_symvers(path: Path) -> tuple[list[SymversEntry], list[str]]:
    with open(path, "rb") as f:
        raw = f.read(MAX_SYMVERS_BYTES + 1)
    if len(raw) > MAX_SYMVERS_BYTES:
        raise ValueError(f"larger than {MAX_SYMVERS_BYTES >> 20} MiB")
    return parse_symvers(raw.decode("utf-8", "surrogateescape"))


def kernel_exports(entries: list[SymversEntry]) -> dict[str, ExportKind]:
    """The exports of vmlinux itself (modules' exports are read from the modules)."""
    return {e.symbol: e.kind for e in entries if e.module == KERNEL}
