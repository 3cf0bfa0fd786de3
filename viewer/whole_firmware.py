"""The whole-firmware graph: every module and every dependency edge, placed in layers.

Layer 0 holds what nothing depends on (the programs), each library sits one layer right of the
deepest module that depends on it (edges into programs, a library binding to a program's own
definition, do not count); a layer taller than the column height wraps into several columns, the
height chosen so that the whole drawing has about a screen's proportions (``ASPECT``). Within a
layer, programs are ordered by folder and name, libraries by the mean row of the modules depending
on them (fewer crossings). Linear in the number of edges.

Kernel modules' links (``KERNEL_LINK``, docs/kernel.md) are edges too, with their state as status
(``"link": "kernel"``, and how many GPL-only symbols they bind), to modules, to missing modules and
to the kernel itself (one node of kind ``kernel``, ``vmlinux``); they place the modules in layers
like the dependencies do. ``dlopen`` edges (docs/dlopen.md) come last, with their certainty: they
say what a module may load later, so they neither move a module nor count as a start-up status.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from typing import Any

from ..loader.report.analysis import Queryable, Row
from .drawing_style import DLOPEN_EDGE, KERNEL_KIND

ASPECT = 1.6  # width / height the wrapping of tall layers aims at (a screen)
DX, DY = 220, 26  # column and row spacing (page units)
LAYER_GAP = 160  # extra space between layers


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


def _column_height(layer_sizes: list[int]) -> int:
    """The column height (in nodes) whose drawing comes closest to the ASPECT ratio."""
    tallest = max(layer_sizes, default=1)

    def misfit(height: int) -> float:
        width = sum(-(-size // height) for size in layer_sizes) * DX + len(layer_sizes) * LAYER_GAP
        return abs(width / (min(tallest, height) * DY) - ASPECT)

    return min(range(1, tallest + 1), key=misfit)


def whole_graph(store: Queryable, firmware_id: str) -> Row:
    """Nodes with x/y and edges without symbol lists (see docs/viewer.md)."""
    params = {"firmware": firmware_id}
    modules = store.query("modules", params)
    edge_rows = store.query("dependency-edges", params)
    kernel_rows = store.query("kernel-link-edges", params)
    dlopen_rows = store.query("dlopen-edge-list", params)
    edge_rows = [*edge_rows, *({**e, "status": e["state"], "link": "kernel"} for e in kernel_rows)]
    info: dict[str, dict[str, Any]] = {
        m["path"]: {
            "kind": m["kind"],
            "missing": False,
            "licence_class": m["licence_class"] or "unknown",
            "licence": m["licence"],
        }
        for m in modules
    }
    for e in edge_rows:
        if e["missing"]:
            info.setdefault(e["to"], {"kind": "missing", "missing": True, "licence_class": None, "licence": None})
        elif e["to"] not in info:  # the kernel itself
            info[e["to"]] = {"kind": KERNEL_KIND, "missing": False, "licence_class": None, "licence": None}
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
    column = _column_height([len(m) for m in by_layer.values()])
    row_of: dict[str, float] = {}
    position: dict[str, tuple[float, float]] = {}
    x0 = 0.0
    for depth in sorted(by_layer):
        members = by_layer[depth]
        if depth > 0:
            members.sort(
                key=lambda n: (sum(row_of.get(p, 0) for p in predecessors[n]) / max(1, len(predecessors[n])), n)
            )
        else:
            members.sort(key=lambda n: (posixpath.dirname(n), n))
        columns = (len(members) + column - 1) // column
        height = min(len(members), column)
        for i, n in enumerate(members):
            col, row = divmod(i, column)
            offset = (column - height) / 2
            row_of[n] = row + offset
            position[n] = (x0 + col * DX, (row + offset) * DY)
        x0 += columns * DX + LAYER_GAP
    ids = {n: f"n{i}" for i, n in enumerate(names)}
    nodes = [
        {
            "id": ids[n],
            "path": None if info[n]["missing"] or info[n]["kind"] == KERNEL_KIND else n,
            "label": n if info[n]["missing"] else posixpath.basename(n),
            "kind": info[n]["kind"],
            "dir": "" if info[n]["missing"] or info[n]["kind"] == KERNEL_KIND else posixpath.dirname(n),
            "layer": layer[n],
            "x": position[n][0],
            "y": position[n][1],
            "missing": info[n]["missing"],
            "licence_class": info[n]["licence_class"],
            "licence": info[n]["licence"],
        }
        for n in names
    ]
    edges = [
        {"id": f"e{i}", "from": ids[e["from"]], "to": ids[e["to"]], "status": e["status"], "count": e["count"]}
        | ({"link": "kernel", "gpl_only": e["gpl_only"]} if "link" in e else {})
        for i, e in enumerate(edge_rows)
    ]
    edges += [
        {
            "id": f"e{len(edges) + i}",
            "from": ids[e["from"]],
            "to": ids[e["to"]],
            "status": DLOPEN_EDGE,
            "count": 0,
            "link": DLOPEN_EDGE,
            "certainty": e["certainty"],
            "found_in": e["found_in"],
        }
        for i, e in enumerate(r for r in dlopen_rows if r["from"] in ids and r["to"] in ids)
    ]
    return {"nodes": nodes, "edges": edges}
