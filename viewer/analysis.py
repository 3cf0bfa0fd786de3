"""What the viewer shows, built from named queries: a file's analysis, its dependency graph, the tree.

Every function takes a store with ``query(name, params)`` (the viewer's locked store or a plain
``GraphStore``), so ``linkgraph diagram`` uses them outside Flask too. Unknown paths raise
``NotFound`` (a 404 in the viewer).
"""

from __future__ import annotations

import posixpath
from typing import Any, Protocol

from werkzeug.exceptions import NotFound

Row = dict[str, Any]
# the order the ELF-analysis sections of an edge's status are shown in
STATUS_ORDER = ("used", "declared-unused", "hidden", "missing")


class Queryable(Protocol):
    def query(self, name: str, params: dict[str, Any] | None = None) -> list[Row]: ...


def find_module(store: Queryable, firmware_id: str, path: str) -> Row:
    """The module at *path* (or the module a symlink at *path* leads to)."""
    rows = store.query("module", {"firmware": firmware_id, "path": path})
    exact = [r for r in rows if r["path"] == path]
    if exact or rows:
        return (exact or rows)[0]
    raise NotFound(f"no ELF file {path!r} in this firmware (GET /api/firmware/{firmware_id[:12]}…/tree lists them)")


def _edges_from(store: Queryable, firmware_id: str, paths: list[str]) -> list[Row]:
    return store.query("edges-from", {"firmware": firmware_id, "paths": paths})


def _symbols(row: Row) -> list[str]:
    return sorted(row.get("symbols") or [])


def file_analysis(store: Queryable, firmware_id: str, path: str) -> Row:
    """Overview and ELF analysis of one file: declared, used, declared-unused, hidden, missing,
    used by, unresolved, duplicate providers."""
    module = find_module(store, firmware_id, path)
    real = module["path"]
    params = {"firmware": firmware_id, "path": real}
    edges = _edges_from(store, firmware_id, [real])
    declared = sorted((e for e in edges if e["status"] != "hidden"), key=lambda e: e["position"] or 0)
    hidden = sorted((e for e in edges if e["status"] == "hidden"), key=lambda e: e["to"] or "")
    return {
        "module": module,
        "declared": [{"soname": e["soname"], "position": e["position"], "to": e["to"], "status": e["status"],
                      "symbols": _symbols(e)} for e in declared],
        "used": [{"soname": e["soname"], "to": e["to"], "symbols": _symbols(e)}
                 for e in declared if e["status"] == "used"],
        "declared_unused": [{"soname": e["soname"], "to": e["to"]}
                            for e in declared if e["status"] == "declared-unused"],
        "hidden": [{"soname": e["soname"], "to": e["to"], "symbols": _symbols(e)} for e in hidden],
        "missing": [{"soname": e["soname"]} for e in declared if e["status"] == "missing"],
        "used_by": [{"module": r["module"], "status": r["status"], "symbols": _symbols(r)}
                    for r in store.query("used-by", params)],
        "unresolved": [{"symbol": r["symbol"], "version": r["version"], "weak": bool(r["weak"]),
                        "executables": sorted(r["executables"] or [])}
                       for r in store.query("module-unresolved", params)],
        "duplicates": [{"symbol": r["symbol"], "providers": list(r["providers"] or []), "chosen": r["chosen"],
                        "executables": sorted(r["executables"] or [])}
                       for r in store.query("module-duplicates", params)],
    }


def dependency_graph(store: Queryable, firmware_id: str, path: str) -> Row:
    """The dependency graph from one file (node n0), see docs/viewer.md.

    A program's graph is its link map: the objects the loader loads for it, the declared edges
    that hold in that link map and the hidden edges between its objects. A library no program
    loads has a link map of its own; any other library gets every edge reachable from it."""
    module = find_module(store, firmware_id, path)
    link_map = store.query("link-map", {"firmware": firmware_id, "path": module["path"]})
    program = module["path"] if link_map else None
    loaded = set(link_map[0]["objects"] or []) | {module["path"]} if link_map else None
    nodes: dict[str, Row] = {}

    def node(key: str, label: str, kind: str | None, soname: str | None, missing: bool) -> str:
        if key not in nodes:
            nodes[key] = {"id": f"n{len(nodes)}", "path": None if missing else key, "label": label,
                          "kind": kind or "", "soname": soname, "missing": missing}
        return nodes[key]["id"]

    def holds(row: Row) -> bool:
        if program is None:
            return True
        if row["status"] == "hidden":
            return row["to"] in loaded
        return program in (row["executables"] or [])

    node(module["path"], module["name"], module["kind"], module["soname"], False)
    edges: list[Row] = []
    frontier, seen = [module["path"]], {module["path"]}
    while frontier:
        rows = sorted(filter(holds, _edges_from(store, firmware_id, frontier)),
                      key=lambda r: (r["from"], r["position"] is None, r["position"] or 0, r["to"] or ""))
        frontier = []
        for r in rows:
            missing = r["to"] is None
            key = f"missing:{r['soname']}" if missing else r["to"]
            target = node(key, r["soname"] if missing else posixpath.basename(r["to"]), r["kind"],
                          r["soname"], missing)
            symbols = _symbols(r)
            edges.append({"id": f"e{len(edges)}", "from": nodes[r["from"]]["id"], "to": target,
                          "status": r["status"], "soname": r["soname"], "symbols": symbols,
                          "count": len(symbols)})
            if not missing and r["to"] not in seen:
                seen.add(r["to"])
                frontier.append(r["to"])
    return {"root": module["path"], "link_map": program is not None, "nodes": list(nodes.values()),
            "edges": edges}


def edge_symbols(store: Queryable, firmware_id: str, source: str, target: str) -> Row:
    """One dependency edge (target: a path, or the soname of a missing library) and its symbols."""
    rows = store.query("edge", {"firmware": firmware_id, "from": source, "to": target})
    if not rows:
        raise NotFound(f"no dependency edge from {source!r} to {target!r} in this firmware")
    row = rows[0]
    return {"from": row["from"], "to": row["to"], "soname": row["soname"], "status": row["status"],
            "symbols": _symbols(row)}


def file_tree(store: Queryable, firmware_id: str) -> Row:
    """Every module, every symlink to one (with its target) and every missing soname."""
    entries: list[Row] = []
    for r in store.query("module-status", {"firmware": firmware_id}):
        flags = {"hidden": r["hidden"], "declared_unused": r["declared_unused"], "missing": r["missing"],
                 "unresolved": r["unresolved"]}
        entries.append({"path": r["path"], "kind": r["kind"], "soname": r["soname"], "target": None,
                        "flags": flags})
        for alias in r["aliases"] or []:
            entries.append({"path": alias, "kind": "symlink", "soname": r["soname"], "target": r["path"],
                            "flags": flags})
    entries.sort(key=lambda e: e["path"])
    needed_by: dict[str, list[str]] = {}
    for r in store.query("missing", {"firmware": firmware_id}):
        needed_by.setdefault(r["soname"], []).append(r["from"])
    missing = [{"soname": s, "needed_by": sorted(set(p))} for s, p in sorted(needed_by.items())]
    return {"entries": entries, "missing": missing}
