"""The whole-firmware graph: every module and every dependency edge, without a layout.

The page lays the graph out itself (Cytoscape.js with ELK in a Web Worker, docs/viewer.md): an
overview grouped by folder, package or licence class, a module's neighbourhood, a filtered set.
Each node carries what these groupings and the filters need (folder, package, kind, licence class).

Kernel modules' links (``KERNEL_LINK``, docs/kernel.md) are edges too, with their state as status
(``"link": "kernel"``, and how many GPL-only symbols they bind), to modules, to missing modules and
to the kernel itself (one node of kind ``kernel``, ``vmlinux``). ``dlopen`` edges (docs/dlopen.md)
come last, with their certainty: they say what a module may load later, so they do not count as a
start-up status.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ..loader.report.analysis import Queryable, Row
from ..loader.report.source_view import source_statuses
from .drawing_style import DLOPEN_EDGE, KERNEL_KIND


def _node_info(modules: list[Row], edge_rows: list[Row]) -> dict[str, dict[str, Any]]:
    """Kind, licence and package of every module, missing module and of the kernel, by path or name."""
    info: dict[str, dict[str, Any]] = {
        m["path"]: {
            "kind": m["kind"],
            "missing": False,
            "licence_class": m["licence_class"] or "unknown",
            "licence": m["licence"],
            "package": m.get("package"),
        }
        for m in modules
    }
    blank = {"missing": False, "licence_class": None, "licence": None, "package": None}
    for e in edge_rows:
        if e["missing"]:
            info.setdefault(e["to"], {**blank, "kind": "missing", "missing": True})
        elif e["to"] not in info:  # the kernel itself
            info[e["to"]] = {**blank, "kind": KERNEL_KIND}
    return info


def whole_graph(store: Queryable, firmware_id: str) -> Row:
    """Nodes and edges without symbol lists (see docs/viewer.md)."""
    params = {"firmware": firmware_id}
    modules = store.query("modules", params)
    edge_rows = store.query("dependency-edges", params)
    kernel_rows = store.query("kernel-link-edges", params)
    dlopen_rows = store.query("dlopen-edge-list", params)
    edge_rows = [*edge_rows, *({**e, "status": e["state"], "link": "kernel"} for e in kernel_rows)]
    info = _node_info(modules, edge_rows)
    statuses = source_statuses(store, firmware_id)
    names = sorted(info)
    ids = {n: f"n{i}" for i, n in enumerate(names)}
    nodes = []
    for n in names:
        node = info[n]
        placed = not node["missing"] and node["kind"] != KERNEL_KIND  # a file of the image
        nodes.append(
            {
                "id": ids[n],
                "path": n if placed else None,
                "label": n if node["missing"] else posixpath.basename(n),
                "kind": node["kind"],
                "dir": posixpath.dirname(n) if placed else "",
                "package": node["package"],
                "missing": node["missing"],
                "licence_class": node["licence_class"],
                "licence": node["licence"],
                "source_status": statuses.get(n) if placed else None,  # None: no release checked
            }
        )
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
