"""Licences in the viewer, in a real browser, on both stores: the article's root scanned with
``--licences`` (tests/support/browser.py: libcrypt LGPL-2.1-or-later, libgcc_s GPL-3.0-or-later WITH
GCC-exception-3.1, the four vendor libraries unknown, busybox GPL-2.0-only from the knowledge base).

* The Overview of a file shows its licence, class, source and certainty, each explained.
* The Licences page lists the findings of docs/licences.md exactly, in the order of their letters,
  each grouped (one collapsible group per GPL library, with counts): (a) none; (b) busybox uses
  libutility [util_foo] and libapcfg [apcfg_get]; (c) busybox declares libnvram and libaplog without
  using them, libapcfg still uses them; (d) the LGPL libraries; (e) no kernel module
  (tests/test_viewer_kernel.py has them); To review: the modules without a licence fact, with the
  coverage statement (also above the findings, in the summary and instead of a bare "none"); the
  summary, which has no letter. Every module name links to its file page. declared-unused is
  explained.
* With libutility made GPL-2.0-only instead, (a) shows libapcfg's hidden use of it, hop by hop, with
  the program whose link map holds the path, and (c) a declared-only link nothing else uses; the
  filter keeps exactly the rows that name what it is given.
* On the LEDE image with overrides that put libc under the GPL and libubox, libuci and the daemons
  under a proprietary licence: 251 paths into GPL code, grouped per GPL library, every hop listed
  once per group with the number of paths through it; the page shows its progress while the
  findings are on their way.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
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
    LICENCES_ORDER,
    NVRAM,
    UTIL,
    Pages,
    PageWatch,
    ViewerServer,
    assert_no_markup_elements,
    q,
    wait_ready,
    wait_until,
)
from support.images import LEDE

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
    hops: [...a.querySelectorAll('.path-chain .hop')].map(h => [h.dataset.from, h.dataset.to,
        h.querySelector('.status').textContent]),
    programs: [...a.querySelectorAll('.held-by a.file-link')].map(l => l.dataset.path)}))"""
HOPS = """trs => trs.map(tr => [tr.dataset.from, tr.dataset.to, tr.querySelector('.status').textContent,
    [...tr.querySelectorAll('ul.symbol-list li')].map(s => s.textContent),
    parseInt(tr.querySelector('details.symbols > summary').textContent), +tr.dataset.paths])"""
GROUPS = """ds => ds.map(d => [d.dataset.group, d.open, d.hidden])"""
DECLARED_UNUSED = "still loaded and its initialisation code runs, but no symbol of the declaring object binds to it"
ORDER = LICENCES_ORDER
# the summary for this root: class -> modules with declared, identified (libc: its banner), inferred,
# no licence fact; and in all
SUMMARY = {
    "gpl": [0, 0, 1, 0, 1],
    "lgpl": [2, 1, 1, 0, 4],
    "permissive": [0, 0, 0, 0, 0],
    "incompatible": [0, 0, 0, 0, 0],
    "unknown": [0, 0, 0, 13, 13],
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
    for word in ("uses", "declared-unused", "hidden", "DT_NEEDED", DECLARED_UNUSED):
        assert word in " ".join(explain.split()), word
    assert_order(page)
    for key in ("gpl_uses", "declared_only"):  # one group, the GPL module busybox, open
        groups = page.eval_on_selector_all(f"section[data-finding='{key}'] details.finding-group", GROUPS)
        assert groups == [[BUSYBOX, True, False]], (key, groups)

    # (b) exactly busybox -> libapcfg [apcfg_get] and busybox -> libutility [util_foo]
    rows = page.evaluate(ROWS, "section[data-finding='gpl_uses'] tbody tr")
    assert sorted((r["data"]["module"], r["data"]["uses"], r["symbols"]) for r in rows) == [
        (BUSYBOX, APCFG, ["apcfg_get"]),
        (BUSYBOX, UTIL, ["util_foo"]),
    ], rows
    assert all(r["licences"] == [["GPL-2.0-only", "gpl"], ["", "unknown"]] for r in rows), rows
    assert page.inner_text("section[data-finding='gpl_uses'] h2").endswith("(2 links in 1 GPL module)")
    # 17: ld.so -> libc is interposition (ld.so defines _dl_catch_error and the rest itself), no use
    assert page.inner_text("section[data-finding='lgpl_used'] h2").endswith("(17 uses in 2 libraries)")
    assert page.inner_text("section[data-finding='gpl_used_by'] h2").endswith("(0)")

    # (a) none here, as the API says; said with the coverage, never a bare "none"
    assert findings["gpl_used_by"] == []
    coverage = f"{SUMMARY['unknown'][3]} of {sum(v[4] for v in SUMMARY.values())} modules have no licence fact"
    assert page.inner_text("section[data-finding='gpl_used_by'] p.none") == (
        f"(a) No finding among the modules whose licence is known; {coverage} and are listed under To review."
    )
    # the coverage above the findings and in the summary; the modules without a licence fact under To review
    lines = page.eval_on_selector_all("#licences p.coverage", "ps => ps.map(p => p.textContent)")
    assert len(lines) == 3 and all(line.startswith(f"{coverage} and are listed under To review.") for line in lines)
    listed = page.eval_on_selector_all(
        "section[data-finding='to-review'] tbody tr", "trs => trs.map(tr => [tr.dataset.path, tr.cells[2].textContent])"
    )
    assert [p for p, _ in listed] == [m["path"] for m in findings["coverage"]["to_review"]]
    assert len(listed) == SUMMARY["unknown"][3] and {APCFG, APLOG, NVRAM, UTIL} <= {p for p, _ in listed}
    assert not {BUSYBOX, CRYPT} & {p for p, _ in listed}
    assert all(why.startswith("no licence fact found") for _, why in listed), listed

    # (c) busybox declares libnvram and libaplog and uses neither; libapcfg still uses both
    rows = page.evaluate(ROWS, "section[data-finding='declared_only'] tbody tr")
    assert sorted((r["data"]["module"], r["data"]["library"]) for r in rows) == [(BUSYBOX, APLOG), (BUSYBOX, NVRAM)]
    users = {r["data"]["library"]: r["users"] for r in rows}
    assert users[NVRAM] == [{"module": APCFG, "status": "used", "symbols": ["nvram_get"]}], users
    assert users[APLOG] == [{"module": APCFG, "status": "hidden", "symbols": ["aplog_write"]}], users
    nvram_row = page.locator(f"section[data-finding='declared_only'] tr[data-library='{NVRAM}']")
    assert "libapcfg.so" in nvram_row.locator("td").nth(4).inner_text()

    # (d) one collapsible group per LGPL library (two: open at first), with its count; its modules as
    # the API says
    wanted: dict[str, list[str]] = {}
    for r in findings["lgpl_used"]:
        wanted.setdefault(r["library"], []).append(r["module"])
    groups = page.locator("section[data-finding='lgpl_used'] details.finding-group")
    assert groups.evaluate_all(GROUPS) == [[k, True, False] for k in wanted]
    for library, modules in wanted.items():
        group = page.locator(f"section[data-finding='lgpl_used'] details[data-group='{library}']")
        assert group.locator(":scope > summary .group-count").inner_text() == f"({plural(len(modules), 'use', 'uses')})"
        assert group.locator("tbody tr").evaluate_all("trs => trs.map(t => t.dataset.module)") == modules
    page.click("section[data-finding='lgpl_used'] button:has-text('Close all')")
    assert groups.evaluate_all("ds => ds.every(d => !d.open)")
    libc = page.locator(f"section[data-finding='lgpl_used'] details[data-group='{LIBC}']")
    assert BUSYBOX in wanted[LIBC] and not libc.locator("table").is_visible()
    libc.locator(":scope > summary").click(position={"x": 5, "y": 5})
    assert libc.locator("table").is_visible() and libc.get_attribute("open") is not None
    page.click("section[data-finding='lgpl_used'] button:has-text('Open all')")
    assert groups.evaluate_all("ds => ds.every(d => d.open)")

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
    kinds = ("gpl_uses", "gpl_used_by", "declared_only", "lgpl_used", "kernel_gpl_only", "gpl_contained", "lgpl_static")
    assert dict(counts) == {k: str(len(findings[k])) for k in kinds}
    modules = next(f["modules"] for f in server.json("/api/firmware") if f["id"] == fw)
    assert sum(v[4] for v in SUMMARY.values()) == modules

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


def assert_order(page: Any) -> None:
    """The findings (a)-(g) in the order of their letters, in the index and the headings; the summary last,
    without a letter."""
    sections = page.eval_on_selector_all("#licences section.finding", "ss => ss.map(s => s.dataset.finding)")
    assert sections == ORDER
    heads = page.eval_on_selector_all("#licences section.finding > h2", "hs => hs.map(h => h.textContent)")
    assert [h.split(" ")[0] for h in heads] == ["(a)", "(b)", "(c)", "(d)", "(e)", "(f)", "(g)", "To", "Summary"], heads
    index = page.eval_on_selector_all("#licences nav.finding-index a", "as => as.map(a => a.textContent)")
    assert [i.split(" ")[0] for i in index] == ["(a)", "(b)", "(c)", "(d)", "(e)", "(f)", "(g)", "To", "Summary"], index
    counts = page.eval_on_selector_all(
        "section[data-finding='summary'] .finding-counts li", "ls => ls.map(l => l.textContent)"
    )
    assert [c.split(" ")[0] for c in counts] == ["(a)", "(b)", "(c)", "(d)", "(e)", "(f)", "(g)"], counts


# what a row is and what a group is, per finding (licence-findings.js), and the group a row is in
UNITS = {
    "gpl_used_by": (("path", "paths"), ("GPL library", "GPL libraries")),
    "gpl_uses": (("link", "links"), ("GPL module", "GPL modules")),
    "declared_only": (("link", "links"), ("GPL module", "GPL modules")),
    "lgpl_used": (("use", "uses"), ("library", "libraries")),
    "kernel_gpl_only": (("use", "uses"), ("provider", "providers")),
    "gpl_contained": (("module", "modules"), ("component", "components")),
    "lgpl_static": (("program", "programs"), ("component", "components")),
}
GROUP_OF = {
    "gpl_used_by": lambda r: r["gpl_module"],
    "gpl_uses": lambda r: r["module"],
    "declared_only": lambda r: r["module"] if r["class"] == "gpl" else r["library"],
    "lgpl_used": lambda r: r["library"],
    "kernel_gpl_only": lambda r: r["provider"],
    "gpl_contained": lambda r: f"{r['component']} {r['version']}" if r["version"] else r["component"],
    "lgpl_static": lambda r: f"{r['component']} {r['version']}" if r["version"] else r["component"],
}


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def row_text(value: Any) -> str:
    """Every string of a row (paths, licences, symbols), lowercased: what the filter looks at."""
    parts: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif v is not None:
            parts.append(str(v).lower())

    walk(value)
    return "\n".join(parts)


def check_filter(page: Any, findings: dict[str, Any], query: str) -> None:
    """Type *query* into the filter: each section keeps exactly the rows that name it (all rows of a
    group whose library names it), says how many, and hides the groups left empty."""
    page.fill("#licences-filter", query)
    wait_until(page, "q => document.querySelector('#licences').dataset.filter === q", query.lower())
    q = query.lower()
    total = kept_all = ordinary = kept_ordinary = 0
    for key, ((one, many), (gone, gmany)) in UNITS.items():
        rows = findings[key]
        groups: dict[str, list[Any]] = {}
        for r in rows:
            groups.setdefault(GROUP_OF[key](r), []).append(r)
        kept = {g: [r for r in rs if not q or q in g.lower() or q in row_text(r)] for g, rs in groups.items()}
        n = sum(len(v) for v in kept.values())
        if key == "lgpl_used":  # ordinary dynamic use of an LGPL library: counted apart, never a finding
            ordinary += len(rows)
            kept_ordinary += n
        else:
            total += len(rows)
            kept_all += n
        whole = f"{plural(len(rows), one, many)} in {plural(len(groups), gone, gmany)}"
        want = "(0)" if not rows else f"({whole})" if n == len(rows) else f"({n} of {whole})"
        head = page.inner_text(f"section[data-finding='{key}'] > h2")
        assert head.endswith(want), (query, key, head, want)
        shown = page.eval_on_selector_all(f"section[data-finding='{key}'] details.finding-group", GROUPS)
        assert [(g, not hidden) for g, _, hidden in shown] == [(g, bool(v)) for g, v in kept.items()], (query, key)
        item = "article.finding-path" if key == "gpl_used_by" else ":scope > .group-body > table > tbody > tr"
        for group, is_open, hidden in shown:
            if is_open and not hidden:
                loc = page.locator(f"section[data-finding='{key}'] details.finding-group[data-group='{group}']")
                assert loc.locator(item).count() == len(kept[group]), (query, key, group)
    line = page.inner_text("#licences-shown")
    uses = plural(ordinary, "ordinary dynamic use", "ordinary dynamic uses")
    want = f"{kept_all} of {plural(total, 'finding', 'findings')} match" if q else plural(total, "finding", "findings")
    if ordinary:
        want += f"; besides, {f'{kept_ordinary} of {uses}' if q else uses} of LGPL libraries (d)"
    assert line == want, line


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


@contextmanager
def served_with_overrides(root: Path, name: str, overrides: dict[str, str], work: Path) -> Iterator[ViewerServer]:
    """*root* scanned with the licence overrides (path glob -> SPDX expression) into LadybugDB, served."""
    path = work / "licences.yaml"
    path.write_text("".join(f'"{glob}": "{spdx}"\n' for glob, spdx in overrides.items()))
    db = work / "graph.lbdb"
    proc = linkgraph("scan", str(root), "--db", str(db), "--name", name, "--licences", str(path), "--quiet")
    assert proc.returncode == 0, proc.stderr
    with ViewerServer(["--db", str(db)], work) as server:
        yield server


@pytest.fixture(scope="module")
def gpl_utility_server(article_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    with served_with_overrides(
        article_root, "gpl-utility", {UTIL: "GPL-2.0-only"}, tmp_path_factory.mktemp("gpl-utility")
    ) as server:
        yield server


def test_licences_page_shows_paths_into_gpl_code(gpl_utility_server: ViewerServer, pages: Pages) -> None:
    server = gpl_utility_server
    fw = server.firmware_id("gpl-utility")
    page, watch = pages.open(server, f"/fw/{fw}/licences")
    # (a) libapcfg (no licence known) binds util_bar in GPL libutility, hidden, in busybox's link map
    assert_order(page)
    section = "section[data-finding='gpl_used_by']"
    assert page.eval_on_selector_all(f"{section} details.finding-group", GROUPS) == [[UTIL, True, False]]
    head = page.inner_text(f"{section} details.finding-group > summary")
    assert head == f"{UTIL} GPL-2.0-only GPL reached by 1 module (1 path)", head
    paths = page.eval_on_selector_all(f"{section} article.finding-path", PATHS)
    assert paths == [{"module": APCFG, "gpl": UTIL, "hops": [[APCFG, UTIL, "hidden"]], "programs": [BUSYBOX]}], paths
    hops = page.eval_on_selector_all(f"{section} table.distinct-hops tbody tr", HOPS)
    assert hops == [[APCFG, UTIL, "hidden", ["util_bar"], 1, 1]], hops
    # (b) busybox still uses libapcfg; (c) adds libcrypt, declared by busybox and used by nothing
    rows = page.evaluate(ROWS, "section[data-finding='gpl_uses'] tbody tr")
    assert [(r["data"]["module"], r["data"]["uses"]) for r in rows] == [(BUSYBOX, APCFG)]
    rows = page.evaluate(ROWS, "section[data-finding='declared_only'] tbody tr")
    assert [r["data"]["library"] for r in rows] == [APLOG, CRYPT, NVRAM]
    crypt = page.locator(f"section[data-finding='declared_only'] tr[data-library='{CRYPT}'] td").nth(4)
    assert crypt.inner_text() == "no module uses it"
    check_filter(page, server.json(f"/api/firmware/{fw}/licences"), "nvram")
    check_filter(page, server.json(f"/api/firmware/{fw}/licences"), "util_bar")
    check_filter(page, server.json(f"/api/firmware/{fw}/licences"), "")
    page.click(f"{section} table.distinct-hops a.file-link[data-path='{UTIL}']")
    wait_ready(page)
    page.wait_for_selector("#panel[data-state='ready']")
    assert page.inner_text("#panel .file-name") == "libutility.so"
    watch.assert_clean()


# the LEDE image's modules put under licences that make (a)-(c) findings: libc under the GPL, the
# libraries most programs go through and the daemons proprietary
LEDE_OVERRIDES = {
    "/lib/libc.so": "GPL-2.0-only",
    "/lib/libubox.so*": "LicenseRef-Proprietary",
    "/lib/libuci.so*": "LicenseRef-Proprietary",
    "/sbin/*": "LicenseRef-Proprietary",
    "/usr/sbin/*": "LicenseRef-Proprietary",
}


@pytest.fixture(scope="module")
def lede_licences_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    assert LEDE.is_file(), f"{LEDE} is missing: the shared firmware folder is part of the workplace"
    with served_with_overrides(
        LEDE, "lede-gpl-libc", LEDE_OVERRIDES, tmp_path_factory.mktemp("lede-licences")
    ) as server:
        yield server


def test_licences_page_groups_a_real_firmware(lede_licences_server: ViewerServer, pages: Pages) -> None:
    server = lede_licences_server
    fw = server.firmware_id("lede-gpl-libc")
    findings = server.json(f"/api/firmware/{fw}/licences")
    paths = findings["gpl_used_by"]
    assert len(paths) > 100 and findings["gpl_uses"] and findings["declared_only"], findings["summary"]

    # the findings are held back on their way: the page shows a progress bar and the time so far
    page = pages.browser.context.new_page()
    watch = PageWatch(server.url)
    watch.attach(page)
    pages.opened.append((page, watch))
    held: list[Any] = []
    requested: list[str] = []
    page.on("request", lambda req: requested.append(req.url))
    page.route(f"**/api/firmware/{fw}/licences", lambda route: held.append(route))
    page.goto(f"{server.url}/fw/{fw}/licences")
    wait_until(page, "() => document.querySelector('#licences progress.loading-progress') !== null")
    first = page.inner_text("#licences .loading-text")
    page.wait_for_timeout(500)
    later = page.inner_text("#licences .loading-text")
    assert first.startswith("Asking the store for the findings") and first != later, (first, later)
    assert float(later.split()[-2]) >= 0.4, later
    assert len(held) == 1
    held[0].continue_()
    wait_ready(page)
    assert page.locator("#licences progress").count() == 0
    assert_order(page)

    # (a): one group per GPL library reached, closed (there are more than three), with its counts
    section = "section[data-finding='gpl_used_by']"
    by_library: dict[str, list[Any]] = {}
    for r in paths:
        by_library.setdefault(r["gpl_module"], []).append(r)
    groups = page.eval_on_selector_all(f"{section} details.finding-group", GROUPS)
    assert groups == [[lib, False, False] for lib in by_library], groups
    for library, rows in by_library.items():
        group = page.locator(f"{section} details.finding-group[data-group='{library}']")
        modules = len({r["module"] for r in rows})
        want = f"reached by {plural(modules, 'module', 'modules')} ({plural(len(rows), 'path', 'paths')})"
        assert group.locator(":scope > summary").inner_text().endswith(want), library
        # opened: every hop of its paths once, with the symbols and the number of paths through it
        group.locator(":scope > summary").click(position={"x": 5, "y": 5})
        page.wait_for_selector(f"{section} details.finding-group[data-group='{library}'][data-built]")
        hops: dict[tuple[str, str, str], list[Any]] = {}
        for r in rows:
            for h in r["hops"]:
                hops.setdefault((h["from"], h["to"], h["status"]), []).append(h["symbols"])
        shown = group.locator("table.distinct-hops tbody tr").evaluate_all(HOPS)
        assert len(shown) == len(hops), library
        # each hop's symbols: listed when few (8 at most), else counted until opened
        got = {(f, t, st): (sym or None, count, n) for f, t, st, sym, count, n in shown}
        want = {k: (v[0] if len(v[0]) <= 8 else None, len(v[0]), len(v)) for k, v in hops.items()}
        assert got == want, library
        assert [n for *_, n in shown] == sorted((len(v) for v in hops.values()), reverse=True)  # most travelled first
        assert group.locator("article.finding-path").count() == len(rows)
        group.locator(":scope > summary").click(position={"x": 5, "y": 5})
    libc = by_library["/lib/libc.so"]
    repeated = max(
        sum(1 for r in libc for h in r["hops"] if (h["from"], h["to"]) == k)
        for k in {(h["from"], h["to"]) for r in libc for h in r["hops"]}
    )
    assert repeated > 50, repeated  # a hop dozens of paths share: listed once

    for query in ("libuci", "blobmsg_parse", "LicenseRef-Proprietary", "/usr/sbin/uhttpd", "no such thing", ""):
        check_filter(page, findings, query)
    assert requested and all(u.startswith(server.url + "/") for u in requested), requested  # nothing outside
    watch.assert_clean()
