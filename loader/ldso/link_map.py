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
from collections import Counter
from collections.abc import Iterator

from ..errors import RootfsError
from ..model import MAX_TRIED, ElfFacts, FoundBy, Kind, LinkMap, NeededEdge
from ..problems import Problem
from ..rootfs import RootFS
from .flavours import FLAVOURS, LoaderFlavour, flavour_of
from .header_checks import Verdict
from .loader_config import LoaderConfig
from .search_path import Candidate, LoadedObject, SearchPath


class World:
    """One root filesystem with its parsed ELF files, as every link map of it sees it."""

    def __init__(
        self, root: RootFS, modules: dict[str, ElfFacts], problems: list[Problem], cpu: tuple[str, ...] = ()
    ) -> None:
        self.root = root
        self.modules = modules
        self.config = LoaderConfig(root, problems, cpu)
        self._dirs: dict[str, bool] = {}
        self._default_interpreters: dict[LoaderFlavour, str | None] = {}  # the modules do not change
        self._default_flavour: LoaderFlavour | None = None
        self._held: dict[str, bool] = {}  # PT_INTERP -> whether the root holds it

    def has_dir(self, path: str) -> bool:
        if path not in self._dirs:
            self._dirs[path] = self.root.is_dir(path)
        return self._dirs[path]

    def canonical(self, device_path: str) -> str | None:
        try:
            found = self.root.resolve(device_path)
        except RootfsError:
            return None
        return found  # byte-exact (undecodable bytes as surrogates); escaped only for display

    def interpreter(self, exe: ElfFacts) -> tuple[str | None, ElfFacts | None]:
        """The interpreter's path as the kernel opens it, and its facts if it is in the root."""
        return self.interpreter_file(exe.interpreter) if exe.interpreter else (None, None)

    def interpreter_file(self, interp: str) -> tuple[str, ElfFacts | None]:
        """The path the kernel opens for a PT_INTERP, and the facts of that file if it is in the root."""
        candidates = _interpreter_paths(interp)
        for path in candidates:
            canonical = self.canonical(path)
            if canonical and canonical in self.modules:
                return path, self.modules[canonical]
        return candidates[0], None

    def holds_interpreter(self, interp: str) -> bool:
        """Whether the root has a file where the kernel opens this PT_INTERP: the exact path,
        resolved inside the root (a link to the loader counts, the loader under another name
        or in another folder does not). Without it the device cannot start the program."""
        if interp not in self._held:
            self._held[interp] = any(self.root.is_file(path) for path in _interpreter_paths(interp))
        return self._held[interp]

    def default_interpreter(self, flavour: LoaderFlavour) -> str | None:
        """The PT_INTERP most executables of this flavour use, one the root holds first (the
        loader of a library no executable loads is the one that would dlopen it)."""
        if flavour not in self._default_interpreters:
            counts = Counter(
                f.interpreter
                for f in self.modules.values()
                if f.interpreter and f.kind is Kind.EXECUTABLE and flavour_of(f.interpreter) is flavour
            )
            best = max(counts, key=lambda i: (self.holds_interpreter(i), counts[i]), default=None)
            self._default_interpreters[flavour] = best
        return self._default_interpreters[flavour]

    def default_flavour(self) -> LoaderFlavour:
        """The loader most executables of this root use (for libraries no executable loads)."""
        if self._default_flavour is None:
            counts = Counter(flavour_of(f.interpreter).flavour for f in self.modules.values() if f.interpreter)
            self._default_flavour = FLAVOURS[counts.most_common(1)[0][0]] if counts else flavour_of(None)
        return self._default_flavour


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

    def map_object(self, name: str, requester: LoadedObject) -> NeededEdge:
        """The DT_NEEDED entry ``name`` of ``requester``: the object the loader takes for it (it
        joins the load order) and how it was found, or the paths tried when nothing fits."""
        flavour = self.flavour
        source = requester.facts.path
        if self.interp is not None:
            if flavour.builtin_names and name.startswith(flavour.builtin_names):
                return self._reused(source, name, self.interp)
            if flavour.loader_by_basename and posixpath.basename(name) == self.search.uclibc.name:
                return self._reused(source, name, self.interp, not self.search.uclibc.loader_always_last)
        if flavour.reuse_by_name:
            found = self._already_loaded(name)
            if found is not None:
                return self._reused(source, name, found)
        elif self.search.uclibc.reuse_by_basename:
            found = self._loaded_by_basename(name)
            if found is not None:
                return self._reused(source, name, found)
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
            else:
                obj.names.update((name, path))
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

    def run(self) -> LinkMap:
        link_map = LinkMap(self.exe.facts.path, self.flavour.flavour, [])
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


def _interpreter_paths(interp: str) -> list[str]:
    """Where the kernel opens a PT_INTERP: the path as written (a relative one from / or /lib)."""
    return [interp] if interp.startswith("/") else [f"/{interp}", f"/lib/{interp}"]


def _with_interpreter(facts: ElfFacts, interpreter: str) -> ElfFacts:
    clone = copy.copy(facts)
    clone.interpreter = interpreter
    return clone


def build_link_map(
    root_object: ElfFacts, world: World, flavour: LoaderFlavour | None = None
) -> tuple[LinkMap, list[ElfFacts]]:
    """The link map of one executable (or of a library no executable loads), and its objects."""
    if flavour is None:
        flavour = flavour_of(root_object.interpreter) if root_object.interpreter else world.default_flavour()
    loader = _Loader(root_object, world, flavour)
    link_map = loader.run()
    return link_map, [o.facts for o in loader.order]
