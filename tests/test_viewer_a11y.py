"""Accessibility and narrow screens, in a real Chromium on the article's root (and a copy of it that
lost a library, for the compare page).

* axe-core (tests/vendor, injected into the page) finds no serious or critical violation on the
  firmware page, a file page (each tab), the whole view, the Licences page and the compare page.
* axe-core finds none either on the compliance report as ``linkgraph report --format html`` writes it.
* A keyboard-only walk: from the firmware page, the tree (one tab stop, arrow keys) opens a file with
  Enter; the tabs (one tab stop, arrow keys) switch to the Graph tab; Tab and Enter select an edge of
  the graph; Back returns to the Overview.
* The whole view by keyboard: Tab reaches the drawing (never the disabled "Leave the focus"), which
  shows a focus ring; Left and Right move a cursor from module to module (Enter opens a group),
  Enter selects a module, Down and Up go through its edges and Enter selects one, Escape clears.
* At 320 and 400 px wide every page opens without a script error, its main content is in view, the
  body does not overflow the viewport across, the graph and the whole view draw their modules, and
  the search drawer's table headers, sonames and versions are not broken inside a word (a screenshot each).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.axe import severe, violations
from support.browser import (
    APCFG,
    APLOG,
    ARTICLE_NAME,
    Pages,
    PageWatch,
    ViewerServer,
    artifacts_dir,
    q,
    scan_into,
    screenshot,
    wait_until,
)
from support.browser import (
    Browser as Chromium,
)

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

SHRUNK = "article-without-libaplog"
WIDTHS = (320, 400)


@pytest.fixture(scope="module")
def shrunk_root(article_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the article's root without libaplog.so (the compare page's other firmware)."""
    shrunk = tmp_path_factory.mktemp("a11y-shrunk") / "root"
    shutil.copytree(article_root, shrunk, symlinks=True)
    (shrunk / APLOG.lstrip("/")).unlink()
    return shrunk


@pytest.fixture(scope="module")
def server(
    article_root: Path, shrunk_root: Path, article_overrides: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ViewerServer]:
    """Both roots scanned into one store, served."""
    work = tmp_path_factory.mktemp("a11y-serve")
    for root, name in ((article_root, ARTICLE_NAME), (shrunk_root, SHRUNK)):
        scan_into(work / "graph.lbdb", root, name, article_overrides)
    with ViewerServer(["--db", str(work / "graph.lbdb")], work) as served:
        yield served


def page_urls(server: ViewerServer) -> dict[str, str]:
    ids = {f["name"]: f["id"] for f in server.json("/api/firmware")}
    fw = ids[ARTICLE_NAME]
    file = f"/fw/{fw}/?path={q(APCFG)}"
    return {
        "firmware": f"/fw/{fw}/",
        "file-overview": file,
        "file-analysis": f"{file}&tab=analysis",
        "file-graph": f"{file}&tab=graph",
        "whole": f"/fw/{fw}/whole",
        "licences": f"/fw/{fw}/licences",
        "compare": f"/compare?old={ids[ARTICLE_NAME]}&new={ids[SHRUNK]}",
        "error": "/fw/0000nope/",  # the viewer's error page (an unknown firmware)
    }


BADGE_SIZES = """() => [...document.querySelectorAll('#tree .kind, #tree .flag')]
    .map((e) => parseFloat(getComputedStyle(e).fontSize))"""


def clean(name: str, watch: PageWatch, server: ViewerServer) -> None:
    """Nothing failed on the page (the error page's own 404 is the page itself)."""
    if name == "error":
        assert watch.failed == [f"{server.url}/fw/0000nope/: 404"], watch.failed
        watch.failed.clear()
    watch.assert_clean()


def settle(page: Any, name: str, watch: PageWatch) -> None:
    """Wait until the page has drawn what it shows (its script ready, the graph or the layout done); a
    script error on the way is the failure."""
    try:
        drawn(page, name)
    except AssertionError:
        watch.assert_clean()
        raise


def drawn(page: Any, name: str) -> None:
    if name not in ("compare", "error"):  # pages without a script of their own
        wait_until(page, "() => document.body.dataset.ready", timeout=60)
    if name == "file-graph":
        wait_until(page, "() => document.querySelector('#tabpanel-graph')?.dataset.state === 'ready'")
    if name == "whole":
        wait_until(page, "() => linkgraphWhole.ready && linkgraphWhole.busy === 0")


def test_axe_finds_nothing_serious(server: ViewerServer, pages: Pages) -> None:
    counts: dict[str, tuple[int, int]] = {}
    found: dict[str, list[dict[str, Any]]] = {}
    kinds: dict[str, list[str]] = {}
    for name, url in page_urls(server).items():
        page, watch = pages.open(server, url, ready=False)
        settle(page, name, watch)
        seen = violations(page)
        counts[name] = (len(seen), len(severe(seen)))
        found[name] = severe(seen)
        kinds[name] = [f"{v['id']} ({v['impact']}, {v['count']})" for v in seen]
        screenshot(page, f"a11y-axe-{name}")
        clean(name, watch, server)
    print("axe violations (all, serious or critical) per page:", counts)
    (artifacts_dir() / "a11y-axe.json").write_text(
        json.dumps({"counts": counts, "all": kinds, "severe": found}, indent=1)
    )
    assert not any(found.values()), {k: v for k, v in found.items() if v}


def test_axe_on_the_html_report(article_root: Path, article_overrides: Path, browser: Chromium, tmp_path: Path) -> None:
    db, report = tmp_path / "graph.lbdb", tmp_path / "report.html"
    scan_into(db, article_root, ARTICLE_NAME, article_overrides)
    proc = linkgraph("report", "--db", str(db), "--format", "html", "-o", str(report))
    assert proc.returncode == 0, proc.stderr
    page = browser.context.new_page()
    try:
        page.goto(report.as_uri())
        assert page.evaluate("() => document.querySelectorAll('section').length") > 3
        seen = violations(page)
        screenshot(page, "a11y-axe-html-report")
    finally:
        page.close()
    print("axe violations on the HTML report:", [f"{v['id']} ({v['impact']}, {v['count']})" for v in seen])
    assert not severe(seen), severe(seen)


FOCUSED = """() => {
    const a = document.activeElement;
    return {role: a?.getAttribute('role') ?? null, path: a?.dataset?.path ?? null, tab: a?.dataset?.tab ?? null,
            id: a?.id ?? null, inTree: !!a?.closest('#tree'), cls: a?.getAttribute('class') ?? null};
}"""


def press_until(page: Any, key: str, check: str, arg: Any = None, most: int = 80) -> dict[str, Any]:
    """Press *key* until the focused element answers *check*; returns what is focused."""
    for _ in range(most):
        page.keyboard.press(key)
        if page.evaluate(check, arg):
            return page.evaluate(FOCUSED)
    raise AssertionError(f"{key} x{most} never reached {check} ({arg!r}); focused: {page.evaluate(FOCUSED)}")


def test_keyboard_walk(server: ViewerServer, pages: Pages) -> None:
    page, watch = pages.open(server, page_urls(server)["firmware"])
    cut = page.evaluate(CUT_NAMES)
    assert cut == [], cut
    # the tree is one tab stop: Tab reaches one of its items, never two in a row
    first = press_until(page, "Tab", "() => !!document.activeElement.closest('#tree')")
    assert first["role"] == "treeitem", first
    page.keyboard.press("Tab")
    assert not page.evaluate(FOCUSED)["inTree"], "the tree takes more than one tab stop"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUSED)["inTree"]
    # arrow keys walk down to libapcfg.so; Enter opens it
    press_until(page, "ArrowDown", "p => document.activeElement.closest('[role=treeitem]')?.dataset.path === p", APCFG)
    page.keyboard.press("Enter")
    wait_until(page, "() => document.querySelector('#panel')?.dataset.state === 'ready'")
    assert page.inner_text("#panel .file-name") == "libapcfg.so"
    overview = page.url
    # the tabs are one tab stop; arrow keys move and choose
    at = press_until(page, "Tab", "() => document.activeElement.getAttribute('role') === 'tab'")
    assert at["tab"] == "overview", at
    assert page.evaluate("() => [...document.querySelectorAll('[role=tab]')].map(t => t.tabIndex)") == [0, -1, -1]
    page.keyboard.press("End")
    assert page.evaluate(FOCUSED)["tab"] == "graph"
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(FOCUSED)["tab"] == "graph"
    assert page.get_attribute("#tab-graph", "aria-selected") == "true"
    wait_until(page, "() => document.querySelector('#tabpanel-graph')?.dataset.state === 'ready'")
    # drawn in view, although it was started while its tab was hidden again (End, then Home)
    assert page.evaluate(MEASURE)["graphDrawn"] > 0
    # Tab into the drawing, on to an edge; Enter selects it and the side panel lists it
    edge = press_until(page, "Tab", "() => document.activeElement.matches('#tabpanel-graph g.edge')")
    page.keyboard.press("Enter")
    wait_until(page, "id => document.querySelector('#tabpanel-graph .edge-box')?.dataset.edge === id", edge["id"])
    assert f"select={edge['id']}" in page.url
    screenshot(page, "a11y-keyboard-edge")
    # Back (each tab chosen was a history entry): the edge unselected, the tabs, the Overview again
    for _ in range(8):
        if page.url == overview:
            break
        page.go_back()
    assert page.url == overview
    wait_until(page, "() => document.querySelector('#tab-overview')?.getAttribute('aria-selected') === 'true'")
    watch.assert_clean()


CURSOR = "() => document.getElementById('whole-cursor').textContent"
RING = """() => {
    const ring = getComputedStyle(document.querySelector('.whole-canvas-box'), '::after');
    return {content: ring.content, width: ring.borderTopWidth, colour: ring.borderTopColor};
}"""
WHOLE_READY = "() => linkgraphWhole.ready && linkgraphWhole.busy === 0"


def test_whole_view_by_keyboard(server: ViewerServer, pages: Pages) -> None:
    page, watch = pages.open(server, page_urls(server)["whole"], ready=False)
    wait_until(page, WHOLE_READY, timeout=60)
    assert page.evaluate(RING)["content"] in ("none", "normal")  # no ring before the drawing has the focus
    # Tab reaches the drawing; the "Leave the focus" button, disabled while nothing is focused, is skipped
    passed = []
    for _ in range(80):
        page.keyboard.press("Tab")
        passed.append(page.evaluate("() => document.activeElement.id"))
        if passed[-1] == "whole-canvas":
            break
    assert passed[-1] == "whole-canvas" and "whole-unfocus" not in passed, passed
    assert page.evaluate("() => document.getElementById('whole-unfocus').disabled")
    ring = page.evaluate(RING)
    assert ring["width"] == "3px" and ring["content"] not in ("none", "normal"), ring
    screenshot(page, "a11y-whole-keyboard-ring")
    # Right walks the modules (a closed group opens with Enter) to libapcfg.so; Enter selects it
    for _ in range(60):
        page.keyboard.press("ArrowRight")
        said = page.evaluate(CURSOR)
        if APCFG in said:
            break
        if said.startswith("group"):
            page.keyboard.press("Enter")
            wait_until(page, WHOLE_READY)
    assert APCFG in page.evaluate(CURSOR), (page.evaluate(CURSOR), watch.errors, watch.console)
    page.keyboard.press("Enter")
    wait_until(page, "p => document.getElementById('whole-info').dataset.node === p", APCFG)
    # Down: its edges; Enter selects the one under the cursor, and the panel lists its symbols
    page.keyboard.press("ArrowDown")
    said = page.evaluate(CURSOR)
    assert said.startswith("edge from") and APCFG in said, said
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    assert page.evaluate(CURSOR) == said  # Up comes back
    page.keyboard.press("Enter")
    edge = wait_until(page, "() => document.getElementById('whole-info').dataset.edge")
    assert APCFG in edge.split("\n"), edge
    screenshot(page, "a11y-whole-keyboard-edge")
    # Escape: no cursor, nothing selected; the drawing keeps the focus
    page.keyboard.press("Escape")
    wait_until(page, "() => !document.getElementById('whole-info').dataset.edge")
    assert page.evaluate(CURSOR) == ""
    assert page.evaluate("() => document.activeElement.id") == "whole-canvas"
    watch.assert_clean()


MEASURE = """() => {
    const main = document.querySelector('main');
    const r = main ? main.getBoundingClientRect() : null;
    const graph = document.querySelectorAll('#tabpanel-graph g.node');
    const box = document.querySelector('#tabpanel-graph .diagram')?.getBoundingClientRect();
    const inBox = (g) => {  // drawn with a size, its centre inside the drawing's box
        const b = g.getBoundingClientRect();
        const [x, y] = [b.left + b.width / 2, b.top + b.height / 2];
        return b.width > 0 && b.height > 0 && x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
    };
    const drawn = box ? [...graph].filter(inBox) : [];
    return {
        viewport: innerWidth, scroll: document.documentElement.scrollWidth, body: document.body.scrollWidth,
        main: r ? {left: r.left, width: r.width, height: r.height} : null,
        graphNodes: graph.length, graphDrawn: drawn.length,
        whole: window.linkgraphWhole ? linkgraphWhole.labels().filter((l) => l.drawn).length : null,
    };
}"""

# the cells (a selector) with a word cut across lines ("versio n"): a word whose text lies on two lines
BROKEN_WORDS = """(selector) => [...document.querySelectorAll(selector)].filter((cell) => {
    if (!cell.offsetParent) return false;  // not shown
    const text = [...cell.childNodes].find((n) => n.nodeType === 3);  // its words
    if (!text) return false;
    for (const m of text.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(text, m.index);
        range.setEnd(text, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) return true;
    }
    return false;
}).map((cell) => cell.textContent)"""
HEADERS = "table.data th"
# the paths of file links cut inside a folder or file name: a piece (the text between two "/") on two lines
BROKEN_PATHS = """() => [...document.querySelectorAll('a.file-link')].filter((a) => a.offsetParent).filter((a) =>
    [...a.childNodes].filter((n) => n.nodeType === 3).some((piece) => {
        const range = document.createRange();
        range.selectNodeContents(piece);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
    })).map((a) => a.dataset.path)"""


# a symlink's name cut short (its text wider than its box) while its target still shows
CUT_NAMES = """() => [...document.querySelectorAll('#tree a.entry')].filter((a) => a.querySelector('.target'))
    .map((a) => a.querySelector('.name')).filter((n) => {
        const range = document.createRange();
        range.selectNodeContents(n);
        return range.getBoundingClientRect().width > n.getBoundingClientRect().width + 0.01;
    }).map((n) => n.textContent)"""


def narrow_page(pages: Pages, server: ViewerServer, url: str, width: int) -> tuple[Any, PageWatch]:
    """A watched page *width* px wide (from its first paint), photographed at the end as Pages does."""
    page = pages.browser.context.new_page()
    page.set_viewport_size({"width": width, "height": 720})
    watch = PageWatch(server.url)
    watch.attach(page)
    pages.opened.append((page, watch))
    page.goto(server.url + url)
    return page, watch


@pytest.mark.parametrize("width", WIDTHS)
def test_narrow_screens(server: ViewerServer, pages: Pages, width: int) -> None:
    figures: dict[str, dict[str, Any]] = {}
    for name, url in page_urls(server).items():
        page, watch = narrow_page(pages, server, url, width)
        settle(page, name, watch)
        shown = page.evaluate(MEASURE)
        figures[name] = shown
        screenshot(page, f"a11y-{width}px-{name}")
        clean(name, watch, server)
        assert shown["scroll"] <= width and shown["body"] <= width, (name, shown)
        assert shown["main"] and shown["main"]["width"] >= width * 0.9 and shown["main"]["height"] > 100, (name, shown)
        if name == "file-graph":
            assert shown["graphNodes"] > 0 and shown["graphDrawn"] > 0, shown  # modules drawn in the box
        if name == "whole":
            assert shown["whole"], shown
        if name == "licences":  # the first screen reaches the findings: the explanation is folded, a tap away
            top = page.evaluate("() => document.getElementById('licences-filter').getBoundingClientRect().top")
            assert top < 720 and not page.evaluate("() => document.getElementById('licences-explain').open"), top
        if name == "firmware":
            assert page.evaluate(CUT_NAMES) == []
            badges = page.evaluate(BADGE_SIZES)  # the tree's kind and flag badges: 10 px or more
            assert badges and min(badges) >= 10, badges
        assert page.evaluate(BROKEN_WORDS, HEADERS) == [], name
        assert page.evaluate(BROKEN_PATHS) == [], name  # the ELF analysis's paths break between names
    # the search drawer's tables (a symbol: who provides it, its version, who binds it)
    page, watch = narrow_page(pages, server, page_urls(server)["firmware"], width)
    settle(page, "firmware", watch)
    page.fill("#lg-search-q", "malloc")
    page.keyboard.press("Enter")
    wait_until(page, "() => document.querySelector('.lg-drawer:not([hidden])')?.dataset.state === 'ready'")
    assert page.evaluate("() => document.querySelectorAll('.lg-drawer table.data th').length") > 0
    screenshot(page, f"a11y-{width}px-search-drawer")
    assert page.evaluate(BROKEN_WORDS, HEADERS) == []
    assert page.evaluate(BROKEN_WORDS, ".lg-drawer td > code") == []  # sonames and versions whole
    assert page.evaluate(MEASURE)["scroll"] <= width
    print(f"{width} px:", figures)
    watch.assert_clean()
