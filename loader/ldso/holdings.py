"""In which link maps each binding, unresolved reference and duplicate holds, kept per group.

A library's references are looked up once per *group*: the library with the same objects after
the executable (the same scope below it, ``bind_symbols``). Every link map of the group binds
those references alike, unless its executable interposes a definition (or, for glibc, a
STB_GNU_UNIQUE symbol is involved): those few are recorded per executable, and the executable is
left out of the group's holding for that reference. The rest is not expanded per link map while
binding (a root of 3,000 ELF files has about seven million (binding, link map) pairs but only a
few thousand distinct sets of link maps): ``GroupHoldings.finish`` turns each reference's groups
into the list of executables, computed once per distinct set of groups and shared between the
facts that hold in the same link maps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from ..model import BindingKey, DuplicateKey, Resolution, UnresolvedKey
from .symbol_lookup import Lookup


def add_holding(table: dict, key: tuple, exe: str) -> None:
    """Record that the fact ``key`` holds in the link map of ``exe`` (link maps come in order)."""
    held = table.get(key)
    if held is None:
        table[key] = [exe]
    elif held[-1] != exe:
        held.append(exe)


K = TypeVar("K", BindingKey, UnresolvedKey, DuplicateKey)


class Resolved:
    """One lookup of one object with its providers below the executable, the keys it adds, and the
    groups whose link maps it holds in (``excluded``: per group, the executables that bind it
    otherwise)."""

    __slots__ = (
        "binding",
        "duplicate",
        "excluded",
        "groups",
        "lookup",
        "module",
        "providers",
        "unique",
        "unresolved",
        "winner",
    )

    def __init__(
        self, obj: str, lookup: Lookup, providers: tuple[str, ...], unique: bool, winner: str | None = None
    ) -> None:
        self.module = obj
        self.lookup = lookup
        self.providers = providers
        self.winner = winner = winner or (providers[0] if providers else None)  # the one the loader takes
        name, version = lookup.name, lookup.version
        self.binding = BindingKey(obj, name, version, winner) if winner else None
        self.unresolved = None if providers else UnresolvedKey(obj, name, version, lookup.weak)
        self.duplicate = DuplicateKey(name, providers, winner) if winner and len(providers) > 1 else None
        self.unique = unique
        self.groups: list[int] = []
        self.excluded: dict[int, set[str]] | None = None


class GroupHoldings:
    """The executables of each group, in the order their link maps were bound."""

    def __init__(self) -> None:
        self.order: dict[str, int] = {}  # executable -> position in binding order
        self.members: list[list[str]] = []  # group -> its executables, in order
        self._held: list[Resolved] = []  # every Resolved held by some group

    def enter(self, exe: str) -> None:
        """A link map rooted at ``exe`` is about to be bound."""
        self.order.setdefault(exe, len(self.order))

    def new_group(self, entries: Iterable[Resolved]) -> int:
        """A new group whose link maps all hold ``entries`` (the ones not recorded per executable)."""
        gid = len(self.members)
        self.members.append([])
        held = self._held
        for entry in entries:
            if not entry.groups:
                held.append(entry)
            entry.groups.append(gid)
        return gid

    def join(self, gid: int, exe: str) -> None:
        self.members[gid].append(exe)

    @staticmethod
    def exclude(entry: Resolved, gid: int, exe: str) -> None:
        """Under ``exe``, ``entry`` does not hold in group ``gid`` (the executable binds it otherwise)."""
        if entry.excluded is None:
            entry.excluded = {}
        entry.excluded.setdefault(gid, set()).add(exe)

    def finish(self, out: Resolution) -> None:
        """Add every group's holdings to ``out`` (beside what was recorded per executable there)."""
        position = self.order.__getitem__
        members = self.members
        by_groups: dict[tuple[int, ...], list[str]] = {}
        bindings: dict[BindingKey, list[list[str]]] = {}
        unresolved: dict[UnresolvedKey, list[list[str]]] = {}
        duplicates: dict[DuplicateKey, list[list[str]]] = {}
        for entry in self._held:
            gids = tuple(entry.groups)
            if entry.excluded is None:
                exes = by_groups.get(gids)
                if exes is None:
                    exes = by_groups[gids] = _union([members[g] for g in gids], position)
            else:
                excluded = entry.excluded
                exes = _union([[e for e in members[g] if e not in excluded.get(g, ())] for g in gids], position)
            if not exes:
                continue
            if entry.binding is not None:
                _add(bindings, entry.binding, exes)
                if entry.duplicate is not None:
                    _add(duplicates, entry.duplicate, exes)
            elif entry.unresolved is not None:
                _add(unresolved, entry.unresolved, exes)
        _merge(out.bindings, bindings, position)
        _merge(out.unresolved, unresolved, position)
        _merge(out.duplicates, duplicates, position)


def _merge(table: dict[K, list[str]], pending: dict[K, list[list[str]]], position: Callable[[str], int]) -> None:
    """Each key's executables from the groups, with those recorded one by one in ``table``."""
    for key, lists in pending.items():
        recorded = table.get(key)
        if recorded is not None:
            lists.append(recorded)
        table[key] = lists[0] if len(lists) == 1 else _union(lists, position)


def _add(pending: dict[K, list[list[str]]], key: K, exes: list[str]) -> None:
    got = pending.get(key)
    if got is None:
        pending[key] = [exes]
    else:
        got.append(exes)


def _union(lists: list[list[str]], position: Callable[[str], int]) -> list[str]:
    """The executables of several ordered lists, once each, in binding order."""
    if len(lists) == 1:
        return lists[0]
    return sorted(set().union(*lists), key=position)
