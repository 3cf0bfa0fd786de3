"""The kernel's export tables found in a raw kernel image with no symbols at all (no kallsyms,
as in OpenWrt's "tiny" targets), by their shape.

``__ksymtab_strings`` is the image's longest run of NUL-terminated symbol names. Every name in
it is pointed to by the name field of one ``struct kernel_symbol`` (include/linux/export.h).
With absolute pointers the strings' load address ``C`` is unknown: it is the value ``w`` for
which the most other words of the image are ``C + (a string's offset)`` (tried from the words
that could point at one chosen name, checked against others). With place-relative fields
(4.19+) no address is needed: the field's own offset plus its value lands in the strings.

Entries are the words that point at names, at one stride (two or three fields); the longest
run of them is ``__ksymtab`` followed by ``__ksymtab_gpl`` (adjacent in
include/asm-generic/vmlinux.lds.h). Both are sorted by name (``SORT(___ksymtab+*)``), so the
run is split where a name sorts before the one above it: plain exports first, then GPL-only. A
third part (``__ksymtab_unused*`` or ``_gpl_future`` of kernels before 5.13) cannot be told
apart from the others and is left out, and said so.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from .model import KSYM_NAME_LEN, ExportKind

# A run of at least 64 NUL-terminated names. Linear in the bytes: a match is tried only where a
# run of name bytes begins (the look-behind), and nothing is given back once read (possessive
# quantifiers), so bytes without a NUL are read once, not once per start. The first name may
# follow digits, '.' or '$' that belong to what comes before (``_name`` skips them).
_NAMES = re.compile(rb"(?<![A-Za-z0-9_.$])[0-9.$]*+[A-Za-z_][A-Za-z0-9_.$]*+\x00(?:[A-Za-z_][A-Za-z0-9_.$]*+\x00){63,}")
MIN_RUN = 64  # fewer entries than this are not taken for an export table
PROBES = 32  # names a candidate address must point at, beyond the first


@dataclass(frozen=True, slots=True)
class Recovered:
    exports: dict[str, ExportKind]
    detail: str


def _strings(data: bytes) -> tuple[int, bytes, list[int]] | None:
    """The longest run of symbol names: its offset, bytes and the offsets of its names."""
    best = max(_NAMES.finditer(data), key=lambda m: m.end() - m.start(), default=None)
    if best is None:
        return None
    run = best.group()
    starts = [0, *(m.end() for m in re.finditer(rb"\x00", run[:-1]))]
    return best.start(), run, starts


def _name(run: bytes, first: int, at: int) -> str | None:
    """The name starting at ``at`` (``first``: the end of the run's first name, which may start
    after bytes that only looked like part of it: any offset inside it is taken); names longer
    than the kernel keeps are not names."""
    if not 0 <= at < len(run) or (at > first and run[at - 1] != 0):
        return None
    end = run.find(b"\0", at, at + KSYM_NAME_LEN)
    return run[at:end].decode("ascii") if end > at else None


def _absolute_targets(words: tuple[int, ...], run: bytes, starts: list[int]) -> list[int | None] | None:
    """Each word's offset in the names when it points at one, for the address the names most
    likely load at; None when no address fits."""
    present = set(words)
    probes = starts[1 :: max(1, len(starts) // PROBES)][:PROBES]
    anchor = starts[len(starts) // 2]
    for w in present:
        base = w - anchor
        if all(base + s in present for s in probes):
            return [w - base if 0 <= w - base < len(run) else None for w in words]
    return None


def _relative_targets(data: bytes, little: bool, origin: int, size: int) -> list[int | None]:
    words = struct.unpack_from(("<" if little else ">") + f"{len(data) // 4}i", data)
    return [at if 0 <= (at := i * 4 + v - origin) < size else None for i, v in enumerate(words)]


def _runs(targets: list[int | None], run: bytes) -> list[list[str]]:
    """Runs of name fields at one stride (2 or 3 words), longest first, decoded."""
    found: list[list[str]] = []
    first = run.index(b"\0")
    for stride in (2, 3):
        for phase in range(stride):
            names: list[str] = []
            for i in range(phase, len(targets), stride):
                t = targets[i]
                name = _name(run, first, t) if t is not None else None
                if name:
                    names.append(name)
                    continue
                if len(names) >= MIN_RUN:
                    found.append(names)
                names = []
            if len(names) >= MIN_RUN:
                found.append(names)
    return sorted(found, key=len, reverse=True)


def recover(data: bytes) -> Recovered | None:
    """The exports of a raw kernel image, or None when no table is found."""
    strings = _strings(data)
    if strings is None:
        return None
    origin, run, starts = strings
    candidates: list[list[int | None]] = []
    for little in (True, False):
        n = len(data) // 4
        words = struct.unpack_from(("<" if little else ">") + f"{n}I", data)
        found = _absolute_targets(words, run, starts)
        if found is not None:
            candidates.append(found)
        candidates.append(_relative_targets(data, little, origin, len(run)))
    runs = [r for targets in candidates for r in _runs(targets, run)]
    if not runs:
        return None
    table = max(runs, key=len)
    parts: list[list[str]] = [[]]
    for name in table:
        if parts[-1] and name < parts[-1][-1]:
            parts.append([])
        parts[-1].append(name)
    exports = dict.fromkeys(parts[0], ExportKind.PLAIN)
    if len(parts) > 1:
        exports.update((name, ExportKind.GPL) for name in parts[1])
    detail = f"{len(exports)} exports found by shape in the image ({len(parts[0])} plain"
    detail += f", {len(parts[1])} GPL-only" if len(parts) > 1 else ""
    if len(parts) > 2:
        detail += f"; {sum(map(len, parts[2:]))} more in tables that cannot be told apart, left out"
    return Recovered(exports, detail + ")")
