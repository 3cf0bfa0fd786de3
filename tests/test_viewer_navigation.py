"""Navigation in the viewer, in a real browser: every choice is a history entry, a module is selected by
one click and opened by a double-click (or the Open button), aliases are a count until shown, and
declared-unused is explained where it is shown.

* On the article's root (tests/support/browser.py): tree -> file -> tab -> another file -> Graph
  tab -> a module selected -> a module opened -> the whole-firmware page -> the Licences page, then
  Back all the way and Forward again: every step restores its view (file, tab, selected module, tree
  selection, URL). A URL opened fresh restores the selected module; its Open button opens it.
* On the LEDE image (busybox and its 115 applet symlinks): the Overview shows the aliases as a count
  with "show", so the summary stays near the top; "show" lists exactly the API's aliases.
* No page makes a request outside the viewer, and none has a script error.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.browser import (
    APCFG,
    ARTICLE_NAME,
    BUSYBOX,
    NVRAM,
    UTIL,
    Pages,
    PageWatch,
    ViewerServer,
    open_tab,
    q,
    wait_ready,
)
from support.images import LEDE

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

# the view the files page shows, as far as navigation is concerned
VIEW = """() => {
    const panel = document.querySelector('#panel');
    const tab = document.querySelector('#panel [role=tab][aria-selected=true]');
    const choice = document.querySelector('#panel #tabpanel-graph g.node.selected');
    const selected = document.querySelector('#tree a.entry.selected, #tree a.ghost.selected');
    const last = location.pathname.split('/').pop();
    return {
        page: last === '' ? 'files' : last,
        ready: document.body.dataset.ready || '',
        params: Object.fromEntries(new URLSearchParams(location.search)),
        file: panel ? panel.querySelector('.file-name')?.textContent ?? null : null,
        tab: tab ? tab.dataset.tab : null,
        chosen: choice ? choice.dataset.path || null : null,
        selected: selected ? selected.dataset.path : null,
        graph: document.querySelector('#panel #tabpanel-graph:not([hidden])')?.dataset.state ?? null,
    };
}"""
DECLARED_UNUSED = "still loaded and its initialisation code runs, but no symbol of the declaring object binds to it"


def open_page(pages: Pages, server: ViewerServer, path: str) -> tuple[Any, PageWatch, list[str]]:
    """A watched page (as Pages.open) that also records every URL it requests, from the first."""
    page = pages.browser.context.new_page()
    watch = PageWatch(server.url)
    watch.attach(page)
    requested: list[str] = []
    page.on("request", lambda req: requested.append(req.url))
    pages.opened.append((page, watch))
    page.goto(server.url + path)
    wait_ready(page)
    return page, watch, requested


def assert_local(server: ViewerServer, requested: list[str]) -> None:
    outside = [u for u in requested if not u.startswith(server.url + "/") and not u.startswith(("data:", "blob:"))]
    assert not outside, f"requests outside the viewer: {outside}"


def wait_view(page: Any, want: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
    """Wait until the page's view has every key of *want* as given; returns the view."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            view = page.evaluate(VIEW)
        except Exception:  # the page is being replaced (Back to another page): try again
            view = {}
        if view and all(view.get(k) == v for k, v in want.items()):
            return view
        if time.monotonic() > deadline:
            raise AssertionError(f"the view is {view}, wanted {want}")
        page.wait_for_timeout(50)


def files(file: str | None, params: dict[str, str], **more: Any) -> dict[str, Any]:
    """The files page showing *file* (a panel title) under the URL *params* (its graph drawn when shown:
    leaving the page before would cut the drawing's requests short)."""
    graph = {"graph": "ready"} if more.get("tab") == "graph" else {}
    return {"page": "files", "ready": "1", "file": file, "params": params, **graph, **more}


def test_back_and_forward_restore_every_choice(article_server: ViewerServer, pages: Pages) -> None:
    server = article_server
    fw = server.firmware_id(ARTICLE_NAME)
    page, watch, requested = open_page(pages, server, f"/fw/{fw}/")
    start = page.evaluate("history.length")

    # the walk: each step is one new history entry
    steps: list[dict[str, Any]] = [files(None, {}, selected=None)]
    page.click(f"#tree a.entry[data-path='{BUSYBOX}']")
    steps.append(files("busybox", {"path": BUSYBOX}, tab="overview", selected=BUSYBOX))
    wait_view(page, steps[-1])
    open_tab(page, "analysis")
    steps.append(files("busybox", {"path": BUSYBOX, "tab": "analysis"}, tab="analysis"))
    wait_view(page, steps[-1])
    page.click(f"#tree a.entry[data-path='{APCFG}']")
    steps.append(files("libapcfg.so", {"path": APCFG, "tab": "analysis"}, tab="analysis", selected=APCFG))
    wait_view(page, steps[-1])
    open_tab(page, "graph")
    steps.append(files("libapcfg.so", {"path": APCFG, "tab": "graph"}, tab="graph", chosen=None))
    wait_view(page, steps[-1])

    # one click on a module selects it and stays on libapcfg, even after a double-click's time
    util_id = page.get_attribute(f"#tabpanel-graph g.node[data-path='{UTIL}']", "id")
    nvram_id = page.get_attribute(f"#tabpanel-graph g.node[data-path='{NVRAM}']", "id")
    page.click(f"#tabpanel-graph g.node[data-path='{UTIL}']")
    steps.append(files("libapcfg.so", {"path": APCFG, "tab": "graph", "select": util_id}, tab="graph", chosen=UTIL))
    wait_view(page, steps[-1])
    page.wait_for_timeout(700)
    wait_view(page, steps[-1])
    page.wait_for_selector("#tabpanel-graph .edge-box button.open-node")

    # a double-click on another module: selected by its first click, opened by the second
    page.dblclick(f"#tabpanel-graph g.node[data-path='{NVRAM}']")
    steps.append(files("libapcfg.so", {"path": APCFG, "tab": "graph", "select": nvram_id}, tab="graph", chosen=NVRAM))
    steps.append(files("libnvram.so", {"path": NVRAM, "tab": "graph"}, tab="graph", chosen=None, selected=NVRAM))
    wait_view(page, steps[-1])
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")

    # the other pages
    page.click("header nav.views a:has-text('Whole firmware')")
    wait_ready(page)
    steps.append({"page": "whole", "ready": "1"})
    page.click("header nav.views a:has-text('Licences')")
    wait_ready(page)
    steps.append({"page": "licences", "ready": "1"})
    wait_view(page, steps[-1])
    assert page.evaluate("history.length") == start + len(steps) - 1

    # Back through every step, then Forward through them again
    for want in reversed(steps[:-1]):
        page.go_back()
        wait_view(page, want)
    assert page.evaluate("document.querySelector('#panel .panel-empty h1')?.textContent") == ARTICLE_NAME
    for want in steps[1:]:
        page.go_forward()
        wait_view(page, want)
    assert_local(server, requested)
    watch.assert_clean()


def test_a_fresh_url_restores_the_chosen_module_and_open_opens_it(article_server: ViewerServer, pages: Pages) -> None:
    server = article_server
    fw = server.firmware_id(ARTICLE_NAME)
    page, watch, requested = open_page(pages, server, f"/fw/{fw}/?path={q(APCFG)}&tab=graph")
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    util_id = page.get_attribute(f"#tabpanel-graph g.node[data-path='{UTIL}']", "id")
    page.goto(f"{server.url}/fw/{fw}/?path={q(APCFG)}&tab=graph&select={util_id}")
    wait_ready(page)
    wait_view(page, files("libapcfg.so", {"path": APCFG, "tab": "graph", "select": util_id}, tab="graph", chosen=UTIL))
    # the explanation of declared-unused where statuses are shown: the legend, the Overview, the analysis
    legend = page.get_attribute("#tabpanel-graph .status-legend .legend-item:has(.line-declared-unused)", "title")
    assert DECLARED_UNUSED in legend, legend
    page.click("#tabpanel-graph .edge-box button.open-node")
    wait_view(page, files("libutility.so", {"path": UTIL, "tab": "graph"}, tab="graph", chosen=None, selected=UTIL))
    page.goto(f"{server.url}/fw/{fw}/?path={q(BUSYBOX)}")
    wait_ready(page)
    assert DECLARED_UNUSED in page.inner_text("#tabpanel-overview .declared-unused-help")
    assert DECLARED_UNUSED in page.get_attribute(".tree-key .flag-declared_unused", "title")
    open_tab(page, "analysis")
    assert DECLARED_UNUSED in page.inner_text("section[data-section='declared_unused'] p.help")
    tag = page.locator("section[data-section='declared'] .status-declared-unused").first
    assert DECLARED_UNUSED in tag.get_attribute("title")
    # few aliases (busybox has two here) are listed as they are
    open_tab(page, "overview")
    assert page.locator("#tabpanel-overview .alias-toggle").count() == 0
    assert page.locator("#tabpanel-overview ul.alias-list li").all_inner_texts() == ["/bin/sh", "/sbin/init"]
    assert_local(server, requested)
    watch.assert_clean()


@pytest.fixture(scope="module")
def lede_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    assert LEDE.is_file(), f"{LEDE} is missing: the shared firmware folder is part of the workplace"
    work = tmp_path_factory.mktemp("lede-navigation")
    db = work / "graph.lbdb"
    assert linkgraph("scan", str(LEDE), "--db", str(db), "--name", "lede", "--quiet").returncode == 0
    with ViewerServer(["--db", str(db)], Path(work)) as server:
        yield server


def test_many_aliases_are_a_count_until_shown(lede_server: ViewerServer, pages: Pages) -> None:
    server = lede_server
    fw = server.firmware_id("lede")
    aliases = server.json(f"/api/firmware/{fw}/file?path={q('/bin/busybox')}")["module"]["aliases"]
    assert len(aliases) > 100, len(aliases)
    page, watch, requested = open_page(pages, server, f"/fw/{fw}/?path={q('/bin/busybox')}")
    page.wait_for_selector("#panel[data-state='ready']")
    box = page.locator("#tabpanel-overview .aliases")
    assert box.locator(".alias-count").inner_text() == f"{len(aliases)} aliases"
    toggle = box.locator("button.alias-toggle")
    assert toggle.inner_text() == "show" and toggle.get_attribute("aria-expanded") == "false"
    assert not box.locator("ul.alias-list").is_visible()
    summary = page.locator("#tabpanel-overview p.summary")
    top = summary.bounding_box()["y"]
    assert top < 600, f"the summary starts {top} px down"  # on screen without scrolling (900 px high)
    toggle.click()
    assert toggle.inner_text() == "hide" and toggle.get_attribute("aria-expanded") == "true"
    assert box.locator("ul.alias-list li").all_inner_texts() == aliases
    assert summary.bounding_box()["y"] > top + 1000
    toggle.click()
    assert not box.locator("ul.alias-list").is_visible()
    assert abs(summary.bounding_box()["y"] - top) < 1
    assert_local(server, requested)
    watch.assert_clean()
