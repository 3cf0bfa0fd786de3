"""The Graph tab opens whole and readable on real firmware (issue 30, docs/viewer.md "The Graph tab"):
D-Link DIR-880L's minidlna (19 modules, 78 edges) and the Freifunk image's busybox (6 modules), in
windows of 1440 x 900 and 1024 x 768. Measured in the page: every module's box inside the drawing's
pane, every text (module names, licences, symbol counts) at least 10 px on screen (its computed font
size times the drawing's current scale), the page saying which layout it chose; every edge's side
panel without "null" or "undefined". A screenshot of each case goes to tests/artifacts.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support import qemu_oracle as qo
from support import vendor_roots
from support.browser import Pages, ViewerServer, q, screenshot
from support.graph_tab import READABLE_PX, open_graph_at, outside, served, smallest_text, view

pytestmark = pytest.mark.slow  # Chromium: the fast lane (-m 'not slow') leaves it out

WINDOWS = [(1440, 900), (1024, 768)]
CASES = {"dlink": "/usr/bin/minidlna", "ffulm": "/bin/busybox"}
SIDE = "#tabpanel-graph .edge-box"


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ViewerServer]]:
    dlink, _ = vendor_roots.extracted_root("dlink_dir880l")
    ffulm = qo.extract_root(qo.firmware_image("ffulm-0.6.5-"), tmp_path_factory.mktemp("ffulm-root"))
    for_dlink = served(dlink, "dlink", tmp_path_factory.mktemp("dlink-serve"))
    for_ffulm = served(ffulm, "ffulm", tmp_path_factory.mktemp("ffulm-serve"))
    yield {"dlink": next(for_dlink), "ffulm": next(for_ffulm)}
    for server in (for_dlink, for_ffulm):
        server.close()


@pytest.mark.parametrize("window", WINDOWS, ids=lambda w: f"{w[0]}x{w[1]}")
@pytest.mark.parametrize("name", list(CASES))
def test_graph_opens_whole_and_readable(
    name: str, window: tuple[int, int], servers: dict[str, ViewerServer], pages: Pages
) -> None:
    server, path = servers[name], CASES[name]
    page, watch = open_graph_at(pages, server, name, path, window)
    shown = server.json(f"/api/firmware/{server.firmware_id(name)}/diagram.json?path={q(path)}")
    v = view(page)
    screenshot(page, f"graph-fit-{name}-{window[0]}x{window[1]}")
    print(
        f"\n{name} {path} at {window[0]}x{window[1]}: pane {v['pane']['right'] - v['pane']['left']:.0f} x "
        f"{v['pane']['bottom'] - v['pane']['top']:.0f} px, zoom {v['zoom']:.3f}, smallest text "
        f"{smallest_text(v):.2f} px, {v['mode']}; layout: {v['layout']}"
    )
    assert len(v["nodes"]) == len(shown["nodes"]), (len(v["nodes"]), len(shown["nodes"]))
    # both graphs are small enough to be whole and readable at once: the page must say "whole"
    assert v["mode"] == "whole", v["note"]
    assert not outside(v), (outside(v), v["pane"], v["note"])
    assert smallest_text(v) >= READABLE_PX, min(v["texts"], key=lambda t: t["px"])
    assert len(v["texts"]) >= len(shown["nodes"])  # a name at least per module
    watch.assert_clean()


def test_no_edge_panel_says_null(servers: dict[str, ViewerServer], pages: Pages) -> None:
    """Every edge of minidlna selected (by keyboard: focus and Enter), its side panel read whole."""
    server = servers["dlink"]
    page, watch = open_graph_at(pages, server, "dlink", CASES["dlink"], WINDOWS[1])
    edges = page.eval_on_selector_all("#tabpanel-graph g.edge[data-status]", "gs => gs.map(g => g.id)")
    assert len(edges) >= 70, len(edges)
    for edge in edges:
        page.focus(f"#tabpanel-graph g#{edge}")
        page.keyboard.press("Enter")
        assert page.get_attribute(SIDE, "data-edge") == edge
        text = page.inner_text(SIDE)
        assert "null" not in text and "undefined" not in text, (edge, text)
    watch.assert_clean()
