"""The source-release check in the viewer (docs/viewer.md, docs/sources.md), in a real Chromium, on
the TL-MR3020 v1 image scanned with TP-Link's GPL release (tests/support/source_store.py).

* A file's Overview shows its source status and evidence: libmsglog.so what the back end says
  (prebuilt, with the release file holding its bytes), busybox ``source`` from ``apps/busybox-1.01``
  at 1.01, each piece of evidence with the release file and line, which the test reads in the
  unpacked release itself (tests/support/source_judge.py) and finds the matched text on.
* The whole view coloured by source status: every status in the legend has the colour its modules are
  drawn in, with their number; the legend lists exactly the statuses present.
* The Graph tab of busybox marks the modules without source (a line of words and a double outline,
  and a key entry), libmsglog.so among them, and no module with source.
* The Licences page's "Source release" part lists the check's findings as the named queries give them,
  with busybox's build line for libmsglog.
* axe-core finds nothing serious or critical on those pages.
* Without a check, each of those places says so in one line; on Neo4j the viewer shows the same.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.axe import severe, violations
from support.browser import Pages, ViewerServer, parse_rgb, q, screenshot, wait_until
from support.source_judge import MR3020_RELEASE, unpacked_release
from support.source_store import BUSYBOX, MSGLOG, query
from support.whole_view import settled

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

WITHOUT_SOURCE = ("prebuilt", "absent")
NOT_RUN = "No source release was checked for this firmware"
SOURCE_FACTS = """() => {
    const box = document.querySelector('section[data-section=source]');
    if (!box) return null;
    const fact = (k) => box.querySelector(`dd[data-fact=${k}]`);
    return {status: fact('source-status')?.querySelector('.source-tag')?.dataset.sourceStatus ?? null,
        statusText: fact('source-status')?.querySelector('.source-tag')?.textContent ?? null,
        folder: fact('source-folder')?.textContent ?? null, package: fact('source-package')?.textContent ?? null,
        version: fact('source-version')?.textContent ?? null,
        paths: [...(fact('source-release-paths')?.querySelectorAll('li') ?? [])].map((li) => li.textContent),
        evidence: [...box.querySelectorAll('table.source-evidence tbody tr')].map((tr) =>
            [...tr.querySelectorAll('td')].map((td) => td.textContent)),
        text: box.textContent};
}"""


@pytest.fixture(scope="module")
def server(mr3020_checked: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    with ViewerServer(["--db", str(mr3020_checked)], tmp_path_factory.mktemp("sources-serve")) as served:
        yield served


@pytest.fixture(scope="module")
def release_dir() -> Path:
    return unpacked_release(MR3020_RELEASE)


def overview(pages: Pages, server: ViewerServer, path: str) -> tuple[Any, dict[str, Any]]:
    page, watch = pages.open(server, f"/fw/{server.firmware_id()}/?path={q(path)}")
    wait_until(page, "() => document.querySelector('#panel')?.dataset.state === 'ready'")
    facts = wait_until(page, SOURCE_FACTS)
    watch.assert_clean()
    return page, facts


def test_overview_shows_source_status_and_evidence(
    server: ViewerServer, pages: Pages, mr3020_checked: Path, release_dir: Path
) -> None:
    """libmsglog.so: what the back end says (prebuilt by its bytes, the release file named); busybox:
    source, apps/busybox-1.01, 1.01, its evidence as file:line, each line holding the matched text."""
    row = query(mr3020_checked, "module-source", path=MSGLOG)[0]
    assert row["status"] == "prebuilt"  # the back end's answer (tests/test_source_check.py judges it)
    _page, facts = overview(pages, server, MSGLOG)
    assert (facts["status"], facts["statusText"]) == (row["status"], row["status"])
    assert facts["paths"] == sorted(row["release_paths"]) == ["web_server/msglogd/libmsglog.so"]
    assert (release_dir / "web_server/msglogd/libmsglog.so").is_file()
    assert "The release gives no source for this module" in facts["text"]

    busybox = query(mr3020_checked, "module-source", path=BUSYBOX)[0]
    _page, facts = overview(pages, server, BUSYBOX)
    assert (facts["status"], facts["folder"], facts["version"]) == ("source", "apps/busybox-1.01", "1.01")
    assert facts["package"] == "busybox 1.01"
    evidence = json.loads(busybox["evidence"])
    assert len(facts["evidence"]) == len(evidence) > 0
    for (kind, text, where), e in zip(facts["evidence"], evidence, strict=True):
        assert (kind, text, where) == (e["kind"], e["text"], f"{e['file']}:{e['line']}")
        file, line = where.rsplit(":", 1)
        assert file.startswith("apps/busybox-1.01/")
        # the judge: the release's own file holds the matched text at that line
        lines = (release_dir / file).read_text(errors="replace").splitlines()
        assert text in lines[int(line) - 1], (where, text)


def test_whole_view_colours_by_source_status(server: ViewerServer, pages: Pages, mr3020_checked: Path) -> None:
    """One more colouring: each module in its status's colour, the legend naming exactly the statuses
    present, with the number of modules and the colour they are drawn in."""
    fw = server.firmware_id()
    page, watch = pages.open(server, f"/fw/{fw}/whole?colour=source&modules=1")
    settled(page)
    statuses = {r["module"]: r["status"] for r in query(mr3020_checked, "source-status-map")}
    assert len(statuses) == 165
    legend = page.evaluate("""() => [...document.querySelectorAll('#whole-legend [data-source-status]')].map((s) =>
        ({status: s.dataset.sourceStatus, text: s.textContent,
          colour: getComputedStyle(s.querySelector('.legend-dot')).backgroundColor}))""")
    counts = Counter(statuses.values())
    assert [item["status"] for item in legend] == [
        s for s in ("source", "prebuilt", "absent", "not-required") if s in counts
    ]
    for item in legend:
        assert item["text"].endswith(f"({counts[item['status']]})"), item
        drawn = {
            page.evaluate("(k) => linkgraphWhole.nodeColour(k)", p) for p, s in statuses.items() if s == item["status"]
        }
        assert {parse_rgb(c) for c in drawn} == {parse_rgb(item["colour"])}, item
    colours = [parse_rgb(item["colour"]) for item in legend]
    assert len(set(colours)) == len(colours)
    screenshot(page, "sources-whole-colour")
    watch.assert_clean()


def test_program_graph_marks_modules_without_source(server: ViewerServer, pages: Pages, mr3020_checked: Path) -> None:
    """busybox's Graph tab: the modules without source carry the mark (words, a double outline) and the
    key explains it; libmsglog.so is one of them, no module with source is."""
    fw = server.firmware_id()
    page, watch = pages.open(server, f"/fw/{fw}/?path={q(BUSYBOX)}&tab=graph")
    wait_until(page, "() => document.querySelector('#tabpanel-graph')?.dataset.state === 'ready'", timeout=90)
    graph = server.json(f"/api/firmware/{fw}/diagram.json?path={q(BUSYBOX)}")
    statuses = {r["module"]: r["status"] for r in query(mr3020_checked, "source-status-map")}
    paths = {n["id"]: n["path"] for n in graph["nodes"] if n.get("path")}
    marked = page.evaluate("""() => [...document.querySelectorAll('#tabpanel-graph svg g.node.no-source')].map((g) =>
        ({id: g.id, text: g.textContent, outlines: g.querySelectorAll('ellipse, polygon').length}))""")
    expected = {p for p in paths.values() if statuses.get(p) in WITHOUT_SOURCE}
    assert MSGLOG in expected and BUSYBOX not in expected
    assert {paths[m["id"]] for m in marked} == expected
    for m in marked:
        assert f"no source ({statuses[paths[m['id']]]})" in m["text"]
        assert m["outlines"] >= 2  # the double outline
    key = page.evaluate("() => document.querySelector('.diagram-key [data-key=no-source]')?.textContent")
    assert key and "no source in the release" in key
    # the exported drawing carries the same mark and its legend
    status, _headers, body = server.get(f"/api/firmware/{fw}/diagram.svg?path={q(BUSYBOX)}")
    svg = body.decode()
    assert status == 200 and "no source in the release (prebuilt or absent)" in svg
    exported = set(re.findall(r'<g id="(n\d+)" class="node [^"]*\bno(?:-|&#45;)source\b', svg))  # Graphviz escapes '-'
    assert {paths[n] for n in exported} == expected
    # and linkgraph diagram draws the same marks
    dot = linkgraph("diagram", BUSYBOX, "--db", str(mr3020_checked), "-o", "-", "--format", "dot").stdout
    marked_dot = {line for line in dot.splitlines() if "no-source" in line and "tooltip=" in line}
    assert len(marked_dot) == len(expected) and any(MSGLOG in line for line in marked_dot)
    watch.assert_clean()


def test_licences_page_lists_the_source_findings(server: ViewerServer, pages: Pages, mr3020_checked: Path) -> None:
    """The Licences page's "Source release" part: the release, the counts per status and the rows of
    the check's named queries, busybox's use of libmsglog.so with its Makefile line."""
    fw = server.firmware_id()
    page, watch = pages.open(server, f"/fw/{fw}/licences")
    wait_until(page, "() => document.querySelector('#source-release')?.dataset.state === 'ready'")
    got = page.evaluate("""() => {
        const box = document.querySelector('#source-release');
        const rows = (sel) => [...box.querySelectorAll(sel)];
        return {release: box.querySelector('.source-release-name strong')?.textContent,
            counts: Object.fromEntries(rows('table.source-counts tbody tr').map((tr) =>
                [tr.dataset.sourceStatus, +tr.querySelector('.num').textContent])),
            missing: rows('table.source-missing tbody tr').map((tr) => tr.dataset.module),
            uses: rows('table.source-uses-missing tbody tr').map((tr) => ({program: tr.dataset.program,
                uses: tr.dataset.uses,
                symbols: [...tr.querySelectorAll('ul.symbol-list li')].map((li) => li.textContent),
                lines: [...tr.querySelectorAll('ul.build-lines li')].map((li) => [li.dataset.file, +li.dataset.line,
                    li.querySelectorAll('code')[1].textContent])})),
            gaps: rows('table.source-release-gaps tbody tr').map((tr) =>
                [tr.dataset.kind, tr.dataset.present === 'true'])};
    }""")
    page.locator("#source-release").scroll_into_view_if_needed()
    screenshot(page, "sources-licences-page")
    assert got["release"] == "TL-MR3020_V1_GPL.tar.xz"
    statuses = Counter(r["status"] for r in query(mr3020_checked, "source-status-map"))
    assert got["counts"] == {s: statuses.get(s, 0) for s in ("source", "prebuilt", "absent", "not-required")}
    assert got["missing"] == [r["module"] for r in query(mr3020_checked, "source-missing")]
    rows = query(mr3020_checked, "source-uses-missing")
    assert {(u["program"], u["uses"]) for u in got["uses"]} == {(r["program"], r["uses"]) for r in rows}
    lines = {(u["program"], u["uses"]): u for u in got["uses"]}
    for r in rows:
        shown = lines[(r["program"], r["uses"])]
        assert shown["symbols"] == sorted(r["symbols"])
        if r["file"]:
            assert [r["file"], r["line"], r["text"]] in shown["lines"]
    busybox = lines[(BUSYBOX, MSGLOG)]
    assert busybox["symbols"] == ["msglogd"]
    assert busybox["lines"] == [["apps/busybox-1.01/networking/udhcp/Makefile.in", 26, "LIBRARIES+=-lmsglog"]]
    gaps = query(mr3020_checked, "source-release-gaps")
    assert sorted(got["gaps"]) == sorted([g["kind"], g["present"]] for g in gaps)
    present = [p for _kind, p in got["gaps"]]
    assert present == sorted(present) and not present[0]  # what is missing comes first
    watch.assert_clean()


def test_axe_on_the_source_surfaces(server: ViewerServer, pages: Pages) -> None:
    fw = server.firmware_id()
    urls = {
        "overview-msglog": f"/fw/{fw}/?path={q(MSGLOG)}",
        "overview-busybox": f"/fw/{fw}/?path={q(BUSYBOX)}",
        "graph-busybox": f"/fw/{fw}/?path={q(BUSYBOX)}&tab=graph",
        "whole-source": f"/fw/{fw}/whole?colour=source",
        "licences": f"/fw/{fw}/licences",
    }
    found = {}
    for name, url in urls.items():
        page, watch = pages.open(server, url)
        if name.startswith("overview"):
            wait_until(page, SOURCE_FACTS)
        if name.startswith("graph"):
            wait_until(page, "() => document.querySelector('#tabpanel-graph')?.dataset.state === 'ready'", timeout=90)
        if name.startswith("whole"):
            settled(page)
        if name == "licences":
            wait_until(page, "() => document.querySelector('#source-release')?.dataset.state === 'ready'")
        found[name] = severe(violations(page))
        watch.assert_clean()
    assert not any(found.values()), found


def test_without_a_check_each_place_says_so(article_server: ViewerServer, pages: Pages) -> None:
    """The article's root, scanned without --source: the API says unchecked, the Overview and the
    Licences page say it in one line, the whole view's source colouring says it in its legend, and
    the graph marks nothing."""
    from support.browser import APCFG
    from support.browser import BUSYBOX as ARTICLE_BUSYBOX

    fw = article_server.firmware_id()
    assert article_server.json(f"/api/firmware/{fw}/sources")["checked"] is False
    assert article_server.json(f"/api/firmware/{fw}/file?path={q(APCFG)}")["source"] is None
    page, watch = pages.open(article_server, f"/fw/{fw}/?path={q(APCFG)}")
    text = wait_until(page, "() => document.querySelector('section[data-section=source]')?.textContent")
    assert NOT_RUN in text
    page, watch = pages.open(article_server, f"/fw/{fw}/licences")
    wait_until(page, "() => document.querySelector('#source-release')?.dataset.state === 'ready'")
    assert NOT_RUN in page.inner_text("#source-release")
    page, watch = pages.open(article_server, f"/fw/{fw}/whole?colour=source")
    settled(page)
    assert NOT_RUN in page.inner_text("#whole-legend")
    graph = article_server.json(f"/api/firmware/{fw}/diagram.json?path={q(ARTICLE_BUSYBOX)}")
    assert not any("source_status" in n for n in graph["nodes"])
    watch.assert_clean()


def test_neo4j_gives_the_viewer_the_same(
    mr3020_checked: Path, neo4j_server: Any, neo4j_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The queries the viewer adds answer alike on both stores, and a viewer on Neo4j shows the same
    source facts (the file API, the whole view's statuses, the Licences page's findings)."""
    linkgraph("push", "--db", str(mr3020_checked), "--neo4j", neo4j_server.uri, env=neo4j_env)
    (firmware,) = [row["id"] for row in query(mr3020_checked, "firmware")]
    chosen = ("--firmware", firmware, "--json", "--quiet")
    for name, params in (("source-status-map", ()), ("module-source", ("--param", f"path={MSGLOG}"))):
        ours = json.loads(linkgraph("query", name, "--db", str(mr3020_checked), *params, *chosen).stdout)
        theirs = json.loads(
            linkgraph("query", name, "--neo4j", neo4j_server.uri, *params, *chosen, env=neo4j_env).stdout
        )
        assert theirs == ours and ours, name
    with (
        ViewerServer(["--db", str(mr3020_checked)], tmp_path_factory.mktemp("sources-l")) as ladybug,
        ViewerServer(["--neo4j", neo4j_server.uri], tmp_path_factory.mktemp("sources-n"), env=neo4j_env) as neo4j,
    ):
        for path in ("sources", f"file?path={q(MSGLOG)}", f"file?path={q(BUSYBOX)}", "whole"):
            a = ladybug.json(f"/api/firmware/{firmware}/{path}")
            b = neo4j.json(f"/api/firmware/{firmware}/{path}")
            if path == "whole":
                a = {n["path"]: n["source_status"] for n in a["nodes"]}
                b = {n["path"]: n["source_status"] for n in b["nodes"]}
            elif path == "sources":
                for found in (a, b):
                    found.pop("firmware")
            else:
                a, b = a["source"], b["source"]
            assert a == b, path
