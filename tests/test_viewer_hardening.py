"""The hardening facts in the viewer (docs/viewer.md): the API hands over what ``linkgraph query
hardening`` answers, the Overview shows it in words, the tree's hardening filters select exactly the
modules the query says lack (or have) a fact, and axe finds nothing serious on the Overview.

The oracle is the named query through the command line, never the viewer's own code; the filters'
rules are written here again from docs/graph.md ("Hardening")."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.axe import severe, violations
from support.browser import ARTICLE_NAME, Pages, ViewerServer, wait_until

Row = dict[str, Any]
FACTS = ("pie", "nx", "relro", "stack_protector", "fortify", "fortified", "textrel", "rpath", "runpath")

# the tree's hardening filters (value "hardening:KEY") and the modules each must show
FILTERS: dict[str, Callable[[Row], bool]] = {
    "no-nx": lambda r: not r["nx"],
    "relro-not-full": lambda r: r["relro"] != "full",
    "relro-none": lambda r: r["relro"] == "none",
    "no-stack-protector": lambda r: not r["stack_protector"],
    "no-fortify": lambda r: not r["fortify"],
    "textrel": lambda r: r["textrel"],
    "no-pie": lambda r: r["kind"] == "executable" and not r["pie"],
    "search-path": lambda r: bool(r["rpath"] or r["runpath"]),
    "risky-path": lambda r: bool(r["risky_paths"]),
}


def query_hardening(store: list[str]) -> dict[str, Row]:
    proc = linkgraph("query", "hardening", *store, "--json")
    assert proc.returncode == 0, proc.stderr
    return {r["path"]: r for r in json.loads(proc.stdout)}


def test_api_gives_the_query_facts(client: Any, fw: str, article_db: Path) -> None:
    rows = query_hardening(["--db", str(article_db)])
    assert len(rows) == 18 and any(r["runpath"] for r in rows.values())  # /opt/app/bin/app: $ORIGIN/../lib
    tree = client.get(f"/api/firmware/{fw}/tree").get_json()["entries"]
    modules = {e["path"]: e for e in tree if e["kind"] != "symlink"}
    assert set(modules) == set(rows)
    for path, row in rows.items():
        want = {k: row[k] for k in (*FACTS, "risky_paths")}
        assert modules[path]["hardening"] == want, path
        found = client.get(f"/api/firmware/{fw}/file", query_string={"path": path}).get_json()["hardening"]
        assert {k: v for k, v in found.items() if k != "warnings"} == want, path
        assert sorted({w["code"] for w in found["warnings"]}) == row["risky_paths"], path
    symlinks = [e for e in tree if e["kind"] == "symlink"]
    assert symlinks and all(e["hardening"] == modules[e["target"]]["hardening"] for e in symlinks)
    via_link = client.get(f"/api/firmware/{fw}/file", query_string={"path": symlinks[0]["path"]}).get_json()
    assert via_link["hardening"]["relro"] == rows[symlinks[0]["target"]]["relro"]


def expected_words(row: Row) -> dict[str, str]:
    """What the Overview's table must say first for each fact: yes/no, the RELRO word, the path or none."""
    words = {k: "yes" if row[k] else "no" for k in ("pie", "nx", "stack_protector", "fortify", "textrel")}
    return words | {"relro": row["relro"], "rpath": row["rpath"] or "none", "runpath": row["runpath"] or "none"}


def shown_modules(page: Any) -> tuple[set[str], set[str]]:
    """The modules and the symlinks the tree shows now."""
    found = page.evaluate("""() => [...document.querySelectorAll('#tree a.entry[data-path]')]
        .filter(a => a.offsetParent !== null)
        .map(a => [a.dataset.path, a.querySelector('.kind').title])""")
    return {p for p, k in found if k != "symlink"}, {p for p, k in found if k == "symlink"}


@pytest.mark.slow
def test_overview_and_tree_filter(article_server: ViewerServer, pages: Pages) -> None:
    fw = article_server.firmware_id(ARTICLE_NAME)
    rows = query_hardening(["--db", str(article_server.store[1])])
    tree = article_server.json(f"/api/firmware/{fw}/tree")["entries"]
    target = {e["path"]: e["target"] for e in tree if e["kind"] == "symlink"}
    page, watch = pages.open(article_server, f"/fw/{fw}/")
    wait_until(page, "() => document.querySelector('#tree a.entry[data-path]') !== null")

    # --- the filter: exactly the modules the query names (and the symlinks to them)
    counts = {}
    for key, lacks in FILTERS.items():
        page.select_option("#tree-status", f"hardening:{key}")
        wait_until(page, "want => document.querySelector('#tree').dataset.filter === want", f"hardening:{key}:")
        modules, links = shown_modules(page)
        want = {p for p, r in rows.items() if lacks(r)}
        assert modules == want, (key, modules ^ want)
        assert links == {s for s, t in target.items() if t in want}, key
        counts[key] = len(modules)
    assert 0 < counts["search-path"] < len(rows) and counts["relro-not-full"] == len(rows), counts
    page.select_option("#tree-status", "")

    # --- the Overview of every module: its facts in words
    for path, row in rows.items():
        page.click(f"#tree a.entry[data-path='{path}']")
        wait_until(
            page,
            """p => document.querySelector('#panel').dataset.state === 'ready'
                && document.querySelector('#panel .file-path code').textContent === p""",
            path,
        )
        cells = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
            '#tabpanel-overview table.hardening tr[data-fact]')].map(tr => [tr.dataset.fact,
            tr.querySelector('td').textContent]))""")
        said = {k: v if k in ("rpath", "runpath") else v.split(":")[0] for k, v in cells.items()}
        assert said == expected_words(row), path
        if row["runpath"]:
            assert page.locator("#tabpanel-overview .risky-paths-none").count() == (0 if row["risky_paths"] else 1)
            found = severe(violations(page))  # the Overview with the table, RUNPATH shown
            assert found == [], found
    watch.assert_clean()
