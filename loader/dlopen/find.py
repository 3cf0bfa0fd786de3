"""The dlopen edges of one root (docs/dlopen.md), found after the start-up link maps are built.

A module that imports ``dlopen`` (or ``dlmopen``, GLib's ``g_module_open``, libltdl's
``lt_dlopen``/``lt_dlopenext``) gets an edge to each library its ``.note.dlopen`` note declares
(``declared``), each library its read-only strings name exactly (``named``) and each one a printf
pattern among those strings matches (``pattern``). Every module whose DT_RPATH or DT_RUNPATH names
a folder off the default search path (a plugin folder) gets a ``pattern`` edge to each library in
it: loading from such a folder needs no dlopen in the module itself (a library of its link map
may do it, or it names the libraries as DT_NEEDED entries, as OpenWrt's ebtables does), so the
edge says whether the library is already loaded at start-up.

One edge per (module, library), with the strongest certainty found. The edges are not part of the
start-up classification (used, declared-unused, hidden): they are what may happen later.
"""

from __future__ import annotations

import itertools
import mmap
import posixpath
import struct
from collections.abc import Iterator

from ..elf.dynsym import symbols_named
from ..errors import ElfError
from ..ldso.bind_symbols import SymbolBinder
from ..ldso.flavours import LoaderFlavour
from ..ldso.world import World
from ..model import ElfFacts, FoundBy, Resolution
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import display_path
from .candidates import Libraries, files_in, is_library_name, pattern_matches, pattern_source
from .edges import STRENGTH, DlopenCertainty, DlopenEdge, FoundIn
from .host_map import HostLoader, Opened
from .rodata import DlopenHints, read_hints

MAX_OPENED = 1024  # candidates of one module opened in its program's link map (each is a link map)
MAX_PATTERNS = 256  # printf patterns naming libraries matched per module (each is matched against folders)
DLOPEN_FUNCTIONS = frozenset({"dlopen", "dlmopen", "g_module_open", "lt_dlopen", "lt_dlopenext"})
_FOLDER_RULES = {FoundBy.RPATH: FoundIn.RPATH, FoundBy.RUNPATH: FoundIn.RUNPATH}

# (certainty, where, evidence, the name dlopen is given)
Candidate = tuple[DlopenCertainty, FoundIn, str, str]


def imports_dlopen(facts: ElfFacts) -> bool:
    """Whether the module references one of the dlopen functions (an undefined dynamic symbol; not
    the binder's lookups: a MIPS call through the global GOT makes none for ``dlopen``)."""
    return any(not sym.defined for sym in symbols_named(facts.symbols, DLOPEN_FUNCTIONS))


def dlopen_edges(
    world: World,
    binder: SymbolBinder,
    resolution: Resolution,
    flavours: dict[str, LoaderFlavour],
    problems: list[Problem],
) -> list[DlopenEdge]:
    """Every dlopen edge of the root, sorted by (module, library)."""
    host_of: dict[str, str] = {}
    for link_map in resolution.link_maps:
        for obj in link_map.objects:
            host_of.setdefault(obj, link_map.executable)
    edges: dict[tuple[str, str], DlopenEdge] = {}
    hosts: dict[str, HostLoader] = {}
    libraries = Libraries(world)

    def host_loader(path: str) -> HostLoader:
        if path not in hosts:
            hosts[path] = HostLoader(world.modules[path], world, flavours[path])
        return hosts[path]

    for facts in sorted(world.modules.values(), key=lambda f: f.path):
        if not facts.dynamic:
            continue
        host_path = host_of.get(facts.path, facts.path)
        if host_path not in flavours:
            continue
        dynamic_loader = imports_dlopen(facts)
        if not dynamic_loader and not (facts.rpath or facts.runpath):
            continue
        host = host_loader(host_path)
        found: list[Candidate] = []
        if dynamic_loader:  # strongest first: a weaker edge to the same library is then not opened twice
            hints = _hints(world, facts, problems)
            found += itertools.islice(_hint_candidates(libraries, facts, host, hints, problems), MAX_OPENED + 1)
        found += itertools.islice(_folder_candidates(libraries, facts, host, dynamic_loader), MAX_OPENED + 1)
        if len(found) > MAX_OPENED:
            problems.append(
                Problem(
                    display_path(facts.path),
                    Severity.WARNING,
                    f"more than {MAX_OPENED} libraries it may dlopen: the first {MAX_OPENED} are kept",
                    ProblemCode.DLOPEN_CAPPED,
                )
            )
            found = found[:MAX_OPENED]
        for certainty, where, evidence, name in found:
            _add(edges, facts, host, binder, certainty, where, evidence, name)
    return [edges[key] for key in sorted(edges)]


def _hints(world: World, facts: ElfFacts, problems: list[Problem]) -> DlopenHints:
    try:
        with (
            open(world.root.host_path(facts.path), "rb") as fh,
            mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m,
        ):
            return read_hints(m)
    except (OSError, ValueError, ElfError, struct.error, IndexError) as exc:
        problems.append(
            Problem(
                display_path(facts.path),
                Severity.WARNING,
                f"its strings and notes could not be read for dlopen edges: {exc}",
                ProblemCode.DLOPEN_HINTS_UNREADABLE,
            )
        )
        return DlopenHints()


def _folder_candidates(
    libraries: Libraries, facts: ElfFacts, host: HostLoader, dynamic_loader: bool
) -> Iterator[Candidate]:
    """The libraries of the module's plugin folders: a DT_RPATH / DT_RUNPATH folder of its own that
    the search without them never tries, other than the module's own folder (its siblings). A
    module without a dlopen function gets only the plugins (no DT_SONAME) its program loads at
    start-up anyway, as ebtables its extensions: no dlopen of the others is in sight, and a private
    folder of libraries with sonames (samba's, a toolchain's) is no plugin folder."""
    if not (facts.rpath or facts.runpath):
        return
    world = host.world
    dirs = host.search_dirs(facts.path)
    system = {d for d, rule, _via in dirs if rule not in _FOLDER_RULES}
    own = world.canonical(posixpath.dirname(facts.path) or "/")
    for folder, rule, via in dirs:
        if rule not in _FOLDER_RULES or via != facts.path or folder in system or world.canonical(folder) == own:
            continue
        if host.on_default_path(folder, world.root.listdir(folder)):
            continue
        for path in files_in(libraries, folder, facts, _any_name):
            if dynamic_loader or (path in host.loaded_at_start and world.modules[path].soname is None):
                yield DlopenCertainty.PATTERN, _FOLDER_RULES[rule], folder, path


def _any_name(_name: str) -> bool:
    return True


def _hint_candidates(
    libraries: Libraries, facts: ElfFacts, host: HostLoader, hints: DlopenHints, problems: list[Problem]
) -> Iterator[Candidate]:
    for soname in hints.declared:
        yield DlopenCertainty.DECLARED, FoundIn.NOTE, soname, soname
    search: list[str] | None = None
    patterns = 0
    for text in hints.strings:
        if is_library_name(text):
            yield DlopenCertainty.NAMED, FoundIn.STRING, text, text
        elif "%" in text and pattern_source(text) is not None:
            patterns += 1
            if patterns > MAX_PATTERNS:  # the names after the last pattern matched are still read
                if patterns == MAX_PATTERNS + 1:
                    problems.append(_patterns_capped(facts))
                continue
            if search is None:
                search = [folder for folder, _rule, _via in host.search_dirs(facts.path)]
            for path in pattern_matches(libraries, facts, text, search):
                yield DlopenCertainty.PATTERN, FoundIn.STRING, text, path


def _patterns_capped(facts: ElfFacts) -> Problem:
    return Problem(
        display_path(facts.path),
        Severity.WARNING,
        f"more than {MAX_PATTERNS} printf patterns naming libraries: the first {MAX_PATTERNS} are matched",
        ProblemCode.DLOPEN_CAPPED,
    )


def _add(
    edges: dict[tuple[str, str], DlopenEdge],
    facts: ElfFacts,
    host: HostLoader,
    binder: SymbolBinder,
    certainty: DlopenCertainty,
    where: FoundIn,
    evidence: str,
    name: str,
) -> None:
    """The edge of one candidate, unless the module has a stronger (or as strong) one to the same library."""
    if name in host.loaded_at_start:  # a path of the program's link map: dlopen returns it as it is
        opened = Opened(host.host.path, name, host.at_start)
    else:
        opened = host.open(facts.path, name, binder)  # bound only when not loaded at start-up
    target = opened.target
    if target is None or target == facts.path:
        return
    known = edges.get((facts.path, target))
    if known is not None and STRENGTH[known.certainty] <= STRENGTH[certainty]:
        return
    at_start = target in opened.at_start
    local = set(opened.local)
    copies = host.copies  # the program's copies of library data: no dependency on the program
    edges[(facts.path, target)] = DlopenEdge(
        facts.path,
        target,
        certainty,
        where,
        evidence,
        opened.host,
        at_start,
        opened.bindings,
        sorted(
            {b.provider for b in opened.bindings if b.provider not in local and (b.provider, b.symbol) not in copies}
        ),
    )
