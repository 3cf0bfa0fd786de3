"""The source-release check as the viewer shows it (docs/sources.md, docs/viewer.md): one module's
source status with its evidence (a file's Overview), every module's status alone (the whole view's
colouring), and the graph nodes of a program's link map marked with theirs (the per-program graph)."""

from __future__ import annotations

import json
from typing import Any

from ..sources.model import SourceStatus
from .rows import Queryable, Row

WITHOUT_SOURCE = (SourceStatus.PREBUILT.value, SourceStatus.ABSENT.value)


def _evidence(text: Any) -> list[Row]:
    """The stored evidence (a JSON list of ``{kind, text, file, line}``), or none when unreadable."""
    try:
        found = json.loads(text) if text else []
    except (TypeError, ValueError):
        return []
    return [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []


def module_source(store: Queryable, firmware_id: str, path: str) -> Row | None:
    """The source status of the module at ``path`` (its own path, not an alias), with its folder,
    package, version, release paths and evidence; None when no release was checked."""
    rows = store.query("module-source", {"firmware": firmware_id, "path": path})
    if not rows:
        return None
    row = dict(rows[0])
    row["evidence"] = _evidence(row.get("evidence"))
    row["release_paths"] = sorted(row.get("release_paths") or [])
    return row


def source_statuses(store: Queryable, firmware_id: str) -> dict[str, str]:
    """Every module's source status by path (empty when no release was checked)."""
    return {r["module"]: r["status"] for r in store.query("source-status-map", {"firmware": firmware_id})}


def mark_graph(graph: Row, statuses: dict[str, str]) -> Row:
    """``graph`` (the graph JSON of docs/viewer.md) with each module node's ``source_status`` when a
    release was checked; a missing soname or a node of no module gets none."""
    if not statuses:
        return graph
    nodes = []
    for node in graph.get("nodes") or []:
        status = statuses.get(node.get("path") or "") if not node.get("missing") else None
        nodes.append({**node, "source_status": status} if status else node)
    return {**graph, "nodes": nodes}
