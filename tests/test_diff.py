"""``linkgraph diff`` and ``--firmware``'s choice.

A synthetic pair built with gcc, where exactly one edge turns from declared-unused to used, one
hidden edge appears and one library is replaced by another soname: the diff says that and nothing
else, and its edges are what the real loader's answers for both roots differ by. The LEDE and
Freifunk images of one router (tests/test_diff_images.py) are checked against their reports."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jsonschema
import pytest
from conftest import REPO, linkgraph
from support.browser import Pages, ViewerServer, wait_until
from support.fixture_root import MULTIARCH, Root, edges_from_traces, real_loader

SCHEMA = json.loads((REPO / "docs" / "diff.schema.json").read_text())
LDSO = f"{MULTIARCH}/ld-linux-x86-64.so.2"
LIBA, LIBB, LIBH = "/lib/liba.so", "/lib/libb.so", "/lib/libh.so"
LIBOLD, LIBNEW = "/lib/libold.so.1", "/lib/libnew.so.2"
PROG1, PROG2, PROG3 = "/usr/bin/prog1", "/usr/bin/prog2", "/usr/bin/prog3"
OLD, NEW = "diff-synthetic-old", "diff-synthetic-new"


def _calls(*functions: str) -> list[str]:
    """gcc flags for diff/main_calls.c: main calls ``functions``."""
    decls = " ".join(f"int {f}(void);" for f in functions)
    return [f"-DDECLS={decls}", f"-DCALLS={'+'.join(f + '()' for f in functions)}"]


def build(path: Path, old: Root | None = None) -> Root:
    """prog1 declares liba and (new) calls a_fn; libh (new) calls libb's b_fn without declaring
    libb, which prog2 loads; prog3's repl_fn comes from libold.so.1 (old) or libnew.so.2 (new).
    The new root is made when the ``old`` one is given; it gets the old root's prog2 as it is (ld
    lays out a program's dynamic symbols by what its libraries reference: relinked against the
    new libh, prog2 would be another file)."""
    new = old is not None
    root = Root(path)
    root.install_glibc()
    # no build id: an object built from the same sources and flags is the same file in both roots
    same = ["-Wl,--build-id=none"]
    root.lib(LIBA, ["loader_rules/onefn.c"], cflags=["-DFN=a_fn"], ldflags=same)
    root.lib(LIBB, ["loader_rules/onefn.c"], cflags=["-DFN=b_fn", "-DVALUE=2"], ldflags=same)
    root.lib(LIBH, ["diff/libh.c"], cflags=["-DUSE_B"] if new else [], ldflags=same)
    replaced = root.lib(
        LIBNEW if new else LIBOLD, ["loader_rules/onefn.c"], cflags=["-DFN=repl_fn", "-DVALUE=4"], ldflags=same
    )
    root.exe(PROG1, ["diff/main_calls.c"], needs=[LIBA], cflags=_calls("a_fn") if new else [], ldflags=same)
    if old is None:
        root.exe(PROG2, ["diff/main_calls.c"], needs=[LIBH, LIBB], cflags=_calls("h_fn", "b_fn"), ldflags=same)
    else:
        root.copy_file(old.host(PROG2), PROG2)
        root.executables.append(PROG2)
    root.exe(PROG3, ["diff/main_calls.c"], needs=[replaced], cflags=_calls("repl_fn"), ldflags=same)
    return root


@dataclass
class Pair:
    old: Root
    new: Root
    db: Path


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Pair:
    tmp = tmp_path_factory.mktemp("diff")
    old = build(tmp / "old")
    new = build(tmp / "new", old)
    db = tmp / "pair.lbdb"
    for root, name in ((old, OLD), (new, NEW)):
        linkgraph("scan", str(root.path), "--db", str(db), "--name", name, "--quiet")
    return Pair(old, new, db)


def diff_json(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    proc = linkgraph("diff", *args, "--format", "json", env=env)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    jsonschema.validate(found, SCHEMA)
    return found


def _sha256(root: Root, path: str) -> str:
    return hashlib.sha256(root.host(path).read_bytes()).hexdigest()


def _edge(e: dict[str, Any]) -> tuple[str, str, str | None, str, tuple[str, ...]]:
    return (e["from"], e["soname"], e["to"], e["status"], tuple(e["symbols"]))


def test_the_synthetic_pair_differs_by_exactly_the_three_changes(pair: Pair) -> None:
    found = diff_json(OLD, NEW, "--db", str(pair.db))
    assert (found["old"]["name"], found["new"]["name"]) == (OLD, NEW)
    mods = found["modules"]
    assert [m["path"] for m in mods["added"]] == [LIBNEW]
    assert [m["path"] for m in mods["removed"]] == [LIBOLD]
    assert mods["added"][0]["soname"] == "libnew.so.2" and mods["removed"][0]["soname"] == "libold.so.1"
    assert mods["added"][0]["sha256"] == _sha256(pair.new, LIBNEW)
    # the rebuilt objects, and only they, changed; only their file hash did
    assert [m["path"] for m in mods["changed"]] == sorted([LIBH, PROG1, PROG3])
    for m in mods["changed"]:
        assert (m["old_path"], m["matched_by"]) == (m["path"], "path")
        assert m["sha256"] == {"old": _sha256(pair.old, m["path"]), "new": _sha256(pair.new, m["path"])}
        assert m["soname"] is None and m["licence"] is None and m["package"] is None

    deps = found["dependencies"]
    assert deps["changed"] == [
        {
            "from": PROG1,
            "soname": "liba.so",
            "to": LIBA,
            "old_status": "declared-unused",
            "status": "used",
            "symbols_added": ["a_fn"],
            "symbols_removed": [],
        }
    ]
    # the replaced library's own edges (to libc) go and come with it, the same but for their source
    added = {_edge(e) for e in deps["added"] if e["from"] != LIBNEW}
    removed = {_edge(e) for e in deps["removed"] if e["from"] != LIBOLD}
    assert added == {
        (LIBH, "libb.so", LIBB, "hidden", ("b_fn",)),
        (PROG3, "libnew.so.2", LIBNEW, "used", ("repl_fn",)),
    }
    assert removed == {(PROG3, "libold.so.1", LIBOLD, "used", ("repl_fn",))}
    assert {_edge(e)[1:] for e in deps["added"] if e["from"] == LIBNEW} == {
        _edge(e)[1:] for e in deps["removed"] if e["from"] == LIBOLD
    }
    # so do its weak references nothing defines (crt's __gmon_start__ and the like)
    new_refs, gone_refs = found["unresolved"]["new"], found["unresolved"]["gone"]
    assert {u["module"] for u in new_refs} <= {LIBNEW} and {u["module"] for u in gone_refs} <= {LIBOLD}
    assert {(u["symbol"], u["weak"]) for u in new_refs} == {(u["symbol"], u["weak"]) for u in gone_refs}
    assert not any(found["duplicates"].values())
    # libc (LGPL) is used by the new library instead of the old one; no other finding moves
    moved = {
        (k, w, r["module"]) for k, part in found["licence_findings"].items() for w, rows in part.items() for r in rows
    }
    assert moved <= {("lgpl_used", "new", LIBNEW), ("lgpl_used", "gone", LIBOLD)}
    assert found["summary"]["dependencies"]["changed"] == 1


def _real_edges(root: Root) -> dict[tuple[str, str | None, str | None], tuple[str, tuple[str, ...]]]:
    traces = [real_loader(root, exe) for exe in root.executables]
    return {(f, s, t): (status, syms) for f, s, t, status, syms in edges_from_traces(root, traces, skip=[LDSO])}


def test_the_synthetic_diff_is_what_the_real_loader_differs_by(pair: Pair) -> None:
    """glibc's ld.so, run in each root, judges the edges: their difference is the diff's."""
    found = diff_json(OLD, NEW, "--db", str(pair.db))["dependencies"]
    old, new = _real_edges(pair.old), _real_edges(pair.new)
    assert {_edge(e) for e in found["added"]} == {(*k, *new[k]) for k in new.keys() - old.keys()}
    assert {_edge(e) for e in found["removed"]} == {(*k, *old[k]) for k in old.keys() - new.keys()}
    changed = {
        (*k, old[k][0], new[k][0], tuple(sorted(set(new[k][1]) - set(old[k][1]))))
        for k in new.keys() & old.keys()
        if old[k] != new[k]
    }
    assert {
        (e["from"], e["soname"], e["to"], e["old_status"], e["status"], tuple(e["symbols_added"]))
        for e in found["changed"]
    } == changed


def test_text_and_html_forms_show_the_same_tables(pair: Pair) -> None:
    text = linkgraph("diff", OLD, NEW, "--db", str(pair.db)).stdout
    assert "Dependency edges changed (1)" in text
    section = text.split("Dependency edges changed (1)\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(section) == 2 and section[1].split()[0] == PROG1
    line = section[1]
    assert "declared-unused -> used" in line and "a_fn" in line
    assert "Modules added (1)" in text and LIBNEW in text
    page = linkgraph("diff", OLD, NEW, "--db", str(pair.db), "--format", "html").stdout
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    assert "declared-unused -&gt; used" in page


def test_firmware_is_chosen_by_name_prefix_or_id_prefix(pair: Pair) -> None:
    db = ("--db", str(pair.db))
    firmware = json.loads(linkgraph("query", "firmware", *db, "--json").stdout)
    ids = {f["name"]: f["id"] for f in firmware}

    def chosen(wanted: str, *extra: str) -> tuple[str, str]:
        proc = linkgraph("report", *db, "--sections", "modules", "--firmware", wanted, *extra)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)["firmware"]["name"], proc.stderr

    for wanted, name in ((NEW, NEW), ("diff-synthetic-o", OLD), (ids[NEW][:8], NEW)):
        got, said = chosen(wanted)
        assert got == name
        assert said == f"linkgraph: --firmware {wanted}: {name} ({ids[name][:12]})\n"
    assert chosen("diff-synthetic-n", "--quiet") == (NEW, "")

    ambiguous = linkgraph("report", *db, "--firmware", "diff-syn", check=False)
    assert ambiguous.returncode == 2 and not ambiguous.stdout
    assert "ambiguous" in ambiguous.stderr
    assert f"{OLD} ({ids[OLD][:12]})" in ambiguous.stderr and f"{NEW} ({ids[NEW][:12]})" in ambiguous.stderr
    unknown = linkgraph("query", "summary", *db, "--firmware", "no-such", check=False)
    assert unknown.returncode == 2 and "matches no firmware" in unknown.stderr and OLD in unknown.stderr

    proc = linkgraph("diff", "diff-synthetic-o", ids[NEW][:10], *db, "--format", "json")
    assert proc.returncode == 0
    assert proc.stderr.splitlines() == [
        f"linkgraph: --firmware diff-synthetic-o: {OLD} ({ids[OLD][:12]})",
        f"linkgraph: --firmware {ids[NEW][:10]}: {NEW} ({ids[NEW][:12]})",
    ]
    assert linkgraph("diff", "diff-syn", NEW, *db, check=False).returncode == 2


def test_a_firmware_against_itself_has_no_differences(pair: Pair) -> None:
    found = diff_json(NEW, NEW, "--db", str(pair.db))
    assert found["matched"]["by_soname"] == 0
    counts = [
        n
        for part in found["summary"].values()
        for v in part.values()
        for n in (v.values() if isinstance(v, dict) else [v])
    ]
    assert counts and not any(counts)


def test_both_stores_give_the_same_diff(pair: Pair, neo4j_server: Any, neo4j_env: dict[str, str]) -> None:
    pushed = linkgraph("push", "--db", str(pair.db), "--neo4j", neo4j_server.uri, env=neo4j_env)
    assert pushed.returncode == 0, pushed.stderr
    ladybug = diff_json(OLD, NEW, "--db", str(pair.db))
    neo4j = diff_json(OLD, NEW, "--neo4j", neo4j_server.uri, env=neo4j_env)
    assert neo4j == ladybug


def test_the_viewer_compares_two_firmware(pair: Pair) -> None:
    from linkgraph.viewer import create_app

    client = create_app({"LINKGRAPH_DB": str(pair.db), "TESTING": True}).test_client()
    ids = {f["name"]: f["id"] for f in client.get("/api/firmware").get_json()}
    answer = client.get(f"/api/compare?old={ids[OLD][:10]}&new={ids[NEW]}")
    assert answer.status_code == 200
    assert answer.get_json() == diff_json(OLD, NEW, "--db", str(pair.db))
    assert client.get(f"/api/compare?old={ids[OLD]}").status_code == 400
    assert client.get(f"/api/compare?old={ids[OLD]}&new=ffffffff").status_code == 404

    form = client.get("/compare")
    assert form.status_code == 200 and "script-src 'self'" in form.headers["Content-Security-Policy"]
    page = form.get_data(as_text=True)
    assert f'<option value="{ids[OLD]}"' in page and f'<option value="{ids[NEW]}"' in page
    assert "Compare two firmware" in client.get("/").get_data(as_text=True)

    shown = client.get(f"/compare?old={ids[OLD]}&new={ids[NEW]}").get_data(as_text=True)
    assert "Dependency edges changed (1)" in shown and "Modules added (1)" in shown
    changed = shown.split("Dependency edges changed (1)", 1)[1].split("</table>", 1)[0]
    assert f"<td>{PROG1}</td>" in changed and "<td>declared-unused -&gt; used</td>" in changed
    assert "<td>a_fn</td>" in changed
    assert f'<option value="{ids[NEW]}" selected>' in shown


def test_the_compare_page_draws_the_changed_programs_with_their_new_edges_marked(pair: Pair) -> None:
    from linkgraph.viewer import create_app

    client = create_app({"LINKGRAPH_DB": str(pair.db), "TESTING": True}).test_client()
    ids = {f["name"]: f["id"] for f in client.get("/api/firmware").get_json()}
    shown = client.get(f"/compare?old={ids[OLD]}&new={ids[NEW]}").get_data(as_text=True)
    graphs = shown.split('class="compare-graphs"', 1)[1]
    # prog1 (declared-unused -> used), prog2 (libh's new hidden edge), prog3 (libnew.so.2)
    assert [
        line.strip()[len("<summary>") : -len("</summary>")] for line in graphs.splitlines() if "<summary>" in line
    ] == [
        PROG1,
        PROG2,
        PROG3,
    ]
    svg = client.get(f"/api/compare/diagram.svg?old={ids[OLD]}&new={ids[NEW]}&path={PROG2}")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    svg_ns, xlink = "{http://www.w3.org/2000/svg}", "{http://www.w3.org/1999/xlink}"
    drawn = ElementTree.fromstring(svg.get_data())
    thick = [g for g in drawn.iter(f"{svg_ns}g") if "highlight" in (g.get("class") or "").split()]
    assert [g.get("class") for g in thick] == ["edge hidden highlight"]
    tips = [a.get(f"{xlink}title") or "" for a in thick[0].iter(f"{svg_ns}a")]
    assert any(tip.startswith(f"hidden: {LIBH} → {LIBB}") for tip in tips), tips


def test_hostile_names_reach_the_terminal_escaped(pair: Pair, tmp_path: Path) -> None:
    """A firmware name and a file name with terminal control sequences: the text form shows them
    as escapes, the JSON form keeps them (JSON escapes control characters itself)."""
    evil_file = "/usr/lib/x\x1b[2Jy\u202e.so"
    root = pair.new.clone(tmp_path / "hostile")
    root.copy_file(pair.new.host(LIBB), evil_file)
    evil_name = "fw\x1b]0;title\x07"
    db = tmp_path / "hostile.lbdb"
    linkgraph("scan", str(pair.new.path), "--db", str(db), "--name", NEW, "--quiet")
    linkgraph("scan", str(root.path), "--db", str(db), "--name", evil_name, "--quiet")
    proc = linkgraph("diff", NEW, "fw", "--db", str(db))
    text = proc.stdout
    assert "\x1b" not in text + proc.stderr and "\x07" not in text + proc.stderr and "\u202e" not in text
    assert "fw\\x1b]0;title\\x07" in proc.stderr
    assert "fw\\x1b]0;title\\x07" in text and "/usr/lib/x\\x1b[2Jy\\u202e.so" in text
    found = diff_json(NEW, "fw", "--db", str(db))
    assert found["new"]["name"] == evil_name
    assert [m["path"] for m in found["modules"]["added"]] == [evil_file]


@pytest.mark.slow
def test_the_compare_page_in_the_browser(pair: Pair, pages: Pages, tmp_path: Path) -> None:
    """Chromium on ``linkgraph serve``: the page keeps its own security policy, the pickers hold
    both firmware, and opening a program draws its graph."""
    with ViewerServer(["--db", str(pair.db)], tmp_path) as server:
        ids = {f["name"]: f["id"] for f in server.json("/api/firmware")}
        page, watch = pages.open(server, f"/compare?old={ids[OLD]}&new={ids[NEW]}", ready=False)
        assert page.evaluate("() => [...document.querySelectorAll('select')].map(s => s.value)") == [ids[OLD], ids[NEW]]
        titles = page.evaluate(
            "() => [...document.querySelectorAll('section.compare-table h3')].map(h => h.textContent)"
        )
        assert "Dependency edges changed (1)" in titles and "Modules added (1)" in titles
        page.locator("details.compare-graph summary", has_text=PROG2).click()
        drawn = wait_until(
            page,
            """path => { const d = [...document.querySelectorAll('details.compare-graph')]
                 .find(x => x.querySelector('summary').textContent === path);
               const img = d && d.querySelector('img');
               return img && img.complete && img.naturalWidth > 0 && img.naturalWidth; }""",
            PROG2,
        )
        assert drawn > 100
        watch.assert_clean()
