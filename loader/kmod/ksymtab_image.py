"""The kernel's own export tables in a linked kernel (a ``vmlinux`` ELF, or a raw image whose
tables were located through kallsyms): there the fields are filled in, so an entry is decoded by
arithmetic, once the layout is known.

The layout (``struct kernel_symbol`` of include/linux/export.h, include/linux/export-internal.h
since 6.5) is not written anywhere in the image, so each candidate is tried and kept only when
every entry's name lands on a symbol name in ``__ksymtab_strings`` (the linker merges that
section's strings, so a name may be the tail of a longer one):

* absolute pointers, two or three machine words (before 4.19, and on architectures without
  ``CONFIG_HAVE_ARCH_PREL32_RELOCATIONS``);
* 32-bit place-relative offsets, two or three of them (4.19 and later where the architecture
  has them; the third field, the namespace, since 5.4).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass

from .model import KSYM_NAME_LEN

_SYMBOL = re.compile(rb"[A-Za-z0-9_.$]+")
# (relative, fields): tried in this order; a table that fits two layouts is refused
LAYOUTS = ((True, 3), (True, 2), (False, 3), (False, 2))


@dataclass(frozen=True, slots=True)
class Strings:
    """``__ksymtab_strings``: its address and bytes."""

    address: int
    data: bytes

    def name_at(self, address: int) -> str | None:
        """The symbol name at ``address``: NUL-terminated, at most KSYM_NAME_LEN bytes long."""
        at = address - self.address
        if not 0 <= at < len(self.data):
            return None
        end = self.data.find(b"\0", at, at + KSYM_NAME_LEN)
        if end < 0:
            return None
        raw = self.data[at:end]
        return raw.decode("ascii") if _SYMBOL.fullmatch(raw) else None


def _decode(
    table: bytes, address: int, strings: Strings, little: bool, word: int, relative: bool, fields: int
) -> list[str] | None:
    width = 4 if relative else word
    size = width * fields
    if not table or len(table) % size:
        return None
    fmt = ("<" if little else ">") + ("i" if relative else ("I" if word == 4 else "Q"))
    names: list[str] = []
    for at in range(0, len(table), size):
        field = at + width  # the name is the second field
        value = struct.unpack_from(fmt, table, field)[0]
        target = address + field + value if relative else value
        name = strings.name_at(target)
        if name is None:
            return None
        names.append(name)
    return names


def decode_table(table: bytes, address: int, strings: Strings, little: bool, word: int) -> list[str]:
    """The export names of one linked table at ``address``; ValueError when no layout, or more
    than one, reads it."""
    fits = [
        names
        for relative, fields in LAYOUTS
        if (names := _decode(table, address, strings, little, word, relative, fields)) is not None
    ]
    if not fits:
        raise ValueError("no known struct kernel_symbol layout reads this table")
    if any(f != fits[0] for f in fits[1:]):
        raise ValueError("the table reads as more than one struct kernel_symbol layout")
    return fits[0]


Reader = Callable[[int, int], bytes | None]  # (address, size) -> bytes, None when not in the image
