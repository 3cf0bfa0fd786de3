"""The whole-firmware graph: every module and every dependency edge, placed in layers.

Layer 0 holds what nothing depends on (the programs), each library sits one layer right of the
deepest module that depends on it (edges into programs, a library binding to a program's own
definition, do not count); a layer taller than ``COLUMN`` nodes wraps into several
columns. Within a layer, programs are ordered by folder and name, libraries by the mean row of
the modules depending on them (fewer crossings). Linear in the number of edges.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from typing import Any

from .analysis import Queryable, Row

COLUMN = 60          # nodes per column before a layer wraps
DX, DY = 220, 26     # column and row spacing (page units)
LAYER_GAP = 160      # extra space between layers


def _layers(names: list[str], successors: dict[str, list[str]]) -> dict[str, int]:
    """Longest-path layering over the graph with cycle-closing edges ignored."""
    order: list[str] = []
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    for start in names:
        if start in state:
            continue
        stack = [(start, iter(successors.get(start, ())))]
        state[start] = 1
        while stack:
            name, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[name] = 2
                order.append(name)
                stack.pop()
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(successors.get(child, ()))))
        # edges to nodes still on the stack close a cycle: they do not constrain the layers
    rank = {n: i for i, n in enumerate(reversed(order))}  # a topological order of the acyclic part
    layer = dict.fromkeys(names, 0)
    for name in sorted(names, key=rank.__getitem__):
        for child in successors.get(name, ()):
            if rank[child] > rank[name]:
                layer[child] = max(layer[child], layer[name] + 1)
    return layer


def whole_graph(store: Queryable, firmware_id: str) -> Row:
    """Nodes with x/y and edges without symbol lists (see docs/viewer.md)."""
    modules = store.query("modules", {"firmware": firmware_id})
    edge_rows = store.query("dependency-edges", {"firmware": firmware_id})
    info: dict[str, dict[str, Any]] = {m["path"]: {"kind": m["kind"], "missing": False,
                                                   "licence_class": m["licence_class"] or "unknown",
                                                   "licence": m["licence"]}
                                       for m in modules}
    for e in edge_rows:
        if e["missing"]:
            info.setdefault(e["to"], {"kind": "missing", "missing": True, "licence_class": None,
                                      "licence": None})
    names = sorted(info)
    successors: dict[str, list[str]] = defaultdict(list)
    predecessors: dict[str, list[str]] = defaultdict(list)
    for e in edge_rows:
        if info[e["to"]]["kind"] == "executable":
            continue  # a library binding to a program's definition must not push the program right
        successors[e["from"]].append(e["to"])
        predecessors[e["to"]].append(e["from"])
    layer = _layers(names, successors)
    by_layer: dict[int, list[str]] = defaultdict(list)
    for n in names:
        by_layer[layer[n]].append(n)
    row_of: dict[str, float] = {}
    position: dict[str, tuple[float, float]] = {}
    x0 = 0.0
    for depth in sorted(by_layer):
        members = by_layer[depth]
        if depth > 0:
            members.sort(key=lambda n: (sum(row_of.get(p, 0) for p in predecessors[n])
                                        / max(1, len(predecessors[n])), n))
        else:
            members.sort(key=lambda n: (posixpath.dirname(n), n))
        columns = (len(members) + COLUMN - 1) // COLUMN
        height = min(len(members), COLUMN)
        for i, n in enumerate(members):
            column, row = divmod(i, COLUMN)
            offset = (COLUMN - height) / 2
            row_of[n] = row + offset
            position[n] = (x0 + column * DX, (row + offset) * DY)
        x0 += columns * DX + LAYER_GAP
    ids = {n: f"n{i}" for i, n in enumerate(names)}
    nodes = [{"id": ids[n], "path": None if info[n]["missing"] else n,
              "label": n if info[n]["missing"] else posixpath.basename(n), "kind": info[n]["kind"],
              "dir": "" if info[n]["missing"] else posixpath.dirname(n), "layer": layer[n],
              "x": position[n][0], "y": position[n][1], "missing": info[n]["missing"],
              "licence_class": info[n]["licence_class"], "licence": info[n]["licence"]} for n in names]
    edges = [{"id": f"e{i}", "from": ids[e["from"]], "to": ids[e["to"]], "status": e["status"],
              "count": e["count"]} for i, e in enumerate(edge_rows)]
    return {"nodes": nodes, "edges": edges}
