"""The package folders of a release: a name and a version, from the folder's name
(``busybox-1.01``), a Makefile's ``VERSION =`` lines (the kernel's VERSION, PATCHLEVEL, SUBLEVEL)
or a VERSION file beside them."""

from __future__ import annotations

import posixpath
import re

from .model import Package

_FOLDER = re.compile(r"^(?P<name>[A-Za-z][\w+.]*?(?:-[A-Za-z][\w+.]*?)*)[-_](?P<version>\d+(?:\.\d+)+[a-z]?\d*)$")
_MAKE_VERSION = re.compile(rb"^(VERSION|PATCHLEVEL|SUBLEVEL|PKG_VERSION)\s*[:?]?=\s*([0-9][\w.]*)\s*$", re.M)
_VERSION_TEXT = re.compile(rb"^\s*v?(\d+(?:\.\d+)+[a-z]?\d*)\s*$")


def from_folder_name(folder: str) -> Package | None:
    match = _FOLDER.match(posixpath.basename(folder))
    if match is None:
        return None
    return Package(folder, match.group("name"), match.group("version"), "folder-name")


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
    order = {"folder-name": 0}
    best: dict[str, Package] = {}
    for package in sorted(found, key=lambda p: (order.get(p.whence, 1 if ":" in p.whence else 2), p.folder)):
        best.setdefault(package.folder, package)
    kept = []
    for folder, package in sorted(best.items()):
        inside = any(folder.startswith(other + "/") for other in best if other != folder)
        if package.whence != "folder-name" and inside:
            continue
        kept.append(package)
    return kept
