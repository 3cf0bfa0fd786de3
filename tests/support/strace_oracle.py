"""The device loader's own search, seen through the system calls it makes under qemu-user.

uClibc and musl print no debug output, and the trace lists of tests/support/qemu_oracle.py only say
*which* file each name loaded.  ``qemu-ARCH-static -strace`` logs every system call of the guest,
so the ``open``/``openat`` calls the loader makes while it loads a program (the same runs as
qemu_oracle's: ``LD_TRACE_LOADED_OBJECTS=1`` for uClibc and glibc, ``INTERP --list`` for musl,
in a chroot of the root) show every path it tried for each NEEDED name and where it found it.
``-D FILE`` sends qemu's log to a file inside the chroot, so the program's stdout and stderr
stay as qemu_oracle parses them.

What a search looks like in the log:

* each candidate is an ``open`` of ``DIR/NAME`` (a name with ``/`` is opened as it is); a
  failed one returns ``-1``; a file opened and then rejected (not ELF, other machine or class)
  is closed again without an ``mmap`` of its descriptor, and the search goes on;
* a search ends at the first file the loader takes: one it maps (an ``mmap`` of the
  descriptor before its ``close``) or one already mapped in this process under another name
  (uClibc, glibc and musl compare ``st_dev``/``st_ino`` and close the new descriptor);
* a name satisfied without a search (already loaded by name or soname, the loader itself)
  makes no ``open`` at all;
* the loader's own opens are its configuration (``/etc/ld.so.cache`` with the loader's
  prefix, ``/etc/ld.so.preload``, musl's ``/etc/ld-musl-ARCH.path``) and, for a library
  listed as the program (``ld.so FILE``, ``ld-musl --list FILE``), that file itself: they are
  set apart, never matched against a NEEDED name;
* glibc (before 2.37) also tries its legacy hwcap subfolders (``tls``, the platform, the
  important hwcaps: ``DIR/tls/v7l/neon/vfp/NAME`` on ARM) which linkgraph does not emulate,
  as tests/test_found_by.py leaves them out of the judge's list; and it skips in later
  searches a folder it found absent (``stat`` of the folder fails) in an earlier one.

:func:`compare_searches` walks linkgraph's link map in load order (each object's DT_NEEDED
entries in order) next to the log and judges each edge of the JSON report (``rule``,
``directory``, ``via``, ``tried``, per link map through ``found_by``).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from elftools.elf.elffile import ELFFile

from . import qemu_oracle as qo
from . import vendor_roots as tvr
from .hostroot import cache_dir

# Bumped whenever the cached strace output would no longer match what the code asks for.
STRACE_CACHE_VERSION = 1
SEARCHED = {"rpath", "runpath", "ld.so.cache", "ld.so.conf", "musl-path-file", "interpreter-dir", "default-dir",
            "slash-name", "slash-fallback"}  # fmt: skip
UNSEARCHED = {"already-loaded", "interpreter"}


# --------------------------------------------------------------------------- the log


@dataclass
class Open:
    """One ``open``/``openat`` of the guest: the path as passed, the descriptor (None when it
    failed), whether the descriptor was mapped before it was closed."""

    path: str
    fd: int | None
    mapped: bool = False


@dataclass
class Syscalls:
    opens: list[Open] = field(default_factory=list)
    absent_dirs: list[tuple[int, str]] = field(default_factory=list)  # (opens before it, folder) stat failed


_OPEN = re.compile(r'^\d+ (?:open\("(?P<p1>[^"]*)",|openat\([^,]*,"(?P<p2>[^"]*)",).*\) = (?P<ret>-?\d+)')
_MMAP = re.compile(r"^\d+ mmap2?\((?P<args>[^)]*)\) = ")
_CLOSE = re.compile(r"^\d+ close\((?P<fd>\d+)\) = ")
_STAT = re.compile(r'^\d+ (?:stat|stat64|lstat64|fstatat64|newfstatat|statx)\((?:[^,"]*,)?"(?P<path>[^"]*)",.*\) = -1')


def parse_strace(text: str) -> Syscalls:
    out = Syscalls()
    open_fds: dict[int, Open] = {}
    for line in text.splitlines():
        if m := _OPEN.match(line):
            ret = int(m["ret"])
            item = Open(m["p1"] if m["p1"] is not None else m["p2"], ret if ret >= 0 else None)
            out.opens.append(item)
            if item.fd is not None:
                open_fds[item.fd] = item
        elif m := _MMAP.match(line):
            args = m["args"].split(",")
            if len(args) >= 6:
                try:
                    fd = int(args[4])
                except ValueError:
                    continue
                if fd in open_fds:
                    open_fds[fd].mapped = True
        elif m := _CLOSE.match(line):
            open_fds.pop(int(m["fd"]), None)
        elif m := _STAT.match(line):
            out.absent_dirs.append((len(out.opens), m["path"].rstrip("/") or "/"))
    return out


# --------------------------------------------------------------------------- running


class StraceLoader(tvr.CachedLoader):
    """A CachedLoader whose runs are made with ``qemu -strace -D LOG``; the cache keeps the log
    too (only the calls the comparison reads: open, openat, mmap, close, failed stats)."""

    _KEEP = re.compile(r"^\d+ (open|openat|mmap2?|close|stat|stat64|lstat64|fstatat64|newfstatat|statx)\(")

    def __init__(self, root: Path, workdir: Path, cache_file: Path) -> None:
        super().__init__(root, workdir, cache_file)
        self._local = threading.local()

    def _key(self, argv: list[str], env: dict[str, str]) -> str:
        return json.dumps(["strace", argv, sorted(env.items())])

    def _fresh(self, argv: list[str], env: dict[str, str]) -> dict:
        log = f"/{qo.ORACLE_DIR}/strace-{uuid.uuid4().hex}.log"
        hit = super()._fresh([argv[0], "-strace", "-D", log, *argv[1:]], env)
        host_log = self.tree / log.lstrip("/")
        try:
            text = host_log.read_text(errors="backslashreplace")
        except OSError as exc:
            raise qo.OracleError(f"qemu wrote no strace log for {argv}: {exc}\n{hit['stderr']}") from exc
        host_log.unlink()
        hit["strace"] = "\n".join(line for line in text.splitlines() if self._KEEP.match(line))
        return hit

    def _replayed(self, hit: dict) -> None:
        self._local.strace = hit["strace"]

    def strace(self, path: str) -> tuple[qo.Trace, Syscalls]:
        """qemu_oracle's trace of ``path`` and the system calls of that run."""
        trace = self.trace(path)
        return trace, parse_strace(self._local.strace)


def strace_loader(name: str, root: Path, sha: str, qemu: Path, work: Path) -> StraceLoader:
    """A StraceLoader for a root whose content has hash ``sha``, cached under the test cache
    (keyed by that hash, the qemu binary's and STRACE_CACHE_VERSION)."""
    key = f"{sha[:20]}-{tvr.sha256_of(qemu)[:20]}-v{STRACE_CACHE_VERSION}"
    cache_file = cache_dir() / "strace-oracle" / name / f"strace-{key}.json"
    return StraceLoader(root, work, cache_file)


# --------------------------------------------------------------------------- ELF facts for the checks


def search_entries(host_path: Path) -> dict[str, list[str]]:
    """DT_RPATH and DT_RUNPATH entries of a file (read with pyelftools, not linkgraph)."""
    out: dict[str, list[str]] = {"rpath": [], "runpath": []}
    try:
        with open(host_path, "rb") as fh:
            elf = ELFFile(fh)
            for seg in elf.iter_segments():
                if seg["p_type"] == "PT_DYNAMIC":
                    for tag in seg.iter_tags():
                        if tag.entry.d_tag == "DT_RPATH":
                            out["rpath"] += tag.rpath.split(":")
                        elif tag.entry.d_tag == "DT_RUNPATH":
                            out["runpath"] += tag.runpath.split(":")
    except Exception:
        pass
    return out


# --------------------------------------------------------------------------- comparison


_LEGACY_HWCAP = {
    "tls",
    "v5l",
    "v6l",
    "v7l",
    "v8l",
    "neon",
    "vfp",
    "vfpv3",
    "vfpd32",
    "iwmmxt",
    "crunch",
    "edsp",
    "java",
    "thumb",
    "half",
    "fastmult",
    "26bit",
    "fpa",
    "i686",
    "i586",
    "x86_64",
    "sse2",
}


def legacy_hwcap(path: str, name: str) -> bool:
    """``DIR/tls/v7l/neon/vfp/NAME`` and its shorter forms: glibc's legacy hwcap folders."""
    if posixpath.basename(path) != posixpath.basename(name):
        return False
    parts = posixpath.dirname(path).split("/")
    n = 0
    while parts and parts[-1] in _LEGACY_HWCAP:
        parts.pop()
        n += 1
    return n > 0


@dataclass
class SearchAgreement:
    """Per root: found names (directory equal / total), missing names (tried equal / total),
    names reused without an open, rule checks, and every difference."""

    found: int = 0
    found_equal: int = 0
    missing: int = 0
    missing_equal: int = 0
    reused: int = 0
    reused_equal: int = 0
    rules_checked: int = 0
    programs: int = 0
    opens: int = 0
    differences: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return not self.differences

    def summary(self) -> str:
        return (
            f"{self.programs} link maps, {self.opens} opens: found {self.found_equal}/{self.found} directory "
            f"equal, missing {self.missing_equal}/{self.missing} tried equal, reused without an open (same folder) "
            f"{self.reused_equal}/{self.reused}, {self.rules_checked} rules checked"
        )

    def explain(self, limit: int = 30) -> str:
        more = len(self.differences) - limit
        return self.summary() + "\n" + "\n".join(self.differences[:limit]) + (f"\n... {more} more" if more > 0 else "")


class Context:
    """The report indexed for the comparison."""

    def __init__(self, report: dict, loader: qo.DeviceLoader) -> None:
        self.report = report
        self.loader = loader
        self.modules = {m["path"]: m for m in report["modules"]}
        self.edges: dict[tuple[str, str], list[dict]] = {}
        for d in report["dependencies"]:
            if d["status"] != "hidden":
                self.edges.setdefault((d["from"], d["soname"]), []).append(d)
        self.defaults = report["firmware"]["source"].get("loader_defaults") or {}
        self._entries: dict[str, dict[str, list[str]]] = {}

    def entries(self, path: str) -> dict[str, list[str]]:
        if path not in self._entries:
            self._entries[path] = search_entries(self.loader.root / path.lstrip("/"))
        return self._entries[path]

    def edge_for(self, executable: str, source: str, name: str, objects: list[str]) -> dict | None:
        """This link map's way for (source, name): the report's edge, its found_by variant."""
        hits = self.edges.get((source, name), [])
        if len(hits) > 1:
            hits = [d for d in hits if (d["to"] in objects if d["to"] else True)] or hits
        if not hits:
            return None
        edge = hits[0]
        way = {k: edge[k] for k in ("to", "rule", "directory", "via", "tried")}
        for variant in edge["found_by"] or []:
            if executable in variant["executables"]:
                way.update({k: variant[k] for k in ("rule", "directory", "via", "tried")})
        return way

    def default_dirs(self, kind: str, interpreter: str | None) -> list[str] | None:
        canonical = self.loader.canonical(interpreter) if interpreter else None
        for key, value in self.defaults.items():
            flavour, _, interp = key.partition(" ")
            if flavour == kind and (canonical is None or interp == canonical):
                return value["dirs"]
        values = [v["dirs"] for k, v in self.defaults.items() if k.startswith(kind + " ")]
        return values[0] if len(values) == 1 else None


_CONFIG = re.compile(r"(^|/)etc/(ld\.so\.cache|ld\.so\.preload|ld\.so\.conf|ld-musl-[^/]+\.path)$")


def loader_own(path: str) -> bool:
    return bool(_CONFIG.search(path)) or path.startswith(("/dev/", "/proc/", "/sys/"))


def rule_problem(ctx: Context, kind: str, interpreter: str | None, way: dict) -> str | None:
    """Whether ``rule`` fits the folder the file was found in."""
    rule, directory, via = way["rule"], way["directory"], way["via"]
    norm = posixpath.normpath(directory) if directory else directory
    if rule == "default-dir":
        dirs = ctx.default_dirs(kind, interpreter)
        if dirs is None or norm not in [posixpath.normpath(d) for d in dirs]:
            return f"default-dir {directory} not in the loader's defaults {dirs}"
    elif rule in ("rpath", "runpath"):
        if not via:
            return f"{rule} without via"
        origin = posixpath.dirname(via)
        entries = [
            posixpath.normpath(e.replace("${ORIGIN}", origin).replace("$ORIGIN", origin) or ".")
            for e in ctx.entries(via)[rule]
        ]
        if norm not in entries:
            return f"{rule} {directory} not in {via}'s {rule.upper()} {ctx.entries(via)[rule]}"
    elif rule == "interpreter-dir":
        if not interpreter or norm != posixpath.normpath(posixpath.dirname(interpreter) or "/"):
            return f"interpreter-dir {directory} is not the folder of PT_INTERP {interpreter}"
    elif rule == "musl-path-file":
        files = list((ctx.loader.root / "etc").glob("ld-musl-*.path"))
        listed = {posixpath.normpath(d) for f in files for d in re.split(r"[:\n]", f.read_text()) if d}
        if norm not in listed:
            return f"musl-path-file {directory} not in {[f.name for f in files]}"
    return None


def compare_program(ctx: Context, trace: qo.Trace, calls: Syscalls, out: SearchAgreement) -> None:
    """One traced object: every NEEDED entry of linkgraph's link map, in load order, against the
    opens of the device's loader."""
    executable = trace.executable
    lm = next((m for m in ctx.report["link_maps"] if m["executable"] == executable), None)
    if lm is None:
        out.differences.append(f"{executable}: no link map in linkgraph's report")
        return
    info = ctx.loader.elves.get(executable)
    interpreter = (info.interpreter if info else None) or ctx.loader.default_interpreter()
    kind = trace.kind
    out.programs += 1
    # The loader's own opens (configuration, the listed file itself) are set apart.
    opens = [o for o in calls.opens
             if not loader_own(o.path) and ctx.loader.canonical(o.path) != executable]  # fmt: skip
    out.opens += len(opens)
    # canonical path -> folder of the path it was first mapped under (for reused names)
    loaded_from: dict[str, str] = {executable: posixpath.dirname(executable)}
    if interpreter:
        loaded_from.setdefault(ctx.loader.canonical(interpreter), posixpath.dirname(interpreter) or "/")
    mapped = set(loaded_from)
    absent: list[tuple[int, str]] = []  # (index in opens, folder): glibc found it absent
    if kind == "glibc":
        kept_before = [0]
        for o in calls.opens:
            kept_before.append(
                kept_before[-1] + (0 if (loader_own(o.path) or ctx.loader.canonical(o.path) == executable) else 1)
            )
        absent = [(kept_before[i], d) for i, d in calls.absent_dirs]
    at = 0
    problems: list[str] = []
    for obj in lm["objects"]:
        for name in ctx.modules.get(obj, {}).get("needed", []):
            way = ctx.edge_for(executable, obj, name, lm["objects"])
            if way is None:
                problems.append(f"{obj} -> {name}: no edge in linkgraph's report")
                continue
            base = posixpath.basename(name)

            def attempt(o: Open, name: str = name, base: str = base) -> bool:
                return o.path == name or posixpath.basename(o.path) == base

            start = at
            found: Open | None = None
            seen: set[str] = set()
            while at < len(opens) and attempt(opens[at]):
                o = opens[at]
                if way["to"] is None and o.path in seen:
                    break  # a path again: the next search for the same name
                seen.add(o.path)
                at += 1
                canonical = ctx.loader.canonical(o.path)
                if o.fd is not None and (o.mapped or canonical in mapped):
                    mapped.add(canonical)
                    loaded_from.setdefault(canonical, posixpath.dirname(o.path) or "/")
                    found = o
                    break
            device = [o.path for o in opens[start:at]]
            shown = f"{obj} -> {name}: device opened {device}"
            if way["rule"] in UNSEARCHED:
                out.reused += 1
                if device:
                    problems.append(f"{shown}; linkgraph: {way['rule']} (no open) from {way['directory']}")
                elif loaded_from.get(way["to"]) != way["directory"]:
                    problems.append(f"{obj} -> {name}: {way['rule']} {way['to']} from {way['directory']}, "
                                    f"the device loaded it from {loaded_from.get(way['to'])}")  # fmt: skip
                else:
                    out.reused_equal += 1
                continue
            if way["to"] is not None:
                out.found += 1
                if found is None:
                    problems.append(f"{shown}, found nothing; linkgraph: {way['rule']} {way['directory']}")
                elif posixpath.dirname(found.path) != way["directory"] or ctx.loader.canonical(found.path) != way["to"]:
                    problems.append(f"{shown}; linkgraph: {way['rule']} {way['directory']} -> {way['to']}")
                else:
                    out.found_equal += 1
                out.rules_checked += 1
                if way["rule"] not in SEARCHED:
                    problems.append(f"{obj} -> {name}: unknown rule {way['rule']}")
                elif why := rule_problem(ctx, kind, interpreter, way):
                    problems.append(f"{obj} -> {name}: rule: {why}")
            else:
                out.missing += 1
                judged = [p for p in device if not (kind == "glibc" and legacy_hwcap(p, name))]
                expected = list(way["tried"])
                if kind == "glibc":  # folders glibc found absent in an earlier search are skipped
                    gone = {d for i, d in absent if i <= start}
                    expected = [p for p in expected if (posixpath.dirname(p) or "/") not in gone]
                if found is not None:
                    problems.append(f"{shown}, found {found.path}; linkgraph: missing, tried {way['tried']}")
                elif judged != expected:
                    problems.append(f"{shown}; linkgraph tried {way['tried']}")
                else:
                    out.missing_equal += 1
    if at < len(opens):
        problems.append(f"opens no NEEDED entry explains: {[o.path for o in opens[at:]]}")
    if problems:
        out.differences.append(f"{executable} ({kind}):\n  " + "\n  ".join(problems))


def compare_searches(report: dict, loader: StraceLoader, paths: list[str]) -> SearchAgreement:
    """Trace each of ``paths`` with strace and compare every NEEDED edge of its link map."""
    from concurrent.futures import ThreadPoolExecutor

    ctx = Context(report, loader)
    with ThreadPoolExecutor(max_workers=min(16, (os.cpu_count() or 2) * 2)) as pool:
        results = list(pool.map(loader.strace, paths))
    loader.save()
    out = SearchAgreement()
    for trace, calls in results:
        compare_program(ctx, trace, calls, out)
    return out


# --------------------------------------------------------------------------- the roots


def extracted_image(prefix: str) -> tuple[Path, str]:
    """The root file system of the image ``prefix*.bin`` (qemu_oracle.extract_root, linkgraph's
    unpacker), extracted once per image content into the test cache, and the image's sha256."""
    image = qo.firmware_image(prefix)
    sha = tvr.sha256_of(image)
    final = cache_dir() / "images" / image.name / sha[:20]
    marker = final / "extracted"
    if marker.is_file():
        return Path(marker.read_text().strip()), sha
    if final.exists():
        shutil.rmtree(final)
    root = qo.extract_root(image, final / "unpacked")
    marker.write_text(f"{root}\n")
    return root, sha


@dataclass
class Checked:
    name: str
    kind: str
    report: dict
    loader: StraceLoader
    traced: list[str]
    agreement: SearchAgreement
    seconds: dict[str, float] = field(default_factory=dict)

    def figures(self) -> str:
        times = ", ".join(f"{k} {v:.1f}s" for k, v in self.seconds.items())
        return (
            f"{self.name} ({self.kind}): {self.agreement.summary()}; loader runs {self.loader.hits} cached, "
            f"{self.loader.misses} run; {times}"
        )


def check(name: str, root: Path, sha: str, qemu_arch: str, work: Path, report: dict) -> Checked:
    """Trace every dynamic program (and, with glibc and musl, every other link-map root the
    loader can list, as tests/test_vendor_roots.py does) under strace and compare."""
    t0 = time.monotonic()
    work.mkdir(parents=True, exist_ok=True)
    loader = strace_loader(name, root, sha, tvr.qemu_host_binary(qemu_arch), work)
    programs = qo.dynamic_executables(loader.elves, sonameless_pie=True)
    kinds = {qo.loader_kind(loader.elves[p].interpreter) for p in programs}
    if len(kinds) != 1:
        raise qo.OracleError(f"{name}: expected one loader kind, found {kinds}")
    (kind,) = kinds
    others: list[str] = []
    if kind in ("glibc", "musl"):  # these loaders list a library too
        others = sorted(lm["executable"] for lm in report["link_maps"]
                        if lm["executable"] not in programs and lm["executable"] in loader.elves)  # fmt: skip
    traced = programs + others
    agreement = compare_searches(report, loader, traced)
    return Checked(name, kind, report, loader, traced, agreement, {"oracle+compare": time.monotonic() - t0})


RISKY_CODES = ("rpath-relative", "rpath-empty", "rpath-world-writable", "rpath-build-host")


def risky_paths(report: dict) -> dict[str, list[dict]]:
    """The report's risky search-path warnings by code."""
    out: dict[str, list[dict]] = {code: [] for code in RISKY_CODES}
    for problem in report["problems"]:
        if problem["code"] in out:
            out[problem["code"]].append(problem)
    return out
