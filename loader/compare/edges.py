"""Dependency edges of two firmware compared: added, removed, and changed (status, or the symbols
that bind across the edge). An edge is (declaring module, name, file loaded); the old firmware's
paths are carried over to the new one's by the module matching first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store.base import GraphStore
from .modules import Matching

EdgeKey = tuple[str, str, str | None]


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    soname: str
    target: str | None
    status: str
    symbols: frozenset[str]

    def row(self) -> dict[str, Any]:
        return {
            "from": self.source,
            "soname": self.soname,
            "to": self.target,
            "status": self.status,
            "symbols": sorted(self.symbols),
        }


def edges(store: GraphStore, firmware: str, matching: Matching | None = None) -> dict[EdgeKey, Edge]:
    """The firmware's dependency edges keyed in the new firmware's paths (``matching`` given: this
    is the old firmware). Paths in the ``Edge`` stay the firmware's own. Read straight from the
    ``dependencies`` query, only what is compared kept; of two edges with one key (the report's
    ``dependencies`` section lists both) the one with the greater status counts."""
    found: dict[EdgeKey, Edge] = {}
    for source, soname, target, status, symbols, *_how in store.stream("dependencies", {"firmware": firmware}):
        edge = Edge(source, soname, target, status, frozenset(symbols or ()))
        if matching is None:
            key: EdgeKey = (source, soname, target)
        else:
            key = (matching.new_path(source) or source, soname, matching.new_path(target))
        before = found.get(key)
        if before is None or before.status <= status:
            found[key] = edge
    return found


def _order(row: dict[str, Any]) -> tuple[str, str, str]:
    return (row["from"], row["soname"], row["to"] or "")


def compare_edges(old: dict[EdgeKey, Edge], new: dict[EdgeKey, Edge]) -> dict[str, Any]:
    """``added`` and ``removed`` edges (in their own firmware's paths), and ``changed`` ones (in the
    new firmware's paths) with ``old_status`` and the symbols ``symbols_added`` / ``symbols_removed``."""
    changed = []
    for key, after in new.items():
        before = old.get(key)
        if before is None or (before.status == after.status and before.symbols == after.symbols):
            continue
        changed.append(
            {
                "from": after.source,
                "soname": after.soname,
                "to": after.target,
                "old_status": before.status,
                "status": after.status,
                "symbols_added": sorted(after.symbols - before.symbols),
                "symbols_removed": sorted(before.symbols - after.symbols),
            }
        )
    return {
        "added": sorted((e.row() for k, e in new.items() if k not in old), key=_order),
        "removed": sorted((e.row() for k, e in old.items() if k not in new), key=_order),
        "changed": sorted(changed, key=_order),
    }
