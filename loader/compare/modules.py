"""The modules of two firmware matched (by path, then by soname) and compared: which were added,
removed, or changed (file hash, soname, licence, package, or the path itself)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ..report.inventory import module_files
from ..store.base import GraphStore

# what a changed module's row compares, each shown as {"old", "new"} when it differs
COMPARED = ("sha256", "soname", "licence", "package")


@dataclass(frozen=True, slots=True)
class Described:
    """What the comparison keeps of one module."""

    path: str
    kind: str
    soname: str | None
    sha256: str
    licence: str | None
    package: str | None

    def row(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "soname": self.soname,
            "sha256": self.sha256,
            "licence": self.licence,
            "package": self.package,
        }


def described(store: GraphStore, firmware: str) -> dict[str, Described]:
    """The firmware's modules by path, streamed from the store."""
    return {
        m.path: Described(m.path, m.kind, m.soname, m.sha256, m.licence, m.package)
        for m in module_files(store, firmware)
    }


@dataclass(frozen=True)
class Matching:
    """Old module path -> new module path, and how each pair was matched (``path`` or ``soname``)."""

    renamed: dict[str, str]
    matched_by: dict[str, str]

    def new_path(self, old_path: str | None) -> str | None:
        """Where a module of the old firmware is in the new one (its old path if unmatched)."""
        if old_path is None:
            return None
        return self.renamed.get(old_path, old_path)


def match(old: dict[str, Described], new: dict[str, Described]) -> Matching:
    """Same path first; then, among the rest, a soname held by exactly one module on each side."""
    renamed = {path: path for path in old if path in new}
    matched_by = dict.fromkeys(renamed, "path")
    old_by_soname: dict[str, list[str]] = defaultdict(list)
    new_by_soname: dict[str, list[str]] = defaultdict(list)
    for path, m in old.items():
        if path not in renamed and m.soname:
            old_by_soname[m.soname].append(path)
    for path, m in new.items():
        if path not in old and m.soname:
            new_by_soname[m.soname].append(path)
    for soname, paths in old_by_soname.items():
        others = new_by_soname.get(soname, [])
        if len(paths) == 1 and len(others) == 1:
            renamed[paths[0]] = others[0]
            matched_by[paths[0]] = "soname"
    return Matching(renamed, matched_by)


def compare_modules(old: dict[str, Described], new: dict[str, Described], matching: Matching) -> dict[str, Any]:
    """``added``, ``removed`` and ``changed`` modules, each list sorted by path."""
    kept = set(matching.renamed.values())
    changed = []
    for old_path, new_path in matching.renamed.items():
        before, after = old[old_path], new[new_path]
        changes = {
            field: {"old": getattr(before, field), "new": getattr(after, field)}
            if getattr(before, field) != getattr(after, field)
            else None
            for field in COMPARED
        }
        if old_path != new_path or any(changes.values()):
            changed.append(
                {
                    "path": new_path,
                    "old_path": old_path,
                    "matched_by": matching.matched_by[old_path],
                    "kind": after.kind,
                    **changes,
                }
            )
    changed.sort(key=lambda r: r["path"])
    return {
        "added": [new[p].row() for p in sorted(new) if p not in kept],
        "removed": [old[p].row() for p in sorted(old) if p not in matching.renamed],
        "changed": changed,
    }
