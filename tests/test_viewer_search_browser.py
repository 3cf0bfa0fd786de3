"""The search box and the "why is it loaded" panel in real Chromium (docs/viewer.md "Search"): typing
a symbol lists its providers and binders, "why?" opens the panel (from the results and from a library
of a program's panel), on both stores; hostile names (tests/test_viewer_hostile.py's root) stay text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.article import LIB_DUPA, LIB_DUPB
from support.browser import (
    APCFG,
    APLOG,
    ARTICLE_NAME,
    BUSYBOX,
    NVRAM,
    UTIL,
    Pages,
    ViewerServer,
    assert_no_markup_elements,
    q,
    screenshot,
)
from test_viewer_hostile import FIRMWARE_NAME, MARKUP, QUOTE_SYMBOL, SCRIPT_SYMBOL, build_hostile_root

pytestmark = pytest.mark.slow  # Chromium and Neo4j: the fast lane (-m 'not slow') leaves it out

RESULTS, WHY = "#lg-search-results[data-state='ready']", "#lg-why[data-state='ready']"


def _search(page: Any, text: str) -> None:
    page.fill("#lg-search-q", text)
    page.press("#lg-search-q", "Enter")
    page.wait_for_selector(RESULTS)
    assert "null" not in page.inner_text("#lg-search-results")  # nothing absent became text


def _rows(page: Any, selector: str, *keys: str) -> list[tuple[str, ...]]:
    return [
        tuple(r)
        for r in page.evaluate(
            "([sel, keys]) => [...document.querySelectorAll(sel)].map(e => keys.map(k => e.dataset[k]))",
            [selector, list(keys)],
        )
    ]


@pytest.mark.parametrize("store", ["article_server", "article_neo4j_server"])
def test_symbol_search_and_why(store: str, request: pytest.FixtureRequest, pages: Pages) -> None:
    server: ViewerServer = request.getfixturevalue(store)
    fw = server.firmware_id(ARTICLE_NAME)
    page, watch = pages.open(server, f"/fw/{fw}/")
    _search(page, "nvram_get")
    assert _rows(page, ".search-providers tbody tr", "provider") == [(NVRAM,)]
    assert _rows(page, ".search-bindings tbody tr", "module", "provider", "status") == [(APCFG, NVRAM, "used")]
    page.click(f".search-bindings tr[data-module='{APCFG}'] .why-button[data-program='{BUSYBOX}']")
    page.wait_for_selector(WHY)
    why = page.locator("#lg-why")
    assert "Why is libnvram.so loaded in busybox?" in why.locator("h1").inner_text()
    assert _rows(page, "#lg-why .why-chain li.why-step:not(.why-start)", "from", "to", "status") == [
        (BUSYBOX, NVRAM, "declared-unused")
    ]
    assert _rows(page, "#lg-why tr.why-declared", "from", "status") == [(BUSYBOX, "declared-unused"), (APCFG, "used")]
    assert _rows(page, "#lg-why tr.why-binding", "module", "status") == [(APCFG, "used")]
    assert "nvram_get" in why.locator("tr.why-binding").inner_text()
    assert "still loaded" in why.inner_text()  # declared-unused explained
    page.keyboard.press("Escape")
    assert page.locator("#lg-why").is_hidden()

    # a path or a soname lists the modules; a page of them links to the files
    _search(page, "libap")
    assert _rows(page, ".search-module-list li", "path") == [
        (APCFG,),
        (APLOG,),
        ("/lib/libapp.so",),
        ("/opt/app/lib/libapp.so",),
    ]
    assert "No reference" in page.inner_text(".search-symbol")

    # from a library in the program's panel: why is libaplog loaded (libapcfg binds it without declaring it)
    page, watch2 = pages.open(server, f"/fw/{fw}/?path={q(BUSYBOX)}&tab=analysis")
    page.click(f"section[data-section='declared'] .why-button[data-library='{APLOG}']")
    page.wait_for_selector(WHY)
    assert _rows(page, "#lg-why .why-chain li.why-step:not(.why-start)", "from", "to") == [(BUSYBOX, APLOG)]
    assert _rows(page, "#lg-why tr.why-binding", "module", "status") == [(APCFG, "hidden")]

    # the box is in the header of the whole-firmware view too; a beginning offers the names
    page, watch3 = pages.open(server, f"/fw/{fw}/whole")
    _search(page, "util_")
    assert _rows(page, ".search-names button", "name") == [("util_bar",), ("util_foo",)]
    page.click(".search-names button[data-name='util_bar']")
    page.wait_for_selector(".search-symbol[data-symbol='util_bar']")
    page.wait_for_selector(RESULTS)
    assert _rows(page, ".search-bindings tbody tr", "module", "provider", "status") == [(APCFG, UTIL, "hidden")]
    screenshot(page, f"search-util_bar-{store}")
    for w in (watch, watch2, watch3):
        w.assert_clean()


def test_duplicates_are_links_in_load_order_and_a_miss_suggests(article_server: ViewerServer, pages: Pages) -> None:
    """dup_fn: the providers of one link map are a list of links in load order (the API's), no raw URL
    or stray comma; NVRAM_GET finds nothing and offers nvram_get, a click away."""
    fw = article_server.firmware_id(ARTICLE_NAME)
    api = article_server.json(f"/api/firmware/{fw}/symbol?name=dup_fn")
    assert [d["providers"] for d in api["duplicates"]] == [[LIB_DUPA, LIB_DUPB]]
    page, watch = pages.open(article_server, f"/fw/{fw}/")
    _search(page, "dup_fn")
    dup = page.locator(".search-duplicates")
    assert _rows(page, ".search-duplicates ol.duplicate-providers > li", "provider") == [(LIB_DUPA,), (LIB_DUPB,)]
    assert _rows(page, ".search-duplicates ol.duplicate-providers > li > a.file-link", "path") == [
        (LIB_DUPA,),
        (LIB_DUPB,),
    ]
    text = dup.inner_text()
    assert "http" not in text and "," not in text and "/fw/" not in text, text
    assert dup.locator("a").evaluate_all("links => links.map(a => a.textContent)") == [LIB_DUPA, LIB_DUPB]
    screenshot(page, "search-dup_fn-duplicates")

    _search(page, "NVRAM_GET")
    assert "No reference" in page.inner_text(".search-symbol")
    assert _rows(page, ".search-suggestions button", "name") == [("nvram_get",)]
    screenshot(page, "search-NVRAM_GET-suggests")
    page.click(".search-suggestions button[data-name='nvram_get']")
    page.wait_for_selector(".search-symbol[data-symbol='nvram_get']")
    page.wait_for_selector(RESULTS)
    assert _rows(page, ".search-providers tbody tr", "provider") == [(NVRAM,)]
    watch.assert_clean()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    work = tmp_path_factory.mktemp("search-hostile")
    root = build_hostile_root(work)
    db = work / "graph.lbdb"
    proc = linkgraph("scan", str(root), "--db", str(db), "--name", FIRMWARE_NAME, "--quiet")
    assert proc.returncode in (0, 1), proc.stderr
    with ViewerServer(["--db", str(db)], Path(work)) as server:
        yield server


def test_hostile_names_in_search_and_why(hostile: ViewerServer, pages: Pages) -> None:
    fw = hostile.firmware_id(FIRMWARE_NAME)
    markup_lib = f"/lib/{MARKUP}"
    page, watch = pages.open(hostile, f"/fw/{fw}/")
    for symbol in (SCRIPT_SYMBOL, QUOTE_SYMBOL):
        _search(page, symbol)
        assert page.locator(".search-symbol h2 code").inner_text() == symbol
        assert _rows(page, ".search-providers tbody tr", "provider") == [(markup_lib,)]
        assert page.locator(".search-providers tbody tr a").inner_text() == markup_lib
        assert_no_markup_elements(page)
    program = page.evaluate("() => document.querySelector('.search-bindings tbody tr').dataset.module")
    assert program.startswith("/usr/bin/prog")
    page.click(f".search-bindings .why-button[data-program={json.dumps(program)}]")
    page.wait_for_selector(WHY)
    assert MARKUP in page.locator("#lg-why h1").inner_text()
    assert QUOTE_SYMBOL in page.locator("#lg-why tr.why-binding").inner_text()
    assert_no_markup_elements(page)
    _search(page, "<img")
    assert _rows(page, ".search-module-list li", "path") == [(markup_lib,)]
    assert_no_markup_elements(page)
    watch.assert_clean()
