"""The Graph tab in a real browser: the Graphviz drawing opens readable (whole, every text at least
10 px; tests/support/graph_tab.py), drags, zooms about the pointer and about the centre; an edge's
click target keeps its screen size at every zoom; a click selects (a history entry), a double-click
opens; the key and title block are HTML beside the drawing; DOMPurify cleans the SVG. The article's
root (tests/support/browser.py), on LadybugDB and on Neo4j.
"""

from __future__ import annotations

import pytest
from support.browser import (
    APCFG,
    ARTICLE_LICENCES,
    ARTICLE_NAME,
    BUSYBOX,
    CRYPT,
    GCC_S,
    UTIL,
    Pages,
    ViewerServer,
    current_params,
    graph_edges,
    q,
    wait_until,
)
from support.graph_tab import LINES_AT, MIDPOINT, assert_opens_readable, bring_to_middle, drag, geometry, open_graph

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out


@pytest.mark.parametrize("store", ["ladybug", "neo4j"])
def test_graph_opens_readable_and_pans_and_zooms(store: str, request: pytest.FixtureRequest, pages: Pages) -> None:
    server = request.getfixturevalue("article_server" if store == "ladybug" else "article_neo4j_server")
    page, watch, _ = open_graph(pages, server, BUSYBOX)
    assert_opens_readable(page)
    g = geometry(page)
    box = g["box"]
    centre = (box["left"] + box["width"] / 2, box["top"] + box["height"] / 2)

    # + and - zoom about the middle of the view: the root's offset from it grows by the same factor
    page.click("#tabpanel-graph .zoom-controls button[title='zoom in']")
    z = geometry(page)
    assert abs(z["zoom"] - 1.25 * g["zoom"]) < 0.01 and z["label"] == f"{round(125 * g['zoom'])}%", (g, z)
    for axis, mid in (("x", centre[0]), ("y", centre[1])):
        assert abs((z["node"][axis] - mid) - 1.25 * (g["node"][axis] - mid)) < 2, (axis, g, z)
    page.click("#tabpanel-graph .zoom-controls button[title='zoom out']")
    assert abs(geometry(page)["zoom"] - g["zoom"]) < 0.01

    # drag pans (from an empty spot and from a node alike), and selects nothing
    drag(page, (box["left"] + 20, box["top"] + box["height"] - 90), (140, 70))
    d = geometry(page)
    assert abs(d["node"]["x"] - g["node"]["x"] - 140) < 2 and abs(d["node"]["y"] - g["node"]["y"] - 70) < 2, (g, d)
    drag(page, (d["node"]["x"], d["node"]["y"]), (-140, -70))
    back = geometry(page)
    assert abs(back["node"]["x"] - g["node"]["x"]) < 2 and abs(back["node"]["y"] - g["node"]["y"]) < 2, (g, back)
    assert page.get_attribute("#tabpanel-graph .edge-box", "data-node") is None
    assert "select" not in current_params(page)

    # the wheel zooms about the pointer: the module under it stays under it
    graph, _ = graph_edges(server, server.firmware_id(ARTICLE_NAME), BUSYBOX)
    util = next(n["id"] for n in graph["nodes"] if n["path"] == UTIL)
    u = geometry(page, util)
    page.mouse.move(u["node"]["x"], u["node"]["y"])
    page.mouse.wheel(0, -300)
    w = geometry(page, util)
    assert w["zoom"] > 1.1, w
    assert abs(w["node"]["x"] - u["node"]["x"]) < 3 and abs(w["node"]["y"] - u["node"]["y"]) < 3, (u, w)

    # Fit: the whole drawing in the box; 100%: the natural size at the file; Reset: the opening view
    page.click("#tabpanel-graph .zoom-controls button:has-text('Fit')")
    f = geometry(page)
    assert f["box"]["left"] - 1 <= f["drawing"]["left"] and f["drawing"]["right"] <= box["left"] + box["width"] + 1, f
    assert f["box"]["top"] - 1 <= f["drawing"]["top"] and f["drawing"]["bottom"] <= box["top"] + box["height"] + 1, f
    page.click("#tabpanel-graph .zoom-controls button:has-text('100%')")
    n = geometry(page)
    assert abs(n["zoom"] - 1) < 0.01 and n["label"] == "100%", n
    assert abs(n["node"]["x"] - (box["left"] + box["width"] / 2)) < 3, n
    page.click("#tabpanel-graph .zoom-controls button:has-text('Reset')")
    assert abs(geometry(page)["zoom"] - g["zoom"]) < 0.01
    assert_opens_readable(page)
    watch.assert_clean()


def test_edge_midpoints_hit_their_edge_at_every_zoom(article_server: ViewerServer, pages: Pages) -> None:
    """At three zoom levels a click on the middle of each edge selects it (or, where another edge's line
    runs through that point, selects that one and offers this one beside it), and the invisible twin
    that takes the click is as wide on screen (14 px) at every zoom."""
    page, watch, fw = open_graph(pages, article_server, BUSYBOX)
    _, edges = graph_edges(article_server, fw, BUSYBOX)
    clicks = hits = 0
    for level, buttons in (
        ("zoomed out", ["zoom out"] * 3),
        ("natural", ["zoom in"] * 3),
        ("zoomed in", ["zoom in"] * 4),
    ):
        for title in buttons:
            page.click(f"#tabpanel-graph .zoom-controls button[title='{title}']")
        zoom = geometry(page)["zoom"]
        for edge in edges:
            bring_to_middle(page, edge)
            m = page.evaluate(MIDPOINT, edge)
            point = [round(m["x"]), round(m["y"])]  # a mouse event's clientX and clientY are whole pixels
            lines = set(page.evaluate(LINES_AT, point))
            page.mouse.click(*point)
            clicks += 1
            chosen = page.get_attribute("#tabpanel-graph .edge-box", "data-edge")
            if chosen != edge:  # only where another edge's line passes within 2 px: this one offered beside it
                offered = page.eval_on_selector_all("#tabpanel-graph .also-edge", "bs => bs.map(b => b.dataset.edge)")
                assert edge in offered and lines <= {chosen, *offered}, (level, zoom, edge, chosen, lines, offered)
            hits += chosen == edge or edge in offered
            # 6 px across the line, still the edge's click target
            length = (m["dx"] ** 2 + m["dy"] ** 2) ** 0.5 or 1
            beside = (m["x"] - 6 * m["dy"] / length, m["y"] + 6 * m["dx"] / length)
            targets = page.evaluate(
                "([x, y]) => document.elementsFromPoint(x, y).filter(e => e.classList.contains('hit'))"
                ".map(e => e.closest('g.edge').id)",
                list(beside),
            )
            assert edge in targets, (level, zoom, edge, targets)
        assert hits == clicks, f"{level} (zoom {zoom:.2f}): {hits} of {clicks} clicks hit their edge"
    assert clicks == 3 * len(edges) >= 40
    watch.assert_clean()


def test_click_selects_back_undoes_double_click_opens(article_server: ViewerServer, pages: Pages) -> None:
    page, watch, fw = open_graph(pages, article_server, BUSYBOX)
    graph, edges = graph_edges(article_server, fw, BUSYBOX)
    apcfg = next(n["id"] for n in graph["nodes"] if n["path"] == APCFG)
    hidden = next(i for i, e in edges.items() if e[:3] == (APCFG, UTIL, "hidden"))
    start = page.evaluate("history.length")

    page.click(f"#tabpanel-graph g#{apcfg}")  # a single click selects, and stays on busybox
    side = page.locator("#tabpanel-graph .edge-box")
    assert side.get_attribute("data-node") == apcfg and APCFG in side.inner_text()
    assert current_params(page) == {"path": BUSYBOX, "tab": "graph", "select": apcfg}
    assert "selected" in page.get_attribute(f"#tabpanel-graph g#{apcfg}", "class")
    bring_to_middle(page, hidden)
    m = page.evaluate(MIDPOINT, hidden)
    page.mouse.click(m["x"], m["y"])
    assert side.get_attribute("data-edge") == hidden and "util_bar" in side.inner_text()
    assert current_params(page)["select"] == hidden
    assert page.evaluate("history.length") == start + 2  # one entry per selection (dragging adds none)

    page.go_back()  # the module again
    wait_until(page, "(id) => document.querySelector('#tabpanel-graph .edge-box').dataset.node === id", apcfg)
    assert current_params(page)["select"] == apcfg and side.get_attribute("data-edge") is None
    page.go_back()  # nothing selected
    wait_until(page, "() => !document.querySelector('#tabpanel-graph .edge-box').dataset.node")
    assert "select" not in current_params(page) and side.inner_text().startswith("Click an edge")
    page.go_forward()
    wait_until(page, "(id) => document.querySelector('#tabpanel-graph .edge-box').dataset.node === id", apcfg)

    # a bookmarked selection opens selected
    page2, watch2 = pages.open(article_server, f"/fw/{fw}/?path={q(BUSYBOX)}&tab=graph&select={hidden}")
    page2.wait_for_selector("#tabpanel-graph[data-state='ready']")
    assert page2.get_attribute("#tabpanel-graph .edge-box", "data-edge") == hidden

    # the side panel's Open, and a double-click, open the module
    page.click("#tabpanel-graph .edge-box button.open-node")
    wait_until(page, "() => document.querySelector('#panel .file-name')?.textContent === 'libapcfg.so'")
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    page2.dblclick(f"#tabpanel-graph g#{apcfg}")
    wait_until(page2, "() => document.querySelector('#panel .file-name')?.textContent === 'libapcfg.so'")
    watch.assert_clean()
    watch2.assert_clean()


def test_key_title_block_and_licences_beside_the_drawing(article_server: ViewerServer, pages: Pages) -> None:
    page, watch, fw = open_graph(pages, article_server, BUSYBOX)
    graph, _ = graph_edges(article_server, fw, BUSYBOX)
    assert page.locator("#tabpanel-graph svg #legend, #tabpanel-graph svg .title-block").count() == 0
    key = page.inner_text("#tabpanel-graph .diagram-key")
    for word in ("used", "declared-unused", "hidden", "missing", "GPL", "LGPL", "permissive", "unknown"):
        assert word in key, word
    title = page.inner_text("#tabpanel-graph .diagram-title")
    assert BUSYBOX in title and ARTICLE_NAME in title and fw in title.replace("\n", "")
    listed = page.eval_on_selector_all(
        "#tabpanel-graph .graph-licences li",
        "lis => lis.map(li => [li.dataset.path, li.querySelector('.licence').dataset.licence,"
        " li.querySelector('.licence').dataset.licenceClass])",
    )
    want = [[n["path"], n["licence"] or "", n["licence_class"]] for n in graph["nodes"] if not n["missing"]]
    assert sorted(listed) == sorted(want)
    order = ["gpl", "lgpl", "permissive", "incompatible", "unknown"]
    assert [order.index(c) for _, _, c in listed] == sorted(order.index(c) for _, _, c in listed), "GPL first"
    by_path = {p: (lic, c) for p, lic, c in listed}
    assert by_path[BUSYBOX] == ("GPL-2.0-only", "gpl")
    assert by_path[CRYPT] == (ARTICLE_LICENCES[CRYPT], "lgpl") and by_path[GCC_S] == (ARTICLE_LICENCES[GCC_S], "lgpl")
    # every module's tooltip says its licence
    tips = page.eval_on_selector_all(
        "#tabpanel-graph g.node[data-path]:not([data-path=''])",
        "gs => gs.map(g => [g.dataset.path, g.querySelector(':scope > title').textContent])",
    )
    assert len(tips) == len(want)
    for path, tip in tips:
        licence = next(n["licence"] for n in graph["nodes"] if n["path"] == path)
        assert path in tip and (licence or "unknown") in tip.split("licence: ", 1)[1], (path, tip)
    # the exports follow the view
    page.check("#tabpanel-graph input.direct-only")
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    assert current_params(page)["direct"] == "1"
    drawn = page.eval_on_selector_all("#tabpanel-graph g.edge[data-status]", "gs => gs.map(g => g.id)")
    direct = article_server.json(f"/api/firmware/{fw}/diagram.json?path={q(BUSYBOX)}&direct=1")
    assert sorted(drawn) == sorted(e["id"] for e in direct["edges"]) and {e["from"] for e in direct["edges"]} == {"n0"}
    for name in ("svg", "pdf", "pdf-letter", "png"):
        href = page.get_attribute(f"#tabpanel-graph a.export-diagram-{name}", "href")
        assert "direct=1" in href, href
    assert "page=letter" in page.get_attribute("#tabpanel-graph a.export-diagram-pdf-letter", "href")
    watch.assert_clean()


def test_domPurify_cleans_the_svg(article_server: ViewerServer, pages: Pages) -> None:
    """The Graph tab puts the server's SVG into the page through DOMPurify (SVG profile)."""
    fw = article_server.firmware_id(ARTICLE_NAME)
    page, watch = pages.open(article_server, f"/fw/{fw}/")
    cleaned = page.evaluate("""async () => {
        const {sanitizeSvg} = await import('/static/diagram.js');
        const svg = sanitizeSvg(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"
            xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"
            onload="alert(1)"><script>alert(2)</script><style>*{}</style>
            <g id="n0" class="node" onclick="alert(3)"><a xlink:href="javascript:alert(4)" href="https://example.com/">
            <text onmouseover="alert(5)">&lt;img src=x onerror=alert(6)&gt;</text></a></g>
            <foreignObject><div xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="alert(7)"/></div>
            </foreignObject><set attributeName="href" to="javascript:alert(8)"/>
            <animate attributeName="href" values="javascript:alert(9)"/>
            <image href="data:image/svg+xml,&lt;svg onload=alert(10)&gt;"/><use href="#n0"/></svg>`);
        document.body.appendChild(svg);
        const out = {tags: [...svg.querySelectorAll('*')].map(e => e.localName),
                     attrs: [...svg.querySelectorAll('*'), svg]
                         .flatMap(e => [...e.attributes].map(a => a.name + '=' + a.value)),
                     text: svg.textContent, viewBox: svg.getAttribute('viewBox')};
        svg.remove();
        let error = null;
        try { sanitizeSvg('<p>not svg</p>'); } catch (e) { error = String(e.message); }
        out.error = error;
        return out;
    }""")
    assert not {"script", "style", "foreignobject", "foreignObject", "div", "img", "set", "animate", "image"} & set(
        cleaned["tags"]
    ), cleaned["tags"]
    assert {"g", "a", "text"} <= set(cleaned["tags"])
    assert not [
        a for a in cleaned["attrs"] if a.startswith("on") or "javascript" in a or "example.com" in a or "data:" in a
    ], cleaned["attrs"]
    assert "id=n0" in cleaned["attrs"] and cleaned["viewBox"] == "0 0 10 10"
    assert "<img src=x onerror=alert(6)>" in cleaned["text"]
    assert cleaned["error"] and "SVG" in cleaned["error"]
    assert page.evaluate("document.querySelectorAll('script[src*=\"vendor/purify-3.5.0\"]').length") == 0
    watch.errors = [e for e in watch.errors if "Content Security Policy" not in e]
    watch.assert_clean()
