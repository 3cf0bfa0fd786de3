"""The hardening facts of the firmware's modules (``loader.elf.hardening``) as the report and the
SBOMs give them, read from the ``hardening`` named query (docs/graph.md, "Hardening")."""

from __future__ import annotations

from typing import Any

from ..store.hardening_rows import HARDENING_COLUMNS
from .rows import Queryable

Entry = dict[str, Any]
FACTS = (*HARDENING_COLUMNS, "risky_paths")  # the hardening query's columns after path and kind


def _facts(values: list[Any]) -> Entry:
    """One module's facts (``FACTS``) from the query's columns, lists sorted, flags as booleans."""
    entry = dict(zip(FACTS, values, strict=True))
    entry["fortified"] = sorted(entry["fortified"] or [])
    entry["risky_paths"] = sorted(entry["risky_paths"] or [])
    for name in ("pie", "nx", "stack_protector", "fortify", "textrel"):
        entry[name] = bool(entry[name])
    return entry


def hardening_by_module(store: Queryable, firmware: str) -> dict[str, Entry]:
    """Per module path, its hardening facts (``FACTS``); kernel modules have none."""
    return {path: _facts(values) for path, _kind, *values in store.stream("hardening", {"firmware": firmware})}


def module_hardening(store: Queryable, firmware: str, path: str) -> Entry | None:
    """The hardening facts of the module at ``path`` (or a symlink to it) and its risky search-path
    ``warnings`` (``{"code", "message"}``, the ``rpath-*`` problems); None for a kernel module."""
    rows = store.query("module-hardening", {"firmware": firmware, "path": path})
    if not rows:
        return None
    warnings = [{"code": r["code"], "message": r["message"]} for r in rows if r["code"] is not None]
    values = [rows[0][name] for name in HARDENING_COLUMNS]
    return _facts([*values, sorted({w["code"] for w in warnings})]) | {"warnings": warnings}


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
