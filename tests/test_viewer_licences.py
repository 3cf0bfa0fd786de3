"""Licences in the viewer, in a real browser, on both stores: the article's root scanned with
``--licences`` (tests/support/browser.py: libcrypt LGPL-2.1-or-later, libgcc_s GPL-3.0-or-later WITH
GCC-exception-3.1, the four vendor libraries unknown, busybox GPL-2.0-only from the knowledge base).

* The Overview of a file shows its licence, class, source and certainty, each explained.
* The Licences page lists the findings of docs/licences.md exactly: (b) busybox uses libutility
  [util_foo] and libapcfg [apcfg_get]; (a) none; (c) busybox declares libnvram and libaplog without
  using them, libapcfg still uses them; (d) the LGPL libraries, grouped and collapsible; (e) no
  kernel module (tests/test_viewer_kernel.py has them); the summary. Every module name links to
  its file page.
* With libutility made GPL-2.0-only instead, (a) shows libapcfg's hidden use of it, hop by hop, with
  the program whose link map holds the path, and (c) a declared-only link nothing else uses.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.browser import (
    APCFG,
    APLOG,
    ARTICLE_LICENCES,
    ARTICLE_NAME,
    BUSYBOX,
    CRYPT,
    LIBC,
    NVRAM,
    UTIL,
    Pages,
    ViewerServer,
    assert_no_markup_elements,
    q,
    wait_ready,
    wait_until,
)

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

ROWS = """sel => [...document.querySelectorAll(sel)].map(tr => ({
    data: {...tr.dataset},
    licences: [...tr.querySelectorAll(':scope > td > .licence')].map(l => [l.dataset.licence, l.dataset.licenceClass]),
    symbols: [...tr.querySelectorAll(':scope > td > details.symbols ul.symbol-list li')].map(li => li.textContent),
    users: [...tr.querySelectorAll('ul.used-by > li')].map(li => ({module: li.dataset.module,
        status: li.querySelector('.status').textContent,
        symbols: [...li.querySelectorAll('ul.symbol-list li')].map(s => s.textContent)})),
}))"""
PATHS = """as => as.map(a => ({
    module: a.dataset.module, gpl: a.dataset.gpl,
    hops: [...a.querySelectorAll('ol.hops > li')].map(li => [li.dataset.from, li.dataset.to,
        li.querySelector('.status').textContent,
        [...li.querySelectorAll('ul.symbol-list li')].map(s => s.textContent)]),
    programs: [...a.querySelectorAll('.held-by a.file-link')].map(l => l.dataset.path)}))"""
# the summary for this root: class -> modules with declared, inferred, no licence fact; and in all
SUMMARY = {
    "gpl": [0, 1, 0, 1],
    "lgpl": [2, 2, 0, 4],
    "permissive": [0, 0, 0, 0],
    "incompatible": [0, 0, 0, 0],
    "unknown": [0, 0, 13, 13],
}


def overview_facts(page: Any) -> dict[str, str]:
    return page.eval_on_selector_all(
        "#tabpanel-overview dd[data-fact]", "dds => Object.fromEntries(dds.map(d => [d.dataset.fact, d.innerText]))"
    )


def check_overview(pages: Pages, server: ViewerServer, fw: str, overrides: Path) -> None:
    page, watch = pages.open(server, f"/fw/{fw}/?path={q(BUSYBOX)}")
    page.wait_for_selector("#panel[data-state='ready']")
    facts = overview_facts(page)
    assert facts["licence"].startswith("GPL-2.0-only GPL"), facts
    assert page.get_attribute("#tabpanel-overview dd[data-fact='licence'] .lclass", "data-licence-class") == "gpl"
    assert facts["source"].startswith("knowledge-base:busybox\n"), facts
    assert "knowledge base recognised the file as busybox" in facts["source"], facts
    assert facts["certainty"].startswith("inferred\n") and "recognised by linkgraph" in facts["certainty"], facts
    assert facts["package"] == "none known", facts
    # an override: declared, its file and rule named
    page.click("#tabpanel-overview a.licences-link")
    wait_ready(page)
    assert urllib.parse.urlsplit(page.url).path == f"/fw/{fw}/licences"
    page, watch2 = pages.open(server, f"/fw/{fw}/?path={q(CRYPT)}")
    page.wait_for_selector("#panel[data-state='ready']")
    facts = overview_facts(page)
    assert facts["licence"].startswith(f"{ARTICLE_LICENCES[CRYPT]} LGPL"), facts
    assert facts["source"].startswith(f"override:{overrides}:{CRYPT}\n") and "your own overrides" in facts["source"]
    assert facts["certainty"].startswith("declared\n"), facts
    watch.assert_clean()
    watch2.assert_clean()


def check_licences_page(pages: Pages, server: ViewerServer, fw: str) -> None:
    findings = server.json(f"/api/firmware/{fw}/licences")
    page, watch = pages.open(server, f"/fw/{fw}/licences")
    assert page.inner_text("header nav.views a[aria-current='page']") == "Licences"
    explain = page.inner_text("main .explain")
    for word in ("uses", "declared-unused", "hidden", "DT_NEEDED"):
        assert word in explain, word
    sections = page.eval_on_selector_all("#licences section.finding", "ss => ss.map(s => s.dataset.finding)")
    assert sections == ["gpl_uses", "gpl_used_by", "declared_only", "lgpl_used", "kernel_gpl_only", "summary"]

    # (b) exactly busybox -> libapcfg [apcfg_get] and busybox -> libutility [util_foo]
    rows = page.evaluate(ROWS, "section[data-finding='gpl_uses'] tbody tr")
    assert sorted((r["data"]["module"], r["data"]["uses"], r["symbols"]) for r in rows) == [
        (BUSYBOX, APCFG, ["apcfg_get"]),
        (BUSYBOX, UTIL, ["util_foo"]),
    ], rows
    assert all(r["licences"] == [["GPL-2.0-only", "gpl"], ["", "unknown"]] for r in rows), rows
    assert "(2)" in page.inner_text("section[data-finding='gpl_uses'] h2")
    assert "(18 uses of 2 libraries)" in page.inner_text("section[data-finding='lgpl_used'] h2")

    # (a) none here, as the API says
    assert findings["gpl_used_by"] == []
    assert page.inner_text("section[data-finding='gpl_used_by'] p.none") == "none"

    # (c) busybox declares libnvram and libaplog and uses neither; libapcfg still uses both
    rows = page.evaluate(ROWS, "section[data-finding='declared_only'] tbody tr")
    assert sorted((r["data"]["module"], r["data"]["library"]) for r in rows) == [(BUSYBOX, APLOG), (BUSYBOX, NVRAM)]
    users = {r["data"]["library"]: r["users"] for r in rows}
    assert users[NVRAM] == [{"module": APCFG, "status": "used", "symbols": ["nvram_get"]}], users
    assert users[APLOG] == [{"module": APCFG, "status": "hidden", "symbols": ["aplog_write"]}], users
    nvram_row = page.locator(f"section[data-finding='declared_only'] tr[data-library='{NVRAM}']")
    assert "libapcfg.so" in nvram_row.locator("td").nth(4).inner_text()

    # (d) one collapsible group per LGPL library, closed; its modules as the API says
    wanted: dict[str, list[str]] = {}
    for r in findings["lgpl_used"]:
        wanted.setdefault(r["library"], []).append(r["module"])
    groups = page.locator("section[data-finding='lgpl_used'] details.lgpl-library")
    assert groups.evaluate_all("ds => ds.map(d => [d.dataset.library, d.open])") == [[k, False] for k in wanted]
    for library, modules in wanted.items():
        group = page.locator(f"section[data-finding='lgpl_used'] details[data-library='{library}']")
        assert f"used by {len(modules)} module" in group.locator(":scope > summary").inner_text()
        assert not group.locator(":scope > table").is_visible()
        assert group.locator("tbody tr").evaluate_all("trs => trs.map(t => t.dataset.module)") == modules
    libc = page.locator(f"section[data-finding='lgpl_used'] details[data-library='{LIBC}']")
    assert BUSYBOX in wanted[LIBC]
    libc.locator(":scope > summary").click(position={"x": 5, "y": 5})
    assert libc.locator(":scope > table").is_visible() and libc.get_attribute("open") is not None
    page.click("section[data-finding='lgpl_used'] button:has-text('Open all')")
    assert groups.evaluate_all("ds => ds.every(d => d.open)")
    page.click("section[data-finding='lgpl_used'] button:has-text('Close all')")
    assert groups.evaluate_all("ds => ds.every(d => !d.open)")

    # the summary
    summary = page.eval_on_selector_all(
        "section[data-finding='summary'] tbody tr",
        "trs => trs.map(tr => [tr.dataset.licenceClass, [...tr.querySelectorAll('td.num')].map(t => +t.textContent)])",
    )
    assert dict(summary) == SUMMARY
    counts = page.eval_on_selector_all(
        "section[data-finding='summary'] .finding-counts li",
        "lis => lis.map(li => [li.dataset.finding, li.textContent.split(': ').pop()])",
    )
    kinds = ("gpl_uses", "gpl_used_by", "declared_only", "lgpl_used", "kernel_gpl_only")
    assert dict(counts) == {k: str(len(findings[k])) for k in kinds}
    modules = next(f["modules"] for f in server.json("/api/firmware") if f["id"] == fw)
    assert sum(v[3] for v in SUMMARY.values()) == modules

    # every module name links to its file page; a click there opens it
    links = page.eval_on_selector_all("#licences a.file-link", "as => as.map(a => [a.dataset.path, a.href])")
    assert len(links) > 10
    for path, href in links:
        parts = urllib.parse.urlsplit(href)
        assert parts.path == f"/fw/{fw}/" and dict(urllib.parse.parse_qsl(parts.query)) == {"path": path}, href
    page.click(f"section[data-finding='gpl_uses'] tr[data-uses='{UTIL}'] a.file-link[data-path='{BUSYBOX}']")
    wait_ready(page)
    page.wait_for_selector("#panel[data-state='ready']")
    assert page.inner_text("#panel .file-name") == "busybox"
    wait_until(page, "() => document.querySelector(\"dd[data-fact='licence']\")?.textContent.includes('GPL-2.0-only')")
    assert_no_markup_elements(page)
    watch.assert_clean()


def test_licences_in_the_browser(article_server: ViewerServer, article_overrides: Path, pages: Pages) -> None:
    fw = article_server.firmware_id(ARTICLE_NAME)
    check_overview(pages, article_server, fw, article_overrides)
    check_licences_page(pages, article_server, fw)


def test_licences_in_the_browser_on_neo4j(
    article_neo4j_server: ViewerServer, article_overrides: Path, pages: Pages
) -> None:
    fw = article_neo4j_server.firmware_id(ARTICLE_NAME)
    check_overview(pages, article_neo4j_server, fw, article_overrides)
    check_licences_page(pages, article_neo4j_server, fw)


@pytest.fixture(scope="module")
def gpl_utility_server(article_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    work = tmp_path_factory.mktemp("gpl-utility")
    overrides = work / "licences.yaml"
    overrides.write_text(f"{UTIL}: GPL-2.0-only\n")
    db = work / "graph.lbdb"
    proc = linkgraph(
        "scan", str(article_root), "--db", str(db), "--name", "gpl-utility", "--licences", str(overrides), "--quiet"
    )
    assert proc.returncode == 0, proc.stderr
    with ViewerServer(["--db", str(db)], work) as server:
        yield server


def test_licences_page_shows_paths_into_gpl_code(gpl_utility_server: ViewerServer, pages: Pages) -> None:
    server = gpl_utility_server
    fw = server.firmware_id("gpl-utility")
    page, watch = pages.open(server, f"/fw/{fw}/licences")
    # (a) libapcfg (no licence known) binds util_bar in GPL libutility, hidden, in busybox's link map
    paths = page.eval_on_selector_all("section[data-finding='gpl_used_by'] article.finding-path", PATHS)
    assert paths == [
        {"module": APCFG, "gpl": UTIL, "hops": [[APCFG, UTIL, "hidden", ["util_bar"]]], "programs": [BUSYBOX]}
    ], paths
    head = page.inner_text("section[data-finding='gpl_used_by'] article.finding-path .path-head")
    assert head.startswith(f"{APCFG} no licence known uses GPL code of {UTIL} GPL-2.0-only GPL"), head
    # (b) busybox still uses libapcfg; (c) adds libcrypt, declared by busybox and used by nothing
    rows = page.evaluate(ROWS, "section[data-finding='gpl_uses'] tbody tr")
    assert [(r["data"]["module"], r["data"]["uses"]) for r in rows] == [(BUSYBOX, APCFG)]
    rows = page.evaluate(ROWS, "section[data-finding='declared_only'] tbody tr")
    assert [r["data"]["library"] for r in rows] == [APLOG, CRYPT, NVRAM]
    crypt = page.locator(f"section[data-finding='declared_only'] tr[data-library='{CRYPT}'] td").nth(4)
    assert crypt.inner_text() == "no module uses it"
    page.click(f"section[data-finding='gpl_used_by'] ol.hops a.file-link[data-path='{UTIL}']")
    wait_ready(page)
    page.wait_for_selector("#panel[data-state='ready']")
    assert page.inner_text("#panel .file-name") == "libutility.so"
    watch.assert_clean()
