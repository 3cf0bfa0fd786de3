"""Debian binary packages: the ELF files each installs, and the licence its copyright file gives them.

A package is fetched with ``apt-get download`` (this machine's Debian release, its architecture)
into a cache folder outside the repository and unpacked there once. A name is the base name of a
regular ELF file under a program or library folder, or of a symlink there to one. The licence is
the DEP-5 copyright file's: the ``Files`` paragraph whose pattern is a whole source folder named
like the file (``libuuid/*`` for ``libuuid.so.1``) when there is one, else ``Files: *``, else the
header's ``License``; a free-text copyright file gives its main licence when it states it plainly
(linkgraph's own reading). Which paragraph decided is kept.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from linkgraph.loader.licences.control import Paragraph, parse_paragraphs
from linkgraph.loader.licences.copyright import free_text_licence

ELF_DIRS = re.compile(r"^(usr/)?(s?bin|lib(32|64|x32|exec)?)/")
_SKIP_DIRS = re.compile(r"^usr/lib/debug/")  # detached debug symbols: ELF, but never loaded


@dataclass(slots=True)
class Package:
    name: str
    source: str
    version: str
    source_version: str
    names: set[str] = field(default_factory=set)
    copyright: str | None = None  # the copyright file's text, when the package has its own
    doc_from: str | None = None  # the package whose documentation folder this one's links to


def _files(packages: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Package -> the ``.deb`` file apt would download, and package -> why apt cannot (one apt run
    for them all; one each only when that fails)."""
    uris = subprocess.run(["apt-get", "download", "--print-uris", *packages], capture_output=True, text=True)
    if uris.returncode == 0:
        files = [line.split()[1] for line in uris.stdout.splitlines() if len(line.split()) > 1]
        return {f.split("_", 1)[0]: f for f in files}, {}
    if len(packages) == 1:
        return {}, {packages[0]: "apt: " + " ".join(uris.stderr.strip().splitlines()[-1:])}
    found, missing = {}, {}
    for package in packages:
        one, why = _files([package])
        found.update(one)
        missing.update(why)
    return found, missing


def download(packages: list[str], cache: Path) -> tuple[dict[str, Path], dict[str, str]]:
    """Each package's ``.deb`` in ``cache`` (downloaded once per version), and why others are not."""
    cache.mkdir(parents=True, exist_ok=True)
    files, missing = _files(packages)
    debs = {p: cache / f for p, f in files.items() if p in packages}
    wanted = [p for p, deb in debs.items() if not deb.exists()]
    if wanted:
        subprocess.run(["apt-get", "download", *wanted], cwd=cache, capture_output=True, check=True)
    return debs, missing


def _field(deb: Path, name: str) -> str:
    return subprocess.run(["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True, check=True).stdout.strip()


def _is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def read(deb: Path) -> Package:
    """The package's fields, ELF names and copyright file (unpacked beside the ``.deb``)."""
    root = deb.with_suffix(".tree")
    if not root.exists():
        tmp = deb.with_suffix(".partial")
        subprocess.run(["rm", "-rf", str(tmp)], check=True)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp)], check=True)
        tmp.rename(root)
    name, version = _field(deb, "Package"), _field(deb, "Version")
    source, _, rest = (_field(deb, "Source") or name).partition(" ")
    package = Package(name, source, version, rest.strip("()") or version)
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if ELF_DIRS.match(rel) and not _SKIP_DIRS.search(rel) and not path.is_dir():
            target = path.resolve()
            if target.is_relative_to(root.resolve()) and _is_elf(target):
                package.names.add(path.name)
    doc = root / "usr/share/doc" / name
    if doc.is_symlink():  # the docs of the package it depends on (libgcc-s1 -> gcc-12-base)
        package.doc_from = Path(os.readlink(doc)).name
    elif (doc / "copyright").is_file() and not (doc / "copyright").is_symlink():
        package.copyright = (doc / "copyright").read_text(encoding="utf-8", errors="replace")
    return package


def _stems(name: str) -> set[str]:
    """Folder names a file's sources may live in: ``libuuid.so.1`` -> ``libuuid``, ``uuid``."""
    stem = re.sub(r"\.so(\..*)?$", "", name)
    return {stem, stem.removeprefix("lib")} - {""}


def _decides(pattern: str, stems: set[str]) -> bool:
    folders = pattern.removesuffix("/*").split("/")
    return pattern.endswith("/*") and "*" not in pattern[:-2] and folders[-1] in stems


@dataclass(frozen=True, slots=True)
class Decision:
    licence: str | None  # as the file writes it
    where: str  # "Files: *", "Files: libuuid/*", "header", "free text"
    folder: str | None = None  # the source folder a non-* paragraph named


def licence_of(copyright: str, name: str) -> Decision:
    """The licence the copyright file gives the installed file ``name`` (see the module doc)."""
    if not copyright.lstrip().lower().startswith("format:"):
        found = free_text_licence(copyright)
        return Decision(found, "free text")
    paragraphs = parse_paragraphs(copyright).paragraphs
    if not paragraphs:
        return Decision(None, "no paragraphs")
    chosen: tuple[str, Paragraph] | None = None
    stems = _stems(name)
    for para in paragraphs[1:]:
        for pattern in (para.get("files") or "").split():
            if pattern == "*" or _decides(pattern, stems):
                chosen = (pattern, para)
    if chosen is None:
        return Decision(paragraphs[0].first_line("license"), "header")
    pattern, para = chosen
    folder = None if pattern == "*" else pattern.removesuffix("/*").rsplit("/", 1)[-1]
    return Decision(para.first_line("license"), f"Files: {pattern}", folder)
