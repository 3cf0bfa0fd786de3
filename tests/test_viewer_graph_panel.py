"""The Graph tab's side panel and keys in a real browser (docs/viewer.md "Graph"): every edge's panel
says what the edge is and nothing absent becomes text (no "null"), and after a mouse click on a node
Enter opens it, as a double-click does. The article's root (tests/support/browser.py)."""

from __future__ import annotations

import pytest
from support.browser import APCFG, BUSYBOX, Pages, ViewerServer, graph_edges, wait_until
from support.graph_tab import MIDPOINT, bring_to_middle, open_graph

pytestmark = pytest.mark.slow  # Chromium: the fast lane (-m 'not slow') leaves it out

SIDE = "#tabpanel-graph .edge-box"


def test_every_edge_panel_has_no_null(article_server: ViewerServer, pages: Pages) -> None:
    page, watch, fw = open_graph(pages, article_server, BUSYBOX)
    _, edges = graph_edges(article_server, fw, BUSYBOX)
    assert len(edges) >= 5
    for edge, (src, dst, status, symbols) in edges.items():
        bring_to_middle(page, edge)
        m = page.evaluate(MIDPOINT, edge)
        page.mouse.click(m["x"], m["y"])
        chosen = page.get_attribute(SIDE, "data-edge")
        assert chosen is not None, (edge, src, dst)
        if chosen != edge:  # a line drawn on top of this one: choose it from "Other edges through this point"
            page.click(f"{SIDE} button.also-edge[data-edge='{edge}']")
        assert page.get_attribute(SIDE, "data-edge") == edge
        whole = page.inner_text(SIDE)  # the edge, the key, the title block, the licences
        assert "null" not in whole and "undefined" not in whole, (edge, whole)
        text = page.inner_text(f"{SIDE} .edge-detail")
        assert src in text and dst in text and status in text, (edge, text)
        for name in symbols:
            assert name in text, (edge, name)
    watch.assert_clean()


def test_enter_opens_the_node_a_click_selected(article_server: ViewerServer, pages: Pages) -> None:
    page, watch, fw = open_graph(pages, article_server, BUSYBOX)
    graph, _ = graph_edges(article_server, fw, BUSYBOX)
    apcfg = next(n["id"] for n in graph["nodes"] if n["path"] == APCFG)
    page.click(f"#tabpanel-graph g#{apcfg}")
    assert page.get_attribute(SIDE, "data-node") == apcfg
    page.keyboard.press("Enter")
    wait_until(page, "() => document.querySelector('#panel .file-name')?.textContent === 'libapcfg.so'")
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    watch.assert_clean()
