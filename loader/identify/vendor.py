"""Vendor code named as such: the origin of a module whose bytes show a vendor SDK or device maker.

The vendor table's strings (``data/vendors.yaml``) are matched in the identification's one pass
over each file's string ranges (``matcher``); its API families are compared with the file's
exported dynamic symbols. An origin says whose code a module is, with the evidence (strings at
their offsets, exported symbols), and never gives a licence: "To review" then tells vendor code
(ask the vendor) from code of unknown origin (investigate).

Only a module nothing else names gets one: an open-source identification wins (a vendor-patched
busybox is busybox), and so does a licence fact from package data, the knowledge base or the
name table, or a free licence the module's own ``.modinfo`` or the user's overrides state. A
module stating a free-software licence (the table's ``free`` statements) gets none, whatever
vendor lines it carries. A module whose bytes show three vendors or more is a list of makers (a
device table), not one maker's code: it gets none either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..elf.dynsym import DynSymbols
from ..licences.classes import LicenceClass, licence_class
from ..licences.modinfo import Modinfo
from ..licences.overrides import OverrideSource
from ..model import LicenceFact, Module
from .matcher import Hit
from .model import Evidence, EvidenceKind, ModuleIdentity, Origin
from .vendor_table import SymbolFamily, Vendor, vendor_table

MAX_EVIDENCE = 8  # per origin: each pattern's first string, then more strings, then the API families
MAX_SYMBOLS_SHOWN = 8
MAX_VENDORS = 2  # more vendors in one file: a list of makers, not one maker's code
# licence facts an origin may stand beside: what the module's own .modinfo or the user says, when
# it is no free licence (a proprietary kernel module of an SDK keeps its licence and gets its origin)
OWN_WORD = (Modinfo.NAME, OverrideSource.NAME)
NOT_FREE = (LicenceClass.INCOMPATIBLE, LicenceClass.UNKNOWN)


def open_to_origin(fact: LicenceFact | None) -> bool:
    """Whether a module with this licence fact may get an origin (see the module's docstring)."""
    if fact is None or fact.licence is None:
        return True
    return fact.source.split(":", 1)[0] in OWN_WORD and licence_class(fact.licence) in NOT_FREE


def add_origins(
    modules: Iterable[Module],
    hits: Mapping[str, list[Hit]],
    identities: dict[str, ModuleIdentity],
    licences: Mapping[str, LicenceFact],
) -> None:
    """Give each module open to an origin whose bytes show a vendor that origin, in ``identities``
    (by path: the identification's answers, which gain an entry for a module they had none for)."""
    for path, origin in vendor_origins(modules, hits, identities, licences).items():
        identities.setdefault(path, ModuleIdentity()).origin = origin


def vendor_origins(
    modules: Iterable[Module],
    hits: Mapping[str, list[Hit]],
    identities: Mapping[str, ModuleIdentity],
    licences: Mapping[str, LicenceFact],
) -> dict[str, Origin]:
    """The origin of each module (by path) whose bytes show a vendor, among those open to one."""
    table = vendor_table()
    wanted = frozenset().union(*(f.names for v in table.vendors for f in v.symbols))
    out: dict[str, Origin] = {}
    for module in modules:
        found = identities.get(module.path)
        if (found is not None and found.own is not None) or not open_to_origin(licences.get(module.path)):
            continue
        own = [h for h in hits.get(module.path, ()) if h.vendor]
        if any(h.statement for h in own):  # a free-software licence statement
            continue
        exported = _exported(module, wanted)
        origins = [
            o
            for v, vendor in enumerate(table.vendors)
            if (o := _origin(vendor, [h for h in own if h.component == v], exported)) is not None
        ]
        if 0 < len(origins) <= MAX_VENDORS:
            out[module.path] = max(origins, key=lambda o: len(o.evidence))  # the first of a tie: table order
    return out


def _exported(module: Module, wanted: frozenset[str]) -> set[str]:
    """The names of ``wanted`` the module defines and exports (GLOBAL or WEAK dynamic symbols)."""
    symbols = module.facts.symbols
    if not symbols:
        return set()
    found = symbols.named(wanted) if isinstance(symbols, DynSymbols) else (s for s in symbols if s.name in wanted)
    return {s.name for s in found if s.shndx != 0 and s.bind in (1, 2)}


def _origin(vendor: Vendor, hits: list[Hit], exported: set[str]) -> Origin | None:
    families = [e for f in vendor.symbols if (e := _family_evidence(f, exported)) is not None]
    strings = [Evidence(EvidenceKind.STRING, h.text, h.offset) for h in _distinct(hits)]
    evidence = (*strings[: max(MAX_EVIDENCE - len(families), 1)], *families)
    return Origin(vendor.name, evidence) if evidence else None


def _distinct(hits: list[Hit]) -> list[Hit]:
    """The hits that are not part of an earlier match of their pattern (yara-x reports a path at
    each of its folders) nor the same text again, the first of each pattern first, each group in
    file order."""
    kept: list[Hit] = []
    ends: dict[int, int] = {}
    seen: set[tuple[int, str]] = set()
    for hit in sorted(hits, key=lambda h: h.offset):
        if hit.offset >= ends.get(hit.pattern, -1) and (hit.pattern, hit.text) not in seen:
            kept.append(hit)
            seen.add((hit.pattern, hit.text))
            ends[hit.pattern] = hit.offset + len(hit.text)
    first = {id(h) for h in {h.pattern: h for h in reversed(kept)}.values()}
    return [h for h in kept if id(h) in first] + [h for h in kept if id(h) not in first]


def _family_evidence(family: SymbolFamily, exported: set[str]) -> Evidence | None:
    """``exports N of M: names``, as the identification words its API evidence."""
    found = sorted(family.names & exported)
    if len(found) < family.min:
        return None
    shown = ", ".join(found[:MAX_SYMBOLS_SHOWN])
    more = f" (+{len(found) - MAX_SYMBOLS_SHOWN})" if len(found) > MAX_SYMBOLS_SHOWN else ""
    return Evidence(EvidenceKind.SYMBOLS, f"exports {len(found)} of {len(family.names)}: {shown}{more}")
