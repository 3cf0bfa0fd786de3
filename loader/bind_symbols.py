"""Which object satisfies each symbol reference, searched the way the flavour's loader does.

For every object of a link map and every symbol its relocations name, the global scope is
searched in load order (glibc ``_dl_lookup_symbol_x``/``do_lookup_x``, musl ``find_sym``,
uClibc ``_dl_find_hash``): the first object with an acceptable definition wins. Rules kept:
symbol versions (glibc ``check_match``), weak definitions count as global (all three loaders
by default), local/hidden/internal references bind inside the object, protected ones too,
copy relocations skip the executable, ``DT_SYMBOLIC`` searches the object itself first, and
PLT references do not accept an executable's undefined canonical-PLT entries.

Most of a link map's scope is shared by many executables (libc binds the same way under each
of them), so the providers of each library's references are cached per library and per scope
below the executable; only references the executable itself could satisfy are looked at again.
"""

from __future__ import annotations

from dataclasses import dataclass

from .flavours import LoaderFlavour
from .model import (
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
    Flavour,
    LinkMap,
    RelocClass,
    Resolution,
)

ALLOWED_TYPES = frozenset((STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_COMMON, STT_TLS, STT_GNU_IFUNC))
BINDS = frozenset((STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE))


@dataclass(frozen=True, slots=True)
class Lookup:
    """One symbol reference of one object: what the loader asks the scope for."""

    name: str
    version: str | None
    weak: bool
    reloc_class: RelocClass
    self_bound: bool  # protected definition: the object keeps its own


def references_of(facts: ElfFacts, flavour: LoaderFlavour) -> list[Lookup]:
    """The distinct lookups an object's relocations cause, in order of first appearance."""
    seen: dict[tuple[str, str | None, int], Lookup] = {}
    for ref in facts.references:
        if ref.symbol_index >= len(facts.symbols):
            continue
        sym = facts.symbols[ref.symbol_index]
        if not sym.name or sym.bind == STB_LOCAL:
            continue
        if flavour.honours_visibility and sym.visibility in (STV_HIDDEN, STV_INTERNAL):
            continue
        version = sym.version if (facts.has_versym and sym.version_index >= 2) else None
        self_bound = flavour.honours_visibility and sym.visibility == STV_PROTECTED and sym.defined
        key = (sym.name, version, int(ref.reloc_class))
        if key not in seen:
            seen[key] = Lookup(sym.name, version, sym.bind == STB_WEAK, ref.reloc_class, self_bound)
    return list(seen.values())


class SymbolTable:
    """The definitions of one object by name, filtered once for lookups."""

    __slots__ = ("facts", "by_name", "unique")

    def __init__(self, facts: ElfFacts) -> None:
        self.facts = facts
        by_name: dict[str, list[DynSymbol]] = {}
        for sym in facts.symbols:
            if sym.bind not in BINDS or sym.type not in ALLOWED_TYPES or not sym.name:
                continue
            if sym.value == 0 and sym.shndx != SHN_ABS and sym.type != STT_TLS:
                continue
            by_name.setdefault(sym.name, []).append(sym)
        self.by_name = by_name
        self.unique = frozenset(n for n, syms in by_name.items() if any(x.bind == STB_GNU_UNIQUE for x in syms))

    def defines(self, lookup: Lookup, flavour: LoaderFlavour) -> bool:
        """Does this object satisfy ``lookup`` (glibc ``check_match`` and friends)?"""
        candidates = self.by_name.get(lookup.name)
        if not candidates:
            return False
        plt = bool(lookup.reloc_class & RelocClass.PLT)
        mips = self.facts.machine == "EM_MIPS"
        versioned_seen = 0
        for sym in candidates:
            if sym.shndx == SHN_UNDEF and (plt or (mips and not sym.mips_plt)):
                continue
            if not flavour.versioned_lookup:
                if flavour.skip_hidden_versions and sym.version_hidden:
                    continue
                return True
            if not self.facts.has_versym:
                return True
            if lookup.version is not None:
                if sym.version != lookup.version and (sym.version is not None or sym.version_hidden):
                    continue
                return True
            if sym.version_index >= 3:
                if not sym.version_hidden:
                    versioned_seen += 1
                continue
            return True
        return versioned_seen == 1


class SymbolBinder:
    """Resolves the references of every object of many link maps of one root."""

    def __init__(self, flavour_of_map: dict[str, LoaderFlavour]) -> None:
        self.flavours = flavour_of_map
        self._tables: dict[str, SymbolTable] = {}
        self._lookups: dict[tuple[str, str], list[Lookup]] = {}
        self._scope_cache: dict[tuple, list[tuple[Lookup, tuple[str, ...]]]] = {}

    def table(self, facts: ElfFacts) -> SymbolTable:
        table = self._tables.get(facts.path)
        if table is None:
            table = self._tables[facts.path] = SymbolTable(facts)
        return table

    def table_of(self, path: str, objects: list[ElfFacts]) -> SymbolTable:
        table = self._tables.get(path)
        return table if table is not None else self.table(next(o for o in objects if o.path == path))

    def lookups(self, facts: ElfFacts, flavour: LoaderFlavour) -> list[Lookup]:
        key = (facts.path, flavour.flavour.value)
        found = self._lookups.get(key)
        if found is None:
            found = self._lookups[key] = references_of(facts, flavour)
        return found

    def _providers(self, lookup: Lookup, scope: list[ElfFacts], flavour: LoaderFlavour) -> tuple[str, ...]:
        return tuple(o.path for o in scope if self.table(o).defines(lookup, flavour))

    def _below_exe(self, obj: ElfFacts, rest: list[ElfFacts], rest_key: tuple[str, ...],
                   flavour: LoaderFlavour) -> list[tuple[Lookup, tuple[str, ...]]]:
        """Providers of each lookup of ``obj`` among the objects after the executable."""
        symbolic = flavour.honours_symbolic and obj.symbolic
        key = (obj.path, rest_key, symbolic, flavour.flavour.value)
        cached = self._scope_cache.get(key)
        if cached is None:
            scope = ([obj] + [o for o in rest if o.path != obj.path]) if symbolic else rest
            cached = [(lk, self._providers(lk, scope, flavour)) for lk in self.lookups(obj, flavour)]
            self._scope_cache[key] = cached
        return cached

    def bind(self, link_map: LinkMap, objects: list[ElfFacts], out: Resolution) -> None:
        """Add the bindings, unresolved references and duplicates of one link map to ``out``."""
        flavour = self.flavours[link_map.executable]
        exe_path = link_map.executable
        exe, rest = objects[0], objects[1:]
        rest_key = tuple(o.path for o in rest)
        exe_table = self.table(exe)
        bindings, unresolved, duplicates = out.bindings, out.unresolved, out.duplicates
        glibc = flavour.flavour is Flavour.GLIBC
        unique: dict[str, str] = {}  # glibc's table of STB_GNU_UNIQUE symbols: name -> first provider
        for obj in relocation_order(link_map, objects):
            if obj is exe:
                pairs = [(lk, self._providers(lk, objects, flavour)) for lk in self.lookups(exe, flavour)]
            else:
                pairs = self._below_exe(obj, rest, rest_key, flavour)
            symbolic_self = flavour.honours_symbolic and obj.symbolic and obj is not exe
            for lookup, providers in pairs:
                if lookup.self_bound:
                    providers = (obj.path,)
                elif obj is not exe and not (lookup.reloc_class & RelocClass.COPY) and \
                        lookup.name in exe_table.by_name and exe_table.defines(lookup, flavour):
                    if symbolic_self and providers and providers[0] == obj.path:
                        providers = (obj.path, exe_path) + providers[1:]
                    else:
                        providers = (exe_path,) + providers
                if lookup.reloc_class & RelocClass.COPY:
                    providers = tuple(p for p in providers if p != exe_path)
                if not providers:
                    _add(unresolved, (obj.path, lookup.name, lookup.version, lookup.weak), exe_path)
                    continue
                chosen = providers[0]
                if glibc and not lookup.self_bound and lookup.name in self.table_of(chosen, objects).unique:
                    chosen = unique.setdefault(lookup.name, chosen)
                _add(bindings, (obj.path, lookup.name, lookup.version, chosen), exe_path)
                if len(providers) > 1:
                    _add(duplicates, (lookup.name, providers, providers[0]), exe_path)


def relocation_order(link_map: LinkMap, objects: list[ElfFacts]) -> list[ElfFacts]:
    """The order glibc relocates a link map in: dependencies first, the executable last.

    ``_dl_sort_maps`` (depth-first, the default since glibc 2.35) sorts the objects after the
    executable so that each comes before its dependencies; relocation walks that list backwards.
    Only STB_GNU_UNIQUE symbols care: the first relocation that finds one fixes its provider.
    """
    by_path = {o.path: o for o in objects}
    deps: dict[str, list[str]] = {}
    for edge in link_map.needed:
        if edge.target is not None:
            deps.setdefault(edge.source, []).append(edge.target)
    main = objects[0].path
    visited: set[str] = set()
    finished: list[str] = []

    def visit(path: str) -> None:
        visited.add(path)
        for dep in deps.get(path, ()):
            if dep not in visited and dep != main:
                visit(dep)
        finished.append(path)

    for obj in reversed(objects[1:]):
        if obj.path not in visited:
            visit(obj.path)
    return [by_path[p] for p in finished if p in by_path] + [objects[0]]


def _add(table: dict, key: tuple, exe: str) -> None:
    lst = table.get(key)
    if lst is None:
        table[key] = [exe]
    elif lst[-1] != exe:
        lst.append(exe)
