"""The pipeline for one root: walk, parse, link maps, bindings.

``scan_root`` never raises for bad content: every file that cannot be used becomes a
``Problem`` and the scan goes on.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import mmap
import os
import stat
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from ..elf.facts import is_elf, read_elf_facts
from ..elf.image import Buffer
from ..errors import ElfError, RootfsError
from ..ldso.bind_symbols import SymbolBinder
from ..ldso.flavours import flavour_of
from ..ldso.link_map import World, build_link_map
from ..ldso.loader_config import MAX_CONFIG_SIZE
from ..ldso.risky_paths import risky_search_paths
from ..licences import Overrides, licence_facts
from ..model import ElfFacts, Kind, Module, Problem, ProblemCode, Resolution, ScanResult, Severity
from ..rootfs import RootFS, display_path

MAX_ELF_SIZE = 512 * 1024 * 1024
LOADER_CONFIG = ("/etc/ld.so.cache", "/etc/ld.so.conf")

Progress = Callable[[str, int, int], None]


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


def _looks_like_code(path: str, mode: int) -> bool:
    name = os.path.basename(path)
    return ".so" in name or name.endswith(".ko") or bool(mode & 0o111)


def _too_large(device: str) -> Problem:
    return Problem(device, Severity.WARNING, f"skipped: larger than {MAX_ELF_SIZE >> 20} MiB", ProblemCode.TOO_LARGE)


def _read_failed(device: str, exc: OSError) -> Problem:
    return Problem(device, Severity.ERROR, f"cannot read: {exc.strerror}", ProblemCode.READ_FAILED)


def _digest(job: tuple[str, str]) -> tuple[tuple[str, str], str | Problem | None]:
    """The sha256 of one candidate file if it is an ELF file within the size limit, read through a
    small buffer (no Python work, and the GIL is released: runs in threads)."""
    host, device = job
    try:
        with open(host, "rb") as fh:
            if not is_elf(fh.read(4)):
                return job, None
            if os.fstat(fh.fileno()).st_size > MAX_ELF_SIZE:  # checked before anything is read
                return job, _too_large(device)
            fh.seek(0)
            return job, hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        return job, _read_failed(device, exc)


@contextlib.contextmanager
def _contents(host: str) -> Iterator[Buffer]:
    """A file's bytes through a read-only map: the pages a parse touches are read, the rest of a big
    file costs address space only; the map is closed on leaving. An empty file, or one on a file
    system that cannot map files (FUSE with direct I/O), is read instead, up to the size limit."""
    with open(host, "rb") as fh:
        try:
            data: Buffer = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            data = fh.read(MAX_ELF_SIZE + 1)
    try:
        yield data
    finally:
        if isinstance(data, mmap.mmap):
            data.close()


def _parse_digested(digested: tuple[tuple[str, str], str | Problem | None]) -> ElfFacts | Problem | None:
    """Parse one hashed ELF file (the facts keep no reference to its map)."""
    (host, device), digest = digested
    if not isinstance(digest, str):
        return digest
    try:
        with _contents(host) as data:
            if len(data) > MAX_ELF_SIZE:  # grew since it was hashed
                return _too_large(device)
            return read_elf_facts(data, device, digest)
    except OSError as exc:
        return _read_failed(device, exc)
    except ElfError as exc:
        message = f"unusable ELF file: {str(exc).removeprefix(device + ': ')}"
        return Problem(device, Severity.ERROR, message, ProblemCode.ELF_UNUSABLE)


def _parse_one(job: tuple[str, str]) -> ElfFacts | Problem | None:
    """Hash, map and parse one file in a worker process: only the parsed facts travel back."""
    return _parse_digested(_digest(job))


def _candidates(root: RootFS, problems: list[Problem]) -> tuple[list[tuple[str, str]], list[str]]:
    """Regular files that may be ELF (host path, device path) and the symlinks of the root."""
    files: list[tuple[str, str]] = []
    links: list[str] = []
    for entry in root.walk(problems):
        shown = display_path(entry.path)
        if shown != entry.path:
            problems.append(
                Problem(
                    shown, Severity.WARNING, "file name is not valid UTF-8 (shown escaped)", ProblemCode.NAME_NOT_UTF8
                )
            )
        if entry.is_symlink:
            links.append(entry.path)
        elif not stat.S_ISREG(entry.mode):
            if _looks_like_code(entry.path, 0):
                problems.append(
                    Problem(
                        shown, Severity.WARNING, "not a regular file (FIFO, device or socket)", ProblemCode.NOT_REGULAR
                    )
                )
        elif entry.size == 0:
            if _looks_like_code(entry.path, entry.mode):
                problems.append(
                    Problem(
                        shown, Severity.WARNING, "empty file (0 bytes) where code was expected", ProblemCode.EMPTY_FILE
                    )
                )
        elif entry.size >= 52:  # smaller than any ELF header
            files.append((root.host_path(entry.path), entry.path))  # byte-exact: shown escaped only when stored
        elif _looks_like_code(entry.path, entry.mode):
            with open(root.host_path(entry.path), "rb") as fh:
                if is_elf(fh.read(4)):
                    problems.append(
                        Problem(shown, Severity.ERROR, "unusable ELF file: truncated header", ProblemCode.ELF_UNUSABLE)
                    )
    return files, links


def parse_files(jobs: list[tuple[str, str]], workers: int, progress: Progress) -> list[ElfFacts | Problem | None]:
    if workers <= 1 or len(jobs) < 64:
        out = []
        with ThreadPoolExecutor(max_workers=2) as readers:  # hashing overlaps the parsing
            for i, digested in enumerate(readers.map(_digest, jobs)):
                out.append(_parse_digested(digested))
                progress("parse", i + 1, len(jobs))
        return out
    out = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for i, result in enumerate(pool.map(_parse_one, jobs, chunksize=16)):
            out.append(result)
            progress("parse", i + 1, len(jobs))
    return out


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
def paused_gc() -> Iterator[None]:
    """Pause Python's cycle collector: a scan makes millions of small acyclic objects, and the
    collector would walk them again and again (about a quarter of the scan's time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def scan_root(
    host_dir: str,
    name: str | None = None,
    workers: int | None = None,
    progress: Progress = _no_progress,
    root_name: str = "/",
    overrides: Overrides | None = None,
    cpu: tuple[str, ...] = (),
) -> ScanResult:
    """Scan one root filesystem folder: every ELF file, every link map, every binding, and the
    licence facts of every module (``overrides``: the user's, see ``licences.overrides``;
    ``cpu``: the glibc-hwcaps levels the device's CPU is assumed to support)."""
    with paused_gc():
        return _scan_root(host_dir, name, workers, progress, root_name, overrides, cpu)


def _scan_root(
    host_dir: str,
    name: str | None,
    workers: int | None,
    progress: Progress,
    root_name: str,
    overrides: Overrides | None,
    cpu: tuple[str, ...],
) -> ScanResult:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    root = RootFS(host_dir, root_name)
    problems: list[Problem] = []
    jobs, link_paths = _candidates(root, problems)
    if workers is None:  # sending parsed symbol tables between processes costs about what parsing does
        cpus = os.cpu_count() or 1
        workers = 1 if cpus <= 2 else min(4, cpus)
    modules: dict[str, ElfFacts] = {}
    for result in parse_files(jobs, workers, progress):
        if isinstance(result, Problem):
            problems.append(result)
        elif result is not None:
            modules[result.path] = result
            problems += [
                Problem(display_path(result.path), Severity.WARNING, message, code)
                for code, message in result.anomalies
            ]
    timings["parse"] = time.perf_counter() - t0

    aliases: dict[str, list[str]] = {}
    link_targets: dict[str, str] = {}
    for link in link_paths:
        shown = display_path(link)
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
            if _looks_like_code(link, 0):
                problems.append(
                    Problem(
                        shown,
                        Severity.WARNING,
                        f"dangling symlink: {display_path(link_targets[shown])} is not in the root",
                        ProblemCode.SYMLINK_DANGLING,
                    )
                )
            continue
        if target in modules:
            aliases.setdefault(target, []).append(link)

    problems += risky_search_paths(root, modules.values())
    t1 = time.perf_counter()
    world = World(root, modules, problems, cpu)
    resolution = Resolution()
    flavours = {}
    binder = SymbolBinder(flavours, list(modules.values()))
    loaded: set[str] = set()
    roots = [f for f in modules.values() if f.dynamic and f.kind is Kind.EXECUTABLE]
    for i, exe in enumerate(sorted(roots, key=lambda f: f.path)):
        link_map, objects = build_link_map(exe, world)
        flavours[exe.path] = flavour_of(exe.interpreter)
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
    timings["resolve"] = time.perf_counter() - t1

    mods = [Module(f, root.name, sorted(aliases.get(p, []))) for p, f in sorted(modules.items())]
    t2 = time.perf_counter()
    libc = default.flavour if any(f.interpreter for f in modules.values()) else None
    licences = licence_facts(root, mods, problems, overrides, libc)
    timings["licences"] = time.perf_counter() - t2
    return ScanResult(
        firmware_name=name or os.path.basename(os.path.abspath(host_dir)),
        firmware_sha256=firmware_hash(modules, link_targets, root),
        modules=mods,
        resolution=resolution,
        problems=problems,
        elapsed=timings,
        licences=licences,
        loader_defaults={key: d.record() for key, d in world.config.defaults_used.items()},
    )
