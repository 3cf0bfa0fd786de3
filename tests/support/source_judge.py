"""An independent judge of the source-release check (docs/sources.md), importing nothing of
linkgraph's logic: the release unpacked once into the test cache with Python's tarfile, every file
hashed here, and which of a firmware's ELF files are byte-identical to release files; a byte-identical
binary has its source in the release when a C file of its name lies in a release folder with a
Makefile (``libxt_tcp.so`` and ``extensions/libxt_tcp.c``, ``tp_domain.ko`` and
``kernel_modules/tp_domain/tp_domain.c``), else it is prebuilt."""

from __future__ import annotations

import hashlib
import os
import tarfile
from collections import defaultdict
from pathlib import Path

from conftest import REPO

# the shared source releases beside the checkout (LINKGRAPH_SOURCES_DIR for a checkout elsewhere)
SOURCES = Path(os.environ.get("LINKGRAPH_SOURCES_DIR", REPO.parent / "shared" / "sources"))
MR3020_RELEASE = SOURCES / "TL-MR3020_V1_GPL.tar.xz"
CACHE = Path(os.environ.get("LINKGRAPH_TEST_CACHE", Path.home() / ".cache" / "linkgraph-tests"))


def unpacked_release(release: Path) -> Path:
    """The release unpacked once into the test cache (keyed by its size and modification time):
    the one top folder it holds."""
    info = release.stat()
    out = CACHE / f"release-{release.name}-{info.st_size}-{info.st_mtime_ns}"
    done = out / ".complete"
    if not done.exists():
        out.mkdir(parents=True, exist_ok=True)
        with tarfile.open(release) as tar:
            tar.extractall(out, filter="tar")  # its absolute links stay links, never followed here
        done.touch()
    tops = [p for p in out.iterdir() if p.is_dir()]
    return tops[0] if len(tops) == 1 else out


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def release_hashes(release_dir: Path) -> dict[str, list[str]]:
    """sha256 -> release paths (relative, "/"-separated) of every regular file."""
    out: dict[str, list[str]] = defaultdict(list)
    for path in sorted(release_dir.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[sha256(path)].append(path.relative_to(release_dir).as_posix())
    return out


def elf_files(root: Path) -> dict[str, str]:
    """Device path -> sha256 of every regular ELF file of the root (symlinks not followed)."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            with open(path, "rb") as stream:
                if stream.read(4) != b"\x7fELF":
                    continue
            out["/" + path.relative_to(root).as_posix()] = sha256(path)
    return out


def byte_identical(root: Path, release_dir: Path) -> dict[str, list[str]]:
    """Device path -> the release files with the same bytes, for the root's ELF files that have any."""
    hashes = release_hashes(release_dir)
    return {path: sorted(hashes[digest]) for path, digest in elf_files(root).items() if digest in hashes}


def c_sources_by_name(release_dir: Path) -> dict[str, list[str]]:
    """A C file's name without .c -> its release paths, for C files in folders with a Makefile."""
    out: dict[str, list[str]] = defaultdict(list)
    for path in release_dir.rglob("*.c"):
        if (path.parent / "Makefile").is_file() or (path.parent / "Makefile.in").is_file():
            out[path.name[:-2]].append(path.relative_to(release_dir).as_posix())
    return out


def has_source(device_path: str, copies: list[str], sources: dict[str, list[str]], release_dir: Path) -> bool:
    """A C file of the binary's name (without its .so/.ko suffix and versions) is in the release; or,
    for a kernel module, a release copy of it lies beside a Makefile that names its object (a module
    the kernel links from several files, nf_conntrack.ko from nf_conntrack_core.c …)."""
    name = device_path.rsplit("/", 1)[-1]
    stem = name.split(".so")[0].removesuffix(".ko")
    if stem in sources:
        return True
    if not name.endswith(".ko"):
        return False
    for copy in copies:
        makefile = release_dir / copy.rsplit("/", 1)[0] / "Makefile"
        if makefile.is_file() and f"{stem}.o" in makefile.read_text(errors="replace"):
            return True
    return False
