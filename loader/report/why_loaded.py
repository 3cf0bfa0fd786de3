"""Why is the library X loaded in the program P (docs/viewer.md "Why is it loaded"): the chain of
``DT_NEEDED`` edges by which P's loader reaches X, and the references of P's link map that bind to X.

The loader loads breadth-first: it walks the objects in load order (the order the store records
the link map in) and each object's ``DT_NEEDED`` entries in order, and the first entry that names
a file not yet loaded loads it. So X was loaded by the first object in load order (and its first
entry) that declares X in P's link map; following those first declarers back gives the chain from P
to X. Every other object of the link map that declares X is listed too, with the edge's status.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import NotFoundError
from .analysis import find_module
from .rows import Queryable, Row


def _edge(row: Row) -> Row:
    return {
        "from": row["from"],
        "to": row["to"],
        "soname": row["soname"],
        "position": row["position"],
        "status": row["status"],
        "symbols": sorted(row["symbols"] or []),
    }


def _target(store: Queryable, firmware_id: str, library: str, edges: list[Row]) -> str:
    """The file *library* names: a path (or a symlink's), else a soname declared in the link map."""
    try:
        return find_module(store, firmware_id, library)["path"]
    except NotFoundError:
        for edge in edges:
            if edge["soname"] == library:
                return edge["to"]
        raise


def _in_load_order(edges: Iterable[Row], order: dict[str, int]) -> list[Row]:
    """Edges as the loader meets them: by their declaring object's place in load order, then entry."""
    return sorted(edges, key=lambda e: (order.get(e["from"], len(order)), e["position"] or 0))


def load_chain(objects: list[str], edges: list[Row], target: str) -> list[Row]:
    """The ``DT_NEEDED`` edges from the link map's first object to *target*, each edge the one that
    loaded its file (the first declarer in load order, its first entry); empty when no edge loads
    *target* (the program itself, or an interpreter nothing declares)."""
    order = {path: i for i, path in enumerate(objects)}
    first: dict[str, Row] = {}
    for edge in _in_load_order(edges, order):
        if edge["from"] in order and edge["to"] != objects[0]:
            first.setdefault(edge["to"], edge)
    chain: list[Row] = []
    seen = {target}
    at = target
    while at in first and at != objects[0]:
        edge = first[at]
        chain.append(edge)
        at = edge["from"]
        if at in seen:  # a first declarer loads before what it loads: no cycle, but never loop
            break
        seen.add(at)
    return [_edge(e) for e in reversed(chain)]


def why_loaded(store: Queryable, firmware_id: str, program: str, library: str) -> Row:
    """Why *library* is in the link map of *program* (paths, or a symlink's; the library may be a
    soname): whether it is loaded and where in load order, the chain of edges that loads it, every
    object of the link map that declares it, and which other object of the link map binds which of
    its symbols."""
    prog = find_module(store, firmware_id, program)["path"]
    maps = store.query("link-map", {"firmware": firmware_id, "path": prog})
    if not maps:
        raise NotFoundError(f"{prog!r} has no link map of its own (a library some program loads): ask about a program")
    objects = list(maps[0]["objects"] or [])
    edges = store.query("link-map-edges", {"firmware": firmware_id, "program": prog})
    target = _target(store, firmware_id, library, edges)
    order = {path: i for i, path in enumerate(objects)}
    declared = _in_load_order((e for e in edges if e["to"] == target), order)
    bound: dict[str, Row] = {}
    for row in store.query("link-map-bindings", {"firmware": firmware_id, "program": prog, "library": target}):
        entry = bound.setdefault(row["module"], {"module": row["module"], "status": row["status"], "symbols": []})
        entry["symbols"].append({"name": row["symbol"], "version": row["version"], "copy": bool(row["copy"])})
    return {
        "program": prog,
        "library": target,
        "loaded": target in order,
        "load_index": order.get(target),
        "objects": len(objects),
        "chain": load_chain(objects, edges, target) if target in order else [],
        "declared_by": [_edge(e) for e in declared],
        "bindings": sorted(bound.values(), key=lambda b: (order.get(b["module"], len(order)), b["module"])),
    }
