"""A module's source status in an SBOM (docs/sources.md): a ``linkgraph:source-status`` property for
every module a release was checked for, and, for a module built from a source folder of the
release, a CycloneDX external reference of type ``source-distribution`` naming the folder inside the
release (``RELEASE#FOLDER``, an IRI reference) with its package and version."""

from __future__ import annotations

from typing import Any

from ..store.base import GraphStore

Entry = dict[str, Any]


def source_statuses(store: GraphStore, firmware: str) -> tuple[str | None, dict[str, Entry]]:
    """The release's name and each module's source-status row, by path (nothing when unchecked)."""
    p = {"firmware": firmware}
    rows = {r["module"]: r for r in store.query("source-status", p)}
    if not rows:
        return None, {}
    gaps = store.query("source-release-gaps", p)
    return (gaps[0]["release"] if gaps else None), rows


def add_source(entry: Entry, release: str | None, row: Entry | None) -> None:
    """Put the module's source status into its CycloneDX component."""
    if row is None:
        return
    entry.setdefault("properties", []).append({"name": "linkgraph:source-status", "value": row["status"]})
    if row["status"] != "source" or not row["folder"]:
        return
    what = " ".join(x for x in (row["package"], row["version"]) if x) or row["folder"]
    entry["externalReferences"] = [
        {
            "url": f"{release or 'release'}#{row['folder']}",
            "type": "source-distribution",
            "comment": f"built from {what} in the vendor's source release (linkgraph source check, tier {row['tier']})",
        }
    ]
