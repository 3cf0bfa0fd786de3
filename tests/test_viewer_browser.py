"""The web viewer in a real browser, walked through on the article's busybox, on both stores.

``linkgraph serve`` runs as a user runs it (over LadybugDB, and over the test suite's Neo4j server),
Chromium is driven by Playwright: the tree and its filters, the Overview (licence included), the ELF
analysis with expandable symbols, the Graph tab drawn with the conventions (red hidden, dashed blue
declared-unused, counts on used edges), clicking an edge shows its symbols, clicking a module
chooses it and double-clicking moves to it, the exports, the bookmarkable URL, the whole-firmware
canvas. The other viewer tests: test_viewer_graph.py (the Graph tab), test_viewer_licences.py,
test_viewer_whole.py, test_viewer_hostile.py, test_viewer_navigation.py (Back and Forward, choose
and open, aliases); their shared fixtures are in tests/support/browser.py.

Screenshots of every page go to ``$LINKGRAPH_TEST_ARTIFACTS`` (default ``tests/artifacts/``).
"""

from __future__ import annotations

import json
import urllib.parse
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from support.browser import (
    APCFG,
    APLOG,
    ARTICLE_NAME,
    BUSYBOX,
    CRYPT,
    GCC_S,
    LIBC,
    NVRAM,
    UTIL,
    Pages,
    ViewerServer,
    current_params,
    drawn_edges,
    graph_edges,
    open_tab,
    parse_rgb,
    q,
    svg_point,
    wait_ready,
    wait_until,
)

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

# (from, to, status, symbols or None when only the status matters)
ARTICLE_EDGES = {
    (BUSYBOX, UTIL, "used", ("util_foo",)),
    (BUSYBOX, APCFG, "used", ("apcfg_get",)),
    (BUSYBOX, NVRAM, "declared-unused", ()),
    (BUSYBOX, APLOG, "declared-unused", ()),
    (BUSYBOX, CRYPT, "declared-unused", ()),
    (BUSYBOX, GCC_S, "declared-unused", ()),
    (BUSYBOX, LIBC, "used", None),
    (APCFG, NVRAM, "used", ("nvram_get",)),
    (APCFG, UTIL, "hidden", ("util_bar",)),
    (APCFG, APLOG, "hidden", ("aplog_write",)),
}
SVG_NS = "{http://www.w3.org/2000/svg}"


def visible_tree_paths(page: Any) -> list[str]:
    return page.evaluate("""() => [...document.querySelectorAll('#tree a.entry[data-path]')]
        .filter(a => a.offsetParent !== null).map(a => a.dataset.path)""")


def filter_tree(page: Any, text: str, status: str | None = None) -> None:
    """Type into the tree's filter box (and choose a status), then wait until the tree applied it."""
    if status is not None:
        page.select_option("#tree-status", status)
    page.fill("#tree-filter", text)
    applied = f"{page.input_value('#tree-status')}:{text.lower()}"
    wait_until(page, "want => document.querySelector('#tree').dataset.filter === want", applied)


def check_article_viewer(pages: Pages, server: ViewerServer, fw: str) -> None:
    """The whole busybox walk-through on one running viewer."""
    page, watch = pages.open(server, f"/fw/{fw}/")
    assert page.inner_text("header .fw-name") == ARTICLE_NAME
    assert page.locator("header nav.views a").all_inner_texts() == ["Files", "Whole firmware", "Licences"]

    # --- the tree: kinds, symlinks with their target, ghosts, the filter box, the status filter
    assert page.get_attribute(f"#tree a.entry[data-path='{BUSYBOX}'] .kind", "title") == "executable"
    assert page.get_attribute(f"#tree a.entry[data-path='{UTIL}'] .kind", "title") == "library"
    assert "/bin/busybox" in page.inner_text("#tree a.entry[data-path='/bin/sh'] .target")
    assert page.get_attribute("#tree a.entry[data-path='/bin/sh'] .kind", "title") == "symlink"
    assert page.inner_text("#tree a.ghost[data-missing='libgone.so.1']").endswith("libgone.so.1")
    page.click("#tree a.ghost[data-missing='libgone.so.1']")  # a ghost: who needs it
    assert page.get_attribute("#panel", "data-state") == "missing"
    assert page.locator("#panel a.file-link[data-path='/usr/bin/trap_missing']").count() == 1
    assert current_params(page) == {"missing": "libgone.so.1"}
    filter_tree(page, "busybox")
    shown = visible_tree_paths(page)
    assert BUSYBOX in shown and "/bin/sh" in shown and "/sbin/init" in shown, shown
    assert UTIL not in shown and APCFG not in shown, shown
    filter_tree(page, "", "hidden")
    shown = visible_tree_paths(page)
    assert APCFG in shown and BUSYBOX not in shown, shown
    filter_tree(page, "", "declared_unused")
    assert BUSYBOX in visible_tree_paths(page)
    filter_tree(page, "", "unresolved")
    assert "/lib/libtrapundef.so" in visible_tree_paths(page) and APCFG not in visible_tree_paths(page)
    filter_tree(page, "busybox", "")

    # --- busybox: Overview, the URL follows
    page.click(f"#tree a.entry[data-path='{BUSYBOX}']")
    page.wait_for_selector("#panel[data-state='ready']")
    assert page.inner_text("#panel .file-name") == "busybox"
    assert current_params(page)["path"] == BUSYBOX
    overview = page.inner_text("#tabpanel-overview")
    for text in (
        "executable",
        "X86_64",
        "/lib64/ld-linux-x86-64.so.2",
        "/bin/sh",
        "/sbin/init",
        "SHA256",
        "GPL-2.0-only",
        "knowledge-base:busybox",
    ):
        assert text in overview, (text, overview)
    # its identification (docs/identify.md): named busybox, nothing in its bytes says more
    identity = page.inner_text("#tabpanel-overview section[data-section='identity']")
    assert "busybox" in identity and "inferred" in identity and "name" in identity, identity

    # --- ELF analysis: the sections, the edges, the symbols behind them (expandable)
    open_tab(page, "analysis")
    assert current_params(page)["tab"] == "analysis"
    sections = page.eval_on_selector_all(
        "#tabpanel-analysis section.analysis-section", "els => els.map(s => s.dataset.section)"
    )
    assert sections == [
        "declared",
        "used",
        "declared_unused",
        "hidden",
        "interposed",
        "upcall",
        "missing",
        "used_by",
        "interposes_on",
        "called_back_by",
        "unresolved",
        "duplicates",
        "contains",
    ]
    assert page.inner_text("section[data-section='contains'] p.none") == "none"
    assert page.locator("section[data-section='declared'] tbody tr").count() == 7
    unused = page.inner_text("section[data-section='declared_unused']")
    for soname in ("libnvram.so", "libaplog.so", "libcrypt.so.0", "libgcc_s.so.1"):
        assert soname in unused
    row = page.locator("section[data-section='used'] tbody tr", has_text="libutility.so")
    symbol = row.locator("ul.symbol-list li", has_text="util_foo")
    assert not symbol.is_visible()
    row.locator("details.symbols > summary").click()
    assert symbol.is_visible()
    assert page.locator("section[data-section='hidden'] p.none").is_visible()

    # --- Graph: every edge drawn with the conventions
    open_tab(page, "graph")
    assert page.locator("#tabpanel-graph .status-legend").is_visible()
    assert page.locator("#tabpanel-graph svg #legend").count() == 0  # beside the drawing, as HTML
    assert page.locator("#tabpanel-graph .diagram-key .licence-key").is_visible()
    graph, edges = graph_edges(server, fw, BUSYBOX)
    drawn = drawn_edges(page)
    assert sorted(d["id"] for d in drawn) == sorted(edges), "every edge of the graph JSON is drawn, once"
    by_ends = {(f, t): (s, sym) for f, t, s, sym in edges.values()}
    for frm, to, status, symbols in ARTICLE_EDGES:
        assert (frm, to) in by_ends, f"edge {frm} -> {to} not in the graph"
        assert by_ends[(frm, to)][0] == status, (frm, to, by_ends[(frm, to)])
        if symbols is not None:
            assert by_ends[(frm, to)][1] == symbols, (frm, to, by_ends[(frm, to)])
    for d in drawn:
        status = edges[d["id"]][2]
        assert status in d["cls"].split(), d
        r, g, b = parse_rgb(d["stroke"])
        if status == "hidden":
            assert r > 150 and g < 90 and b < 90 and d["dash"] == "none", d
        elif status == "declared-unused":
            assert b > 150 and r < 90 and d["dash"] != "none", d
        elif status == "used":
            assert max(r, g, b) < 60 and d["dash"] == "none", d
            assert str(len(edges[d["id"]][3])) in d["label"].split(), d  # labelled with its symbol count
    hidden_id = next(i for i, e in edges.items() if e[:3] == (APCFG, UTIL, "hidden"))
    assert page.locator("#tabpanel-graph .edge-box").inner_text().startswith("Click an edge")

    # click the hidden libapcfg -> libutility edge (on its line): its symbols appear
    x, y = svg_point(page, f"#tabpanel-graph g#{hidden_id} path.hit", 0.5)
    page.mouse.click(x, y)
    box = page.locator("#tabpanel-graph .edge-box")
    assert box.get_attribute("data-edge") == hidden_id
    text = box.inner_text()
    assert "util_bar" in text and "hidden" in text and APCFG in text and UTIL in text, text
    assert "selected" in page.get_attribute(f"#tabpanel-graph g#{hidden_id}", "class")

    # the exports of the Graph tab
    svg_href = page.get_attribute("#tabpanel-graph a.export-diagram-svg", "href")
    status, ctype, body = server.get(svg_href)
    assert status == 200 and ctype.startswith("image/svg+xml"), (status, ctype)
    tree = ET.fromstring(body)
    groups = {g.get("id"): g for g in tree.iter(f"{SVG_NS}g")}
    assert "legend" in groups, "the SVG export has a legend"
    hidden = groups[hidden_id]
    assert "hidden" in hidden.get("class", "").split()
    stroke = next(p.get("stroke") for p in hidden.iter(f"{SVG_NS}path"))
    assert stroke.lower() in ("red", "#c8201e") or (
        stroke.startswith("#") and int(stroke[1:3], 16) > 150 and int(stroke[3:5], 16) < 90
    ), stroke
    for what, magic in (("pdf", b"%PDF"), ("png", b"\x89PNG")):
        href = page.get_attribute(f"#tabpanel-graph a.export-diagram-{what}", "href")
        status, ctype, body = server.get(href)
        assert status == 200 and body.startswith(magic), (what, status, ctype, body[:40])
    open_tab(page, "analysis")
    status, ctype, body = server.get(page.get_attribute("#tabpanel-analysis a.export-analysis-csv", "href"))
    assert status == 200 and ctype.startswith("text/csv") and b"util_foo" in body, (status, ctype, body[:300])
    open_tab(page, "graph")

    # one click on the module libapcfg selects it (the URL says so, the side panel names it), a
    # double-click opens it: the panel moves to it (the URL too), Graph tab kept
    apcfg_node = next(n["id"] for n in graph["nodes"] if n["path"] == APCFG)
    page.click(f"#tabpanel-graph g#{apcfg_node}")
    wait_until(page, "id => new URLSearchParams(location.search).get('select') === id", apcfg_node)
    assert current_params(page) == {"path": BUSYBOX, "tab": "graph", "select": apcfg_node}
    assert page.inner_text("#panel .file-name") == "busybox"
    page.dblclick(f"#tabpanel-graph g#{apcfg_node}")
    wait_until(page, "() => document.querySelector('#panel .file-name')?.textContent === 'libapcfg.so'")
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    assert {k: v for k, v in current_params(page).items() if k != "select"} == {"path": APCFG, "tab": "graph"}
    assert page.get_attribute(f"#tree a.entry[data-path='{APCFG}']", "aria-current") == "true"
    _, apcfg_edges = graph_edges(server, fw, APCFG)
    assert {e[:3] for e in apcfg_edges.values()} >= {
        (APCFG, UTIL, "hidden"),
        (APCFG, APLOG, "hidden"),
        (APCFG, NVRAM, "used"),
    }
    assert len(drawn_edges(page)) == len(apcfg_edges)
    watch.assert_clean()

    # --- a bookmarked URL opens the same view; the ELF analysis of libapcfg shows the hidden edges
    page, watch = pages.open(server, f"/fw/{fw}/?path={q(APCFG)}&tab=analysis")
    page.wait_for_selector("#panel[data-state='ready']")
    assert page.get_attribute("#tab-analysis", "aria-selected") == "true"
    hidden_rows = page.locator("section[data-section='hidden'] tbody tr")
    assert hidden_rows.count() == 2
    for soname, symbol in (("libutility.so", "util_bar"), ("libaplog.so", "aplog_write")):
        row = hidden_rows.filter(has_text=soname)
        row.locator("summary").click()
        assert row.locator("ul.symbol-list li", has_text=symbol).is_visible()
    assert page.locator(f"section[data-section='used_by'] a.file-link[data-path='{BUSYBOX}']").count() == 1
    headers = page.eval_on_selector_all("section[data-section='used_by'] th", "els => els.map(e => e.textContent)")
    assert headers == ["module", "kind", "status", "symbols"]
    assert page.locator("section[data-section='used_by'] tbody [data-kind='executable']").count() == 1
    # a file link inside the analysis moves the panel
    page.click(f"section[data-section='used_by'] a.file-link[data-path='{BUSYBOX}']")
    wait_until(page, "() => document.querySelector('#panel .file-name')?.textContent === 'busybox'")
    assert current_params(page)["path"] == BUSYBOX
    watch.assert_clean()

    # --- an unknown file: a message, not a broken page
    page, watch = pages.open(server, f"/fw/{fw}/?path={q('/no/such/file')}")
    assert page.locator("#panel .error").is_visible()
    watch.failed.clear()  # the 404 of the API call is the expected answer
    watch.assert_clean()

    # --- the whole-firmware view (every module): counts, a click on a module, a click on an edge
    page, watch = pages.open(server, f"/fw/{fw}/whole?modules=1")
    whole = server.json(f"/api/firmware/{fw}/whole")
    state = page.evaluate(
        "({n: linkgraphWhole.nodes, e: linkgraphWhole.edges, v: linkgraphWhole.visibleEdges(),"
        " ready: linkgraphWhole.ready})"
    )
    assert state == {"n": len(whole["nodes"]), "e": len(whole["edges"]), "v": len(whole["edges"]), "ready": True}
    canvas = page.locator("#whole-canvas").bounding_box()
    pos = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(APCFG)})")
    page.mouse.click(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    assert page.get_attribute("#whole-info", "data-node") == APCFG
    assert "libutility.so" in page.inner_text("#whole-info")
    pos = page.evaluate(f"linkgraphWhole.edgePosition({json.dumps(APCFG)}, {json.dumps(UTIL)})")
    page.mouse.click(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    page.wait_for_selector("#whole-info .edge-symbols[data-state='ready']")
    assert page.get_attribute("#whole-info", "data-edge") == f"{APCFG}\n{UTIL}"
    assert "util_bar" in page.inner_text("#whole-info")
    hidden_count = sum(1 for e in whole["edges"] if e["status"] == "hidden")
    page.uncheck("#whole-status input[value='used']")
    page.uncheck("#whole-status input[value='declared-unused']")
    page.uncheck("#whole-status input[value='missing']")
    page.uncheck("#whole-status input[value='interposed']")
    assert page.evaluate("linkgraphWhole.visibleEdges()") == hidden_count
    watch.assert_clean()


def test_article_in_the_browser(article_server: ViewerServer, pages: Pages) -> None:
    fw = article_server.firmware_id(ARTICLE_NAME)
    # one firmware in the store: / goes straight to it
    page, watch = pages.open(article_server, "/", ready=True)
    assert urllib.parse.urlsplit(page.url).path == f"/fw/{fw}/"
    watch.assert_clean()
    check_article_viewer(pages, article_server, fw)


def test_article_in_the_browser_on_neo4j(article_neo4j_server: ViewerServer, pages: Pages) -> None:
    server = article_neo4j_server
    fw = server.firmware_id(ARTICLE_NAME)
    page, watch = pages.open(server, "/", ready=False)
    if len(server.json("/api/firmware")) > 1:  # other tests' firmware on the server: the list
        link = page.locator(f"tr[data-firmware='{fw}'] a", has_text=ARTICLE_NAME)
        assert link.count() == 1
        wait_until(
            page, "fw => document.querySelector(`tr[data-firmware='${fw}'] .modules-count`).textContent !== ''", fw
        )
    else:
        wait_ready(page)
    watch.assert_clean()
    check_article_viewer(pages, server, fw)


def test_unknown_firmware_is_a_404(article_server: ViewerServer) -> None:
    for path in ("/fw/0000000000000000/", "/fw/0000000000000000/whole", "/fw/0000000000000000/licences"):
        status, _ctype, body = article_server.get(path)
        assert status == 404 and b"no firmware" in body, (path, status, body[:200])
    for script in ("whole.js", "licences.js", "licence.js"):
        status, _, _ = article_server.get(f"/static/{script}")
        assert status == 200, script


def test_pages_use_only_local_assets(article_server: ViewerServer, pages: Pages) -> None:
    """No CDN: every script and style sheet comes from the viewer; a strict CSP forbids the rest."""
    fw = article_server.firmware_id(ARTICLE_NAME)
    for path in (f"/fw/{fw}/", f"/fw/{fw}/whole", f"/fw/{fw}/licences"):
        status, ctype, _body = article_server.get(path)
        assert status == 200 and ctype.startswith("text/html")
        csp = article_server.headers(path).get("Content-Security-Policy", "")
        assert "script-src 'self'" in csp and "default-src 'self'" in csp, csp
        page, watch = pages.open(article_server, path)
        urls = page.evaluate("""() => [...document.querySelectorAll('script, link[rel=stylesheet], link[rel=icon]')]
            .map(e => e.src || e.href)""")
        assert urls and all(u.startswith(article_server.url + "/static/") for u in urls), urls
        assert page.evaluate("[...document.querySelectorAll('script')].every(s => s.src)"), "inline script"
        watch.assert_clean()
