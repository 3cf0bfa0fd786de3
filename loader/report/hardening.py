"""The hardening facts of the firmware's modules (``loader.elf.hardening``) as the report and the
SBOMs give them, read from the ``hardening`` named query (docs/graph.md, "Hardening")."""

from __future__ import annotations

from typing import Any

from ..store.base import GraphStore
from ..store.hardening_rows import HARDENING_COLUMNS

Entry = dict[str, Any]
FACTS = (*HARDENING_COLUMNS, "risky_paths")  # the hardening query's columns after path and kind


def hardening_by_module(store: GraphStore, firmware: str) -> dict[str, Entry]:
    """Per module path, its hardening facts (``FACTS``); kernel modules have none."""
    out: dict[str, Entry] = {}
    for path, _kind, *values in store.stream("hardening", {"firmware": firmware}):
        entry = dict(zip(FACTS, values, strict=True))
        entry["fortified"] = sorted(entry["fortified"] or [])
        entry["risky_paths"] = sorted(entry["risky_paths"] or [])
        for name in ("pie", "nx", "stack_protector", "fortify", "textrel"):
            entry[name] = bool(entry[name])
        out[path] = entry
    return out


def hardening_properties(entry: Entry | None) -> list[Entry]:
    """CycloneDX properties of a module's hardening facts (docs/sbom.md): ``linkgraph:hardening:NAME``,
    booleans as ``true`` / ``false``, one property per fortified function and per risky-path code."""
    if entry is None:
        return []
    out: list[Entry] = []
    for name in FACTS:
        value = entry[name]
        if isinstance(value, list):
            out += ({"name": f"linkgraph:hardening:{name}", "value": str(v)} for v in value)
        elif isinstance(value, bool):
            out.append({"name": f"linkgraph:hardening:{name}", "value": "true" if value else "false"})
        elif value is not None:
            out.append({"name": f"linkgraph:hardening:{name}", "value": str(value)})
    return out
