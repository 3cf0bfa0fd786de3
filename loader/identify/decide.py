"""From a file's signature hits, exported symbols and names to what it is and what it contains.

A component the file is named after (file name, symlink or soname) is the file itself: confirmed by
a signature it is ``identified``, by its name alone ``inferred`` (never for a ``generic`` name). A
program component whose signature matches an executable not named after anything is that program
too. Any other library component whose signature matches is a copy inside the file (``contained``),
unless the file declares a ``DT_NEEDED`` of it. A licence statement of the component in the file
makes its licence ``declared``, once the component is identified by its name or another signature.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from ..elf.dynsym import DynSymbols
from ..model import Certainty, Kind, Module
from .matcher import Hit
from .model import Evidence, EvidenceKind, Identification, ModuleIdentity
from .table import Component

MAX_SYMBOL_EVIDENCE = 8


def module_names(module: Module) -> list[str]:
    """The names a module is known by: file name, symlinks' names, soname."""
    names = [posixpath.basename(p) for p in (module.path, *module.aliases)]
    if module.facts.soname:
        names.append(module.facts.soname)
    return list(dict.fromkeys(names))


def _exported(module: Module, wanted: frozenset[str]) -> set[str]:
    """The names of ``wanted`` the module exports (defined GLOBAL or WEAK dynamic symbols)."""
    symbols = module.facts.symbols
    found = symbols.named(wanted) if isinstance(symbols, DynSymbols) else (s for s in symbols if s.name in wanted)
    return {s.name for s in found if s.shndx != 0 and s.bind in (1, 2)}


_derived: dict[int, tuple[tuple[Component, ...], frozenset[str], re.Pattern[str]]] = {}


def _of_table(table: tuple[Component, ...]) -> tuple[tuple[Component, ...], frozenset[str], re.Pattern[str]]:
    """What is worked out once per table, kept by the table's identity (hashing a table hashes
    every component's fields: a cache keyed by its value costs more than it saves)."""
    kept = _derived.get(id(table))
    if kept is None or kept[0] is not table:
        names = "|".join(f"(?:{c.files.pattern})" for c in table if c.files is not None) or "(?!)"
        kept = _derived[id(table)] = (table, frozenset().union(*(c.symbols for c in table)), re.compile(names))
    return kept


def _api_names(table: tuple[Component, ...]) -> frozenset[str]:
    return _of_table(table)[1]


def _any_name(table: tuple[Component, ...]) -> re.Pattern[str]:
    """One expression for every component's file names: most names match none, and are let go at once."""
    return _of_table(table)[2]


def _candidates(table: tuple[Component, ...], hit: Iterable[int], names: list[str], exported: set[str]) -> list[int]:
    """The components worth deciding on, in table order: those with hits, named, or with API symbols."""
    found = set(hit)
    if any(_any_name(table).match(n) for n in names):
        found.update(i for i, c in enumerate(table) if c.named(names))
    if exported:
        found.update(i for i, c in enumerate(table) if c.symbols and not c.symbols.isdisjoint(exported))
    return sorted(found)


def _symbol_evidence(comp: Component, exported: set[str]) -> Evidence | None:
    if not comp.symbols:
        return None
    found = sorted(comp.symbols & exported)
    if len(found) < comp.symbols_min:
        return None
    shown = ", ".join(found[:MAX_SYMBOL_EVIDENCE]) + (
        f" (+{len(found) - MAX_SYMBOL_EVIDENCE})" if len(found) > MAX_SYMBOL_EVIDENCE else ""
    )
    return Evidence(EvidenceKind.SYMBOLS, f"exports {len(found)} of {len(comp.symbols)}: {shown}")


def _identification(
    comp: Component, hits: list[Hit], extra: Iterable[Evidence], contained: bool, names: list[str]
) -> Identification:
    strings = [h for h in hits if not h.statement]
    statements = [h for h in hits if h.statement]
    version = next((h.version for h in sorted(strings, key=lambda h: h.offset) if h.version), None)
    version = version or (None if contained else comp.version_in(names))
    evidence = [*extra, *(Evidence(EvidenceKind.STRING, h.text, h.offset) for h in strings)]
    evidence += [Evidence(EvidenceKind.STATEMENT, h.text, h.offset) for h in statements]
    if statements:
        certainty, licence = Certainty.DECLARED, comp.statements[statements[0].pattern].licence
    else:
        certainty = (
            Certainty.IDENTIFIED
            if hits or any(e.kind is not EvidenceKind.NAME for e in evidence)
            else Certainty.INFERRED
        )
        licence = comp.licence_of(version)
    return Identification(
        component=comp.name,
        version=version,
        licence=licence,
        certainty=certainty,
        evidence=tuple(evidence),
        source=comp.source,
        contained=contained,
        purl=comp.purl_of(version),
        cpe=comp.cpe_of(version),
    )


def decide(module: Module, hits: list[Hit], table: tuple[Component, ...]) -> ModuleIdentity:
    """What ``module`` is and contains, given its hits."""
    by_component: dict[int, list[Hit]] = {}
    for hit in hits:
        by_component.setdefault(hit.component, []).append(hit)
    names = module_names(module)
    needed = list(module.facts.needed)
    exported = _exported(module, _api_names(table)) if module.facts.symbols else set()
    own: tuple[int, Identification] | None = None
    found: list[tuple[int, Identification]] = []
    for index in _candidates(table, by_component, names, exported):
        comp, comp_hits = table[index], by_component.get(index, [])
        symbols = _symbol_evidence(comp, exported)
        # a licence statement alone names no component (many programs print "GPL version 2 or later")
        signed = any(not h.statement for h in comp_hits) or symbols is not None
        named = comp.named(names)
        if not signed and (not named or comp.generic):
            continue
        extra = [e for e in (symbols,) if e is not None]
        if named:
            name = next(n for n in names if comp.files is not None and comp.files.match(n))
            extra.insert(0, Evidence(EvidenceKind.NAME, name))
        ident = _identification(comp, comp_hits, extra, False, names)
        rank = (0 if named and signed else 1 if named else 2) if named or comp.kind == "program" else 3
        if rank == 2 and module.facts.kind is not Kind.EXECUTABLE:
            rank = 3
        if rank < 3 and (own is None or rank < own[0]):
            if own is not None:
                found.append(own)
            own = (rank, ident)
        else:
            found.append((rank, ident))
    contains = [
        _as_contained(i)
        for _rank, i in found
        if _contained(i, table, needed) and (own is None or i.component != own[1].component)
    ]
    return ModuleIdentity(own[1] if own else None, contains)


def _contained(ident: Identification, table: tuple[Component, ...], needed: list[str]) -> bool:
    """A signature match of a library component the file does not load dynamically."""
    if ident.certainty is Certainty.INFERRED:
        return False
    comp = next(c for c in table if c.name == ident.component)
    return comp.kind == "library" and not comp.named(needed)


def _as_contained(ident: Identification) -> Identification:
    evidence = tuple(e for e in ident.evidence if e.kind is not EvidenceKind.NAME)
    return Identification(
        ident.component,
        ident.version,
        ident.licence,
        ident.certainty,
        evidence,
        ident.source,
        True,
        ident.purl,
        ident.cpe,
    )
