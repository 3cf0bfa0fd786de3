"""What a per-file diagram draws of a graph (viewer/graph_view.py): the file's own edges only, and
plugin families folded into one node, on hand-built graphs in the shape of ebtables' (a program, its
RPATH folder of libebt_* extensions and the library they all use); and the folded node as Graphviz
draws it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from linkgraph.viewer.diagram import render, to_dot
from linkgraph.viewer.graph_view import FAMILY_MIN, diagram_graph, direct_only, families, group_families
from support.graphs import edge

SVG = "{http://www.w3.org/2000/svg}"
PLUGINS = [f"/usr/lib/ebtables/libebt_{name}.so" for name in ("802_3", "among", "arp", "ip", "log")]


def node(index: int, path: str, kind: str = "library", licence_class: str = "gpl") -> dict[str, Any]:
    return {
        "id": f"n{index}",
        "path": path,
        "label": path.rsplit("/", 1)[-1],
        "kind": kind,
        "soname": None,
        "missing": False,
        "licence": "GPL-2.0-only",
        "licence_class": licence_class,
    }


def ebtables() -> dict[str, Any]:
    nodes = [node(0, "/usr/sbin/ebtables", "executable"), node(1, "/usr/lib/libebtc.so")]
    nodes += [node(2 + i, p) for i, p in enumerate(PLUGINS)]
    nodes.append(node(7, "/lib/libc.so", licence_class="lgpl"))
    nodes.append(node(8, "/usr/lib/libebtable_nat.so"))  # prefix libebtable_: a family of one
    edges = [edge(0, 0, 1, "used", ["do_command"]), edge(1, 0, 7, "used", ["printf"])]
    edges += [edge(2 + i, 0, 2 + i, "declared-unused", []) for i in range(len(PLUGINS))]
    edges += [edge(7 + i, 2 + i, 1, "hidden", ["register_match", f"own_{i}"]) for i in range(len(PLUGINS))]
    edges += [edge(12, 2, 3, "used", ["shared"]), edge(13, 1, 7, "used", ["malloc"]), edge(14, 0, 8, "used", ["x"])]
    return {"root": "/usr/sbin/ebtables", "nodes": nodes, "edges": edges}


def test_families_need_a_folder_a_prefix_and_enough_members() -> None:
    found = families(ebtables())
    assert (
        list(found) == ["/usr/lib/ebtables/libebt_"]
        and [n["path"] for n in found["/usr/lib/ebtables/libebt_"]] == PLUGINS
    )
    few = ebtables()
    few["nodes"] = [n for n in few["nodes"] if n["path"] not in PLUGINS[FAMILY_MIN - 1 :]]
    assert families(few) == {}


def test_a_family_is_one_node_with_merged_edges() -> None:
    graph = group_families(ebtables())
    group = next(n for n in graph["nodes"] if n["kind"] == "group")
    assert group["id"] == "n9" and group["label"] == "libebt_* (5)" and group["members"] == PLUGINS
    assert group["family"] == "libebt_" and group["folder"] == "/usr/lib/ebtables"
    assert group["licence"] == "GPL-2.0-only" and group["licence_class"] == "gpl"
    assert not {n["path"] for n in graph["nodes"]} & set(PLUGINS)
    by_ends = {(e["from"], e["to"], e["status"]): e for e in graph["edges"]}
    unused = by_ends[("n0", "n9", "declared-unused")]
    assert unused["members"] == ["e2", "e3", "e4", "e5", "e6"] and unused["count"] == 0
    hidden = by_ends[("n9", "n1", "hidden")]
    assert hidden["symbols"] == sorted({"register_match", *(f"own_{i}" for i in range(5))}) and hidden["count"] == 6
    assert not [e for e in graph["edges"] if e["from"] == e["to"]]  # libebt_802_3 -> libebt_among is inside
    assert {e["id"] for e in graph["edges"] if "members" not in e} == {"e0", "e1", "e13", "e14"}
    assert len({e["id"] for e in graph["edges"]}) == len(graph["edges"])
    # expanded: as it was
    assert group_families(ebtables(), expand=["libebt_"]) == ebtables()


def test_direct_only_keeps_the_files_own_edges() -> None:
    graph = direct_only(ebtables())
    assert {e["from"] for e in graph["edges"]} == {"n0"} and len(graph["edges"]) == 8
    assert {n["id"] for n in graph["nodes"]} == {"n0", "n1", "n7", "n8"} | {f"n{2 + i}" for i in range(5)}
    folded = diagram_graph(ebtables(), direct=True)
    assert {(e["from"], e["to"]) for e in folded["edges"]} == {("n0", "n1"), ("n0", "n7"), ("n0", "n9"), ("n0", "n8")}


def test_graphviz_draws_a_family_as_a_folder_listing_its_members() -> None:
    svg = ET.fromstring(render(to_dot(group_families(ebtables())), "svg"))
    group = next(g for g in svg.iter(f"{SVG}g") if g.get("id") == "n9")
    assert set(group.get("class", "").split()) == {"node", "group", "licence-gpl"}
    assert next("".join(t.itertext()) for t in group.iter(f"{SVG}text")) == "libebt_* (5)"
    tip = next(a.get("{http://www.w3.org/1999/xlink}title") for a in group.iter(f"{SVG}a"))
    assert tip.split("\n")[:2] == ["5 libraries in /usr/lib/ebtables", PLUGINS[0]]
