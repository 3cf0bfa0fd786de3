"""Helpers for the browser tests of the Graph tab (tests/test_viewer_graph*.py): where things are on
screen, dragging the drawing, and what "opens readable" means."""

from __future__ import annotations

from typing import Any

from .browser import ARTICLE_NAME, Pages, ViewerServer, q

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


def geometry(page: Any, node: str = "n0") -> dict[str, Any]:
    page.wait_for_timeout(60)  # svg-pan-zoom moves the drawing on the next animation frame
    return page.evaluate(GEOMETRY, node)


def open_graph(pages: Pages, server: ViewerServer, path: str, name: str = ARTICLE_NAME) -> tuple[Any, Any, str]:
    fw = server.firmware_id(name)
    page, watch = pages.open(server, f"/fw/{fw}/?path={q(path)}&tab=graph")
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    return page, watch, fw


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


def assert_opens_readable(page: Any) -> dict[str, Any]:
    """Natural size (100%), the file's node in the middle across and in view, labels at least 10 px."""
    g = geometry(page)
    assert abs(g["zoom"] - 1) < 0.01 and g["label"] == "100%", g
    box = g["box"]
    assert abs(g["node"]["x"] - (box["left"] + box["width"] / 2)) < 3, g
    assert box["top"] <= g["node"]["top"] and g["node"]["bottom"] <= box["top"] + box["height"] / 2 + 40, g
    assert g["text"] >= 10, g
    return g
