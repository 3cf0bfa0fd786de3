"""The dynamic symbol table of one object, kept as columns of the file's fields.

A library may export millions of symbols of which the programs of a root reference a handful. As
objects, each symbol cost some 230 bytes (a DynSymbol, its name, its value); as columns it costs
16 (the st_name offset, st_info, st_other, st_shndx, st_value and the .gnu.version entry), plus
its share of the string table. A DynSymbol is made, and its name cut from the string table, when
it is asked for; the symbols a lookup can want are found by name without making the others.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Container, Iterable, Iterator, Sequence
from typing import Literal, overload

import numpy as np

from ..model import SHN_UNDEF, DynSymbol, ElfFacts
from .image import Bytes

IntCode = Literal["H", "I", "Q"]  # the unsigned 16, 32 and 64-bit item codes of array and memoryview

# .gnu.version value -> (version name, hidden bit, verneed file, index without the hidden bit)
Versions = dict[int, tuple[str | None, bool, str | None, int]]
UNVERSIONED: Versions = {1: (None, False, None, 1)}
_FEW = 16  # up to this many names, ``named`` finds them in the string table rather than symbol by symbol


def column(raw: Bytes, code: IntCode, start: int, step: int, big_endian: bool) -> array:
    """Every ``step``-th item of type ``code`` of ``raw`` from item ``start`` on, in native order."""
    with memoryview(raw) as view, view.cast(code) as items:
        out = array(code, items[start::step].tobytes())
    if big_endian != (sys.byteorder == "big"):
        out.byteswap()
    return out


_ENCODED_KEPT = 4
_encoded_kept: list[tuple[frozenset[str], frozenset[bytes]]] = []


def _encoded(wanted: set[str] | frozenset[str]) -> frozenset[bytes]:
    """``wanted``'s names as the string table holds them. The last few frozen sets asked for are
    kept: the same sets (a root's referenced names, an API table) are asked of every table in turn."""
    if not isinstance(wanted, frozenset):
        return frozenset(name.encode("utf-8", "surrogateescape") for name in wanted)
    for kept, raw in _encoded_kept:
        if kept is wanted:
            return raw
    raw = frozenset(name.encode("utf-8", "surrogateescape") for name in wanted)
    _encoded_kept[:] = [(wanted, raw), *_encoded_kept[: _ENCODED_KEPT - 1]]
    return raw


class DynSymbols(Sequence[DynSymbol]):
    """The symbols of one dynamic symbol table, index 0 included, each made when asked for.

    ``table`` is the string table with a NUL after it (``elf_image.Strings.table``); ``far`` holds
    the names the loader reads past DT_STRSZ, by symbol index, read while the file was mapped.
    """

    __slots__ = ("_far", "_info", "_mips", "_name", "_other", "_shndx", "_table", "_value", "_versions", "_versym")

    def __init__(
        self,
        table: str | bytes,
        far: dict[int, str],
        name: array,
        info: Bytes,
        other: Bytes,
        shndx: array,
        value: array,
        versym: array | None,
        versions: Versions,
        mips: bool,
    ) -> None:
        self._table, self._far, self._name = table, far, name
        self._info, self._other, self._shndx, self._value = info, other, shndx, value
        self._versym, self._versions, self._mips = versym, versions, mips

    def __len__(self) -> int:
        return len(self._name)

    @overload
    def __getitem__(self, index: int) -> DynSymbol: ...

    @overload
    def __getitem__(self, index: slice) -> list[DynSymbol]: ...

    def __getitem__(self, index: int | slice) -> DynSymbol | list[DynSymbol]:
        if isinstance(index, slice):
            return [self._make(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("symbol index out of range")
        return self._make(index)

    def __iter__(self) -> Iterator[DynSymbol]:
        return map(self._make, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"DynSymbols({len(self)} symbols)"

    def name(self, index: int) -> str:
        far = self._far.get(index) if self._far else None
        if far is not None:
            return far
        off, table = self._name[index], self._table
        if isinstance(table, str):
            return table[off : table.find("\0", off)]
        return table[off : table.find(b"\0", off)].decode("utf-8", "surrogateescape")

    def _make(self, index: int) -> DynSymbol:
        info, other = self._info[index], self._other[index]
        versym = 1 if self._versym is None else self._versym[index]
        version, hidden, vfile, vindex = self._versions[versym]
        return DynSymbol(
            self.name(index),
            info >> 4,
            info & 0xF,
            other & 3,
            self._shndx[index],
            self._value[index],
            version,
            hidden,
            vfile,
            vindex,
            self._mips and bool(other & 0x8),
        )

    def defined_at(self, addresses: Container[int]) -> Iterator[str]:
        """The names of the defined symbols whose value is in ``addresses``, in table order."""
        sections, name = self._shndx, self.name
        return (name(i) for i, v in enumerate(self._value) if v in addresses and sections[i] != SHN_UNDEF)

    def undefined_names(self) -> Iterator[str]:
        """The names of the undefined symbols (index 0 included, whose name is empty), in table order."""
        return map(self.name, np.flatnonzero(np.asarray(self._shndx) == SHN_UNDEF).tolist())

    def named(self, wanted: Container[str]) -> Iterator[DynSymbol]:
        """The symbols whose name is in ``wanted``, in table order (the others are never made)."""
        return map(self._make, self._indices_named(wanted))

    def _indices_named(self, wanted: Container[str]) -> list[int]:
        """The indices of the symbols whose name is in ``wanted``, in table order."""
        table, far = self._table, self._far
        if isinstance(wanted, set | frozenset) and len(wanted) <= _FEW:
            hits = self._at_offsets(wanted)
        elif isinstance(wanted, set | frozenset):  # bytes compared as bytes: no name is decoded to be let go
            hits = self._split_hits(wanted if isinstance(table, str) else _encoded(wanted))
        elif isinstance(table, str):
            find = table.find
            hits = [i for i, off in enumerate(self._name) if table[off : find("\0", off)] in wanted]
        else:
            find_b = table.find
            decoded = (table[off : find_b(b"\0", off)].decode("utf-8", "surrogateescape") for off in self._name)
            hits = [i for i, name in enumerate(decoded) if name in wanted]
        if far:  # their offsets are past the table: their names were read when the file was mapped
            hits = sorted({i for i in hits if i not in far} | {i for i, name in far.items() if name in wanted})
        return hits

    def _split_hits(self, wanted: Container[str] | Container[bytes]) -> list[int]:
        """The indices of the symbols whose name is in ``wanted`` (as the table holds names: str or
        bytes), without a Python step per symbol: the table is split at its NULs once, each piece
        is looked up in ``wanted`` once, and a symbol whose name starts a piece takes the piece's
        answer. A name that starts inside a piece (a shared tail) or past the table is cut out."""
        table = self._table
        pieces: list = table.split("\0" if isinstance(table, str) else b"\0")  # type: ignore[arg-type]
        count = len(pieces)
        starts = np.zeros(count, np.int64)
        np.cumsum(np.fromiter(map(len, pieces), np.int64, count)[:-1] + 1, out=starts[1:])
        kept = np.fromiter(map(wanted.__contains__, pieces), bool, count)
        offsets = np.asarray(self._name, np.int64)
        at = np.minimum(np.searchsorted(starts, offsets), count - 1)
        whole = starts[at] == offsets
        hits = whole & kept[at]
        inside = np.flatnonzero(~whole).tolist()
        if inside:
            find, cut = table.find, pieces[-1][:0]  # "" or b"": a name past the table is empty
            nul = cut + "\0" if isinstance(cut, str) else cut + b"\0"  # type: ignore[operator]
            for i in inside:
                off = int(offsets[i])
                end = find(nul, off)  # type: ignore[arg-type]
                hits[i] = (table[off:end] if end >= 0 else cut) in wanted  # type: ignore[operator]
        return np.flatnonzero(hits).tolist()

    def _at_offsets(self, wanted: Iterable[str]) -> list[int]:
        """The indices of the symbols named one of a few ``wanted`` names. A name stands at the
        offsets where it is followed by a NUL in the string table (mid-string too: a linker may
        share a name's tail), so no other symbol's name is cut out of the table."""
        table = self._table
        offsets: list[int] = []
        for name in wanted:
            if isinstance(table, str):
                at, text = table.find(name + "\0"), name + "\0"
                while at >= 0:
                    offsets.append(at)
                    at = table.find(text, at + 1)
            else:
                raw = (name + "\0").encode("utf-8", "surrogateescape")
                at = table.find(raw)
                while at >= 0:
                    offsets.append(at)
                    at = table.find(raw, at + 1)
        if not offsets:
            return []
        return np.flatnonzero(np.isin(np.asarray(self._name), offsets)).tolist()


def defined_at(symbols: Sequence[DynSymbol], addresses: Container[int]) -> Iterable[str]:
    """The names of the defined symbols whose value is one of ``addresses``, in table order (for
    DynSymbols read from the value and section columns; only those symbols are made)."""
    if isinstance(symbols, DynSymbols):
        return symbols.defined_at(addresses)
    return (sym.name for sym in symbols if sym.defined and sym.value in addresses)


def undefined_names(symbols: Sequence[DynSymbol]) -> Iterable[str]:
    """The names of the undefined symbols of a table (only their names are cut from DynSymbols)."""
    if isinstance(symbols, DynSymbols):
        return symbols.undefined_names()
    return (sym.name for sym in symbols if not sym.defined)


def symbols_named(symbols: Sequence[DynSymbol], wanted: Container[str]) -> Iterable[DynSymbol]:
    """The symbols of a table (DynSymbols, or a list made by hand) whose name is in ``wanted``."""
    if isinstance(symbols, DynSymbols):
        return symbols.named(wanted)
    return (sym for sym in symbols if sym.name in wanted)


def referenced_names(modules: Iterable[ElfFacts]) -> frozenset[str]:
    """Every name a relocation of some object names (prelinked slots included): the only names a
    lookup, and so a binding, can ask a definition for."""
    names: set[str] = set()
    for facts in modules:
        symbols = facts.symbols
        indices = [ref.symbol_index for ref in facts.references]
        if facts.prelink is not None:
            indices += [slot[0] for slot in facts.prelink.slots]
        count = len(symbols)
        if isinstance(symbols, DynSymbols):
            names.update(symbols.name(i) for i in indices if i < count)
        else:
            names.update(symbols[i].name for i in indices if i < count)
    return frozenset(names)
