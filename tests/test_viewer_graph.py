"""The Graph tab in a real browser: the Graphviz SVG opened fitted to the panel (wide graphs are not
cut off, the legend is whole), zoomed and scrolled; the licences of its modules in the side panel and
the tooltips; the SVG cleaned before it enters the page. The article's root (tests/support/browser.py).
"""

from __future__ import annotations

from typing import Any

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
    graph_edges,
    q,
    svg_point,
)

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

GEOMETRY = """() => {
    const box = document.querySelector('#tabpanel-graph .diagram');
    const svg = box.querySelector('svg');
    const b = box.getBoundingClientRect();
    const part = (sel) => {
        const r = svg.querySelector(sel).getBoundingClientRect();
        return {left: r.left - b.left, right: r.right - b.left};
    };
    return {natural: svg.width.baseVal.value, shown: svg.getBoundingClientRect().width,
            client: box.clientWidth, scroll: box.scrollWidth, scrollLeft: box.scrollLeft, fit: box.dataset.fit,
            legend: part('#legend'), zoom: document.querySelector('#tabpanel-graph .zoom-label').textContent,
            pressed: document.querySelector('#tabpanel-graph .zoom-controls button').getAttribute('aria-pressed')};
}"""


def geometry(page: Any) -> dict[str, Any]:
    return page.evaluate(GEOMETRY)


def open_graph(pages: Pages, server: ViewerServer, path: str) -> tuple[Any, Any, str]:
    fw = server.firmware_id(ARTICLE_NAME)
    page, watch = pages.open(server, f"/fw/{fw}/?path={q(path)}&tab=graph")
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    return page, watch, fw


def test_graph_opens_fitted_to_the_panel(article_server: ViewerServer, pages: Pages) -> None:
    page, watch, _ = open_graph(pages, article_server, BUSYBOX)
    g = geometry(page)
    # busybox's graph (with its legend and title block) is wider than the panel: fitted, nothing cut off
    assert g["natural"] > g["client"] * 1.1, g
    assert g["fit"] == "true" and g["pressed"] == "true", g
    assert g["shown"] <= g["client"] + 1 and g["scroll"] <= g["client"] + 1, g
    assert g["legend"]["left"] >= 0 and g["legend"]["right"] <= g["client"] + 1, g
    assert g["zoom"] == f"{round(100 * g['shown'] / g['natural'])}%", g

    # zoom in: wider than the panel, scrolls; the legend's right end is reached by scrolling
    page.click("#tabpanel-graph .zoom-controls button[title='zoom in']")
    page.click("#tabpanel-graph .zoom-controls button[title='zoom in']")
    z = geometry(page)
    assert z["fit"] == "false" and z["pressed"] == "false", z
    assert abs(z["shown"] - g["shown"] * 1.25 * 1.25) < 2 and z["scroll"] > z["client"], (g, z)
    page.evaluate("document.querySelector('#tabpanel-graph .diagram').scrollLeft = 1e6")
    z = geometry(page)
    assert z["scrollLeft"] > 0 and z["legend"]["right"] <= z["client"] + 1, z
    # natural size, then Ctrl+wheel zooms out about the pointer
    page.click("#tabpanel-graph .zoom-controls button[title='natural size']")
    n = geometry(page)
    assert abs(n["shown"] - n["natural"]) < 1 and n["zoom"] == "100%", n
    box = page.locator("#tabpanel-graph .diagram").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.down("Control")
    page.mouse.wheel(0, 200)
    page.keyboard.up("Control")
    page.wait_for_timeout(100)
    w = geometry(page)
    assert w["shown"] < n["shown"] * 0.9 and w["fit"] == "false", (n, w)
    # Fit to panel again
    page.click("#tabpanel-graph .zoom-controls button:has-text('Fit to panel')")
    f = geometry(page)
    assert f["fit"] == "true" and abs(f["shown"] - g["shown"]) < 1 and f["scroll"] <= f["client"] + 1, f
    watch.assert_clean()


def test_graph_side_panel_and_tooltips_show_licences(article_server: ViewerServer, pages: Pages) -> None:
    page, watch, fw = open_graph(pages, article_server, BUSYBOX)
    graph, edges = graph_edges(article_server, fw, BUSYBOX)
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
    assert by_path[UTIL] == ("", "unknown") and by_path[APCFG] == ("", "unknown")
    busybox_item = page.inner_text(f"#tabpanel-graph .graph-licences li[data-path='{BUSYBOX}']")
    assert "GPL-2.0-only" in busybox_item and "GPL" in busybox_item

    # every module's tooltip says its licence
    tips = page.eval_on_selector_all(
        "#tabpanel-graph g.node[data-path]:not([data-path=''])",
        "gs => gs.map(g => [g.dataset.path, g.querySelector(':scope > title').textContent])",
    )
    assert len(tips) == len(want)
    for path, tip in tips:
        licence = next(n["licence"] for n in graph["nodes"] if n["path"] == path)
        assert path in tip and (licence or "unknown") in tip.split("licence: ", 1)[1], (path, tip)

    # an edge: the licences of both ends
    edge = next(i for i, e in edges.items() if e[:2] == (BUSYBOX, UTIL))
    x, y = svg_point(page, f"#tabpanel-graph g#{edge} path.hit", 0.5)
    page.mouse.click(x, y)
    assert page.get_attribute("#tabpanel-graph .edge-box", "data-edge") == edge
    ends = page.eval_on_selector_all(
        "#tabpanel-graph .edge-licences .licence", "ls => ls.map(l => [l.dataset.licence, l.dataset.licenceClass])"
    )
    assert ends == [["GPL-2.0-only", "gpl"], ["", "unknown"]]
    assert "util_foo" in page.inner_text("#tabpanel-graph .edge-box")
    watch.assert_clean()


def test_diagram_svg_is_cleaned_before_it_is_shown(article_server: ViewerServer, pages: Pages) -> None:
    """The Graph tab parses the server's SVG and drops whatever could run before it enters the page."""
    fw = article_server.firmware_id(ARTICLE_NAME)
    page, watch = pages.open(article_server, f"/fw/{fw}/")
    cleaned = page.evaluate("""async () => {
        const {sanitizeSvg} = await import('/static/diagram.js');
        const svg = sanitizeSvg(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
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
                     text: svg.textContent};
        svg.remove();
        let error = null;
        try { sanitizeSvg('<html><body>not svg</body></html>'); } catch (e) { error = String(e.message); }
        out.error = error;
        return out;
    }""")
    assert set(cleaned["tags"]) == {"g", "a", "text", "image", "use"}, cleaned["tags"]
    assert not [
        a for a in cleaned["attrs"] if a.startswith("on") or "javascript" in a or "example.com" in a or "data:" in a
    ], cleaned["attrs"]
    assert "id=n0" in cleaned["attrs"] and "href=#n0" in cleaned["attrs"]
    assert "<img src=x onerror=alert(6)>" in cleaned["text"]
    assert cleaned["error"] and "SVG" in cleaned["error"]
    # parsing the hostile sample makes Chromium report the (never run) handlers against the page's CSP
    watch.errors = [e for e in watch.errors if "Content Security Policy" not in e]
    watch.assert_clean()
