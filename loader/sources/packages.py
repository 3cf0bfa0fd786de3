"""The package folders of a release: a name and a version, from the folder's name
(``busybox-1.01``) or the name of the archive the folder was read from (``busybox-1.01.tar.bz2``), a
Makefile's ``VERSION =`` lines (the kernel's VERSION, PATCHLEVEL, SUBLEVEL)
or a VERSION file beside them."""

from __future__ import annotations

import posixpath
import re

from .model import Package
from .walk import ARCHIVE_SUFFIXES

_FOLDER = re.compile(r"^(?P<name>[A-Za-z][\w+.]*?(?:-[A-Za-z][\w+.]*?)*)[-_](?P<version>\d+(?:\.\d+)+[a-z]?\d*)$")
_MAKE_VERSION = re.compile(rb"^(VERSION|PATCHLEVEL|SUBLEVEL|PKG_VERSION)\s*[:?]?=\s*([0-9][\w.]*)\s*$", re.M)
_VERSION_TEXT = re.compile(rb"^\s*v?(\d+(?:\.\d+)+[a-z]?\d*)\s*$")


_BY_NAME = frozenset({"folder-name", "archive-name"})  # whence: the folder's own name


def from_folder_name(folder: str) -> Package | None:
    """From the folder's name, or from an archive's name (a nested archive's members lie below it)."""
    base = posixpath.basename(folder)
    whence = "folder-name"
    suffix = next((s for s in ARCHIVE_SUFFIXES if base.lower().endswith(s)), None)
    if suffix is not None:
        base, whence = base[: -len(suffix)], "archive-name"
    match = _FOLDER.match(base)
    if match is None:
        return None
    return Package(folder, match.group("name"), match.group("version"), whence)


def from_makefile(path: str, data: bytes) -> Package | None:
    """A Makefile's version: the kernel's three lines, or one VERSION/PKG_VERSION line."""
    found = {
        m.group(1).decode(): (m.group(2).decode(), data.count(b"\n", 0, m.start()) + 1)
        for m in _MAKE_VERSION.finditer(data[:65536])
    }
    folder = posixpath.dirname(path)
    if {"VERSION", "PATCHLEVEL", "SUBLEVEL"} <= found.keys():
        version = ".".join(found[k][0] for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL"))
        return Package(folder, posixpath.basename(folder), version, f"{path}:{found['VERSION'][1]}")
    for key in ("PKG_VERSION", "VERSION"):
        if key in found and "." in found[key][0]:
            return Package(folder, posixpath.basename(folder), found[key][0], f"{path}:{found[key][1]}")
    return None


def from_version_file(path: str, data: bytes) -> Package | None:
    match = _VERSION_TEXT.match(data[:64])
    if match is None:
        return None
    folder = posixpath.dirname(path)
    return Package(folder, posixpath.basename(folder), match.group(1).decode(), path)


def outermost(found: list[Package]) -> list[Package]:
    """One package per folder (its name first, then a Makefile, then a VERSION file), dropping
    Makefile- and file-found packages inside another package (a kernel's sub-Makefiles)."""
    order = dict.fromkeys(_BY_NAME, 0)
    best: dict[str, Package] = {}
    for package in sorted(found, key=lambda p: (order.get(p.whence, 1 if ":" in p.whence else 2), p.folder)):
        best.setdefault(package.folder, package)
    kept = []
    for folder, package in sorted(best.items()):
        inside = any(folder.startswith(other + "/") for other in best if other != folder)
        if package.whence not in _BY_NAME and inside:
            continue
        kept.append(package)
    return kept
