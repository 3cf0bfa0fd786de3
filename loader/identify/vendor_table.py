"""The vendor table (``data/vendors.yaml``): vendor SDKs and device makers, and what shows their code.

Each vendor has a name (the origin a module gets: ``Broadcom SDK``, ``TP-Link``), ``strings``
(regular expressions over the file's string ranges, matched in the identification's one yara-x
pass: copyright lines, SDK build paths, banners) and ``symbols`` (families of exported functions
of the vendor's API, each with the number of them a file must export). The table's ``free``
statements are licence statements of free software: a file that makes one is not given an
origin (a vendor's copyright line inside a GPL program does not make it the vendor's code).
Every fact names its source.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..data_files import load_yaml


@dataclass(frozen=True, slots=True)
class VendorString:
    regex: str  # a regular expression both yara-x and Python's re read the same way, no groups
    source: str


@dataclass(frozen=True, slots=True)
class SymbolFamily:
    names: frozenset[str]  # exported (defined) dynamic symbols of the vendor's API
    min: int  # how many of them a file must export
    source: str


@dataclass(frozen=True, slots=True)
class Vendor:
    name: str
    strings: tuple[VendorString, ...]
    symbols: tuple[SymbolFamily, ...]


@dataclass(frozen=True, slots=True)
class VendorTable:
    vendors: tuple[Vendor, ...]
    free: tuple[VendorString, ...]  # licence statements of free software


def _string(entry: dict, where: str) -> VendorString:
    regex = str(entry["pattern"])
    if "(" in regex.replace("(?:", "").replace("\\(", ""):
        raise ValueError(f"vendor table, {where}: {regex!r} has a group (use (?:...))")
    return VendorString(regex, str(entry["source"]))


def _family(entry: dict, where: str) -> SymbolFamily:
    names = frozenset(map(str, entry["names"]))
    least = int(entry.get("min", len(names)))
    if not 0 < least <= len(names):
        raise ValueError(f"vendor table, {where}: min {least} is not between 1 and {len(names)}")
    return SymbolFamily(names, least, str(entry["source"]))


def _vendor(entry: dict) -> Vendor:
    name = str(entry["name"])
    strings = tuple(_string(s, name) for s in entry.get("strings", ()))
    symbols = tuple(_family(f, name) for f in entry.get("symbols", ()))
    if not strings and not symbols:
        raise ValueError(f"vendor table, {name}: neither strings nor symbols")
    return Vendor(name, strings, symbols)


@functools.cache
def vendor_table() -> VendorTable:
    """The vendor table, in file order."""
    data = load_yaml("linkgraph.loader.identify", "vendors.yaml")
    vendors = tuple(_vendor(e) for e in data["vendors"])
    names = [v.name for v in vendors]
    if len(set(names)) != len(names):
        raise ValueError("vendor table: a vendor is listed twice")
    return VendorTable(vendors, tuple(_string(s, "free") for s in data["free"]))
