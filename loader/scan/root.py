"""The pipeline for one root: walk, parse (``parse``), link maps, bindings, licence facts.

``scan_root`` never raises for bad content: every file that cannot be used becomes a
``Problem`` and the scan goes on.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import time
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path

from ..dlopen import DlopenEdge, dlopen_edges
from ..errors import RootfsError
from ..identify import identify_modules
from ..identify.matching import Matching
from ..identify.vendor import add_origins
from ..kmod.stage import scan_kernel_modules
from ..kmod.stage import wanted as kmod_wanted
from ..ldso.bind_symbols import SymbolBinder
from ..ldso.flavours import LoaderFlavour
from ..ldso.interposition import DependencyTrees, find_interposed
from ..ldso.link_map import build_link_map
from ..ldso.loader_config import MAX_CONFIG_SIZE
from ..ldso.risky_paths import readers, risky_search_paths
from ..ldso.upcalls import find_upcalls
from ..ldso.world import World
from ..licences import Overrides, licence_facts
from ..model import ElfFacts, Kind, Module, Resolution, ScanResult
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS, display_path
from .foreign import settle_unusable
from .parse import ElfReader, Progress, Unusable, candidates, named_like_code

LOADER_CONFIG = ("/etc/ld.so.cache", "/etc/ld.so.conf")


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


def firmware_hash(modules: dict[str, ElfFacts], links: dict[str, str], root: RootFS) -> str:
    """Content hash of a root: its ELF files, its symlinks and its loader configuration."""
    h = hashlib.sha256()
    for path in sorted(modules):
        h.update(f"F\0{path}\0{modules[path].sha256}\n".encode("utf-8", "surrogateescape"))
    for path in sorted(links):
        h.update(f"L\0{path}\0{links[path]}\n".encode("utf-8", "surrogateescape"))
    for path in LOADER_CONFIG:
        data = root.read_bytes(path, MAX_CONFIG_SIZE + 1)  # a larger one is not read (a problem says so)
        if data is not None:
            h.update(f"C\0{path}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return h.hexdigest()


@contextlib.contextmanager
def paused_gc(freeze: bool = False) -> Iterator[None]:
    """Pause Python's cycle collector: a scan makes millions of small acyclic objects, and the
    collector would walk them again and again (about a quarter of the scan's time). ``freeze``:
    the objects still alive at the end are moved out of its reach (``gc.freeze``), where it would
    otherwise walk them all once more at the first allocation after (half a second on 3,000 ELF
    files); refcounting still frees them, but a cycle among them is never collected, so only a
    process that ends soon after (a command) asks for it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if freeze:
                gc.freeze()
            gc.enable()


def scan_root(
    host_dir: str,
    name: str | None = None,
    workers: int | None = None,
    progress: Progress = _no_progress,
    root_name: str = "/",
    overrides: Overrides | None = None,
    cpu: tuple[str, ...] = (),
    kernel_images: Sequence[Path] = (),
    defer_dlopen: bool = False,
    identify: bool = True,
) -> ScanResult:
    """Scan one root filesystem folder: every ELF file, every link map, every binding, and the
    licence facts of every module (``overrides``: the user's, see ``licences.overrides``;
    ``cpu``: the glibc-hwcaps levels the device's CPU is assumed to support; ``kernel_images``:
    kernel images unpacked beside the root, for the kernel modules' links, see ``loader.kmod``).

    ``defer_dlopen``: the last stage, the dlopen edges, is left to ``result.complete()``, which a
    store runs while it writes the rest (``GraphRows.later``); the result holds what it needs.
    ``identify``: run the identification stage (``loader.identify``); without it, no module is
    identified by its bytes, symbols or the name table."""
    with paused_gc():
        result = _scan_root(host_dir, name, workers, progress, root_name, overrides, cpu, kernel_images, identify)
    if not defer_dlopen:
        result.complete()
    return result


def _scan_root(
    host_dir: str,
    name: str | None,
    workers: int | None,
    progress: Progress,
    root_name: str,
    overrides: Overrides | None,
    cpu: tuple[str, ...],
    kernel_images: Sequence[Path] = (),
    identify: bool = True,
) -> ScanResult:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    root = RootFS(host_dir, root_name)
    problems: list[Problem] = []
    link_paths: list[str] = []
    kernel_files: list[str] = []  # for the kernel-module stage, found by the same walk
    jobs = candidates(root, problems, link_paths, kmod_wanted, kernel_files)
    if workers is None:  # sending parsed symbol tables between processes costs about what parsing does
        cpus = os.cpu_count() or 1
        workers = 1 if cpus <= 2 else min(4, cpus)
    reader = ElfReader(workers, progress)
    modules: dict[str, ElfFacts] = {}
    unusable: list[Unusable] = []
    for result in reader.parse(jobs):
        if isinstance(result, Problem):
            problems.append(result)
        elif isinstance(result, Unusable):
            unusable.append(result)
        else:
            modules[result.path] = result
            problems += [
                Problem(display_path(result.path), Severity.WARNING, message, code)
                for code, message in result.anomalies
            ]
    timings["parse"] = time.perf_counter() - t0
    matching = Matching(root, sorted(modules) if identify else [])  # beside the link maps (loader.identify)
    headers = {u.header.path for u in unusable if u.header is not None}
    aliases, link_targets = _links(root, link_paths, modules.keys() | headers, problems)
    t1 = time.perf_counter()
    reader.all_parsed()
    world = World(root, modules, problems, cpu)
    modules.update(settle_unusable(world, unusable, aliases, problems))  # foreign blobs: other ELF
    resolution, default, binder, flavours = _resolve(world, modules, progress, problems)
    problems += risky_search_paths(root, modules.values(), readers(resolution.link_maps))
    timings["resolve"] = time.perf_counter() - t1

    t_kmod = time.perf_counter()
    kernel = scan_kernel_modules(Path(host_dir), kernel_images, kernel_files)
    problems += kernel.problems
    # compressed modules: not ELF files to the scan (a new dict: the dlopen stage's world keeps the ELF files)
    modules = {**kernel.facts, **modules}
    timings["kernel-modules"] = time.perf_counter() - t_kmod
    problems += reader.digests()  # hashed while the files were parsed and the link maps worked out

    mods = [Module(f, root.name, sorted(aliases.get(p, []))) for p, f in sorted(modules.items())]
    t2 = time.perf_counter()
    libc = default.flavour if any(f.interpreter for f in modules.values()) else None
    identities = identify_modules(root, mods, problems, matching) if identify else {}
    timings["identify"] = time.perf_counter() - t2
    t2 = time.perf_counter()
    licences = licence_facts(root, mods, problems, overrides, libc, identities)
    timings["licences"] = time.perf_counter() - t2
    t2 = time.perf_counter()
    if identify:  # vendor code: whose it is, for the modules nothing else names (loader.identify.vendor)
        add_origins(mods, matching.hits(problems), identities, licences)
    timings["identify"] += time.perf_counter() - t2
    link_maps = Resolution(link_maps=resolution.link_maps)  # all the dlopen stage needs of it
    dlopen: list[DlopenEdge] = []

    def dlopen_stage() -> None:
        t3 = time.perf_counter()
        with paused_gc():
            dlopen.extend(dlopen_edges(world, binder, link_maps, flavours, problems))
        timings["dlopen"] = time.perf_counter() - t3

    return ScanResult(
        firmware_name=name or os.path.basename(os.path.abspath(host_dir)),
        firmware_sha256=firmware_hash(modules, link_targets, root),
        modules=mods,
        resolution=resolution,
        problems=problems,
        elapsed=timings,
        root_dir=host_dir,
        licences=licences,
        identities=identities,
        loader_defaults={key: d.record() for key, d in world.config.defaults_used.items()},
        kernel=kernel.graphs,
        dlopen=dlopen,
        pending=dlopen_stage,
    )


def _links(
    root: RootFS, link_paths: list[str], elf_files: AbstractSet[str], problems: list[Problem]
) -> tuple[dict[str, list[str]], dict[str, str]]:
    """The root's symlinks and hard links: the aliases of each ELF file of ``elf_files``, and every
    link's target as written (a hard link's: its file's first name, after ``=``)."""
    aliases: dict[str, list[str]] = {}
    link_targets: dict[str, str] = {}
    for link in link_paths:
        shown = display_path(link)
        first = root.hard_links.get(link)
        if first is not None:
            link_targets[shown] = f"={display_path(first)}"
            if first in elf_files:
                aliases.setdefault(first, []).append(link)
            continue
        try:
            link_targets[shown] = os.readlink(root.host_path(link))
            target = root.resolve(link)
        except (RootfsError, OSError) as exc:
            problems.append(Problem(shown, Severity.WARNING, str(exc), ProblemCode.SYMLINK_UNRESOLVABLE))
            continue
        if link in root.warnings:
            problems.append(
                Problem(shown, Severity.WARNING, f"symlink {root.warnings[link]}", ProblemCode.SYMLINK_OUTSIDE)
            )
        if target is None:
            if named_like_code(link):
                problems.append(
                    Problem(
                        shown,
                        Severity.WARNING,
                        f"dangling symlink: {display_path(link_targets[shown])} is not in the root",
                        ProblemCode.SYMLINK_DANGLING,
                    )
                )
            continue
        if target in elf_files:
            aliases.setdefault(target, []).append(link)
    return aliases, link_targets


def _resolve(
    world: World, modules: dict[str, ElfFacts], progress: Progress, problems: list[Problem]
) -> tuple[Resolution, LoaderFlavour, SymbolBinder, dict[str, LoaderFlavour]]:
    """Every link map (each executable's, then each library's that no executable loads) and its
    bindings; the root's default flavour; the binder and each link map's flavour (for dlopen).
    A program whose interpreter the root does not hold gets none: the device cannot start it."""
    resolution = Resolution()
    flavours: dict[str, LoaderFlavour] = {}
    loaded: set[str] = set()
    roots = [f for f in modules.values() if f.dynamic and f.kind is Kind.EXECUTABLE and _startable(f, world, problems)]
    loaders = (world.interpreter_file(i)[1] for i in {f.interpreter for f in roots if f.interpreter})
    binder = SymbolBinder(flavours, list(modules.values()), frozenset(f.path for f in loaders if f is not None))
    for i, exe in enumerate(sorted(roots, key=lambda f: f.path)):
        link_map, objects = build_link_map(exe, world)
        flavours[exe.path] = world.flavour(exe.interpreter)
        resolution.link_maps.append(link_map)
        loaded.update(link_map.objects)
        binder.bind(link_map, objects, resolution)
        progress("resolve", i + 1, len(roots))
    default = world.default_flavour()
    for lib in sorted(modules.values(), key=lambda f: f.path):
        if lib.dynamic and lib.kind is Kind.LIBRARY and lib.path not in loaded:
            link_map, objects = build_link_map(lib, world, default)
            flavours[lib.path] = default
            resolution.link_maps.append(link_map)
            binder.bind(link_map, objects, resolution)
    binder.finish(resolution)
    trees = DependencyTrees(resolution.link_maps)
    resolution.interposed = find_interposed(resolution, flavours, binder.definers_by_name, trees)
    resolution.upcalls = find_upcalls(resolution, trees)  # interposition first: an upcall is neither
    return resolution, default, binder, flavours


def _startable(exe: ElfFacts, world: World, problems: list[Problem]) -> bool:
    """Whether the kernel finds the program's interpreter (a program without one is started by the
    kernel alone); if not, an ``interpreter-missing`` error says so."""
    if not exe.interpreter or world.holds_interpreter(exe.interpreter):
        return True
    problems.append(
        Problem(
            display_path(exe.path),
            Severity.ERROR,
            f"interpreter {display_path(exe.interpreter)} (PT_INTERP) is not in the root: the device cannot "
            "start this program, it gets no link map",
            ProblemCode.INTERPRETER_MISSING,
        )
    )
    return False
