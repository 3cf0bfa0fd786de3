"""Section headers: read only where their reader reads them.

The dynamic loaders never look at section headers. The kernel's module loader does, so kernel
modules (``ET_REL``) are read through them; for dynamic objects they are only compared with the
loaded view (``elf_anomalies``).
"""

from __future__ import annotations

import struct

from ..errors import ElfError
from .image import Buffer, Bytes

SHN_XINDEX, SHT_NOBITS = 0xFFFF, 8
SHT_STRTAB, SHT_DYNAMIC, SHT_DYNSYM = 3, 6, 11
_SHDR = {False: ("IIIIIIIIII", 40), True: ("IIQQQQIIQQ", 64)}


class SectionHeaders:
    """Lazy access to section headers: ET_REL files, the PN_XNUM escape, and comparisons.

    A header is ``(name, type, flags, addr, offset, size, link, info, addralign, entsize)``.
    """

    def __init__(self, data: Buffer, e: str, is64: bool, shoff: int, shentsize: int, shnum: int, shstrndx: int) -> None:
        self.data, self.e, self.is64 = data, e, is64
        self.shoff, self.shentsize, self.shnum, self.shstrndx = shoff, shentsize, shnum, shstrndx

    def _header(self, index: int) -> tuple[int, ...]:
        fmt, base = _SHDR[self.is64]
        if not self.shoff or self.shentsize < base:
            raise ElfError("no usable section headers")
        pos = self.shoff + index * self.shentsize
        if pos + base > len(self.data):
            raise ElfError("section headers extend past the end of the file (truncated?)")
        return struct.unpack_from(self.e + fmt, self.data, pos)

    def first(self) -> tuple[int, ...]:
        return self._header(0)  # both classes: name, type, flags, addr, offset, size, link, info, ...

    def contents(self, sh: tuple[int, ...]) -> Bytes:
        offset, size = sh[4], sh[5]
        if sh[1] == SHT_NOBITS:
            return b""
        if offset + size > len(self.data):
            raise ElfError("section contents extend past the end of the file (truncated?)")
        return self.data[offset : offset + size]

    def headers(self) -> list[tuple[int, ...]]:
        """Every section header (ElfError when they cannot be read)."""
        if not self.shoff:
            return []
        shnum = self.shnum or self.first()[5]  # section 0's sh_size holds a count >= SHN_LORESERVE
        if shnum * self.shentsize > len(self.data):
            raise ElfError(f"absurd section header count {shnum}")
        return [self._header(i) for i in range(shnum)]

    def find(self, wanted: str) -> tuple[int, ...] | None:
        if not self.shoff:
            return None
        shnum = self.shnum or self.first()[5]  # section 0's sh_size holds a count >= SHN_LORESERVE
        if shnum * self.shentsize > len(self.data):
            raise ElfError(f"absurd section header count {shnum}")
        strndx = self.first()[6] if self.shstrndx == SHN_XINDEX else self.shstrndx
        names = self.contents(self._header(strndx))
        target = wanted.encode() + b"\0"
        for i in range(shnum):
            sh = self._header(i)
            if names[sh[0] : sh[0] + len(target)] == target:
                return sh
        return None
