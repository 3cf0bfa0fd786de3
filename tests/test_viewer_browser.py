"""The web viewer in a real browser: ``linkgraph serve`` as a user runs it, Chromium driven by Playwright.

* The article's busybox (tests/test_article_case.py) on both stores: the tree and its filters, the
  ELF analysis with expandable symbols, the Graph tab drawn with the conventions (red hidden,
  dashed blue declared-unused, counts on used edges), clicking an edge shows its symbols,
  clicking a module moves to it, the exports, the bookmarkable URL, the whole-firmware canvas.
* The whole-firmware view of a root of real host programs: time to the first interactive frame
  (printed, and written to the artifacts folder), every module and edge counted.
* Hostile names (markup, quotes, very long, not UTF-8) are shown as text everywhere: no dialog
  opens, no ``img`` element appears, the text is there literally, the SVG export holds no markup.

Screenshots of every page go to ``$LINKGRAPH_TEST_ARTIFACTS`` (default ``tests/artifacts/``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import (
    Browser,
    PageWatch,
    ViewerServer,
    artifacts_dir,
    launch_chromium,
    parse_rgb,
    screenshot,
    svg_point,
    wait_ready,
    wait_until,
)
from conftest import linkgraph
from test_article_case import build_article_root

BUSYBOX, UTIL, NVRAM, APCFG, APLOG = "/bin/busybox", "/lib/libutility.so", "/lib/libnvram.so", "/lib/libapcfg.so", \
    "/lib/libaplog.so"
CRYPT, GCC_S, LIBC = "/lib/libcrypt.so.0", "/lib/libgcc_s.so.1", "/lib/x86_64-linux-gnu/libc.so.6"
ARTICLE_NAME = "tew-636apb-browser"
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
# 30 wheel events, one an animation frame, alternately in and out: the mean time of a frame (ms)
ZOOM_FRAMES = """() => new Promise(done => {
    const canvas = document.getElementById('whole-canvas');
    const r = canvas.getBoundingClientRect();
    const t0 = performance.now();
    let n = 0;
    function step() {
        canvas.dispatchEvent(new WheelEvent('wheel', {deltaY: n % 2 ? 120 : -120, clientX: r.left + r.width / 3,
            clientY: r.top + r.height / 2, bubbles: true, cancelable: true}));
        if (++n < 30) requestAnimationFrame(step);
        else requestAnimationFrame(() => done((performance.now() - t0) / 30));
    }
    step();
})"""


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Chromium (Debian's, never downloaded) with a fresh profile; missing Chromium fails."""
    b = launch_chromium()
    try:
        yield b
    finally:
        b.close()


class Pages:
    """Opens pages on a viewer; each page is watched (dialogs, script errors, failed requests) and
    photographed when the test ends."""

    def __init__(self, browser: Browser, name: str) -> None:
        self.browser = browser
        self.name = name
        self.opened: list[tuple[Any, PageWatch]] = []

    def open(self, server: ViewerServer, path: str, ready: bool = True) -> tuple[Any, PageWatch]:
        page = self.browser.context.new_page()
        watch = PageWatch(server.url)
        watch.attach(page)
        self.opened.append((page, watch))
        page.goto(server.url + path)
        if ready:
            wait_ready(page)
        return page, watch

    def close(self) -> None:
        for i, (page, _) in enumerate(self.opened):
            try:
                screenshot(page, f"{self.name}-{i}")
            finally:
                page.close()


@pytest.fixture
def pages(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Pages]:
    p = Pages(browser, request.node.name)
    try:
        yield p
    finally:
        p.close()


@pytest.fixture(scope="module")
def article_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_article_root(tmp_path_factory.mktemp("article-browser") / "root").path


@pytest.fixture(scope="module")
def article_server(article_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    work = tmp_path_factory.mktemp("article-serve")
    db = work / "graph.lbdb"
    proc = linkgraph("scan", str(article_root), "--db", str(db), "--name", ARTICLE_NAME, "--quiet")
    assert proc.returncode == 0, proc.stderr
    with ViewerServer(["--db", str(db)], work) as server:
        yield server


# --------------------------------------------------------------------------- helpers


def q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


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


def drawn_edges(page: Any) -> list[dict[str, Any]]:
    """The edges of the Graph tab as drawn: id, class, stroke colour and dashes, label text."""
    return page.evaluate("""() => [...document.querySelectorAll('#tabpanel-graph g.edge[data-status]')].map(g => {
        const path = g.querySelector('path:not(.hit)');
        const style = getComputedStyle(path);
        return {id: g.id, cls: g.getAttribute('class'), status: g.dataset.status, stroke: style.stroke,
                dash: style.strokeDasharray, label: [...g.querySelectorAll('text')].map(t => t.textContent).join(' ')};
    })""")


def open_tab(page: Any, tab: str) -> None:
    page.click(f"#tab-{tab}")
    assert page.get_attribute(f"#tab-{tab}", "aria-selected") == "true"
    if tab == "graph":
        page.wait_for_selector("#tabpanel-graph[data-state='ready']")


def current_params(page: Any) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))


def graph_edges(server: ViewerServer, fw: str, path: str) -> tuple[dict[str, Any], dict[str, tuple]]:
    """The graph JSON and its edges by id as (from path, to path or soname, status, symbols)."""
    graph = server.json(f"/api/firmware/{fw}/graph?path={q(path)}")
    nodes = {n["id"]: n for n in graph["nodes"]}
    edges = {e["id"]: (nodes[e["from"]]["path"], nodes[e["to"]]["path"] or nodes[e["to"]]["label"], e["status"],
                       tuple(e["symbols"])) for e in graph["edges"]}
    return graph, edges


def assert_no_markup_elements(page: Any) -> None:
    """Nothing from the data became an element or an event handler."""
    found = page.evaluate("""() => {
        const out = [];
        for (const node of document.querySelectorAll('*')) {
            const tag = node.localName;
            if (['img', 'iframe', 'object', 'embed', 'foreignobject'].includes(tag)) out.push(tag);
            if (tag === 'script' && !(node.getAttribute('src') || '').startsWith('/static/')) out.push('inline script');
            for (const attr of node.attributes) if (attr.name.startsWith('on')) out.push(tag + ' ' + attr.name);
        }
        return out;
    }""")
    assert found == [], f"markup from the data reached the DOM: {found}"


# --------------------------------------------------------------------------- the article, on one store


def check_article_viewer(pages: Pages, server: ViewerServer, fw: str) -> None:
    """The whole busybox walk-through on one running viewer."""
    page, watch = pages.open(server, f"/fw/{fw}/")
    assert page.inner_text("header .fw-name") == ARTICLE_NAME

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
    for text in ("executable", "X86_64", "/lib64/ld-linux-x86-64.so.2", "/bin/sh", "/sbin/init", "SHA256"):
        assert text in overview, (text, overview)

    # --- ELF analysis: the sections, the edges, the symbols behind them (expandable)
    open_tab(page, "analysis")
    assert current_params(page)["tab"] == "analysis"
    sections = page.eval_on_selector_all("#tabpanel-analysis section.analysis-section",
                                         "els => els.map(s => s.dataset.section)")
    assert sections == ["declared", "used", "declared_unused", "hidden", "missing", "used_by", "unresolved",
                        "duplicates"]
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
    assert page.locator("#tabpanel-graph svg #legend").count() == 1
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
    assert stroke.lower() in ("red", "#c8201e") or (stroke.startswith("#") and int(stroke[1:3], 16) > 150
                                                    and int(stroke[3:5], 16) < 90), stroke
    for what, magic in (("pdf", b"%PDF"), ("png", b"\x89PNG")):
        href = page.get_attribute(f"#tabpanel-graph a.export-diagram-{what}", "href")
        status, ctype, body = server.get(href)
        assert status == 200 and body.startswith(magic), (what, status, ctype, body[:40])
    open_tab(page, "analysis")
    status, ctype, body = server.get(page.get_attribute("#tabpanel-analysis a.export-analysis-csv", "href"))
    assert status == 200 and ctype.startswith("text/csv") and b"util_foo" in body, (status, ctype, body[:300])
    open_tab(page, "graph")

    # click the module libapcfg: the panel moves to it (the URL too), Graph tab kept
    apcfg_node = next(n["id"] for n in graph["nodes"] if n["path"] == APCFG)
    page.click(f"#tabpanel-graph g#{apcfg_node}")
    wait_until(page, "() => document.querySelector('#panel .file-name')?.textContent === 'libapcfg.so'")
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    assert current_params(page) == {"path": APCFG, "tab": "graph"}
    assert page.get_attribute(f"#tree a.entry[data-path='{APCFG}']", "aria-current") == "true"
    _, apcfg_edges = graph_edges(server, fw, APCFG)
    assert {e[:3] for e in apcfg_edges.values()} >= {(APCFG, UTIL, "hidden"), (APCFG, APLOG, "hidden"),
                                                     (APCFG, NVRAM, "used")}
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

    # --- the whole-firmware view: counts, a click on a module, a click on an edge
    page, watch = pages.open(server, f"/fw/{fw}/whole")
    whole = server.json(f"/api/firmware/{fw}/whole")
    state = page.evaluate("({n: linkgraphWhole.nodes, e: linkgraphWhole.edges, v: linkgraphWhole.visibleEdges(),"
                          " ready: linkgraphWhole.ready})")
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
    assert page.evaluate("linkgraphWhole.visibleEdges()") == hidden_count
    watch.assert_clean()


def test_article_in_the_browser(article_server: ViewerServer, pages: Pages) -> None:
    fw = article_server.firmware_id(ARTICLE_NAME)
    # one firmware in the store: / goes straight to it
    page, watch = pages.open(article_server, "/", ready=True)
    assert urllib.parse.urlsplit(page.url).path == f"/fw/{fw}/"
    watch.assert_clean()
    check_article_viewer(pages, article_server, fw)


def test_article_in_the_browser_on_neo4j(article_root: Path, neo4j_server: Any, neo4j_env: dict[str, str],
                                        pages: Pages, tmp_path: Path) -> None:
    proc = linkgraph("scan", str(article_root), "--neo4j", neo4j_server.uri, "--name", ARTICLE_NAME, "--quiet",
                     env=neo4j_env)
    assert proc.returncode == 0, proc.stderr
    with ViewerServer(["--neo4j", neo4j_server.uri], tmp_path, env=neo4j_env) as server:
        fw = server.firmware_id(ARTICLE_NAME)
        page, watch = pages.open(server, "/", ready=False)
        if len(server.json("/api/firmware")) > 1:  # other tests' firmware on the server: the list
            link = page.locator(f"tr[data-firmware='{fw}'] a", has_text=ARTICLE_NAME)
            assert link.count() == 1
            wait_until(page, "fw => document.querySelector(`tr[data-firmware='${fw}'] .modules-count`)"
                             ".textContent !== ''", fw)
        else:
            wait_ready(page)
        watch.assert_clean()
        check_article_viewer(pages, server, fw)


def test_unknown_firmware_is_a_404(article_server: ViewerServer) -> None:
    for path in ("/fw/0000000000000000/", "/fw/0000000000000000/whole"):
        status, ctype, body = article_server.get(path)
        assert status == 404 and b"no firmware" in body, (path, status, body[:200])
    status, _, _ = article_server.get("/static/whole.js")
    assert status == 200


def test_pages_use_only_local_assets(article_server: ViewerServer, pages: Pages) -> None:
    """No CDN: every script and style sheet comes from the viewer; a strict CSP forbids the rest."""
    fw = article_server.firmware_id(ARTICLE_NAME)
    for path in (f"/fw/{fw}/", f"/fw/{fw}/whole"):
        status, ctype, body = article_server.get(path)
        assert status == 200 and ctype.startswith("text/html")
        csp = article_server.headers(path).get("Content-Security-Policy", "")
        assert "script-src 'self'" in csp and "default-src 'self'" in csp, csp
        page, watch = pages.open(article_server, path)
        urls = page.evaluate("""() => [...document.querySelectorAll('script, link[rel=stylesheet], link[rel=icon]')]
            .map(e => e.src || e.href)""")
        assert urls and all(u.startswith(article_server.url + "/static/") for u in urls), urls
        assert page.evaluate("[...document.querySelectorAll('script')].every(s => s.src)"), "inline script"
        watch.assert_clean()


# --------------------------------------------------------------------------- the whole firmware of host programs


@pytest.fixture(scope="module")
def host_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    import hostroot

    root = hostroot.cached_host_root(limit=600)
    work = tmp_path_factory.mktemp("host-serve")
    db = work / "graph.lbdb"
    proc = linkgraph("scan", str(root), "--db", str(db), "--name", "host-programs", "--quiet", timeout=1800)
    assert proc.returncode in (0, 1), proc.stderr
    with ViewerServer(["--db", str(db)], work) as server:
        yield server


def test_whole_firmware_of_host_programs(host_server: ViewerServer, pages: Pages) -> None:
    fw = host_server.firmware_id("host-programs")
    whole = host_server.json(f"/api/firmware/{fw}/whole")
    assert len(whole["nodes"]) > 300 and len(whole["edges"]) > 1000, (len(whole["nodes"]), len(whole["edges"]))
    started = time.monotonic()
    page, watch = pages.open(host_server, f"/fw/{fw}/whole")
    wall = time.monotonic() - started
    state = page.evaluate("""({ready: linkgraphWhole.ready, first: linkgraphWhole.firstFrameMs,
        data: linkgraphWhole.dataMs, nodes: linkgraphWhole.nodes, edges: linkgraphWhole.edges,
        visible: linkgraphWhole.visibleEdges(), shown: linkgraphWhole.visibleNodes(),
        frames: linkgraphWhole.frames})""")
    assert state["ready"] is True and state["frames"] >= 1
    assert state["nodes"] == len(whole["nodes"]) and state["edges"] == len(whole["edges"])
    assert state["visible"] == len(whole["edges"]) and state["shown"] == len(whole["nodes"])
    assert isinstance(state["first"], (int, float)) and state["first"] > 0
    timing = {"modules": state["nodes"], "edges": state["edges"], "first_frame_ms": round(state["first"], 1),
              "data_arrived_ms": round(state["data"], 1), "wall_s": round(wall, 2)}
    print(f"\nwhole-firmware view: {state['nodes']} modules, {state['edges']} edges; data at "
          f"{state['data']:.0f} ms, first interactive frame at {state['first']:.0f} ms after navigation start")

    # still interactive: highlight a hub's neighbourhood, redraw many times, filter, search
    libc = next(n["path"] for n in whole["nodes"] if n["label"] == "libc.so.6")
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(libc)})")
    assert page.get_attribute("#whole-info", "data-node") == libc
    users = sum(1 for e in whole["edges"] if e["to"] == next(n["id"] for n in whole["nodes"] if n["path"] == libc))
    assert f"Used by ({users})" in page.inner_text("#whole-info")
    redraw = page.evaluate(ZOOM_FRAMES)
    timing["zoom_frame_ms"] = round(redraw, 1)
    print(f"zooming with libc's neighbourhood highlighted: {redraw:.0f} ms a frame")
    canvas = page.locator("#whole-canvas").bounding_box()
    page.evaluate("linkgraphWhole.fit()")
    exe = next(n for n in whole["nodes"] if n["kind"] == "executable")
    pos = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(exe['path'])})")
    page.mouse.move(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    page.mouse.down()
    page.mouse.up()
    assert page.get_attribute("#whole-info", "data-node") == exe["path"]
    # hovering a module highlights it, its neighbours and its edges
    ids = {n["id"]: n["path"] or n["label"] for n in whole["nodes"]}
    lib = next(n for n in whole["nodes"] if n["label"].startswith("libselinux") or n["label"].startswith("libz."))
    around = {lib["path"]} | {ids[e["from"]] for e in whole["edges"] if e["to"] == lib["id"]} \
        | {ids[e["to"]] for e in whole["edges"] if e["from"] == lib["id"]}
    degree = sum(1 for e in whole["edges"] if lib["id"] in (e["from"], e["to"]))
    page.evaluate(f"linkgraphWhole.select({json.dumps(lib['path'])})")  # brings it on screen
    page.click("#whole-canvas", position={"x": 2, "y": 2})  # a click on nothing: no selection
    assert page.evaluate("linkgraphWhole.selected()") is None
    pos = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(lib['path'])})")
    page.mouse.move(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    for _ in range(6):  # zoom in on it with the wheel, until its row is clear of the next ones
        page.mouse.wheel(0, -300)
        page.wait_for_timeout(50)
    pos = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(lib['path'])})")
    page.mouse.move(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    wait_until(page, "want => linkgraphWhole.highlighted().focus === want", lib["path"])
    lit = page.evaluate("linkgraphWhole.highlighted()")
    assert set(lit["nodes"]) == around and lit["edges"] == degree, (lit, sorted(around), degree)
    page.mouse.move(canvas["x"] + 2, canvas["y"] + 2)
    # filters: kinds and folders
    page.uncheck("#whole-kind input[value='executable']")
    assert page.evaluate("linkgraphWhole.visibleNodes()") == sum(1 for n in whole["nodes"] if n["kind"] != "executable")
    page.check("#whole-kind input[value='executable']")
    page.select_option("#whole-dir", "/usr/bin")
    assert page.evaluate("linkgraphWhole.visibleNodes()") == sum(1 for n in whole["nodes"] if n["dir"] == "/usr/bin")
    page.select_option("#whole-dir", "")
    hidden = sum(1 for e in whole["edges"] if e["status"] == "hidden")
    page.uncheck("#whole-status input[value='used']")
    page.uncheck("#whole-status input[value='declared-unused']")
    assert page.evaluate("linkgraphWhole.visibleEdges()") == hidden
    page.check("#whole-status input[value='used']")
    page.fill("#whole-search", "libc.so")
    wait_until(page, "() => document.querySelector('#whole-matches').textContent.includes('match')")
    assert "libc.so.6" in page.inner_text("#whole-matches")
    (artifacts_dir() / "whole-firmware-timing.json").write_text(json.dumps(timing, indent=1))
    watch.assert_clean()


# --------------------------------------------------------------------------- hostile names

MARKUP = "<img src=x onerror=alert(1)>.so"
SCRIPT_SYMBOL = "<script>alert(1)</script>"
QUOTE_SYMBOL = "\"'><svg onload=alert(2)>"
LONG_SYMBOL = "long_" + "L" * 700
GHOST = "<b onmouseover=alert(4)>gone'\".so"  # names cannot hold a slash
LINK = "\"quoted' <i onclick=alert(3)>link.so"
LONG_DIR = "/opt/" + "d" * 150
LONG_LIB = "lib" + "x" * 200 + ".so"
BAD_PROGRAM = b"prog\xff\xfe<u>"
FIRMWARE_NAME = "<img src=x onerror=alert(1)> \"firmware\""
LIB_C = "int markup_fn(void) { return 42; }\nint quote_fn(void) { return 1; }\nint long_fn(void) { return 2; }\n"
LONG_C = "int longlib_fn(void) { return 3; }\n"
GHOST_C = "int ghost_fn(void) { return 4; }\n"
MAIN_C = ("int markup_fn(void); int quote_fn(void); int long_fn(void); int longlib_fn(void); int ghost_fn(void);\n"
          "int main(void) { return markup_fn() + quote_fn() + long_fn() + longlib_fn() + ghost_fn(); }\n")


def _run(cmd: list[Any]) -> None:
    proc = subprocess.run(cmd, capture_output=True, timeout=120)
    assert proc.returncode == 0, f"{cmd!r}: {proc.stderr.decode(errors='replace')}"


def build_hostile_root(base: Path) -> Path:
    """A root whose names are markup, quotes, very long or not UTF-8 (built with gcc and objcopy)."""
    build = base / "build"
    root = base / "root"
    build.mkdir(parents=True)
    for d in ("lib", "usr/bin", LONG_DIR.lstrip("/")):
        (root / d).mkdir(parents=True, exist_ok=True)
    for name, text in (("lib.c", LIB_C), ("long.c", LONG_C), ("ghost.c", GHOST_C), ("main.c", MAIN_C)):
        (build / name).write_text(text)
    redefine = [f"--redefine-sym=markup_fn={SCRIPT_SYMBOL}", f"--redefine-sym=quote_fn={QUOTE_SYMBOL}",
                f"--redefine-sym=long_fn={LONG_SYMBOL}"]
    for src in ("lib", "long", "ghost"):
        _run(["gcc", "-fPIC", "-c", str(build / f"{src}.c"), "-o", str(build / f"{src}.o")])
    _run(["gcc", "-c", str(build / "main.c"), "-o", str(build / "main.o")])
    for obj in ("lib.o", "main.o"):
        _run(["objcopy", *redefine, str(build / obj)])
    markup_lib = root / "lib" / MARKUP
    long_lib = root / LONG_DIR.lstrip("/") / LONG_LIB
    ghost = build / "ghost.so"  # linked against, not shipped: a missing library
    _run(["gcc", "-shared", "-o", str(markup_lib), str(build / "lib.o"), f"-Wl,-soname,{MARKUP}"])
    _run(["gcc", "-shared", "-o", str(long_lib), str(build / "long.o"), f"-Wl,-soname,{LONG_LIB}"])
    _run(["gcc", "-shared", "-o", str(ghost), str(build / "ghost.o"), f"-Wl,-soname,{GHOST}"])
    program = os.path.join(os.fsencode(root / "usr" / "bin"), BAD_PROGRAM)
    _run([b"gcc", b"-o", program, os.fsencode(build / "main.o"), os.fsencode(markup_lib), os.fsencode(long_lib),
          os.fsencode(ghost), f"-Wl,-rpath,{LONG_DIR}".encode()])
    os.symlink(MARKUP, root / "lib" / LINK)
    return root


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    work = tmp_path_factory.mktemp("hostile-serve")
    root = build_hostile_root(work)
    db = work / "graph.lbdb"
    proc = linkgraph("scan", str(root), "--db", str(db), "--name", FIRMWARE_NAME, "--quiet")
    assert proc.returncode in (0, 1), proc.stderr
    other = work / "other"  # a second firmware, so that / lists them
    (other / "lib").mkdir(parents=True)
    shutil.copy2(root / "lib" / MARKUP, other / "lib" / MARKUP)
    proc = linkgraph("scan", str(other), "--db", str(db), "--name", f"{FIRMWARE_NAME} (other)", "--quiet")
    assert proc.returncode in (0, 1), proc.stderr
    with ViewerServer(["--db", str(db)], work) as server:
        yield server


def test_hostile_names_are_text_everywhere(hostile_server: ViewerServer, pages: Pages) -> None:
    server = hostile_server
    fw = server.firmware_id(FIRMWARE_NAME)
    tree = server.json(f"/api/firmware/{fw}/tree")
    program = next(e["path"] for e in tree["entries"] if e["path"].startswith("/usr/bin/prog"))
    assert "\\x" in program or "%" in program, program  # the bytes that are not UTF-8 are shown escaped
    markup_path = f"/lib/{MARKUP}"
    long_path = f"{LONG_DIR}/{LONG_LIB}"

    # the firmware list: the names are text, the links lead to them
    page, watch = pages.open(server, "/", ready=False)
    names = page.locator("table.firmware-list tbody tr td:first-child").all_inner_texts()
    assert sorted(names) == sorted([FIRMWARE_NAME, f"{FIRMWARE_NAME} (other)"]), names
    modules = next(f["modules"] for f in server.json("/api/firmware") if f["id"] == fw)
    wait_until(page, "([fw, n]) => document.querySelector(`tr[data-firmware='${fw}'] .modules-count`)"
                     ".textContent === String(n)", [fw, modules])
    assert_no_markup_elements(page)
    page.click(f"tr[data-firmware='{fw}'] td:first-child a")
    wait_ready(page)
    assert urllib.parse.urlsplit(page.url).path == f"/fw/{fw}/"
    # the firmware name is text in the header and the title
    assert page.inner_text("header .fw-name") == FIRMWARE_NAME
    assert FIRMWARE_NAME in page.title()
    tree_text = page.inner_text("#tree")
    for text in (MARKUP, LINK, GHOST, program.rsplit("/", 1)[1], LONG_LIB[:40]):
        assert text in tree_text, (text, tree_text)
    assert page.locator(f"#tree a.entry[data-path={json.dumps(f'/lib/{LINK}')}] .target").inner_text() \
        == f"→ {markup_path}"
    assert_no_markup_elements(page)
    no_overflow = "document.documentElement.scrollWidth <= window.innerWidth + 1"
    assert page.evaluate(no_overflow), "a long name widens the page"

    # the program: the ELF analysis shows every hostile symbol as text
    page.click(f"#tree a.entry[data-path={json.dumps(program)}]")
    page.wait_for_selector("#panel[data-state='ready']")
    assert current_params(page)["path"] == program
    open_tab(page, "analysis")
    used = page.locator("section[data-section='used'] tbody tr", has_text=MARKUP)
    used.locator("summary").click()
    used.locator("ul.symbol-list li").first.wait_for()
    symbols = used.locator("ul.symbol-list li").all_inner_texts()
    assert SCRIPT_SYMBOL in symbols and QUOTE_SYMBOL in symbols and LONG_SYMBOL in symbols, symbols
    assert GHOST in page.inner_text("section[data-section='missing']")
    assert page.evaluate(no_overflow), "a long symbol widens the page"
    assert_no_markup_elements(page)

    # the Graph tab: labels are text, the edge box shows the symbols as text
    open_tab(page, "graph")
    labels = page.eval_on_selector_all("#tabpanel-graph g.node text", "ts => ts.map(t => t.textContent)")
    assert any(MARKUP in t for t in labels), labels
    graph, edges = graph_edges(server, fw, program)
    edge_id = next(i for i, e in edges.items() if e[1] == markup_path)
    x, y = svg_point(page, f"#tabpanel-graph g#{edge_id} path.hit")
    page.mouse.click(x, y)
    box_text = page.locator("#tabpanel-graph .edge-box").inner_text()
    assert SCRIPT_SYMBOL in box_text and QUOTE_SYMBOL in box_text and markup_path in box_text, box_text
    assert_no_markup_elements(page)

    # the SVG export: the names are escaped text, no markup element, no handler
    status, ctype, body = server.get(page.get_attribute("#tabpanel-graph a.export-diagram-svg", "href"))
    assert status == 200 and ctype.startswith("image/svg+xml")
    svg = ET.fromstring(body)
    tags = {el.tag.split("}")[-1].lower() for el in svg.iter()}
    assert not tags & {"img", "script", "foreignobject", "iframe", "b", "i", "u"}, tags
    assert not [a for el in svg.iter() for a in el.attrib if a.lower().startswith("on")]
    assert any(MARKUP in "".join(el.itertext()) for el in svg.iter(f"{SVG_NS}text")), "the label is there as text"

    # the library with the markup name: its own page, and the symlink to it
    page.click(f"#tabpanel-graph g#{next(n['id'] for n in graph['nodes'] if n['path'] == markup_path)}")
    wait_until(page, "want => document.querySelector('#panel .file-name')?.textContent === want", MARKUP)
    assert current_params(page)["path"] == markup_path
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    open_tab(page, "overview")
    overview = page.inner_text("#tabpanel-overview")
    assert f"/lib/{LINK}" in overview and MARKUP in overview
    assert_no_markup_elements(page)
    watch.assert_clean()

    # a bookmarked URL of the symlink, and of the very long path
    page, watch = pages.open(server, f"/fw/{fw}/?path={q(f'/lib/{LINK}')}")
    page.wait_for_selector("#panel[data-state='ready']")
    assert page.inner_text("#panel .file-name") == MARKUP
    assert LINK in page.inner_text("#panel .via")
    page, watch2 = pages.open(server, f"/fw/{fw}/?path={q(long_path)}")
    page.wait_for_selector("#panel[data-state='ready']")
    assert page.inner_text("#panel .file-path") == long_path
    assert page.evaluate(no_overflow)
    watch.assert_clean()
    watch2.assert_clean()

    # the whole-firmware view: the selection panel shows the names as text
    page, watch = pages.open(server, f"/fw/{fw}/whole")
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(markup_path)})")
    info = page.inner_text("#whole-info")
    assert MARKUP in info and program.rsplit("/", 1)[1] in info, info
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(GHOST)})")
    assert GHOST in page.inner_text("#whole-info")
    page.fill("#whole-search", "<img")
    wait_until(page, "() => document.querySelector('#whole-matches').textContent.includes('match')")
    assert MARKUP in page.inner_text("#whole-matches")
    assert_no_markup_elements(page)
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
    assert not [a for a in cleaned["attrs"] if a.startswith("on") or "javascript" in a or "example.com" in a
                or "data:" in a], cleaned["attrs"]
    assert "id=n0" in cleaned["attrs"] and "href=#n0" in cleaned["attrs"]
    assert "<img src=x onerror=alert(6)>" in cleaned["text"]
    assert cleaned["error"] and "SVG" in cleaned["error"]
    # parsing the hostile sample makes Chromium report the (never run) handlers against the page's CSP
    watch.errors = [e for e in watch.errors if "Content Security Policy" not in e]
    watch.assert_clean()


def test_non_utf8_symbol_names_are_shown_escaped(tmp_path: Path, pages: Pages) -> None:
    """A symbol name that is not UTF-8 is stored and shown escaped (like file names), as text."""
    build = tmp_path / "build"
    root = tmp_path / "root"
    build.mkdir()
    (root / "lib").mkdir(parents=True)
    (root / "usr" / "bin").mkdir(parents=True)
    (build / "lib.c").write_text("int bad_fn(void) { return 3; }\n")
    (build / "main.c").write_text("int bad_fn(void);\nint main(void) { return bad_fn(); }\n")
    _run(["gcc", "-fPIC", "-c", str(build / "lib.c"), "-o", str(build / "lib.o")])
    _run(["gcc", "-c", str(build / "main.c"), "-o", str(build / "main.o")])
    for obj in ("lib.o", "main.o"):
        _run([b"objcopy", b"--redefine-sym=bad_fn=bad_\xff\xfe<i>_fn", os.fsencode(build / obj)])
    _run(["gcc", "-shared", "-o", str(root / "lib" / "libbad.so"), str(build / "lib.o"), "-Wl,-soname,libbad.so"])
    _run(["gcc", "-o", str(root / "usr" / "bin" / "badsym"), str(build / "main.o"), str(root / "lib" / "libbad.so")])
    db = tmp_path / "graph.lbdb"
    proc = linkgraph("scan", str(root), "--db", str(db), "--name", "badsym", "--quiet", check=False)
    last = proc.stderr.strip().splitlines()[-1:] or [""]
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, f"the scan crashed: {last[0]}"
    with ViewerServer(["--db", str(db)], tmp_path) as server:
        fw = server.firmware_id("badsym")
        page, watch = pages.open(server, f"/fw/{fw}/?path={q('/usr/bin/badsym')}&tab=analysis")
        page.wait_for_selector("#panel[data-state='ready']")
        row = page.locator("section[data-section='used'] tbody tr", has_text="libbad.so")
        row.locator("summary").click()
        text = row.locator("ul.symbol-list").inner_text()
        assert "bad_" in text and "<i>_fn" in text and ("\\x" in text or "%" in text or "\ufffd" in text), text
        assert_no_markup_elements(page)
        watch.assert_clean()
