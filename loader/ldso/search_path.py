"""Where each loader looks for a DT_NEEDED name: the search directories in order.

``SearchPath.candidates`` yields device paths to try, in the order the flavour's loader tries
them, each with the rule that put it there (``FoundBy``) and, for DT_RPATH/DT_RUNPATH, the object
whose entry it came from; ``link_map`` takes the first that holds a suitable ELF file.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from ..model import ElfFacts, FoundBy
from .flavours import PLATFORM, LoaderFlavour, SearchOrder
from .ld_cache import UCLIBC_ACCEPTED
from .loader_config import DirCache, LoaderConfig

_ORIGIN_ONLY = re.compile(r"\$(ORIGIN|\{ORIGIN\})")
_DST = re.compile(r"\$(ORIGIN|LIB|PLATFORM|\{ORIGIN\}|\{LIB\}|\{PLATFORM\})")


@dataclass(slots=True)
class LoadedObject:
    """An object in a link map, as the loader knows it while loading."""

    facts: ElfFacts
    opened_as: str  # the path the loader opened (its $ORIGIN comes from this, unresolved)
    loader: LoadedObject | None  # the object whose DT_NEEDED loaded it first
    names: set[str] = field(default_factory=set)


class Candidate(NamedTuple):
    """One device path the loader tries, the rule that makes it try it, and (RPATH/RUNPATH)
    the object whose dynamic entry named the folder."""

    path: str
    rule: FoundBy
    via: LoadedObject | None = None


def expand_dst(entry: str, obj: LoadedObject, lib_token: str) -> str | None:
    """Expand $ORIGIN, $LIB and $PLATFORM in one search-path entry (None: cannot be expanded)."""
    if "$" not in entry:
        return entry

    def repl(m: re.Match[str]) -> str:
        token = m.group(1).strip("{}")
        if token == "ORIGIN":
            return posixpath.dirname(obj.opened_as) or "/"
        if token == "LIB":
            return lib_token
        return PLATFORM.get(obj.facts.machine, "")

    expanded = _DST.sub(repl, entry)
    return None if "$" in expanded else expanded


class SearchPath:
    """The directories one flavour's loader searches for a name requested by one object."""

    def __init__(
        self,
        flavour: LoaderFlavour,
        config: LoaderConfig,
        exe: LoadedObject,
        interpreter: str | None,
        has_dir: Callable[[str], bool],
        loader: ElfFacts | None = None,
        defaults_from: ElfFacts | None = None,
    ) -> None:
        """``loader``: the interpreter in this link map; ``defaults_from``: the loader file whose
        compiled-in directories apply (the interpreter, or for a library the root's loader)."""
        self.flavour = flavour
        self.config = config
        self.exe = exe
        self.interpreter = interpreter
        self.has_dir = has_dir
        self.lib_token = flavour.lib_token(exe.facts, has_dir)
        compiled = config.default_dirs(flavour, exe.facts, defaults_from or loader, has_dir)
        self.defaults = list(compiled.dirs)
        self.hwcaps = compiled.hwcaps
        self.uclibc = flavour.build(exe.facts.interpreter or interpreter, loader)
        if not self.uclibc.cache and compiled.guessed:
            self.defaults = [*self.defaults, "/usr/X11R6/lib"]  # dl-elf.c: #ifndef __LDSO_CACHE_SUPPORT__

    def dir_variants(self, directory: str) -> list[str]:
        """The folders glibc tries for one search-path directory: its glibc-hwcaps subfolders for
        the assumed CPU, best first, then the directory itself (``open_path`` over ``capstr``)."""
        return [f"{directory}/glibc-hwcaps/{level}" for level in self.hwcaps] + [directory]

    def _dirs(self, entries: list[str] | None, obj: LoadedObject) -> list[str]:
        if entries and self.flavour.other_tokens_void_rpath and any("$" in _ORIGIN_ONLY.sub("", e) for e in entries):
            return []  # musl's fixup_rpath: any other $ token voids the whole string
        if entries and self.flavour.newline_separates_paths:
            entries = [part for entry in entries for part in entry.split("\n") if part]
        out = []
        for entry in entries or ():
            expanded = expand_dst(entry, obj, self.lib_token)
            if expanded:
                out.append(expanded if expanded.startswith("/") else "/" + expanded)
        return out

    def candidates(self, name: str, requester: LoadedObject) -> Iterator[Candidate]:
        """Device paths to try for ``name``, in the loader's order (duplicates possible), each
        with the rule that tries it."""
        order = self.flavour.search_order
        if order is SearchOrder.EACH_OBJECT_RUNPATH_OR_RPATH:
            yield from self._musl(name, requester)
        elif order is SearchOrder.REQUESTER_ONLY:
            yield from self._uclibc(name, requester)
        else:
            yield from self._glibc(name, requester)

    def _glibc(self, name: str, requester: LoadedObject) -> Iterator[Candidate]:
        facts = requester.facts
        rpath, runpath = FoundBy.RPATH, FoundBy.RUNPATH
        if facts.runpath is None:
            did_main = False
            obj: LoadedObject | None = requester
            while obj is not None:
                if obj.facts.rpath and obj.facts.runpath is None:
                    for d in self._dirs(obj.facts.rpath, obj):
                        for v in self.dir_variants(d):
                            yield Candidate(posixpath.join(v, name), rpath, obj)
                    did_main |= obj is self.exe
                obj = obj.loader
            exe = self.exe.facts
            if not did_main and exe.rpath and exe.runpath is None:
                for d in self._dirs(exe.rpath, self.exe):
                    for v in self.dir_variants(d):
                        yield Candidate(posixpath.join(v, name), rpath, self.exe)
        for d in self._dirs(facts.runpath, requester):
            for v in self.dir_variants(d):
                yield Candidate(posixpath.join(v, name), runpath, requester)
        cache = self.config.glibc_cache()
        if cache is not None:
            found = cache.lookup(name, self.exe.facts.elf_class, self.exe.facts.machine, self.exe.facts.flags)
            rule = FoundBy.LD_SO_CONF if isinstance(cache, DirCache) else FoundBy.LD_SO_CACHE
            for path in found[:1]:  # ld.so takes the cache's first fitting entry and nothing else
                if not (facts.nodeflib and posixpath.dirname(path) in self.defaults):
                    yield Candidate(path, rule)
        if facts.nodeflib:
            return
        default = FoundBy.DEFAULT_DIR
        for d in self.defaults:
            for v in self.dir_variants(d):
                yield Candidate(posixpath.join(v, name), default)

    def _musl(self, name: str, requester: LoadedObject) -> Iterator[Candidate]:
        obj: LoadedObject | None = requester
        while obj is not None:
            if obj.facts.runpath is not None:
                entries, rule = obj.facts.runpath, FoundBy.RUNPATH
            else:
                entries, rule = obj.facts.rpath, FoundBy.RPATH
            for d in self._dirs(entries, obj):
                yield Candidate(posixpath.join(d, name), rule, obj)
            obj = obj.loader
        paths = self.config.musl_paths(self.exe.facts, self.interpreter)
        rule = FoundBy.MUSL_PATH_FILE if paths is not None else FoundBy.DEFAULT_DIR
        for d in paths if paths is not None else self.defaults:
            yield Candidate(posixpath.join(d, name), rule)

    def _uclibc_dirs(self, entries: list[str] | None, obj: LoadedObject) -> list[str]:
        """``search_for_named_library``: entries are taken literally (uClibc 0.9.x); uClibc-ng
        replaces a leading ``$ORIGIN`` of an RPATH entry by the folder of the object's path and
        skips such RUNPATH entries (it passes no origin for them).  A relative entry is relative
        to the working directory, ``/`` on a device at boot."""
        out = []
        for entry in entries or ():
            if entry.startswith("$ORIGIN") and self.uclibc.rpath_origin:
                cut = obj.opened_as.rfind("/")
                if entries is not obj.facts.rpath or cut <= 0:
                    continue
                entry = obj.opened_as[:cut] + entry[len("$ORIGIN") :]
            out.append(entry if entry.startswith("/") else "/" + entry)
        return out

    def _uclibc(self, name: str, requester: LoadedObject) -> Iterator[Candidate]:
        """``_dl_load_shared_library``: the requester's own DT_RPATH (dropped when it has
        DT_RUNPATH), (LD_LIBRARY_PATH,) its DT_RUNPATH, ld.so.cache, the interpreter's folder
        if the loader was built to search it, /lib:/usr/lib.  Every hit is only a candidate:
        a file that is not a loadable ELF object for this machine is skipped."""
        facts = requester.facts
        if facts.runpath is None:
            for d in self._uclibc_dirs(facts.rpath, requester):
                yield Candidate(posixpath.join(d, name), FoundBy.RPATH, requester)
        for d in self._uclibc_dirs(facts.runpath, requester):
            yield Candidate(posixpath.join(d, name), FoundBy.RUNPATH, requester)
        cache = self.config.uclibc_cache(self.exe.facts.endian) if self.uclibc.cache else None
        if cache is not None:
            yield from (
                Candidate(e.path, FoundBy.LD_SO_CACHE)
                for e in cache.entries
                if e.name == name and e.flags in UCLIBC_ACCEPTED
            )
        raw = self.exe.facts.interpreter or self.interpreter
        if raw and self.uclibc.searches_interp_dir:  # relative: from the cwd, /
            yield Candidate(posixpath.join("/", posixpath.dirname(raw), name), FoundBy.INTERPRETER_DIR)
        for d in self.defaults:
            yield Candidate(posixpath.join(d, name), FoundBy.DEFAULT_DIR)
