"""Each source read into observations for the table, with the counts the summary prints."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

from . import buildroot, debian, openwrt
from .gitsrc import GitTree
from .table import Observation, component_key

# binary packages common in firmware and in Debian test roots, one a line
DEFAULT_DEBIAN = Path(__file__).with_name("debian-packages.txt")


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def from_openwrt(tree: GitTree, label: str, under: str) -> tuple[list[Observation], Counter[str]]:
    """Observations from every package Makefile below ``under`` ("" for the whole tree)."""
    counts: Counter[str] = Counter()
    paths = [p for p in tree.paths() if p.endswith("/Makefile") and p.startswith(under)]
    out = []
    for path, text in tree.read_many(paths):
        if not openwrt.is_package(text):
            continue
        counts["makefiles"] += 1
        found = openwrt.parse(path, text)
        counts["install commands"] += found.commands
        counts["unparsed commands"] += found.unparsed
        counts["too wide globs"] += found.too_wide
        if found.name is None or "$" in found.name:
            counts["unparsed makefiles"] += 1
            continue
        if found.licence is None:
            counts["makefiles without licence"] += 1
        parts = openwrt.licence_parts(found.licence) if found.licence else []
        out.append(Observation(label, f"{label}:{path}", component_key(found.name), found.version,
                               found.licence, parts, found.names))  # fmt: skip
    progress(f"{label}: {counts['makefiles']} package Makefiles, {len(out)} read")
    return out, counts


def from_buildroot(tree: GitTree) -> tuple[list[Observation], Counter[str]]:
    counts: Counter[str] = Counter()
    out = []
    for path, text in tree.read_many(p for p in tree.paths() if buildroot.is_recipe(p)):
        counts["recipes"] += 1
        found = buildroot.parse(path, text)
        if found.licence is None:
            counts["recipes without licence"] += 1
            continue
        out.append(Observation("buildroot", f"buildroot:{path}", component_key(found.name), found.version,
                               found.licence, buildroot.licence_parts(found.licence)))  # fmt: skip
    progress(f"buildroot: {counts['recipes']} recipes, {len(out)} with a licence")
    return out, counts


def _read_debs(debs: dict[str, Path], skipped: dict[str, str]) -> list[debian.Package]:
    out = []
    for name, deb in debs.items():
        try:
            out.append(debian.read(deb))
        except (OSError, subprocess.CalledProcessError) as exc:
            skipped[name] = f"{type(exc).__name__}: {exc}"
    return out


def from_debian(packages: list[str], cache: Path) -> tuple[list[Observation], dict[str, str], dict[str, str]]:
    """Observations, package -> version, and package -> why it was left out."""
    debs, skipped = debian.download(packages, cache)
    read = _read_debs(debs, skipped)
    lent = sorted({p.doc_from for p in read if p.doc_from} - debs.keys())
    if lent:  # packages whose copyright file is another package's: read that one too
        more, _ = debian.download(lent, cache)
        read += [p for p in _read_debs(more, skipped) if p.copyright]
    progress(f"debian: {len(read)} packages read from {cache}")
    by_source = {p.name: p.copyright for p in read if p.copyright}
    out = []
    for pkg in read:
        text = pkg.copyright or by_source.get(pkg.doc_from or "")
        groups: dict[debian.Decision, set[str]] = defaultdict(set)
        for name in pkg.names:
            groups[debian.licence_of(text, name) if text else debian.Decision(None, "no copyright file")].add(name)
        key = component_key(pkg.source)
        for decision, names in groups.items():
            component = f"{key}/{decision.folder}" if decision.folder else key
            where = f"{decision.where} of {pkg.doc_from}" if text and not pkg.copyright else decision.where
            ref = f"debian:{pkg.name} {pkg.version} ({where})"
            out.append(Observation("debian", ref, component, pkg.source_version, decision.licence, [], names,
                                   key if decision.folder else None))  # fmt: skip
        if not pkg.names and pkg.name in packages:
            skipped[pkg.name] = "no ELF file under a program or library folder"
    return out, {p.name: p.version for p in read}, skipped
