"""The Graph tab's drawing laid out for its pane (viewer/diagram_fit.py), checked on what Graphviz
draws: a program that needs fourteen libraries, each needing the C library (a wide rank, as
minidlna's), is drawn by Graphviz's layered layout far too wide for a narrow pane; laid out for the
pane it is a grid that the pane shows whole with its smallest text at least 10 px, every module and
edge still there under its id, no two modules overlapping. A small graph keeps the layered drawing.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from linkgraph.viewer.diagram import render, to_dot
from linkgraph.viewer.diagram_fit import PX_PER_PT, READABLE_SCALE, LayoutKind, pane_size, screen_layout

SVG = "{http://www.w3.org/2000/svg}"
PANE = (600.0, 540.0)  # px: the Graph tab's pane in a 1024 x 768 window


def wide_program(libraries: int = 14) -> dict[str, Any]:
    def module(i: int, name: str, kind: str) -> dict[str, Any]:
        return {"id": f"n{i}", "path": f"/lib/{name}", "label": name, "kind": kind, "soname": None,
                "missing": False, "licence": "LGPL-2.1-or-later", "licence_class": "lgpl"}  # fmt: skip

    nodes = [module(0, "minidlna", "executable"), module(1, "libc.so.0", "library")]
    nodes += [module(i + 2, f"libplugin{i}-1.2.3.so", "library") for i in range(libraries)]
    edges = [{"id": "e0", "from": "n0", "to": "n1", "status": "used", "symbols": ["malloc"], "count": 1}]
    for i in range(libraries):
        edges.append({"id": f"e{2 * i + 1}", "from": "n0", "to": f"n{i + 2}", "status": "used", "count": 3})
        edges.append({"id": f"e{2 * i + 2}", "from": f"n{i + 2}", "to": "n1", "status": "used", "count": 7})
    return {"nodes": nodes, "edges": edges}


def size_pt(svg: bytes) -> tuple[float, float]:
    found = re.search(rb'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"', svg)
    assert found, svg[:300]
    return float(found[1]), float(found[2])


def fit_scale(svg: bytes, pane: tuple[float, float]) -> float:
    width, height = size_pt(svg)
    return min(1.0, pane[0] / (width * PX_PER_PT), pane[1] / (height * PX_PER_PT))


def node_boxes(svg: bytes) -> dict[str, tuple[float, float, float, float]]:
    """Each module's ellipse or polygon as (left, top, right, bottom) in the drawing's units."""
    out = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if "node" not in (g.get("class") or "").split():
            continue
        shape = next(iter([*g.iter(f"{SVG}ellipse"), *g.iter(f"{SVG}polygon")]))
        if shape.tag.endswith("ellipse"):
            cx, cy, rx, ry = (float(shape.get(k) or 0) for k in ("cx", "cy", "rx", "ry"))
            out[g.get("id") or ""] = (cx - rx, cy - ry, cx + rx, cy + ry)
        else:
            points = [tuple(map(float, p.split(","))) for p in (shape.get("points") or "").split()]
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            out[g.get("id") or ""] = (min(xs), min(ys), max(xs), max(ys))
    return out


def ids_of(svg: bytes, kind: str) -> set[str]:
    return {g.get("id") or "" for g in ET.fromstring(svg).iter(f"{SVG}g") if kind in (g.get("class") or "").split()}


def test_a_wide_program_is_laid_out_readable_for_a_narrow_pane() -> None:
    graph = wide_program()
    layered = render(to_dot(graph, legend=False), "svg")
    assert fit_scale(layered, PANE) < READABLE_SCALE  # the problem: too small to read once fitted
    svg, layout = screen_layout(graph, PANE)
    assert layout is not None and layout.kind is not LayoutKind.LAYERED, layout
    assert fit_scale(svg, PANE) >= READABLE_SCALE, (size_pt(svg), layout.describe())
    assert ids_of(svg, "node") == {n["id"] for n in graph["nodes"]}
    assert ids_of(svg, "edge") == {e["id"] for e in graph["edges"]}
    boxes = sorted(node_boxes(svg).items())
    for i, (a, p) in enumerate(boxes):
        for b, r in boxes[i + 1 :]:
            assert p[2] <= r[0] or r[2] <= p[0] or p[3] <= r[1] or r[3] <= p[1], (a, p, b, r)
    smallest = min(float(t.get("font-size") or 0) for t in ET.fromstring(svg).iter(f"{SVG}text"))
    assert smallest * PX_PER_PT * fit_scale(svg, PANE) >= 10 - 1e-6, smallest
    assert "rows" in layout.describe()


def test_a_small_graph_keeps_the_layered_drawing() -> None:
    graph = wide_program(2)
    svg, layout = screen_layout(graph, (1200.0, 800.0))
    assert layout is not None and layout.kind is LayoutKind.LAYERED and layout.describe().startswith("Graphviz")
    assert svg == render(to_dot(graph, legend=False), "svg")
    assert screen_layout(graph, None)[1] is None  # no pane: as before


def test_pane_sizes_outside_the_range_are_ignored() -> None:
    assert pane_size({"width": "600", "height": "540.5"}) == (600.0, 540.5)
    for bad in ({}, {"width": "600"}, {"width": "x", "height": "1"}, {"width": "1e9", "height": "500"},
                {"width": "nan", "height": "500"}, {"width": "10", "height": "500"}):  # fmt: skip
        assert pane_size(bad) is None, bad
