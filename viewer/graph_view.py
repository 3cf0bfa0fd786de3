"""What a per-file diagram shows of a dependency graph (the graph JSON of docs/viewer.md): all of
it, only the file's own edges ("direct only"), and plugin families folded into one node each.

A *plugin family* is a set of at least ``FAMILY_MIN`` libraries in one folder whose file names
share the part before their first ``_`` (``/usr/lib/ebtables/libebt_802_3.so``,
``…/libebt_among.so``, … are the family ``libebt_``). It becomes one node (``kind`` ``group``,
``members`` its paths, ``family`` the prefix, ``label`` "libebt_* (21)"); the edges to and from its
members become one edge per other end and status, with the symbols of all of them. Families named in
``expand`` stay as they are. The file itself (``n0``) is never folded.

Pure functions over plain dicts: no store, no Flask. The answer is a new graph; ids of the nodes and
edges kept are the input's, a family's node gets the next free ``n…`` id, a merged edge the next
free ``e…`` id.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from typing import Any

from .drawing_style import GROUP_KIND

FAMILY_MIN = 4


def direct_only(graph: dict[str, Any]) -> dict[str, Any]:
    """``graph`` cut to the root (``n0``) and its own edges (what it declares, and its hidden edges)."""
    edges = [e for e in graph.get("edges") or [] if e.get("from") == "n0"]
    keep = {"n0"} | {e["to"] for e in edges}
    return {**graph, "nodes": [n for n in graph.get("nodes") or [] if n.get("id") in keep], "edges": edges}


def family_of(node: dict[str, Any]) -> str | None:
    """The family key (folder and prefix) of a library node, or None."""
    path = node.get("path")
    if node.get("missing") or not path or node.get("id") == "n0" or node.get("kind") != "library":
        return None
    folder, name = posixpath.split(str(path))
    prefix, underscore, rest = name.partition("_")
    if not underscore or not prefix or not rest:
        return None
    return f"{folder}/{prefix}_"


def families(graph: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The plugin families of ``graph``: key (folder/prefix_) -> member nodes, in graph order."""
    found: dict[str, list[dict[str, Any]]] = {}
    for node in graph.get("nodes") or []:
        key = family_of(node)
        if key is not None:
            found.setdefault(key, []).append(node)
    return {key: members for key, members in found.items() if len(members) >= FAMILY_MIN}


def _next_id(items: list[dict[str, Any]]) -> int:
    numbers = [int(str(i.get("id"))[1:]) for i in items if str(i.get("id", ""))[1:].isdigit()]
    return max(numbers, default=-1) + 1


def _group_node(node_id: str, key: str, members: list[dict[str, Any]]) -> dict[str, Any]:
    prefix = posixpath.basename(key)
    classes = {m.get("licence_class") for m in members}
    licences = {m.get("licence") for m in members}
    return {
        "id": node_id,
        "path": None,
        "label": f"{prefix}* ({len(members)})",
        "kind": GROUP_KIND,
        "soname": None,
        "missing": False,
        "family": prefix,
        "folder": posixpath.dirname(key),
        "members": [m["path"] for m in members],
        "licence": licences.pop() if len(licences) == 1 else None,
        "licence_class": classes.pop() if len(classes) == 1 else "unknown",
    }


def group_families(graph: dict[str, Any], expand: Collection[str] = ()) -> dict[str, Any]:
    """``graph`` with each plugin family not named in ``expand`` (by prefix, e.g. ``libebt_``) folded
    into one node."""
    nodes = list(graph.get("nodes") or [])
    edges = list(graph.get("edges") or [])
    folded: dict[str, str] = {}  # member node id -> group node id
    groups: list[dict[str, Any]] = []
    next_node = _next_id(nodes)
    for key, members in families(graph).items():
        if posixpath.basename(key) in expand:
            continue
        group = _group_node(f"n{next_node + len(groups)}", key, members)
        groups.append(group)
        folded |= {m["id"]: group["id"] for m in members}
    if not groups:
        return graph
    kept_edges: list[dict[str, Any]] = []
    merged: dict[tuple[Any, Any, Any], dict[str, Any]] = {}
    next_edge = _next_id(edges)
    for edge in edges:
        tail, head = folded.get(edge["from"], edge["from"]), folded.get(edge["to"], edge["to"])
        if tail == edge["from"] and head == edge["to"]:
            kept_edges.append(edge)
            continue
        if tail == head:  # between two members of one family
            continue
        key = (tail, head, edge.get("status") or "")
        if key not in merged:
            merged[key] = {
                "id": f"e{next_edge + len(merged)}",
                "from": tail,
                "to": head,
                "status": edge.get("status"),
                "soname": None,
                "symbols": [],
                "count": 0,
                "members": [],
            }
        into = merged[key]
        into["symbols"] = sorted({*into["symbols"], *(edge.get("symbols") or [])})
        into["count"] = len(into["symbols"])
        into["members"].append(edge["id"])
    return {
        **graph,
        "nodes": [n for n in nodes if n["id"] not in folded] + groups,
        "edges": kept_edges + list(merged.values()),
    }


def diagram_graph(graph: dict[str, Any], direct: bool = False, expand: Collection[str] = ()) -> dict[str, Any]:
    """What the per-file diagram draws of ``graph``: the direct edges only if asked, families folded."""
    return group_families(direct_only(graph) if direct else graph, expand)
