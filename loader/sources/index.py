"""Index a release once: every file's hashes, which are ELF binaries, its package folders, the
build-file lines that link libraries, what it lacks to be built, and a text index of its C sources.

A release packed in one top folder (``TL-MR3020_V1_GPL/...``) is indexed without it, so its paths
read as the vendor's build files name them (``apps/ppp-2.4.3/pppd/Makefile``)."""

from __future__ import annotations

import hashlib
import posixpath
import re
import time
from pathlib import Path

from . import build_lines, packages, text_index
from .gaps import GapFinder
from .model import Package, ReleaseFile, ReleaseIndex
from .walk import Budget, members, prefetched

_VERSION_FILES = frozenset({"VERSION", "version", "Version"})
_MAKEFILES = frozenset({"Makefile", "makefile", "GNUmakefile"})
_SYSTEM_MARKS = frozenset({"Kbuild", "MAKEALL"})  # the top of a kernel tree, of a U-Boot tree
_KBUILD_LINE = re.compile(rb"^\s*obj-[^\s=]*\s*[+:]?=(.*)$", re.M)
_KBUILD_OBJECT = re.compile(rb"([\w-]+)\.o\b")


def index_release(release: Path, key: str, budget: Budget | None = None) -> ReleaseIndex:
    budget = budget or Budget()
    start = time.perf_counter()
    out = ReleaseIndex(name=release.name, key=key)
    found: list[Package] = []
    folders: set[str] = set()
    gaps = GapFinder()
    prefix: str | None = None
    for member in prefetched(members(release, budget)):
        path = member.path
        if prefix is None:
            prefix = path.split("/", 1)[0] + "/" if "/" in path else ""
        if prefix and path.startswith(prefix):
            path = path[len(prefix) :]
        data = member.data
        size = len(data)
        elf = data[:4] == b"\x7fELF"
        out.files.append(ReleaseFile(path, size, hashlib.sha1(data).hexdigest(), hashlib.sha256(data).hexdigest(), elf))
        folder = posixpath.dirname(path)
        while folder and folder not in folders:
            folders.add(folder)
            package = packages.from_folder_name(folder)
            if package is not None:
                found.append(package)
            folder = posixpath.dirname(folder)
        if elf:
            gaps.see(path, False)
            continue
        base = posixpath.basename(path)
        build_file = build_lines.is_build_file(path, size)
        gaps.see(path, build_file)
        if build_file:
            out.link_lines.extend(build_lines.link_lines(path, data))
            gaps.read_build_file(path, data)
        if base in _SYSTEM_MARKS:
            out.system_trees.add(posixpath.dirname(path))
        if base in _MAKEFILES or base == "Kbuild":
            out.makefile_folders.add(posixpath.dirname(path))
            for name in _KBUILD_OBJECT.findall(b"\n".join(_KBUILD_LINE.findall(data))):
                places = out.kbuild_objects.setdefault(name.decode("ascii"), [])
                if len(places) < 4:
                    places.append(path)
        if base in _MAKEFILES:
            package = packages.from_makefile(path, data)
            if package is not None:
                found.append(package)
        elif base in _VERSION_FILES and size < 64:
            package = packages.from_version_file(path, data)
            if package is not None:
                found.append(package)
        if text_index.is_source(path, size):
            out.sources.append(path)
            text_index.index_source(len(out.sources) - 1, data, out.literals, out.functions)
    out.packages = packages.outermost(found)
    out.link_lines = build_lines.kept(out.link_lines, {p.folder for p in out.packages})
    out.gaps = gaps.gaps()
    out.problems = budget.problems
    out.seconds = time.perf_counter() - start
    return out
