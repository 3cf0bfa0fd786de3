"""The viewer's JSON API, through Flask's test client, on the article fixture in a real LadybugDB.

The expected busybox picture is the article's (tests/test_article_case.py checks the same edges
against the real loader); here the question is whether the API hands it over exactly.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, linkgraph
from support.article import APCFG, APLOG, BUSYBOX, CRYPT, GCC_S, LDSO, LIBC, NVRAM, UTIL

VENDOR_EDGES = {
    (BUSYBOX, UTIL): ("used", ["util_foo"]),
    (BUSYBOX, APCFG): ("used", ["apcfg_get"]),
    (BUSYBOX, NVRAM): ("declared-unused", []),
    (BUSYBOX, APLOG): ("declared-unused", []),
    (BUSYBOX, CRYPT): ("declared-unused", []),
    (BUSYBOX, GCC_S): ("declared-unused", []),
    (APCFG, NVRAM): ("used", ["nvram_get"]),
    (APCFG, UTIL): ("hidden", ["util_bar"]),
    (APCFG, APLOG): ("hidden", ["aplog_write"]),
}


def _named_edges(graph: dict) -> dict[tuple[str, str], tuple[str, list[str]]]:
    name = {n["id"]: n["path"] or n["label"] for n in graph["nodes"]}
    return {(name[e["from"]], name[e["to"]]): (e["status"], e["symbols"]) for e in graph["edges"]}


def test_busybox_graph_is_the_article_picture(client: Any, fw: str) -> None:
    graph = client.get(f"/api/firmware/{fw}/graph", query_string={"path": BUSYBOX}).get_json()
    assert graph["root"] == BUSYBOX and graph["nodes"][0] == {
        "id": "n0",
        "path": BUSYBOX,
        "label": "busybox",
        "kind": "executable",
        "soname": None,
        "missing": False,
        "licence": "GPL-2.0-only",
        "licence_class": "gpl",
    }  # the knowledge base knows busybox
    assert {n["path"] for n in graph["nodes"]} == {BUSYBOX, UTIL, NVRAM, APCFG, APLOG, CRYPT, GCC_S, LIBC, LDSO}
    edges = _named_edges(graph)
    assert {k: v for k, v in edges.items() if k[1] not in (LIBC, LDSO)} == VENDOR_EDGES
    # the rest is the C library: every module uses libc, libc uses ld.so; ld.so's own _dl_catch_error
    # and the like bind to libc's, which comes first: interposition, ld.so needs nothing of libc
    rest = {k: v[0] for k, v in edges.items() if k[1] in (LIBC, LDSO)}
    assert rest == {
        **{(m, LIBC): "used" for m in [BUSYBOX, UTIL, NVRAM, APCFG, APLOG, CRYPT, GCC_S]},
        (LIBC, LDSO): "used",
        (LDSO, LIBC): "interposed",
    }
    assert all(e["count"] == len(e["symbols"]) for e in graph["edges"])


def test_a_symlink_means_the_file_it_leads_to(client: Any, fw: str) -> None:
    via_link = client.get(f"/api/firmware/{fw}/graph", query_string={"path": "/bin/sh"}).get_json()
    direct = client.get(f"/api/firmware/{fw}/graph", query_string={"path": BUSYBOX}).get_json()
    assert via_link == direct


def test_file_analysis_sections(client: Any, fw: str) -> None:
    busybox = client.get(f"/api/firmware/{fw}/file", query_string={"path": BUSYBOX}).get_json()
    assert busybox["module"]["kind"] == "executable" and sorted(busybox["module"]["aliases"]) == [
        "/bin/sh",
        "/sbin/init",
    ]
    assert [d["soname"] for d in busybox["declared"]] == [
        "libutility.so",
        "libnvram.so",
        "libapcfg.so",
        "libaplog.so",
        "libcrypt.so.0",
        "libgcc_s.so.1",
        "libc.so.6",
    ]
    assert [u["to"] for u in busybox["used"]] == [UTIL, APCFG, LIBC]
    assert [u["to"] for u in busybox["declared_unused"]] == [NVRAM, APLOG, CRYPT, GCC_S]
    assert busybox["hidden"] == [] and busybox["missing"] == []
    apcfg = client.get(f"/api/firmware/{fw}/file", query_string={"path": APCFG}).get_json()
    assert [(h["to"], h["symbols"]) for h in apcfg["hidden"]] == [(APLOG, ["aplog_write"]), (UTIL, ["util_bar"])]
    utility = client.get(f"/api/firmware/{fw}/file", query_string={"path": UTIL}).get_json()
    assert utility["used_by"] == [
        {"module": BUSYBOX, "kind": "executable", "status": "used", "symbols": ["util_foo"]},
        {"module": APCFG, "kind": "library", "status": "hidden", "symbols": ["util_bar"]},
    ]
    assert utility["interposes_on"] == []


def test_traps_show_in_the_analysis(client: Any, fw: str) -> None:
    undef = client.get(f"/api/firmware/{fw}/file", query_string={"path": "/lib/libtrapundef.so"}).get_json()
    strong = [u["symbol"] for u in undef["unresolved"] if not u["weak"]]
    assert strong == ["vendor_missing_fn"]
    dup = client.get(f"/api/firmware/{fw}/file", query_string={"path": "/usr/bin/trap_dup"}).get_json()
    vendor = [d for d in dup["duplicates"] if not d["chosen"].startswith(LIBC.rsplit("/", 1)[0])]
    assert vendor == [
        {
            "symbol": "dup_fn",
            "providers": ["/lib/libdupa.so", "/lib/libdupb.so"],
            "chosen": "/lib/libdupa.so",
            "executables": ["/usr/bin/trap_dup"],
        }
    ]
    gone = client.get(f"/api/firmware/{fw}/file", query_string={"path": "/usr/bin/trap_missing"}).get_json()
    assert gone["missing"] == [{"soname": "libgone.so.1"}]


def test_declared_dependencies_say_how_they_were_found(client: Any, fw: str) -> None:
    """Found by: the rule and the folder (libtree/blint style), or the paths tried for a missing one."""
    busybox = client.get(f"/api/firmware/{fw}/file", query_string={"path": BUSYBOX}).get_json()
    found = {d["soname"]: d["found_by"] for d in busybox["declared"]}
    assert found["libutility.so"] == {
        "rule": "default-dir",
        "directory": "/lib",
        "via": None,
        "tried": [],
        "variants": [],
    }
    assert found["libc.so.6"]["rule"] == "default-dir"
    assert found["libc.so.6"]["directory"] == LIBC.rsplit("/", 1)[0]
    libc = client.get(f"/api/firmware/{fw}/file", query_string={"path": LIBC}).get_json()
    assert [d["found_by"]["rule"] for d in libc["declared"]] == ["interpreter"]
    gone = client.get(f"/api/firmware/{fw}/file", query_string={"path": "/usr/bin/trap_missing"}).get_json()
    missing = next(d["found_by"] for d in gone["declared"] if d["soname"] == "libgone.so.1")
    assert missing["rule"] is None and missing["directory"] is None
    assert missing["tried"] == [
        f"{d}/libgone.so.1" for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib")
    ]


def test_tree_marks_kinds_links_ghosts_and_flags(client: Any, fw: str) -> None:
    tree = client.get(f"/api/firmware/{fw}/tree").get_json()
    entries = {e["path"]: e for e in tree["entries"]}
    assert entries["/bin/sh"]["kind"] == "symlink" and entries["/bin/sh"]["target"] == BUSYBOX
    assert entries[BUSYBOX]["kind"] == "executable" and entries[UTIL]["kind"] == "library"
    assert entries[BUSYBOX]["flags"] == {"hidden": 0, "declared_unused": 4, "missing": 0, "unresolved": 0}
    assert entries[APCFG]["flags"]["hidden"] == 2
    assert entries["/lib/libtrapundef.so"]["flags"]["unresolved"] == 1
    assert tree["missing"] == [{"soname": "libgone.so.1", "needed_by": ["/usr/bin/trap_missing"]}]


def test_edge_symbols(client: Any, fw: str) -> None:
    edge = client.get(f"/api/firmware/{fw}/edge", query_string={"from": APCFG, "to": UTIL}).get_json()
    assert edge == {"from": APCFG, "to": UTIL, "soname": "libutility.so", "status": "hidden", "symbols": ["util_bar"]}
    gone = client.get(
        f"/api/firmware/{fw}/edge", query_string={"from": "/usr/bin/trap_missing", "to": "libgone.so.1"}
    ).get_json()
    assert gone["status"] == "missing" and gone["symbols"] == []


def test_whole_firmware_holds_every_module_and_edge(client: Any, fw: str) -> None:
    whole = client.get(f"/api/firmware/{fw}/whole").get_json()
    tree = client.get(f"/api/firmware/{fw}/tree").get_json()
    modules = [e for e in tree["entries"] if e["kind"] != "symlink"]
    assert len(whole["nodes"]) == len(modules) + len(tree["missing"])
    edges = linkgraph("query", "dependencies", "--db", str(client.application.config["LINKGRAPH_DB"]), "--json").stdout
    import json

    assert len(whole["edges"]) == len(json.loads(edges))
    place = {n["path"] or n["label"]: n for n in whole["nodes"]}
    # what the page groups by: the folder, the package, the licence class (the page lays it out)
    assert place[BUSYBOX]["dir"] == "/bin" and place[APCFG]["dir"] == "/lib"
    assert all("package" in n and "x" not in n for n in whole["nodes"])


def test_no_kernel_links_without_kernel_modules(client: Any, fw: str) -> None:
    """The article has no kernel module: no kernel sections, no kernel edges or node, no (e) finding
    (tests/test_viewer_kernel.py has a root with them)."""
    busybox = client.get(f"/api/firmware/{fw}/file", query_string={"path": BUSYBOX}).get_json()
    assert busybox["kernel_links"] == [] and busybox["kernel_used_by"] == []
    whole = client.get(f"/api/firmware/{fw}/whole").get_json()
    assert not [e for e in whole["edges"] if "link" in e] and not [n for n in whole["nodes"] if n["kind"] == "kernel"]
    licences = client.get(f"/api/firmware/{fw}/licences").get_json()
    assert licences["kernel_gpl_only"] == [] and licences["summary"]["findings"]["kernel_gpl_only"] == 0


@pytest.mark.parametrize(
    ("url", "params", "code", "words"),
    [
        ("/api/firmware/{fw}/file", {"path": "/bin/nope"}, 404, "no ELF file '/bin/nope'"),
        ("/api/firmware/{fw}/graph", {"path": "/lib"}, 404, "no ELF file"),
        ("/api/firmware/{fw}/edge", {"from": BUSYBOX, "to": "/lib/libnope.so"}, 404, "no dependency edge"),
        ("/api/firmware/{fw}/file", {}, 400, "path="),
        ("/api/firmware/{fw}/kernel-link", {"from": BUSYBOX, "to": "vmlinux"}, 404, "no kernel link"),
        ("/api/firmware/{fw}/kernel-link", {"from": BUSYBOX}, 400, "to="),
        ("/api/firmware/0123abc/tree", {}, 404, "no firmware '0123abc'"),
        ("/api/firmware/{fw}/nothing-here", {}, 404, ""),
    ],
)
def test_bad_requests_say_what_is_wrong(client: Any, fw: str, url: str, params: dict, code: int, words: str) -> None:
    answer = client.get(url.format(fw=fw), query_string=params)
    assert answer.status_code == code and answer.is_json
    assert words in answer.get_json()["error"]


def test_every_api_route_is_documented(client: Any) -> None:
    documented = (REPO / "docs" / "viewer.md").read_text()
    routes = [r.rule for r in client.application.url_map.iter_rules() if r.rule.startswith("/api/")]
    assert len(routes) >= 8
    for rule in routes:
        shown = re.sub(r"<any\([^)]*\):fmt>", "svg", rule.replace("<firmware_id>", "<id>"))
        assert f"GET {shown}" in documented, f"{rule} is not documented in docs/viewer.md"


def test_the_viewer_never_writes(article_db: Path, client: Any, fw: str) -> None:
    before = hashlib.sha256(article_db.read_bytes()).hexdigest()
    for path in (BUSYBOX, APCFG, "/bin/sh"):
        for call in ("file", "graph"):
            assert client.get(f"/api/firmware/{fw}/{call}", query_string={"path": path}).status_code == 200
    client.get(f"/api/firmware/{fw}/whole")
    client.get(f"/api/firmware/{fw}/tree")
    assert hashlib.sha256(article_db.read_bytes()).hexdigest() == before
    assert not Path(str(article_db) + ".wal").exists() or Path(str(article_db) + ".wal").stat().st_size == 0
