"""One symbol lookup as the loader makes it: what an object's relocations ask the scope for
(``Lookup``, ``references_of``) and whether one object's definitions satisfy it (``SymbolTable``,
glibc ``check_match``; musl ``find_sym``, uClibc ``_dl_find_hash`` where the flavour differs).

A reference to a local symbol (and, where the flavour honours visibility, to a hidden or internal
one) binds inside the object without a lookup, a protected definition keeps its own object; a
definition is a candidate only if it is global, weak or unique, of an allowed type and not
zero-valued (except TLS and absolute symbols); versions are matched as glibc does (where the
flavour looks versions up). ``bind_symbols`` walks each link map's scope with these.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import NamedTuple

from ..elf.dynsym import symbols_named
from ..model import (
    SHN_ABS,
    SHN_UNDEF,
    STB_GLOBAL,
    STB_GNU_UNIQUE,
    STB_LOCAL,
    STB_WEAK,
    STT_COMMON,
    STT_FUNC,
    STT_GNU_IFUNC,
    STT_NOTYPE,
    STT_OBJECT,
    STT_TLS,
    STV_HIDDEN,
    STV_INTERNAL,
    STV_PROTECTED,
    DynSymbol,
    ElfFacts,
    Kind,
    RelocClass,
)
from .flavours import LoaderFlavour

ALLOWED_TYPES = frozenset((STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_COMMON, STT_TLS, STT_GNU_IFUNC))
BINDS = frozenset((STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE))


class Lookup(NamedTuple):
    """One symbol reference of one object: what the loader asks the scope for."""

    name: str
    version: str | None
    weak: bool
    reloc_class: RelocClass
    self_bound: bool  # protected definition: the object keeps its own
    plt: bool = False  # only PLT relocations: an executable's undefined PLT entry does not satisfy it
    copy: bool = False  # a copy relocation: the lookup skips the executable


def references_of(facts: ElfFacts, flavour: LoaderFlavour, interpreter: bool = False) -> list[Lookup]:
    """The distinct lookups an object's relocations cause, in order of first appearance
    (``interpreter``: the object is a program's loader, which may bind its own GOT itself)."""
    seen: dict[tuple[str, str | None, int], Lookup] = {}
    got_is_plt = flavour.mips_got_needs_definition and facts.machine == "EM_MIPS"
    own_got = interpreter and flavour.mips_interpreter_binds_itself and facts.machine == "EM_MIPS"
    asked: set[tuple[int, RelocClass]] = set()  # a symbol many relocations name is read once per class
    count = len(facts.symbols)
    for ref in facts.references:
        if ref.symbol_index >= count or (ref.symbol_index, ref.reloc_class) in asked:
            continue
        asked.add((ref.symbol_index, ref.reloc_class))
        sym = facts.symbols[ref.symbol_index]
        if not sym.name or sym.bind == STB_LOCAL:
            continue
        if flavour.honours_visibility and sym.visibility in (STV_HIDDEN, STV_INTERNAL):
            continue
        version = sym.version if (facts.has_versym and sym.version_index >= 2) else None
        protected = flavour.honours_visibility and sym.visibility == STV_PROTECTED
        self_bound = (own_got or protected) and sym.defined
        key = (sym.name, version, int(ref.reloc_class))
        if key not in seen:
            cls = ref.reloc_class
            plt = cls == RelocClass.PLT or (got_is_plt and cls == RelocClass.NORMAL)
            seen[key] = Lookup(sym.name, version, sym.bind == STB_WEAK, cls, self_bound, plt, cls == RelocClass.COPY)
    return list(seen.values())


class SymbolTable:
    """The definitions of one object by name, filtered once for lookups: only the names in
    ``wanted`` (those some object's relocations name), so that a library exporting millions of
    symbols costs an index of the few a lookup can ask for."""

    __slots__ = ("by_name", "facts", "unique")

    def __init__(self, facts: ElfFacts, wanted: Container[str]) -> None:
        self.facts = facts
        by_name: dict[str, list[DynSymbol]] = {}
        for sym in symbols_named(facts.symbols, wanted):
            if sym.bind not in BINDS or sym.type not in ALLOWED_TYPES or not sym.name:
                continue
            if sym.value == 0 and sym.shndx != SHN_ABS and sym.type != STT_TLS:
                continue
            by_name.setdefault(sym.name, []).append(sym)
        self.by_name = by_name
        self.unique = frozenset(n for n, syms in by_name.items() if any(x.bind == STB_GNU_UNIQUE for x in syms))

    def defines(self, lookup: Lookup, flavour: LoaderFlavour) -> bool:
        """Does this object satisfy ``lookup`` (glibc ``check_match`` and friends)?"""
        return self.definition(lookup, flavour) is not None

    def definition(self, lookup: Lookup, flavour: LoaderFlavour) -> DynSymbol | None:
        """The symbol of this object that satisfies ``lookup``, if one does."""
        candidates = self.by_name.get(lookup.name)
        if not candidates:
            return None
        plt = lookup.plt
        mips = self.facts.machine == "EM_MIPS"
        versioned: list[DynSymbol] = []
        for sym in candidates:
            if sym.shndx == SHN_UNDEF and (plt or (mips and not sym.mips_plt)):
                continue
            if (sym.type == STT_GNU_IFUNC and not flavour.accepts_ifunc) or (
                sym.value == 0 and sym.type != STT_TLS and not flavour.accepts_zero_abs
            ):
                continue
            if not flavour.versioned_lookup:
                if flavour.skip_hidden_versions and sym.version_hidden:
                    continue
                return sym
            if not self.facts.has_versym:
                return sym
            if lookup.version is not None:
                if sym.version != lookup.version and (sym.version is not None or sym.version_hidden):
                    continue
                return sym
            if sym.version_index >= 3:
                if not sym.version_hidden:
                    versioned.append(sym)
                continue
            return sym
        return versioned[0] if len(versioned) == 1 else None


def winner_of(
    tables: Mapping[str, SymbolTable], lookup: Lookup, providers: tuple[str, ...], flavour: LoaderFlavour
) -> str | None:
    """Which of the providers (in search order) the loader takes: the first, or where a weak
    definition gives way to a later global one (musl up to 1.1.16's ``find_sym``: a later weak
    one is passed over, the search ends at the first global one; uClibc up to 0.9.26's
    ``_dl_find_hash`` likewise, and there a library's global STT_NOTYPE definition does not end
    the search either: the last one is taken, before any weak one)."""
    if len(providers) < 2 or not flavour.weak_yields_to_later_global:
        return providers[0] if providers else None
    chosen = notype = None
    for path in providers:
        table = tables.get(path)
        sym = table.definition(lookup, flavour) if table is not None else None
        bind = sym.bind if sym is not None else STB_GLOBAL
        if (
            flavour.notype_global_yields
            and sym is not None
            and table is not None
            and bind == STB_GLOBAL
            and sym.type == STT_NOTYPE
            and table.facts.kind is not Kind.EXECUTABLE
        ):
            notype = path
            continue
        if chosen is not None and bind == STB_WEAK:
            continue
        chosen = path
        if bind == STB_GLOBAL:
            return chosen
    return notype or chosen
