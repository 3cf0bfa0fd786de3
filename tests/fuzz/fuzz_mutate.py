"""Mutations of a seed ELF file, written as patches so that every input is a readable recipe.

A :class:`Patch` replaces ``cut`` bytes at ``at`` with ``put`` repeated ``times`` (an overwrite by
default; ``put`` empty truncates). :func:`generate` draws patches through a :class:`Chooser`, so the
same mutations serve Hypothesis (the in-suite run, shrinkable) and a ``random.Random`` (the long
run): interesting integers written at the fields a loader trusts (ELF and program headers, dynamic
entries, hash tables, version records, the first symbols and relocations), random bytes and bit
flips anywhere, records copied over their neighbours, truncation.
"""

from __future__ import annotations

import random
import struct
from dataclasses import dataclass
from typing import Any, Protocol

DT_HASH, DT_SYMTAB, DT_REL, DT_RELA, DT_JMPREL = 4, 6, 17, 7, 23
DT_GNU_HASH, DT_VERSYM, DT_VERDEF, DT_VERNEED = 0x6FFFFEF5, 0x6FFFFFF0, 0x6FFFFFFC, 0x6FFFFFFE
MAX_RECORDS = 64  # records of each table whose fields are targets (the first ones are enough)
INTERESTING = (0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFF0, 0xFFFFFFFF,
               1 << 32, (1 << 63) - 1, 1 << 63)  # fmt: skip


@dataclass(frozen=True)
class Patch:
    """``data[at : at + cut] = put * times`` (``cut`` defaults to the length written)."""

    at: int
    put: bytes
    cut: int | None = None
    times: int = 1

    def apply(self, data: bytes) -> bytes:
        body = data if self.at <= len(data) else data + bytes(self.at - len(data))
        new = self.put * self.times
        cut = len(new) if self.cut is None else self.cut
        return body[: self.at] + new + body[self.at + cut :]

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at": self.at, "put": self.put.hex()}
        if self.cut is not None:
            out["cut"] = self.cut
        if self.times != 1:
            out["times"] = self.times
        return out

    @staticmethod
    def from_record(rec: dict[str, Any]) -> Patch:
        return Patch(int(rec["at"]), bytes.fromhex(rec["put"]), rec.get("cut"), int(rec.get("times", 1)))


def apply_patches(data: bytes, patches: list[Patch]) -> bytes:
    """The seed with every patch applied, in order (each offset refers to the bytes as they are then)."""
    for patch in patches:
        data = patch.apply(data)
    return data


class Chooser(Protocol):
    """Where the random choices come from (Hypothesis' draws, or a ``random.Random``)."""

    def integer(self, lo: int, hi: int) -> int:
        """An integer in ``lo..hi`` (both included)."""
        ...


@dataclass
class RandomChooser:
    """Choices from a ``random.Random`` (the long run)."""

    rng: random.Random

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


# --------------------------------------------------------------------------- fields of a seed


def fields(data: bytes) -> list[tuple[int, int]]:
    """(offset, width) of the fields a loader reads, found by walking the headers and tables of a
    seed. Every walk is bounded by the file and its first records, so a mutant can be walked too
    (the long run does, before each of its own mutations)."""
    if len(data) < 52 or data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        return []
    is64, e = data[4] == 2, "<" if data[5] == 1 else ">"
    if len(data) < (64 if is64 else 52):
        return []
    w = 8 if is64 else 4
    out = [(4, 1), (5, 1), (6, 1), (7, 1), (16, 2), (18, 2), (20, 4)]
    pos = 24
    for width in (w, w, w, 4, 2, 2, 2, 2, 2, 2):  # entry, phoff, shoff, flags, ehsize .. shstrndx
        out.append((pos, width))
        pos += width
    phoff, shoff = struct.unpack_from(e + ("QQ" if is64 else "II"), data, 32 if is64 else 28)
    phnum, shentsize, shnum = struct.unpack_from(e + "HHH", data, 56 if is64 else 44)
    phdr = (
        ("IIQQQQQQ", (0, 4, 8, 16, 24, 32, 40, 48), (4, 4, 8, 8, 8, 8, 8, 8))
        if is64
        else ("8I", tuple(range(0, 32, 4)), (4,) * 8)
    )
    loads: list[tuple[int, int, int]] = []
    dynamic = None
    for i in range(min(phnum, MAX_RECORDS)):
        at = phoff + i * (56 if is64 else 32)
        if at + (56 if is64 else 32) > len(data):
            break
        out += [(at + off, width) for off, width in zip(phdr[1], phdr[2], strict=True)]
        rec = struct.unpack_from(e + phdr[0], data, at)
        p_type, offset, vaddr, filesz = (rec[0], rec[2], rec[3], rec[5]) if is64 else (*rec[:3], rec[4])
        if p_type == 1:
            loads.append((vaddr, offset, filesz))
        elif p_type == 2:
            dynamic = offset
    for i in range(min(shnum, MAX_RECORDS)):
        at = shoff + i * shentsize
        if shentsize < (64 if is64 else 40) or at + shentsize > len(data):
            break
        out += [(at, 4), (at + 4, 4)] + [(at + off, w) for off in ((16, 24, 32) if is64 else (12, 16, 20))]
    if dynamic is not None:
        out += _dynamic_fields(data, e, is64, dynamic, loads)
    return sorted(set(out))


def _dynamic_fields(data: bytes, e: str, is64: bool, dynamic: int, loads: list[tuple[int, int, int]]) -> list:
    w = 8 if is64 else 4

    def offset(addr: int) -> int | None:
        for vaddr, off, filesz in loads:
            if vaddr <= addr < vaddr + filesz:
                return off + addr - vaddr
        return None

    out = []
    tags: dict[int, int] = {}
    for i in range(256):
        at = dynamic + i * 2 * w
        if at + 2 * w > len(data):
            break
        tag, val = struct.unpack_from(e + ("QQ" if is64 else "II"), data, at)
        out += [(at, w), (at + w, w)]
        tags.setdefault(tag, val)
        if tag == 0:
            break

    def table(tag: int, record: int, widths: tuple[tuple[int, int], ...], count: int = MAX_RECORDS) -> None:
        start = offset(tags[tag]) if tag in tags else None
        for i in range(count if start is not None else 0):
            at = start + i * record
            if at + record > len(data):
                return
            out.extend((at + off, width) for off, width in widths)

    table(DT_HASH, 4, ((0, 4),), 4)
    table(DT_GNU_HASH, 4, ((0, 4),), 6)
    table(DT_SYMTAB, 24 if is64 else 16, ((0, 4), (6, 2), (4, 1)) if is64 else ((0, 4), (14, 2), (12, 1)), 16)
    table(DT_VERSYM, 2, ((0, 2),), 16)
    for tag in (DT_REL, DT_RELA, DT_JMPREL):
        table(tag, w * (3 if tag == DT_RELA else 2), ((w, w),), 8)
    out += _version_fields(data, e, offset(tags[DT_VERNEED]) if DT_VERNEED in tags else None, True)
    out += _version_fields(data, e, offset(tags[DT_VERDEF]) if DT_VERDEF in tags else None, False)
    return out


def _version_fields(data: bytes, e: str, pos: int | None, need: bool) -> list[tuple[int, int]]:
    """vn_cnt, vn_file, vn_aux, vn_next and each vernaux (or the verdef fields), chains followed."""
    out: list[tuple[int, int]] = []
    seen: set[int] = set()
    while pos is not None and pos not in seen and pos + 20 <= len(data) and len(seen) < MAX_RECORDS:
        seen.add(pos)
        if need:
            cnt, aux, nxt = struct.unpack_from(e + "2xH4xII", data, pos)
            out += [(pos + 2, 2), (pos + 4, 4), (pos + 8, 4), (pos + 12, 4)]
            at = pos + aux
            for _ in range(min(cnt, 16)):
                if at + 16 > len(data):
                    break
                out += [(at + 6, 2), (at + 8, 4), (at + 12, 4)]
                step = struct.unpack_from(e + "I", data, at + 12)[0]
                if not step:
                    break
                at += step
        else:
            nxt = struct.unpack_from(e + "I", data, pos + 16)[0]
            out += [(pos + 2, 2), (pos + 4, 2), (pos + 6, 2), (pos + 12, 4), (pos + 16, 4)]
        pos = pos + nxt if nxt else None
    return out


# --------------------------------------------------------------------------- drawing patches


def interesting(width: int, old: int, size: int) -> list[int]:
    """Values worth writing into a field of ``width`` bytes that held ``old`` in a file of ``size``."""
    top = (1 << (8 * width)) - 1
    values = [*INTERESTING, top, top >> 1]
    values += [old + 1, old - 1, old * 2, old + 0x1000, old * 0x100, size, size - 1, size + 1, size // 2]
    return [v & top for v in values]


def _draw_field(pick: Chooser, data: bytes, targets: list[tuple[int, int]], e: str) -> Patch:
    if targets and pick.integer(0, 3):
        at, width = targets[pick.integer(0, len(targets) - 1)]
    else:
        width = (1, 2, 4, 8)[pick.integer(0, 3)]
        at = pick.integer(0, max(0, len(data) - width))
    at = min(at, len(data) - 1)  # the seed's fields, in bytes that earlier patches may have cut
    width = max(1, min(width, len(data) - at))
    old = int.from_bytes(data[at : at + width], "little" if e == "<" else "big")
    values = interesting(width, old, len(data))
    value = values[pick.integer(0, len(values) - 1)]
    return Patch(at, value.to_bytes(width, "little" if e == "<" else "big"))


def _draw_one(pick: Chooser, data: bytes, targets: list[tuple[int, int]]) -> Patch:
    e = ">" if len(data) > 5 and data[5] == 2 else "<"
    if not data:
        return Patch(0, bytes(pick.integer(0, 255) for _ in range(pick.integer(1, 4))))
    kind = pick.integer(0, 9)
    if kind <= 4:  # an interesting value, mostly into a field the loader reads
        return _draw_field(pick, data, targets, e)
    at = pick.integer(0, max(0, len(data) - 1))
    if kind <= 6:  # random bytes
        return Patch(at, bytes(pick.integer(0, 255) for _ in range(pick.integer(1, 4))))
    if kind == 7:  # one bit
        return Patch(at, bytes([data[at] ^ (1 << pick.integer(0, 7))]))
    if kind == 8:  # a record copied over another (a chain that comes back, a table that overlaps)
        length = (4, 8, 16, 24, 32)[pick.integer(0, 4)]
        src = pick.integer(0, max(0, len(data) - length))
        return Patch(at, data[src : src + length])
    return Patch(at, b"", cut=len(data) - at)  # truncated


def generate(pick: Chooser, data: bytes, targets: list[tuple[int, int]], most: int = 6) -> list[Patch]:
    """One to ``most`` patches for ``data`` (``targets``: its :func:`fields`), each drawn on the
    bytes as the earlier ones left them."""
    patches = []
    for _ in range(pick.integer(1, most)):
        patch = _draw_one(pick, data, targets)
        patches.append(patch)
        data = patch.apply(data)
    return patches
