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

The words are read as numpy arrays (the image's words, each one's target, the name length at
each offset of the strings): time and memory grow linearly with the image, a few times its
size, and only the chosen run's names are decoded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

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


def _strings(data: bytes) -> tuple[int, bytes, np.ndarray] | None:
    """The longest run of symbol names: its offset, bytes and the offsets of its names."""
    best = max(_NAMES.finditer(data), key=lambda m: m.end() - m.start(), default=None)
    if best is None:
        return None
    run = best.group()
    nuls = np.flatnonzero(np.frombuffer(run, dtype=np.uint8) == 0)
    return best.start(), run, np.concatenate(([0], nuls[:-1] + 1))


def _name_lengths(run: bytes) -> np.ndarray:
    """For each offset of the names (and one past them), the length of the name starting there,
    0 where none does: any offset inside the first name (which may start after bytes that only
    looked like part of it), else only offsets just after a NUL; a name is shorter than the kernel
    keeps (KSYM_NAME_LEN)."""
    nuls = np.flatnonzero(np.frombuffer(run, dtype=np.uint8) == 0)  # the run ends with one
    lengths = np.zeros(len(run) + 1, dtype=np.int16)
    first = int(nuls[0])
    inside = np.arange(max(0, first - KSYM_NAME_LEN + 1), first)
    lengths[inside] = first - inside
    gaps = np.diff(nuls) - 1
    named = gaps > 0
    lengths[nuls[:-1][named] + 1] = np.where(gaps[named] < KSYM_NAME_LEN, gaps[named], 0)
    return lengths


def _absolute_targets(words: np.ndarray, size: int, starts: np.ndarray) -> np.ndarray | None:
    """Each word's offset in the names when it points into them (else -1), for the address the
    names most likely load at: one for which the image holds pointers to sampled names; None
    when no address fits."""
    present = np.unique(words)
    probes = starts[1 :: max(1, len(starts) // PROBES)][:PROBES]
    bases = present - int(starts[len(starts) // 2])
    for probe in probes:
        want = bases + int(probe)
        at = np.minimum(np.searchsorted(present, want), len(present) - 1)
        bases = bases[present[at] == want]
        if not len(bases):
            return None
    return _inside(words - int(bases[0]), size)


def _inside(offsets: np.ndarray, size: int) -> np.ndarray:
    offsets[(offsets < 0) | (offsets >= size)] = -1
    return offsets


def _relative_targets(data: bytes, little: bool, origin: int, size: int) -> np.ndarray:
    values = np.frombuffer(data, dtype=("<" if little else ">") + "i4", count=len(data) // 4).astype(np.int64)
    return _inside(np.arange(len(values), dtype=np.int64) * 4 + values - origin, size)


def _longest_run(targets: np.ndarray, lengths: np.ndarray) -> tuple[int, np.ndarray] | None:
    """The longest run of name fields at one stride (2 or 3 words), the first of equal ones:
    its length and the offsets of its names."""
    named = lengths[targets] > 0  # -1 reads the 0 past the end
    best: tuple[int, np.ndarray] | None = None
    for stride in (2, 3):
        for phase in range(stride):
            padded = np.concatenate(([False], named[phase::stride], [False]))
            edges = np.flatnonzero(padded[1:] != padded[:-1])
            spans = edges[1::2] - edges[::2]
            if not len(spans):
                continue
            i = int(np.argmax(spans))  # the first of the longest
            if spans[i] >= MIN_RUN and (best is None or spans[i] > best[0]):
                best = (int(spans[i]), targets[phase::stride][edges[2 * i] : edges[2 * i + 1]])
    return best


def recover(data: bytes) -> Recovered | None:
    """The exports of a raw kernel image, or None when no table is found."""
    strings = _strings(data)
    if strings is None:
        return None
    origin, run, starts = strings
    lengths = _name_lengths(run)
    best: tuple[int, np.ndarray] | None = None
    for little in (True, False):
        words = np.frombuffer(data, dtype=("<" if little else ">") + "u4", count=len(data) // 4).astype(np.int64)
        found = _absolute_targets(words, len(run), starts)
        for targets in ([found] if found is not None else []) + [_relative_targets(data, little, origin, len(run))]:
            longest = _longest_run(targets, lengths)
            if longest is not None and (best is None or longest[0] > best[0]):
                best = longest
    if best is None:
        return None
    ends = best[1] + lengths[best[1]]  # int64: the offsets' type
    table = [run[at:end].decode("ascii") for at, end in zip(best[1].tolist(), ends.tolist(), strict=True)]
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
