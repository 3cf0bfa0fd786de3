"""Helpers for the browser tests of the Graph tab (tests/test_viewer_graph*.py): where things are on
screen, dragging the drawing, and what "opens readable" means."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conftest import linkgraph

from .browser import ARTICLE_NAME, Pages, PageWatch, ViewerServer, q, wait_ready

GEOMETRY = """(id) => {
    const box = document.querySelector('#tabpanel-graph .diagram');
    const b = box.getBoundingClientRect();
    const r = document.querySelector('#tabpanel-graph g#' + id).getBoundingClientRect();
    const d = document.querySelector('#tabpanel-graph .svg-pan-zoom_viewport').getBoundingClientRect();
    const text = document.querySelector('#tabpanel-graph g#' + id + ' text').getBoundingClientRect();
    return {box: {left: b.left, top: b.top, width: b.width, height: b.height},
            node: {x: r.left + r.width / 2, y: r.top + r.height / 2, top: r.top, bottom: r.bottom},
            drawing: {left: d.left, top: d.top, right: d.right, bottom: d.bottom},
            text: text.height, zoom: parseFloat(box.dataset.zoom),
            label: document.querySelector('#tabpanel-graph .zoom-label').textContent};
}"""

# the page coordinates of the middle of an edge's drawn line
MIDPOINT = """(id) => {
    const path = document.querySelector('#tabpanel-graph g#' + id + ' path:not(.hit)');
    const p = path.getPointAtLength(path.getTotalLength() / 2);
    const m = path.getScreenCTM();
    const q = path.getPointAtLength(path.getTotalLength() / 2 + 1);
    return {x: p.x * m.a + p.y * m.c + m.e, y: p.x * m.b + p.y * m.d + m.f,
            dx: (q.x - p.x) * m.a + (q.y - p.y) * m.c, dy: (q.x - p.x) * m.b + (q.y - p.y) * m.d};
}"""

# the edges whose drawn line (not its click target) passes through a point
LINES_AT = """([x, y]) => document.elementsFromPoint(x, y)
    .filter(e => e.localName === 'path' && !e.classList.contains('hit') && e.closest('g.edge'))
    .map(e => e.closest('g.edge').id)"""


def geometry(page: Any, node: str = "n0") -> dict[str, Any]:
    page.wait_for_timeout(60)  # svg-pan-zoom moves the drawing on the next animation frame
    return page.evaluate(GEOMETRY, node)


def served(root: Path, name: str, work: Path) -> Iterator[ViewerServer]:
    """A viewer on ``root`` scanned into a new store under ``work`` as firmware ``name``."""
    db = work / "graph.lbdb"
    proc = linkgraph("scan", str(root), "--db", str(db), "--name", name, "--quiet")
    assert proc.returncode == 0, proc.stderr
    with ViewerServer(["--db", str(db)], work) as server:
        yield server


def open_graph(pages: Pages, server: ViewerServer, path: str, name: str = ARTICLE_NAME) -> tuple[Any, Any, str]:
    fw = server.firmware_id(name)
    page, watch = pages.open(server, f"/fw/{fw}/?path={q(path)}&tab=graph")
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    return page, watch, fw


def open_graph_at(
    pages: Pages, server: ViewerServer, name: str, path: str, window: tuple[int, int]
) -> tuple[Any, PageWatch]:
    """The Graph tab of ``path`` in a window of ``window`` (width, height) CSS px, from its first load."""
    page = pages.browser.context.new_page()
    watch = PageWatch(server.url)
    watch.attach(page)
    pages.opened.append((page, watch))
    page.set_viewport_size({"width": window[0], "height": window[1]})
    page.goto(f"{server.url}/fw/{server.firmware_id(name)}/?path={q(path)}&tab=graph")
    wait_ready(page)
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    return page, watch


def drag(page: Any, start: tuple[float, float], by: tuple[float, float]) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    for step in range(1, 6):
        page.mouse.move(start[0] + by[0] * step / 5, start[1] + by[1] * step / 5)
    page.mouse.up()


def bring_to_middle(page: Any, edge: str) -> None:
    """Drag the drawing (in steps that stay inside the box) until the edge's midpoint is in its middle."""
    box = geometry(page)["box"]
    centre = (box["left"] + box["width"] / 2, box["top"] + box["height"] / 2)
    reach = (box["width"] / 2 - 20, box["height"] / 2 - 20)
    for _ in range(40):  # gdb's drawing is 7,600 px wide at 100%
        m = page.evaluate(MIDPOINT, edge)
        delta = [centre[0] - m["x"], centre[1] - m["y"]]
        if abs(delta[0]) < 2 and abs(delta[1]) < 2:
            return
        step = [max(-reach[i], min(reach[i], delta[i])) for i in (0, 1)]
        drag(page, (centre[0] - step[0] / 2, centre[1] - step[1] / 2), (step[0], step[1]))
        page.wait_for_timeout(60)
    raise AssertionError(f"could not bring {edge} to the middle of the view")


# the opening view as measured in the page: the pane's inside (as far as the window shows it), every
# module's box, every text's size on screen (its computed font size times the drawing's current scale),
# and what the page says of it
VIEW = """() => {
    const box = document.querySelector('#tabpanel-graph .diagram');
    const b = box.getBoundingClientRect();
    const left = b.left + box.clientLeft, top = b.top + box.clientTop;
    // the part of the pane inside the window
    const pane = {left: Math.max(left, 0), top: Math.max(top, 0), right: Math.min(left + box.clientWidth, innerWidth),
                  bottom: Math.min(top + box.clientHeight, innerHeight)};
    const nodes = [...document.querySelectorAll('#tabpanel-graph g.node')].map(g => {
        const r = g.getBoundingClientRect();
        return {id: g.id, left: r.left, top: r.top, right: r.right, bottom: r.bottom};
    });
    const texts = [...document.querySelectorAll('#tabpanel-graph g.node text, #tabpanel-graph g.edge text')]
        .map(t => {
            const m = t.getScreenCTM();
            return {text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)};
        });
    const note = document.querySelector('#tabpanel-graph .layout-note');
    return {pane, nodes, texts, zoom: parseFloat(box.dataset.zoom), mode: note.dataset.mode,
            layout: note.dataset.layout, note: note.textContent};
}"""

READABLE_PX = 10.0


def view(page: Any) -> dict[str, Any]:
    page.wait_for_timeout(60)  # svg-pan-zoom moves the drawing on the next animation frame
    return page.evaluate(VIEW)


def outside(v: dict[str, Any]) -> list[str]:
    """The modules whose box is not wholly inside the pane (half a pixel of rounding allowed)."""
    p = v["pane"]
    return [
        n["id"]
        for n in v["nodes"]
        if n["left"] < p["left"] - 0.5
        or n["right"] > p["right"] + 0.5
        or n["top"] < p["top"] - 0.5
        or n["bottom"] > p["bottom"] + 0.5
    ]


def smallest_text(v: dict[str, Any]) -> float:
    return min(t["px"] for t in v["texts"])


def assert_opens_readable(page: Any) -> dict[str, Any]:
    """The opening view: every text at least 10 px on screen, and either the whole graph in the pane
    (the page says "whole") or, when it fits only smaller, the file's node in the middle across and in
    view, the page saying why (mode "readable")."""
    v = view(page)
    assert smallest_text(v) >= READABLE_PX - 0.01, (smallest_text(v), v["note"])
    assert v["mode"] in ("whole", "readable") and v["layout"], v["note"]
    if v["mode"] == "whole":
        assert not outside(v), (outside(v), v["note"])
        assert v["zoom"] <= 1.0001 and "whole graph at" in v["note"], v["note"]
        return v
    assert "fits only at" in v["note"] and "opens readable" in v["note"], v["note"]
    g = geometry(page)
    box = g["box"]
    assert abs(g["node"]["x"] - (box["left"] + box["width"] / 2)) < 3, g
    assert box["top"] <= g["node"]["top"] and g["node"]["bottom"] <= box["top"] + box["height"] / 2 + 40, g
    return v
