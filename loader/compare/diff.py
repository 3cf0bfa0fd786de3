"""``linkgraph diff``: what changed between two firmware of one store, as plain data (schema
``linkgraph-diff/1``, docs/diff.md, docs/diff.schema.json).

Modules are matched by path, then by a soname held by one module on each side; every other
comparison is made in the new firmware's paths, so a library that moved keeps its edges. What is
held in memory is the two firmware's modules, edges and findings in a compact form; each is read
from the store as a stream of rows."""

from __future__ import annotations

from typing import Any

from ..report.report_sections import firmware_header
from ..store.base import GraphStore
from . import edges as edge_diff
from . import facts
from . import modules as module_diff

SCHEMA = "linkgraph-diff/1"
_FINDING_ORDER = {
    "gpl_used_by": facts.by_keys("module", "gpl_module"),
    "gpl_uses": facts.by_keys("module", "uses"),
    "declared_only": facts.by_keys("module", "library"),
    "lgpl_used": facts.by_keys("library", "module"),
    "gpl_contained": facts.by_keys("module", "component"),
    "lgpl_static": facts.by_keys("module", "component"),
}


def compare(store: GraphStore, old: str, new: str) -> dict[str, Any]:
    """The differences from firmware ``old`` to firmware ``new`` (ids of this store)."""
    old_modules, new_modules = module_diff.described(store, old), module_diff.described(store, new)
    matching = module_diff.match(old_modules, new_modules)
    rename = facts.renamer(matching)
    # the licence findings first: finding (a)'s query is the biggest one the diff runs, and what the
    # store needed for it is reused by what follows instead of being added to it
    licence = {}
    for kind in facts.FINDINGS:
        licence[kind] = facts.new_and_gone(
            facts.licence_findings(store, old, kind, rename),
            facts.licence_findings(store, new, kind),
            _FINDING_ORDER[kind],
        )
    modules = module_diff.compare_modules(old_modules, new_modules, matching)
    del old_modules, new_modules
    dependencies = edge_diff.compare_edges(edge_diff.edges(store, old, matching), edge_diff.edges(store, new))
    unresolved = facts.new_and_gone(
        facts.unresolved(store, old, rename),
        facts.unresolved(store, new),
        facts.by_keys("module", "symbol", "version"),
    )
    duplicates = facts.new_and_gone(
        facts.duplicates(store, old, rename), facts.duplicates(store, new), facts.by_keys("symbol", "providers")
    )
    parts = {"modules": modules, "dependencies": dependencies, "unresolved": unresolved, "duplicates": duplicates}
    summary: dict[str, Any] = {name: {what: len(rows) for what, rows in part.items()} for name, part in parts.items()}
    summary["licence_findings"] = {kind: {w: len(r) for w, r in part.items()} for kind, part in licence.items()}
    return {
        "schema": SCHEMA,
        "old": _header(store, old),
        "new": _header(store, new),
        "matched": {
            "by_path": sum(1 for b in matching.matched_by.values() if b == "path"),
            "by_soname": sum(1 for b in matching.matched_by.values() if b == "soname"),
        },
        "summary": summary,
        **parts,
        "licence_findings": licence,
    }


def compare_dependencies(store: GraphStore, old: str, new: str) -> dict[str, Any]:
    """Only the ``dependencies`` part of ``compare`` (modules matched the same way)."""
    matching = module_diff.match(module_diff.described(store, old), module_diff.described(store, new))
    return edge_diff.compare_edges(edge_diff.edges(store, old, matching), edge_diff.edges(store, new))


def changed_programs(store: GraphStore, new: str, dependencies: dict[str, Any]) -> list[str]:
    """The link maps of ``new`` (programs, and libraries no program loads) holding an edge that
    ``dependencies`` lists as added or changed: both its ends loaded there (a missing one: its source)."""
    ends = {(e["from"], e["to"]) for e in (*dependencies["added"], *dependencies["changed"])}
    found = []
    for executable, _flavour, objects, _missing in store.stream("link-maps", {"firmware": new}):
        loaded = set(objects)
        if any(a in loaded and (b is None or b in loaded) for a, b in ends):
            found.append(executable)
    return sorted(found)


def _header(store: GraphStore, firmware: str) -> dict[str, Any]:
    header = firmware_header(store, firmware)
    return {"name": header["name"], "sha256": header["sha256"]}
