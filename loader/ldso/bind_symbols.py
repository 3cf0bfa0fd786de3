"""Which object satisfies each symbol reference, searched the way the flavour's loader does.

For every object of a link map and every symbol its relocations name, the global scope is
searched in load order (glibc ``_dl_lookup_symbol_x``/``do_lookup_x``, musl ``find_sym``,
uClibc ``_dl_find_hash``): the first object with an acceptable definition wins. Rules kept:
symbol versions (glibc ``check_match``), weak definitions count as global (all three loaders
by default), local/hidden/internal references bind inside the object, protected ones too,
copy relocations skip the executable, ``DT_SYMBOLIC`` searches the object itself first, and
PLT references do not accept an executable's undefined canonical-PLT entries (what one lookup
asks and which definitions satisfy it: ``symbol_lookup``).

Most of a scope is shared by many executables (libc binds alike under each), so each library's providers
are cached per scope below the executable; only what the executable itself could satisfy is looked at again.
"""

from __future__ import annotations

from collections.abc import Set

from ..elf.dynsym import referenced_names
from ..model import (
    BindingKey,
    DuplicateKey,
    ElfFacts,
    LinkMap,
    Resolution,
    UnresolvedKey,
)
from . import prelink
from .flavours import LoaderFlavour
from .holdings import GroupHoldings, Resolved, add_holding
from .relocation_order import relocation_order
from .symbol_lookup import Lookup, SymbolTable, references_of, winner_of


class _Group:
    """A library's lookups in one scope below the executable, shared by the link maps with that
    scope: the group's number, its entries, and the ones recorded per executable anyway
    (STB_GNU_UNIQUE definitions, where the flavour has their table)."""

    __slots__ = ("entries", "gid", "special")

    def __init__(self, gid: int, entries: list[Resolved], special: list[int]) -> None:
        self.gid = gid
        self.entries = entries
        self.special = special


class SymbolBinder:
    """Resolves the references of every object of many link maps of one root."""

    def __init__(
        self, flavour_of_map: dict[str, LoaderFlavour], modules: list[ElfFacts], interpreters: Set[str] = frozenset()
    ) -> None:
        self.flavours = flavour_of_map
        self.interpreters = interpreters  # the programs' loaders (their own GOT: ``references_of``)
        self._tables: dict[str, SymbolTable] = {}
        self._lookups: dict[tuple[str, str], list[Lookup]] = {}
        self._scope_cache: dict[tuple, _Group] = {}
        self._definers_of: dict[tuple[str, str], frozenset[str]] = {}
        self._interposable: dict[tuple[str, str], dict[str, list[int]]] = {}
        self.holdings = GroupHoldings()
        self._by_name: dict[str, list[SymbolTable]] = {}  # every object of the root defining a name
        self._obj_definers: dict[tuple[str, str], list[tuple[str, ...]]] = {}
        self._definer_cache: dict[tuple, tuple[str, ...]] = {}
        # per (object, flavour), per lookup: providers -> the one Resolved for them, shared by every
        # scope in which the lookup finds the same providers (most do: libc binds alike everywhere)
        self._variants: dict[tuple[str, str], list[dict[tuple[str, ...], Resolved]]] = {}
        self._uniques: set[tuple[str, str]] = set()  # (provider, name) of STB_GNU_UNIQUE definitions
        self._wanted = referenced_names(modules)
        for facts in modules:
            if facts.dynamic:
                table = self.table(facts)
                for name in table.by_name:
                    self._by_name.setdefault(name, []).append(table)
                self._uniques.update((facts.path, name) for name in table.unique)
        self._unique_names = frozenset(name for _path, name in self._uniques)

    def table(self, facts: ElfFacts) -> SymbolTable:
        table = self._tables.get(facts.path)
        if table is None:
            table = self._tables[facts.path] = SymbolTable(facts, self._wanted)
        return table

    def lookups(self, facts: ElfFacts, flavour: LoaderFlavour) -> list[Lookup]:
        key = (facts.path, flavour.key)
        found = self._lookups.get(key)
        if found is None:
            found = self._lookups[key] = references_of(facts, flavour, facts.path in self.interpreters)
        return found

    def _definers(self, obj: ElfFacts, flavour: LoaderFlavour) -> list[tuple[str, ...]]:
        """For each lookup of ``obj``: every object of the root that satisfies it (worked out once;
        a link map's scope then only picks and orders them)."""
        key = (obj.path, flavour.key)
        found = self._obj_definers.get(key)
        if found is None:
            found = self._obj_definers[key] = []
            cache = self._definer_cache
            for lk in self.lookups(obj, flavour):
                lk_key = (lk.name, lk.version, lk.plt, flavour.key)
                definers = cache.get(lk_key)
                if definers is None:
                    definers = cache[lk_key] = tuple(
                        t.facts.path for t in self._by_name.get(lk.name, ()) if t.defines(lk, flavour)
                    )
                found.append(definers)
        return found

    def _resolve_all(self, obj: ElfFacts, scope: dict[str, int], flavour: LoaderFlavour) -> list[Resolved]:
        """Providers of every lookup of ``obj`` in ``scope`` (path -> search position)."""
        out = []
        uniques = self._uniques
        lookups = self.lookups(obj, flavour)
        key = (obj.path, flavour.key)
        variants = self._variants.get(key)
        if variants is None:
            variants = self._variants[key] = [{} for _ in lookups]
        for lookup, definers, known in zip(lookups, self._definers(obj, flavour), variants, strict=True):
            if lookup.self_bound:
                providers: tuple[str, ...] = (obj.path,)
            elif len(definers) == 1:
                providers = definers if definers[0] in scope else ()
            else:
                hits = sorted((scope[p], p) for p in definers if p in scope)
                providers = tuple([p for _, p in hits])
            resolved = known.get(providers)
            if resolved is None:
                winner = winner_of(self._tables, lookup, providers, flavour)
                unique = winner is not None and (winner, lookup.name) in uniques
                resolved = known[providers] = Resolved(obj.path, lookup, providers, unique, winner)
            out.append(resolved)
        return out

    def _below_exe(self, obj: ElfFacts, rest_key: tuple[str, ...], flavour: LoaderFlavour) -> _Group:
        """Providers of each lookup of ``obj`` among the objects after the executable. They depend
        only on the order of the objects that define something ``obj`` looks up, so link maps
        whose scopes differ elsewhere share the group."""
        symbolic = flavour.honours_symbolic and obj.symbolic
        relevant = self._relevant(obj, flavour)
        tail = tuple([p for p in rest_key if p in relevant])
        key = (obj.path, tail, symbolic, flavour.key)
        group = self._scope_cache.get(key)
        if group is None:
            scope = {p: i for i, p in enumerate(tail, 1)}
            if symbolic:
                scope[obj.path] = -1
            entries = self._resolve_all(obj, scope, flavour)
            special = [i for i, e in enumerate(entries) if e.unique] if flavour.unique_symbols else []
            held = [e for i, e in enumerate(entries) if i not in special] if special else entries
            group = self._scope_cache[key] = _Group(self.holdings.new_group(held), entries, special)
        return group

    def definers_by_name(self, path: str, flavour: LoaderFlavour) -> dict[tuple[str, str | None], set[str]]:
        """For each (name, version) ``path`` looks up: the objects of the root that satisfy it."""
        obj, out = self._tables[path].facts, {}
        for lk, definers in zip(self.lookups(obj, flavour), self._definers(obj, flavour), strict=True):
            out.setdefault((lk.name, lk.version), set()).update(definers)
        return out

    def _relevant(self, obj: ElfFacts, flavour: LoaderFlavour) -> frozenset[str]:
        """Every object of the root that defines something ``obj`` looks up."""
        key = (obj.path, flavour.key)
        found = self._definers_of.get(key)
        if found is None:
            found = self._definers_of[key] = frozenset().union(*self._definers(obj, flavour))
        return found

    def _overridable(self, obj: ElfFacts, flavour: LoaderFlavour) -> dict[str, list[int]]:
        """The lookups of ``obj`` an executable's own definition can satisfy first, by name."""
        key = (obj.path, flavour.key)
        found = self._interposable.get(key)
        if found is None:
            found = self._interposable[key] = {}
            for i, lookup in enumerate(self.lookups(obj, flavour)):
                if not lookup.copy and not lookup.self_bound:
                    found.setdefault(lookup.name, []).append(i)
        return found

    def bind(self, link_map: LinkMap, objects: list[ElfFacts], out: Resolution) -> None:
        """Add the bindings, unresolved references and duplicates of one link map to ``out``
        (for a program glibc starts prelinked, the slots' prelinked values: loader/ldso/prelink.py).
        What every link map of a group holds reaches ``out`` when ``finish`` is called."""
        self.holdings.enter(link_map.executable)
        if self.flavours[link_map.executable].applies_prelink and prelink.check(link_map, objects):
            looked_up = Resolution()
            self._bind(link_map, objects, looked_up, explicit=True)
            prelink.apply(link_map, objects, looked_up, out, self._defines_name)
        else:
            self._bind(link_map, objects, out, explicit=False)

    def finish(self, out: Resolution) -> None:
        """Add what the groups of link maps hold to ``out``, after the last ``bind``."""
        self.holdings.finish(out)

    def bind_apart(self, link_map: LinkMap, objects: list[ElfFacts], out: Resolution, only: Set[str]) -> None:
        """The facts of the objects ``only`` names, of one link map, straight into ``out`` and in no
        group (a dlopen's: loader/dlopen). The others are looked at only where they could fix the
        provider of an STB_GNU_UNIQUE symbol that one of those looks up (relocated before them)."""
        self.holdings.enter(link_map.executable)
        self._bind(link_map, objects, out, explicit=True, only=only)

    def _defines_name(self, path: str, name: str) -> bool:
        table = self._tables.get(path)
        return table is not None and name in table.by_name

    def _bind(
        self, link_map: LinkMap, objects: list[ElfFacts], out: Resolution, explicit: bool, only: Set[str] | None = None
    ) -> None:
        """One link map: the executable's own lookups, and for each library only the lookups the
        executable interposes (or STB_GNU_UNIQUE ones) are recorded here; the rest hold through the
        library's group. ``explicit``: record every fact under this executable (for prelink)."""
        flavour = self.flavours[link_map.executable]
        exe_path = link_map.executable
        exe = objects[0]
        rest_key = tuple(o.path for o in objects[1:])
        rest = {path: i for i, path in enumerate(rest_key, 1)}
        exe_table = self.table(exe)
        exe_names = exe_table.by_name
        unique_table = flavour.unique_symbols
        unique: dict[str, str] = {}  # the table of STB_GNU_UNIQUE symbols: name -> first provider
        holdings = self.holdings
        settle = only is None or (
            unique_table
            and not self._unique_names.isdisjoint(
                lk.name for o in objects if o.path in only for lk in self.lookups(o, flavour)
            )
        )
        for obj in relocation_order(link_map, objects):
            sink: Resolution | None = out
            if only is not None and obj.path not in only:
                if not settle:
                    continue
                sink = None  # only the table of STB_GNU_UNIQUE providers is filled
            if obj is exe:
                for entry in self._resolve_all(exe, {**rest, exe_path: 0}, flavour):
                    if entry.lookup.copy:  # a copy relocation never binds to the executable itself
                        others = tuple(p for p in entry.providers if p != exe_path)
                        winner = winner_of(self._tables, entry.lookup, others, flavour)
                        entry = Resolved(exe_path, entry.lookup, others, entry.unique, winner)
                    self._record(entry, entry.providers, exe_path, unique_table, unique, sink)
                continue
            group = self._below_exe(obj, rest_key, flavour)
            entries = group.entries
            if explicit:
                picked: list[int] | range = range(len(entries))
            else:
                holdings.join(group.gid, exe_path)
                interposable = self._overridable(obj, flavour)
                hits = interposable.keys() & exe_names.keys() if exe_names else ()
                if not hits and not group.special:
                    continue
                picked = sorted({i for name in hits for i in interposable[name]}.union(group.special))
            symbolic = flavour.honours_symbolic and obj.symbolic
            for i in picked:
                entry = entries[i]
                lookup = entry.lookup
                if (
                    lookup.name in exe_names
                    and not lookup.copy
                    and not lookup.self_bound
                    and exe_table.defines(lookup, flavour)
                ):
                    providers = entry.providers
                    if symbolic and providers and providers[0] == obj.path:
                        providers = (obj.path, exe_path, *providers[1:])
                    else:
                        providers = (exe_path, *providers)
                    winner = winner_of(self._tables, lookup, providers, flavour)
                    own = Resolved(obj.path, lookup, providers, False, winner)
                    self._record(own, providers, exe_path, unique_table, unique, sink)
                    if not explicit:
                        holdings.exclude(entry, group.gid, exe_path)
                elif (unique_table and entry.unique) or explicit:
                    self._record(entry, entry.providers, exe_path, unique_table, unique, sink)

    def _record(
        self,
        entry: Resolved,
        providers: tuple[str, ...],
        exe_path: str,
        unique_table: bool,
        unique: dict[str, str],
        out: Resolution | None,
    ) -> None:
        """One fact into ``out`` (None: only the STB_GNU_UNIQUE table is filled)."""
        lookup = entry.lookup
        if not providers:
            if out is None:
                return
            add_holding(out.unresolved, UnresolvedKey(entry.module, lookup.name, lookup.version, lookup.weak), exe_path)
            return
        chosen = entry.winner or providers[0]
        if unique_table and not lookup.self_bound and (chosen, lookup.name) in self._uniques:
            chosen = unique.setdefault(lookup.name, chosen)
        if out is None:
            return
        add_holding(out.bindings, BindingKey(entry.module, lookup.name, lookup.version, chosen), exe_path)
        if len(providers) > 1:
            add_holding(out.duplicates, DuplicateKey(lookup.name, providers, entry.winner or providers[0]), exe_path)
