"""A library opened with ``dlopen(RTLD_LOCAL)`` in the link map of the program that loads it.

The program's link map is built as at start-up (``loader.ldso.link_map``); then the name is mapped
as the calling object asks for it (its DT_RPATH chain and the program's, its DT_RUNPATH, the cache,
the default folders: the same search a DT_NEEDED entry of the caller gets), and the library's own
DT_NEEDED entries breadth first after it, objects already loaded being reused. Its symbols are
then looked up in glibc's scope for such an object (``_dl_new_object``: the global scope, that is
the program's search list, then the library's own search list), which is the flattened list of
the program's objects followed by the ones the dlopen added; the binder of
``loader.ldso.bind_symbols`` does the lookups. Only the bindings of the objects the dlopen added
(and of the library itself) are kept: the program's were made at start-up and do not change.
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import dataclass, field

from ..elf.dynsym import defined_at
from ..ldso.bind_symbols import SymbolBinder
from ..ldso.flavours import LoaderFlavour
from ..ldso.link_map import _Loader  # the start-up loader itself, continued by a dlopen
from ..ldso.world import World
from ..model import BindingKey, ElfFacts, FoundBy, LinkMap, NeededEdge, RelocClass, Resolution

_PATH_RULES = (FoundBy.RPATH, FoundBy.RUNPATH)


@dataclass
class Opened:
    """What one dlopen of ``name`` by ``caller`` in the program ``host`` does."""

    host: str
    target: str | None  # the file opened (None: nothing found)
    at_start: list[str]  # the program's link map at start-up
    local: list[str] = field(default_factory=list)  # the library and its dependencies, breadth first
    bindings: list[BindingKey] = field(default_factory=list)  # of the library and the objects it added


class HostLoader:
    """The link map of one program (or of a library no program loads, rooted at itself), ready to
    be continued by dlopen calls; each ``open`` starts again from the start-up state."""

    def __init__(self, host: ElfFacts, world: World, flavour: LoaderFlavour) -> None:
        self.host, self.world, self.flavour = host, world, flavour
        self._start = _Loader(host, world, flavour)  # never continued: each dlopen goes on from a fork
        self._start_map = self._start.run()
        self.at_start = self._start_map.objects
        self.loaded_at_start = frozenset(self.at_start)

    @functools.cached_property
    def copies(self) -> set[tuple[str, str]]:
        """(program, symbol) of the data the program holds copies of (copy relocations, with the
        aliases at the same addresses): bindings there are to a library's data, not to the program."""
        facts = self.host
        symbols = facts.symbols
        addresses = {
            symbols[r.symbol_index].value
            for r in facts.references
            if r.reloc_class == RelocClass.COPY and r.symbol_index < len(symbols)
        }
        return {(facts.path, name) for name in defined_at(symbols, addresses)} if addresses else set()

    def search_dirs(self, caller: str) -> list[tuple[str, FoundBy, str | None]]:
        """The folders the loader searches, in order, for a name without ``/`` that ``caller`` asks
        for: each with its rule and (DT_RPATH / DT_RUNPATH) the object whose entry named it."""
        loader = self._start
        requester = loader.by_path.get(caller, loader.exe)
        dirs: list[tuple[str, FoundBy, str | None]] = []
        for candidate in loader.search.candidates("\0", requester):
            entry = (
                posixpath.dirname(candidate.path) or "/",
                candidate.rule,
                candidate.via and candidate.via.facts.path,
            )
            if entry not in dirs:
                dirs.append(entry)
        return dirs

    def on_default_path(self, folder: str, names: list[str]) -> bool:
        """Whether the loader's search without DT_RPATH / DT_RUNPATH (the cache, ld.so.conf, the
        default folders) tries ``folder`` for one of ``names``."""
        loader = self._start
        for name in names:
            for candidate in loader.search.candidates(name, loader.exe):
                if candidate.rule not in _PATH_RULES and posixpath.dirname(candidate.path) == folder:
                    return True
        return False

    def open(self, caller: str, name: str, binder: SymbolBinder | None) -> Opened:
        """dlopen(``name``) called from ``caller`` (a path of the link map; else the program);
        with ``binder``, the bindings of what it loads."""
        loader, start = self._start.fork(), self._start_map
        requester = loader.by_path.get(caller, loader.exe)
        first = len(loader.order)
        edge = loader.map_object(name, requester)
        opened = Opened(self.host.path, edge.target, start.objects)
        if edge.target is None:
            return opened
        needed = [*start.needed, edge]
        local = [edge.target]
        i = 0
        while i < len(local):
            obj = loader.by_path[local[i]]
            i += 1
            for dep in obj.facts.needed:
                found = loader.map_object(dep, obj)
                needed.append(found)
                if found.target is not None and found.target not in local:
                    local.append(found.target)
        opened.local = local
        if binder is not None and edge.target not in start.objects:
            opened.bindings = self._bindings(binder, [o.facts for o in loader.order], first, needed)
        return opened

    def _bindings(
        self, binder: SymbolBinder, objects: list[ElfFacts], first: int, needed: list[NeededEdge]
    ) -> list[BindingKey]:
        """The bindings of ``objects[first:]`` (what the dlopen added) in the scope of all of them.
        Only the program's objects that define a name those look up can change a lookup: the others
        are left out of the scope bound (the program itself stays first: it may interpose)."""
        added = objects[first:]
        wanted = {lk.name for obj in added for lk in binder.lookups(obj, self.flavour)}
        kept = [o for o in objects[1:first] if not wanted.isdisjoint(binder.table(o).by_name)]
        scope = [objects[0], *kept, *added]
        link_map = LinkMap(self.host.path, self.flavour.flavour, [o.path for o in scope], [], needed)
        out = Resolution()
        binder.bind_apart(link_map, scope, out, only={o.path for o in added})
        return sorted(out.bindings, key=_order)


def _order(key: BindingKey) -> tuple[str, str, str, str]:
    return (key.module, key.symbol, key.version or "", key.provider)
