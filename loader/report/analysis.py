"""What the CLI and the viewer show of one file, built from named queries: a file's analysis,
its dependency graph, the tree.

Every function takes a store with ``query(name, params)`` (the viewer's locked store or a plain
``GraphStore``), so ``linkgraph diagram`` uses them outside Flask too. Unknown paths raise
``NotFoundError`` (a 404 in the viewer).
"""

from __future__ import annotations

import json
import posixpath

from ..errors import NotFoundError
from ..model import Status
from ..near_names import close_paths, did_you_mean
from .kernel_view import add_kernel_links, kernel_flags
from .rows import Queryable, Row

UNDECLARED = (Status.HIDDEN, Status.INTERPOSED, Status.UPCALL)  # HIDDEN edges: bindings to a module not declared


def find_module(store: Queryable, firmware_id: str, path: str) -> Row:
    """The module at *path* (or the module a symlink at *path* leads to)."""
    rows = store.query("module", {"firmware": firmware_id, "path": path})
    exact = [r for r in rows if r["path"] == path]
    if exact or rows:
        return (exact or rows)[0]
    known = [
        p
        for row in store.query("module-paths", {"firmware": firmware_id})
        for p in [row["path"], *(row["aliases"] or [])]
    ]
    raise NotFoundError(f"no ELF file {path!r} in this firmware{did_you_mean(close_paths(path, known))}")


def module_node(module: Row, node_id: str) -> Row:
    """A graph node (docs/viewer.md) for a row of the ``module`` query."""
    return {
        "id": node_id,
        "path": module["path"],
        "label": module["name"],
        "kind": module["kind"],
        "soname": module["soname"],
        "missing": False,
        "licence": module["licence"],
        "licence_class": module["licence_class"] or "unknown",
    }


def _edges_from(store: Queryable, firmware_id: str, paths: list[str]) -> list[Row]:
    return store.query("edges-from", {"firmware": firmware_id, "paths": paths})


def _symbols(row: Row) -> list[str]:
    return sorted(row.get("symbols") or [])


def _found_by(row: Row) -> Row:
    """How the loader found a declared dependency: the rule and folder (and, for DT_RPATH or
    DT_RUNPATH, the object that named it), or for a missing one the paths it tried; ``variants``
    lists every way when the link maps disagree (docs/report.md)."""
    raw = row.get("found_by")
    return {
        "rule": row.get("rule"),
        "directory": row.get("directory"),
        "via": row.get("via"),
        "tried": list(row.get("tried") or []),
        "variants": json.loads(raw) if raw else [],
    }


def file_analysis(store: Queryable, firmware_id: str, path: str) -> Row:
    """Overview and ELF analysis of one file: declared, used, declared-unused, hidden, interposed
    (bindings to a module the file does not need), upcalls (bindings to a module that loads the
    file: docs/graph.md), missing, used by, called back by (the upcalls into the file, which are no
    use of it), unresolved, duplicate providers."""
    module = find_module(store, firmware_id, path)
    real = module["path"]
    params = {"firmware": firmware_id, "path": real}
    edges = _edges_from(store, firmware_id, [real])
    declared = sorted((e for e in edges if e["status"] not in UNDECLARED), key=lambda e: e["position"] or 0)
    undeclared = {s: sorted((e for e in edges if e["status"] == s), key=lambda e: e["to"] or "") for s in UNDECLARED}
    users = store.query("used-by", params)
    return {
        "module": module,
        "declared": [
            {
                "soname": e["soname"],
                "position": e["position"],
                "to": e["to"],
                "status": e["status"],
                "symbols": _symbols(e),
                "found_by": _found_by(e),
            }
            for e in declared
        ],
        "used": [
            {"soname": e["soname"], "to": e["to"], "symbols": _symbols(e)}
            for e in declared
            if e["status"] == Status.USED
        ],
        "declared_unused": [
            {"soname": e["soname"], "to": e["to"]} for e in declared if e["status"] == Status.DECLARED_UNUSED
        ],
        **{
            key: [{"soname": e["soname"], "to": e["to"], "symbols": _symbols(e)} for e in undeclared[status]]
            for key, status in (("hidden", Status.HIDDEN), ("interposed", Status.INTERPOSED), ("upcall", Status.UPCALL))
        },
        "missing": [{"soname": e["soname"]} for e in declared if e["status"] == Status.MISSING],
        "used_by": [
            {"module": r["module"], "kind": r["kind"], "status": r["status"], "symbols": _symbols(r)}
            for r in users
            if r["status"] not in (Status.UPCALL, Status.INTERPOSED)
        ],
        # this file comes first in their lookup, so their references bind here: no use of it
        "interposes_on": [
            {"module": r["module"], "kind": r["kind"], "symbols": _symbols(r)}
            for r in users
            if r["status"] == Status.INTERPOSED
        ],
        "called_back_by": [
            {"module": r["module"], "symbols": _symbols(r)} for r in users if r["status"] == Status.UPCALL
        ],
        "unresolved": [
            {
                "symbol": r["symbol"],
                "version": r["version"],
                "weak": bool(r["weak"]),
                "executables": sorted(r["executables"] or []),
            }
            for r in store.query("module-unresolved", params)
        ],
        "duplicates": [
            {
                "symbol": r["symbol"],
                "providers": list(r["providers"] or []),
                "chosen": r["chosen"],
                "executables": sorted(r["executables"] or []),
            }
            for r in store.query("module-duplicates", params)
        ],
    }


def dependency_graph(store: Queryable, firmware_id: str, path: str) -> Row:
    """The dependency graph from one file (node n0), see docs/viewer.md.

    A program's graph is its link map: the objects the loader loads for it, the declared edges
    that hold in that link map and the hidden, interposed and upcall edges its process holds (a library no program
    loads has a link map of its own). Any other library gets what it declares, transitively, its
    own hidden edges, and the hidden edges among the modules reached: the hidden edges of the
    libraries it loads hold in other programs' link maps and would drag those in."""
    module = find_module(store, firmware_id, path)
    root = module["path"]
    link_map = store.query("link-map", {"firmware": firmware_id, "path": root})
    loaded = set(link_map[0]["objects"] or []) | {root} if link_map else None
    nodes: dict[str, Row] = {}
    edges: list[Row] = []

    def node(row: Row) -> str:
        missing = row["to"] is None
        key = f"missing:{row['soname']}" if missing else row["to"]
        if key not in nodes:
            nodes[key] = {
                "id": f"n{len(nodes)}",
                "path": None if missing else key,
                "label": row["soname"] if missing else posixpath.basename(key),
                "kind": row["kind"] or "",
                "soname": row["soname"],
                "missing": missing,
                "licence": row["licence"],
                "licence_class": None if missing else row["licence_class"] or "unknown",
            }
        return nodes[key]["id"]

    def add_edge(row: Row) -> None:
        symbols = _symbols(row)
        edges.append(
            {
                "id": f"e{len(edges)}",
                "from": nodes[row["from"]]["id"],
                "to": node(row),
                "status": row["status"],
                "soname": row["soname"],
                "symbols": symbols,
                "count": len(symbols),
            }
        )

    nodes[root] = module_node(module, "n0")
    deferred: list[Row] = []  # hidden edges kept only when both ends are reached
    frontier = [root]
    while frontier:
        rows = sorted(
            _edges_from(store, firmware_id, frontier),
            key=lambda r: (r["from"], r["position"] is None, r["position"] or 0, r["to"] or ""),
        )
        frontier = []
        for r in rows:
            hidden = r["status"] in UNDECLARED
            if loaded is not None:
                if not _holds_in(r, root, loaded, hidden):
                    continue
            elif hidden and r["from"] != root:
                deferred.append(r)
                continue
            new = r["to"] is not None and r["to"] not in nodes
            add_edge(r)
            if new and (loaded is not None or not hidden):
                frontier.append(r["to"])
    for r in deferred:
        if r["to"] in nodes:
            add_edge(r)
    _add_dlopen(store, firmware_id, root, nodes, edges)
    if module["kind"] == "kernel-module":
        add_kernel_links(
            store, firmware_id, root, nodes, edges, lambda p, i: module_node(find_module(store, firmware_id, p), i)
        )
    return {"root": root, "link_map": loaded is not None, "nodes": list(nodes.values()), "edges": edges}


def _holds_in(edge: Row, program: str, loaded: set[str], undeclared: bool) -> bool:
    """Whether ``edge`` holds in the process of ``program``: a declared edge when its resolution is
    the program's link map's, a hidden, interposed or upcall one when that process binds across it (a
    store written before edges recorded their programs: when it ends at an object of the map)."""
    if not undeclared:
        return program in (edge["executables"] or [])
    held = edge.get("programs")
    return edge["to"] in loaded if held is None else program in held


def _add_dlopen(store: Queryable, firmware_id: str, root: str, nodes: dict[str, Row], edges: list[Row]) -> None:
    """The libraries the file may load later with dlopen (docs/dlopen.md): edges of their own kind."""
    for r in store.query("dlopen-edges", {"firmware": firmware_id}):
        if r["from"] != root:
            continue
        if r["to"] not in nodes:
            nodes[r["to"]] = module_node(find_module(store, firmware_id, r["to"]), f"n{len(nodes)}")
        edges.append(
            {
                "id": f"e{len(edges)}",
                "from": nodes[root]["id"],
                "to": nodes[r["to"]]["id"],
                "status": "dlopen",
                "soname": None,
                "symbols": [],
                "count": 0,
                "certainty": r["certainty"],
            }
        )


def edge_symbols(store: Queryable, firmware_id: str, source: str, target: str) -> Row:
    """One dependency edge (target: a path, or the soname of a missing library) and its symbols."""
    rows = store.query("edge", {"firmware": firmware_id, "from": source, "to": target})
    if not rows:
        raise NotFoundError(f"no dependency edge from {source!r} to {target!r} in this firmware")
    row = rows[0]
    return {
        "from": row["from"],
        "to": row["to"],
        "soname": row["soname"],
        "status": row["status"],
        "symbols": _symbols(row),
    }


def file_tree(store: Queryable, firmware_id: str) -> Row:
    """Every module, every symlink to one (with its target) and every missing soname."""
    entries: list[Row] = []
    kernel = kernel_flags(store, firmware_id)  # a kernel module's links count as its edges
    for r in store.query("module-status", {"firmware": firmware_id}):
        flags = {
            "hidden": r["hidden"],
            "declared_unused": r["declared_unused"],
            "missing": r["missing"],
            "unresolved": r["unresolved"],
        }
        for key, n in kernel.get(r["path"], {}).items():
            flags[key] += n
        static = bool(r["static"])  # a statically linked executable (null: a store written before it was kept)
        entries.append(
            {"path": r["path"], "kind": r["kind"], "soname": r["soname"], "target": None, "flags": flags}
            | {"static": static}
        )
        entries.extend(
            {"path": alias, "kind": "symlink", "soname": r["soname"], "target": r["path"], "flags": flags}
            for alias in r["aliases"] or []
        )
    entries.sort(key=lambda e: e["path"])
    needed_by: dict[str, list[str]] = {}
    for r in store.query("missing", {"firmware": firmware_id}):
        needed_by.setdefault(r["soname"], []).append(r["from"])
    missing = [{"soname": s, "needed_by": sorted(set(p))} for s, p in sorted(needed_by.items())]
    return {"entries": entries, "missing": missing}
