"""Which file each DT_NEEDED entry loads, in the loader's breadth-first order.

``build_link_map`` emulates ``_dl_map_object_deps`` (glibc), ``load_deps`` (musl) and
``_dl_get_ready_to_run`` (uClibc): every object's DT_NEEDED entries are mapped in order, a new
object goes to the end of the list, an already loaded one (same requested name, same DT_SONAME
where the flavour matches sonames, or the same file) is reused, and the interpreter counts as
loaded from the start.  Where the interpreter sits in the list is flavour-specific: glibc and
uClibc place it where an object first names it, else last; musl only where a reserved name or
its own name is first met.
"""

from __future__ import annotations

import copy
import posixpath
from collections.abc import Iterator

from ..model import MAX_TRIED, ElfFacts, FoundBy, LinkMap, NeededEdge
from .flavours import LoaderFlavour
from .header_checks import Verdict
from .search_path import Candidate, LoadedObject, SearchPath
from .world import World


class _Loader:
    """The state of one emulated process start."""

    def __init__(self, exe: ElfFacts, world: World, flavour: LoaderFlavour) -> None:
        self.world = world
        self.flavour = flavour
        self.exe = LoadedObject(exe, exe.path, None, {exe.path})
        self.order: list[LoadedObject] = [self.exe]
        self.by_path: dict[str, LoadedObject] = {exe.path: self.exe}
        if exe.interpreter:
            interp_path, interp = world.interpreter(exe)
        else:  # a library no program loads: under the loader of the root's programs (for glibc
            # too: a process that dlopens it has ld.so loaded, which its soname then names)
            default = world.default_interpreter(flavour)
            interp_path, interp = world.interpreter(_with_interpreter(exe, default)) if default else (None, None)
        self.interp_path = interp_path
        self.interp: LoadedObject | None = None
        if interp is not None and interp.path != exe.path:
            names = {interp_path or interp.path, interp.path}
            if interp.soname:
                names.add(interp.soname)
            self.interp = LoadedObject(interp, interp_path or interp.path, None, names)
            self.by_path[interp.path] = self.interp
        defaults_from = interp
        if defaults_from is None and not exe.interpreter:  # a library: its defaults are the root's loader's
            default = world.default_interpreter(flavour)
            defaults_from = world.interpreter(_with_interpreter(exe, default))[1] if default else None
        self.search = SearchPath(flavour, world.config, self.exe, interp_path, world.has_dir, interp, defaults_from)
        self.in_order: set[str] = {exe.path}

    def _enlist(self, obj: LoadedObject) -> LoadedObject:
        if obj.facts.path not in self.in_order:
            self.in_order.add(obj.facts.path)
            self.order.append(obj)
        return obj

    def _already_loaded(self, name: str) -> LoadedObject | None:
        for obj in self.by_path.values():
            if name in obj.names or (self.flavour.match_soname and obj.facts.soname == name):
                obj.names.add(name)
                return obj
        return None

    def _loaded_by_basename(self, name: str) -> LoadedObject | None:
        """uClibc up to 0.9.28, ``_dl_check_if_named_library_is_loaded`` (``UclibcBuild``): the last component of the
        name against the last component of the path each loaded module was opened under (the
        program's as started; the loader itself joins the list only after the walk); a
        ``libc.so.N`` other than ``libc.so.0`` is never taken (it is searched)."""
        base = posixpath.basename(name)
        if base.startswith("libc.so.") and len(base) > 8 and base[8].isdigit() and base[8] != "0":
            return None
        for obj in self.order:
            if obj is not self.interp and posixpath.basename(obj.opened_as) == base:
                obj.names.add(name)
                return obj
        return None

    def _candidates(self, name: str, requester: LoadedObject) -> Iterator[Candidate]:
        if "/" not in name:
            yield from self.search.candidates(name, requester)
            return
        yield Candidate(name if name.startswith("/") else "/" + name, FoundBy.SLASH_NAME)  # relative: from /
        base = posixpath.basename(name)
        if self.flavour.slash_name_falls_back and base:
            for c in self.search.candidates(base, requester):
                yield Candidate(c.path, FoundBy.SLASH_FALLBACK, c.via)

    def _reused(self, source: str, name: str, obj: LoadedObject, enlist: bool = True) -> NeededEdge:
        """An edge to an object taken without a search (the interpreter, or already loaded)."""
        if enlist:  # uClibc before 0.9.33 appends its loader after the walk, wherever it is named
            self._enlist(obj)
        rule = FoundBy.INTERPRETER if obj is self.interp else FoundBy.ALREADY_LOADED
        return NeededEdge(source, name, obj.facts.path, rule, posixpath.dirname(obj.opened_as) or "/")

    def map_object(self, name: str, requester: LoadedObject, preload: bool = False) -> NeededEdge:
        """The DT_NEEDED entry ``name`` of ``requester``: the object the loader takes for it (it
        joins the load order) and how it was found, or the paths tried when nothing fits. A
        ``preload`` name that finds an object already loaded adds nothing to the order (glibc's
        ``do_preload`` counts only new objects; uClibc keeps the one it has)."""
        flavour = self.flavour
        source = requester.facts.path
        if self.interp is not None:
            if flavour.builtin_names and name.startswith(flavour.builtin_names):
                return self._reused(source, name, self.interp, not preload)
            if flavour.loader_by_basename and not preload and posixpath.basename(name) == self.search.uclibc.name:
                return self._reused(source, name, self.interp, not self.search.uclibc.loader_always_last)
        if flavour.reuse_by_name:
            found = self._already_loaded(name)
            if found is not None:
                return self._reused(source, name, found, not preload)
        elif self.search.uclibc.reuse_by_basename:
            found = self._loaded_by_basename(name)
            if found is not None:
                return self._reused(source, name, found, not preload)
        tried = 0
        for path, rule, via in self._candidates(name, requester):
            tried += 1
            canonical = self.world.canonical(path)
            if canonical is None:
                continue
            if not self.world.root.is_file(canonical):
                continue  # open() fails (or, for a folder, reading it): the search goes on
            verdict, _why = flavour.verdict(self.exe.facts, self.world.modules.get(canonical))
            if verdict is Verdict.REFUSE:
                break
            if verdict is Verdict.SKIP:
                continue
            facts = self.world.modules[canonical]
            obj = self.by_path.get(canonical)
            if obj is None:
                obj = LoadedObject(facts, path, requester, {name, path})
                self.by_path[canonical] = obj
                self._enlist(obj)
            else:
                obj.names.update((name, path))
                if not preload:
                    self._enlist(obj)
            return NeededEdge(
                source,
                name,
                canonical,
                rule,
                posixpath.dirname(path) or "/",
                via.facts.path if via is not None else None,
            )
        return NeededEdge(source, name, None, tried=self._tried(name, requester, tried))

    def _tried(self, name: str, requester: LoadedObject, count: int) -> list[str]:
        """The first ``count`` candidate paths, each once, at most MAX_TRIED (only computed for a
        missing name, so that a hit costs nothing)."""
        out: list[str] = []
        seen: set[str] = set()
        for n, candidate in enumerate(self._candidates(name, requester)):
            if n >= count or len(out) >= MAX_TRIED:
                break
            if candidate.path not in seen:
                seen.add(candidate.path)
                out.append(candidate.path)
        return out

    def fork(self) -> _Loader:
        """This state as a copy that can go on loading (a dlopen) while this one stays as it is."""
        clone = copy.copy(self)
        twins = {id(o): LoadedObject(o.facts, o.opened_as, o.loader, set(o.names)) for o in self.by_path.values()}
        for o in self.order:
            twins.setdefault(id(o), LoadedObject(o.facts, o.opened_as, o.loader, set(o.names)))
        for twin in twins.values():  # the chains of requesters (DT_RPATH) run through the copies
            if twin.loader is not None:
                twin.loader = twins.get(id(twin.loader), twin.loader)
        clone.exe = twins[id(self.exe)]
        clone.interp = twins[id(self.interp)] if self.interp is not None else None
        clone.order = [twins[id(o)] for o in self.order]
        clone.by_path = {path: twins[id(o)] for path, o in self.by_path.items()}
        clone.in_order = set(self.in_order)
        clone.search = copy.copy(self.search)
        clone.search.exe = clone.exe
        return clone

    def preload(self) -> None:
        """The preload file's names (``loader_config.preloads``), before the walk: each is mapped
        like a DT_NEEDED entry of the program (uClibc: of no object, without RPATH), a new object
        joins the list after the program and the names before it, and its own DT_NEEDED entries
        are walked in its turn; a name that cannot be loaded is a ``preload-missing`` problem."""
        if not self.exe.facts.interpreter:
            return  # a library no program loads: preloading is done by a process's loader
        path, names = self.world.config.preloads(self.flavour, self.interp.facts if self.interp else None)
        requester = self.exe
        if names and not self.flavour.preload_uses_program_rpath:
            bare = copy.copy(self.exe.facts)
            bare.rpath = bare.runpath = None
            requester = LoadedObject(bare, self.exe.opened_as, None, set())
        for name in names:
            if self.map_object(name, requester, preload=True).target is None:
                self.world.preload_failed(path, name, self.flavour)

    def run(self) -> LinkMap:
        link_map = LinkMap(self.exe.facts.path, self.flavour.flavour, [])
        self.preload()
        i = 0
        while i < len(self.order):
            obj = self.order[i]
            i += 1
            for name in obj.facts.needed:
                edge = self.map_object(name, obj)
                link_map.needed.append(edge)
                if edge.target is None and name not in link_map.missing:
                    link_map.missing.append(name)
        if self.interp is not None and self.flavour.interpreter_always_loaded:
            self._enlist(self.interp)  # rtld's own map / uClibc's add_ldso: last when nobody names it
        link_map.objects = [o.facts.path for o in self.order]
        return link_map


def _with_interpreter(facts: ElfFacts, interpreter: str) -> ElfFacts:
    clone = copy.copy(facts)
    clone.interpreter = interpreter
    return clone


def build_link_map(
    root_object: ElfFacts, world: World, flavour: LoaderFlavour | None = None
) -> tuple[LinkMap, list[ElfFacts]]:
    """The link map of one executable (or of a library no executable loads), and its objects."""
    if flavour is None:
        flavour = world.flavour(root_object.interpreter) if root_object.interpreter else world.default_flavour()
    loader = _Loader(root_object, world, flavour)
    link_map = loader.run()
    return link_map, [o.facts for o in loader.order]
