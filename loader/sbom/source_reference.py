"""A module's source status in an SBOM (docs/sources.md): a ``linkgraph:source-status`` property for
every module a release was checked for, and, for a module built from a source folder of the
release, a CycloneDX external reference of type ``source-distribution`` naming the folder inside the
release (``RELEASE#FOLDER``, an IRI reference) with its package and version."""

from __future__ import annotations

from typing import Any

from ..store.base import GraphStore

Entry = dict[str, Any]
SOURCE_COMMENT = (
    "a source folder of the vendor's source release that linkgraph's source check found modules built from "
    "(docs/sources.md)"
)


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


def source_note(release: str | None, row: Entry) -> str:
    """The annotation of a checked module's File (or Package) in SPDX: its status and where."""
    lines = [f"linkgraph source status: {row['status']}", f"release: {release or 'release'}"]
    if row["tier"]:
        lines.append(f"tier: {row['tier']}")
    if row["folder"]:
        lines.append(f"folder: {row['folder']}")
    lines.extend(f"release path: {p}" for p in row["release_paths"] or ())
    return "\n".join(lines)


def source_folders(rows: dict[str, Entry]) -> dict[str, Entry]:
    """The release folders modules were built from, each with the row of its first module."""
    found: dict[str, Entry] = {}
    for _path, row in sorted(rows.items()):
        if row["status"] == "source" and row["folder"]:
            found.setdefault(row["folder"], row)
    return found


def source_info(release: str | None, row: Entry) -> str:
    return f"the folder {row['folder']} of the vendor's source release {release or 'release'}"


def spdx2_source_package(release: str | None, row: Entry, id_: str) -> dict[str, Any]:
    """A release folder modules were built from, as an SPDX 2.3 Package whose ``sourceInfo`` says
    where it lies; the modules' Files are GENERATED_FROM it."""
    entry: dict[str, Any] = {"SPDXID": id_, "name": row["package"] or row["folder"]}
    if row["version"]:
        entry["versionInfo"] = row["version"]
    entry.update(
        {
            "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False,
            "primaryPackagePurpose": "SOURCE",
            "sourceInfo": source_info(release, row),
            "licenseConcluded": "NOASSERTION",
            "licenseDeclared": "NOASSERTION",
            "copyrightText": "NOASSERTION",
            "comment": SOURCE_COMMENT,
        }
    )
    return entry
