"""A store seen by a reader that asks it the same things many times: the compliance report draws a
diagram per finding, and each diagram walks a module's dependencies level by level
(``analysis.dependency_graph``: ``edges-from`` per level, the link map, every dlopen edge).

``ReadOnce`` answers those from what it read once: the dependency edges of the whole firmware in one
``edges-from`` (each call then keeps the rows whose ``from`` it names, in the query's own order), every
link map in one ``link-maps`` (``link-map`` picks one), and the queries of ``KEPT`` by their
parameters; anything else goes to the store. It is for one firmware's report, read while nothing
writes; the rows it hands out are shared, not copied (readers do not change them), and their lists of
programs are tuples of strings held once.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

from .rows import Queryable, Row

EDGES = "edges-from"
LISTS = ("executables", "programs")  # lists of paths on every edge
KEPT = frozenset({"dlopen-edges", "module", "module-paths", "kernel-link-edges", "module-kernel-links", "licences"})


class ReadOnce:
    """``store`` with ``edges-from`` read once per firmware and the queries of ``KEPT`` kept by parameters."""

    def __init__(self, store: Queryable) -> None:
        self.store = store
        self._edges: dict[str, dict[str, list[Row]]] = {}  # firmware -> from -> its rows, in query order
        self._maps: dict[str, dict[str, Row]] = {}  # firmware -> executable -> its link map
        self._kept: dict[tuple[str, str], list[Row]] = {}

    def query(self, name: str, params: dict[str, Any] | None = None) -> list[Row]:
        params = params or {}
        if name == EDGES and set(params) == {"firmware", "paths"}:
            by_from = self._edges_of(params["firmware"])
            wanted = sorted(set(params["paths"]))  # the query orders by from first
            return [row for path in wanted for row in by_from.get(path, ())]
        if name == "link-map" and set(params) == {"firmware", "path"}:
            maps = self._maps_of(params["firmware"])
            return [maps[params["path"]]] if params["path"] in maps else []
        if name not in KEPT:
            return self.store.query(name, params)
        key = (name, json.dumps(params, sort_keys=True, default=str))
        if key not in self._kept:
            self._kept[key] = self.store.query(name, params)
        return list(self._kept[key])

    def stream(self, name: str, params: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        return self.store.stream(name, params)

    def _edges_of(self, firmware: str) -> dict[str, list[Row]]:
        if firmware not in self._edges:
            paths = [r["path"] for r in self.query("module-paths", {"firmware": firmware})]
            by_from: dict[str, list[Row]] = {}
            for row in self.store.query(EDGES, {"firmware": firmware, "paths": paths}):
                for key in LISTS:  # the same few hundred programs' paths on thousands of edges: held once each
                    if row.get(key):
                        row[key] = tuple(sys.intern(value) for value in row[key])
                by_from.setdefault(row["from"], []).append(row)
            self._edges[firmware] = by_from
        return self._edges[firmware]

    def _maps_of(self, firmware: str) -> dict[str, Row]:
        if firmware not in self._maps:
            self._maps[firmware] = {r["executable"]: r for r in self.store.query("link-maps", {"firmware": firmware})}
        return self._maps[firmware]
