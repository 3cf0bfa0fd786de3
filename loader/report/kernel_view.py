"""Kernel modules' links and the ``kernel-gpl-only-used`` finding as the viewer shows them
(docs/kernel.md, docs/viewer.md), from the named queries ``kernel-gpl-only-used``,
``module-kernel-links`` and ``kernel-link-edges``.

* ``kernel_gpl_only``: the finding (e) of the Licences page, one row per module and provider
  (the kernel, ``vmlinux``, or a module), with exactly the GPL-only symbols the query returns and
  the module's licence class.
* ``module_kernel_links``: one kernel module's links both ways (the file panel), every symbol with
  its GPL-only mark.
* ``kernel_edge``: one link's symbols (the whole-firmware view's edge panel).
* ``add_kernel_links``: a kernel module's dependency graph (``analysis.dependency_graph``).
* ``kernel_flags``: each kernel module's hidden, declared-unused and missing links (the tree's flags).
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import NotFoundError
from .rows import Queryable, Row

KERNEL_TARGET = "vmlinux"  # what the queries name the kernel itself (a link to a Kernel node)


def kernel_gpl_only(store: Queryable, firmware_id: str) -> list[Row]:
    """Modules the kernel treats as GPL-incompatible that bind to GPL-only exports, with the symbols."""
    params = {"firmware": firmware_id}
    rows = store.query("kernel-gpl-only-used", params)
    if not rows:
        return []
    classes = {r["path"]: r["class"] for r in store.query("licences", params)}
    return [
        {
            "module": r["module"],
            "licence": r["licence"],
            "class": classes.get(r["module"]) or "unknown",
            "provider": r["provider"],
            "symbols": sorted(r["symbols"] or []),
        }
        for r in rows
    ]


def _link(row: Row, other: str) -> Row:
    gpl_only = set(row["gpl_only"] or [])
    return {
        other: row["other"],
        "missing": bool(row["missing"]),
        "kernel": row["other"] == KERNEL_TARGET and not row["missing"],
        "state": row["state"],
        "symbols": [{"name": s, "gpl_only": s in gpl_only} for s in sorted(row["symbols"] or [])],
        "gpl_only": sorted(gpl_only),
    }


def module_kernel_links(store: Queryable, firmware_id: str, path: str) -> Row:
    """``kernel_links`` (what the module binds to) and ``kernel_used_by`` (the modules binding to it)."""
    rows = store.query("module-kernel-links", {"firmware": firmware_id, "path": path})
    out = [_link(r, "to") for r in rows if r["direction"] == "to"]
    into = [_link(r, "module") for r in rows if r["direction"] == "from"]
    return {
        "kernel_links": sorted(out, key=lambda r: r["to"]),
        "kernel_used_by": sorted(into, key=lambda r: r["module"]),
    }


def kernel_edge(store: Queryable, firmware_id: str, source: str, target: str) -> Row:
    """One kernel link (target: a module's path, a missing module's name or ``vmlinux``) and its symbols."""
    for link in module_kernel_links(store, firmware_id, source)["kernel_links"]:
        if link["to"] == target:
            return {"from": source, **link}
    raise NotFoundError(f"no kernel link from {source!r} to {target!r} in this firmware")


def kernel_flags(store: Queryable, firmware_id: str) -> dict[str, dict[str, int]]:
    """Per kernel module, how many of its links are hidden, declared-unused or missing."""
    flags: dict[str, dict[str, int]] = {}
    for r in store.query("kernel-link-edges", {"firmware": firmware_id}):
        key = r["state"].replace("-", "_")
        if key in ("hidden", "declared_unused", "missing"):
            per = flags.setdefault(r["from"], {})
            per[key] = per.get(key, 0) + 1
    return flags


def add_kernel_links(
    store: Queryable,
    firmware_id: str,
    root: str,
    nodes: dict[str, Row],
    edges: list[Row],
    module_node: Callable[[str, str], Row],
) -> None:
    """A kernel module's links, transitively, added to its graph (nodes by path, edges; docs/viewer.md):
    to modules (``module_node(path, node_id)``), missing modules and the kernel itself (a node
    ``vmlinux`` of kind ``kernel``), the GPL-only symbols of each in ``gpl_only``."""
    frontier = [root]
    while frontier:
        source = frontier.pop(0)
        for r in store.query("module-kernel-links", {"firmware": firmware_id, "path": source}):
            if r["direction"] != "to":
                continue
            file = not r["missing"] and r["other"] != KERNEL_TARGET
            kind = "module" if file else "missing" if r["missing"] else "kernel"
            key = r["other"] if file else f"{kind}:{r['other']}"
            if key not in nodes and file:
                nodes[key] = module_node(key, f"n{len(nodes)}")
                frontier.append(key)
            elif key not in nodes:
                nodes[key] = {"id": f"n{len(nodes)}", "path": None, "label": r["other"], "kind": kind, "soname": None}
                nodes[key] |= {"missing": bool(r["missing"]), "licence": None, "licence_class": None}
            symbols = sorted(r["symbols"] or [])
            edges.append(
                {
                    "id": f"e{len(edges)}",
                    "from": nodes[source]["id"],
                    "to": nodes[key]["id"],
                    "status": r["state"],
                    "soname": None,
                    "symbols": symbols,
                    "count": len(symbols),
                    "link": "kernel",
                    "gpl_only": sorted(r["gpl_only"] or []),
                }
            )
