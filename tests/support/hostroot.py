"""Build a root filesystem from the host: /usr/bin's dynamic executables and their closure.

The root mirrors the host paths one to one (same symlinks, same files), so the host's real ld.so
can serve as the oracle for a scan of the copy (see oracle.PathMapper).  Symlinks are copied as
symlinks, verbatim (absolute targets stay absolute, i.e. relative to the root, as on a device):
``lib -> usr/lib``, ``lib64 -> usr/lib64``, ``/usr/lib64/ld-linux-x86-64.so.2 ->
/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2``, ``libfoo.so.1 -> libfoo.so.1.2.3``,
``/usr/bin/java -> /etc/alternatives/java -> /usr/lib/jvm/.../bin/java`` ...  Regular files are
copied (no hard links: a scan must never be able to touch the host's files).

The whole-/usr/bin root is cached between runs outside the repository, under
``$LINKGRAPH_TEST_CACHE`` or ``$XDG_CACHE_HOME/linkgraph-tests`` (default
``~/.cache/linkgraph-tests``), keyed by a hash of the file list (paths, sizes, mtimes, link
targets), so a package upgrade on the host yields a new root.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .oracle import LD_SO, PathMapper, glibc_list

BINDIR = "/usr/bin"
LOADER_CONFIG = ["/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.cache", "/etc/ld.so.preload"]
TOP_LEVEL_LINKS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]
MANIFEST_SUFFIX = ".manifest.json"


# --------------------------------------------------------------------------- selection


def _elf_interpreter(path: str) -> str | None:
    """PT_INTERP of an ELF file, None if it is no ELF or has none."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        with open(path, "rb") as fh:
            if fh.read(4) != b"\x7fELF":
                return None
            fh.seek(0)
            elf = ELFFile(fh)
            for seg in elf.iter_segments():
                if seg["p_type"] == "PT_INTERP":
                    return seg.get_interp_name()
    except (OSError, ELFError, ValueError):
        return None
    return None


def host_executables(bindir: str = BINDIR) -> list[str]:
    """Entries of *bindir* (files or symlinks) whose target is an ELF run by the host's glibc ld.so."""
    out = []
    for name in sorted(os.listdir(bindir)):
        entry = os.path.join(bindir, name)
        real = os.path.realpath(entry)
        if not os.path.isfile(real):
            continue
        interp = _elf_interpreter(real)
        if interp is not None and os.path.realpath(interp) == os.path.realpath(LD_SO):
            out.append(entry)
    return out


def select_executables(executables: Iterable[str] | None = None, limit: int | None = None) -> list[str]:
    """Host paths of the chosen executables: names are taken from /usr/bin; *limit* samples evenly."""
    if executables is None:
        chosen = host_executables()
    else:
        chosen = [e if "/" in e else os.path.join(BINDIR, e) for e in executables]
        for exe in chosen:
            if not os.path.isfile(exe):
                raise FileNotFoundError(exe)
    if limit is not None and len(chosen) > limit:
        chosen = [chosen[i * len(chosen) // limit] for i in range(limit)]
    return chosen


def closure(executables: list[str]) -> list[str]:
    """Host paths ld.so opens for the executables (libraries and interpreter), in first-seen order."""
    with ThreadPoolExecutor(max_workers=min(16, 2 * (os.cpu_count() or 2))) as pool:
        lists = list(pool.map(glibc_list, executables))
    seen: dict[str, None] = {}
    for lines in lists:
        for t in lines:
            if t.path is not None:  # a library the host itself misses stays missing in the root
                seen.setdefault(t.path, None)
    return list(seen)


def _config_paths() -> list[str]:
    out = []
    for path in LOADER_CONFIG:
        if os.path.isdir(path) and not os.path.islink(path):
            out.extend(os.path.join(path, n) for n in sorted(os.listdir(path)))
        elif os.path.lexists(path):
            out.append(path)
    return out + [p for p in TOP_LEVEL_LINKS if os.path.islink(p)]


# --------------------------------------------------------------------------- copying


def _walk(path: str) -> list[tuple[str, str | None]]:
    """Every host path met while resolving *path*: (path, link target or None for the file)."""
    met: list[tuple[str, str | None]] = []
    parts = [p for p in path.split("/") if p]
    resolved = ""
    hops = 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            resolved = os.path.dirname(resolved)
            continue
        if part == ".":
            continue
        candidate = f"{resolved}/{part}"
        if os.path.islink(candidate):
            hops += 1
            if hops > 40:
                raise OSError(f"symlink loop at {candidate}")
            target = os.readlink(candidate)
            met.append((candidate, target))
            if target.startswith("/"):
                resolved = ""
            parts = [p for p in target.split("/") if p] + parts
            continue
        resolved = candidate
    met.append((resolved or "/", None))
    return met


def _copy_entry(dest: Path, path: str, done: set[str]) -> None:
    """Mirror *path* into *dest*: every symlink met on the way, then the file itself."""
    for host, target in _walk(path):
        if host in done:
            continue
        done.add(host)
        out = Path(str(dest) + host)
        if target is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, out)
        elif os.path.isfile(host):
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(host, out)
            os.chmod(out, os.stat(host).st_mode & 0o755)
        elif os.path.isdir(host):
            out.mkdir(parents=True, exist_ok=True)


def _fingerprint(paths: Iterable[str]) -> str:
    digest = hashlib.sha256()
    done: set[str] = set()
    for path in paths:
        for host, target in _walk(path):
            if host in done:
                continue
            done.add(host)
            if target is not None:
                digest.update(f"L {host} {target}\n".encode(errors="surrogateescape"))
            else:
                st = os.stat(host)
                digest.update(f"F {host} {st.st_size} {st.st_mtime_ns}\n".encode(errors="surrogateescape"))
    return digest.hexdigest()


def manifest_path(root: Path) -> Path:
    return root.with_name(root.name + MANIFEST_SUFFIX)


def load_manifest(root: Path) -> dict:
    """The manifest written next to a root by build_host_root."""
    return json.loads(manifest_path(Path(root)).read_text())


def root_executables(root: Path) -> list[str]:
    """Canonical device paths of the executables a root was built for."""
    return list(load_manifest(root)["executables"])


def build_host_root(dest: Path, executables: list[str] | None = None, limit: int | None = None) -> Path:
    """Copy the chosen /usr/bin executables (all dynamic ones by default) with their closure to *dest*.

    *dest* must not exist or be empty.  A manifest (``<dest>.manifest.json``) records the host
    paths of the executables, their canonical device paths and every copied path.
    """
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise FileExistsError(f"{dest} is not empty")
    chosen = select_executables(executables, limit)
    libs = closure(chosen)
    entries = chosen + libs + _config_paths()
    done: set[str] = set()
    for path in entries:
        _copy_entry(dest, path, done)
    to_device = PathMapper(dest)
    manifest = {
        "executables": sorted({to_device(e) for e in chosen}),
        "entries": chosen,
        "libraries": libs,
        "copied": sorted(done),
        "fingerprint": _fingerprint(entries),
    }
    manifest_path(dest).write_text(json.dumps(manifest, indent=1))
    return dest


# --------------------------------------------------------------------------- cache


def cache_dir() -> Path:
    if os.environ.get("LINKGRAPH_TEST_CACHE"):
        return Path(os.environ["LINKGRAPH_TEST_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "linkgraph-tests"


def cached_host_root(executables: list[str] | None = None, limit: int | None = None) -> Path:
    """build_host_root into the cache, reused while the file list (and the files) are unchanged."""
    chosen = select_executables(executables, limit)
    entries = chosen + closure(chosen) + _config_paths()
    key = _fingerprint(entries)[:20]
    base = cache_dir()
    final = base / f"root-{key}"
    root = final / "root"
    if manifest_path(root).is_file():
        return root
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="building-", dir=base))
    try:
        build_host_root(work / "root", chosen)
        try:
            os.rename(work, final)
        except OSError:
            if not manifest_path(root).is_file():  # not a concurrent build that won the race
                raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return root


# --------------------------------------------------------------------------- linkgraph CLI


def linkgraph_command() -> list[str]:
    """How to run the linkgraph CLI of this interpreter's environment."""
    script = Path(sys.executable).with_name("linkgraph")
    if script.is_file():
        return [str(script)]
    found = shutil.which("linkgraph")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from linkgraph.cli.main import main; sys.exit(main())"]


def scan_and_report(root: Path, db: Path, name: str | None = None, timeout: float = 3600) -> dict:
    """``linkgraph scan ROOT --db DB`` then ``linkgraph report --format json``: the parsed report."""
    cmd = linkgraph_command()
    scan = [*cmd, "scan", str(root), "--db", str(db), "--quiet"] + (["--name", name] if name else [])
    proc = subprocess.run(scan, capture_output=True, text=True, timeout=timeout)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"linkgraph scan failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    rep = subprocess.run(
        [*cmd, "report", "--db", str(db), "--format", "json"], capture_output=True, text=True, timeout=timeout
    )
    if rep.returncode != 0:
        raise RuntimeError(f"linkgraph report failed ({rep.returncode}):\n{rep.stderr}")
    return json.loads(rep.stdout)
