"""Upcalls are no use (issue 37): a library calling back into a module that loads it.

The root comes from tests/support/upcall.py (C in tests/fixtures/upcall, built with gcc):
``cb_prog`` defines host_callback and declares libcb, which calls it; libhost declares libback,
which calls libhost's lib_callback; the program opens libdlplug with dlopen, and the plugin calls
host_callback too. The judge is the real glibc loader: in trace mode (``LD_BIND_NOW=1
LD_DEBUG=bindings``) it says which object each reference binds to and which objects each one's
``DT_NEEDED`` entries load, and a real run shows the plugin's bindings after ``dlopen``. From
those answers alone: libcb's host_callback and libback's lib_callback bind outside their own
dependency trees, nothing of those trees defines them (no interposition), and the provider's own
tree loads the library: upcalls, no hidden edge. The plugin is in no start-up tree: its call of
its host is a use, on its DLOPEN edge.

With the program, libhost and libgpl GPL and the rest proprietary, both upcalls would be licence
findings (a) if they counted as use; libcb -> libgpl is the only true one, and the judge of
tests/support/findings_judge.py (no linkgraph code) must find the same.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.findings_judge import Judge, query_rows, rows_of
from support.fixture_root import (
    MULTIARCH,
    Root,
    Scan,
    assert_matches_real_loader,
    assert_same_set,
    defined_symbols,
    edges_from_traces,
    own_tree,
    real_loader,
    real_run,
    scan,
)
from support.oracle import BindingKey, GlibcTrace
from support.upcall import BACK, CB, GPL, HOST, OUTPUT, PLUGIN, PROG, build_upcall_root, licence_file

LDSO = f"{MULTIARCH}/ld-linux-x86-64.so.2"
SOURCES = {PROG, CB, GPL, HOST, BACK, PLUGIN}
UPCALLS = {(CB, "host_callback", PROG), (BACK, "lib_callback", HOST)}  # (module, symbol, provider)
TRUE_ROW = (CB, GPL, (CB, GPL), ("used",), (PROG,))


@dataclass
class Case:
    root: Root
    licences: Path
    trace: GlibcTrace
    plugin_trace: GlibcTrace  # the plugin's own link map (no program loads it at start-up)
    run_out: list[str]
    run_rc: int
    run_bindings: set[BindingKey]
    result: Scan
    db: Path
    queries: dict[str, Any]


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Case:
    from linkgraph.loader.store import open_store

    work = tmp_path_factory.mktemp("upcall")
    root = build_upcall_root(work / "root")
    licences = licence_file(work / "licences.yaml")
    trace, plugin_trace = real_loader(root, PROG), real_loader(root, PLUGIN)
    proc, bound = real_run(root, PROG)
    result = scan(root, work / "db", "upcall", ["--licences", str(licences)])
    db = work / "db" / "upcall.lbdb"
    with open_store(db=str(db), read_only=True) as store:
        params = {"firmware": store.query("firmware")[0]["id"]}
        pairs = [{"from": a, "to": b} for a, _, b in sorted(UPCALLS)] + [{"from": CB, "to": GPL}]
        queries = {
            name: store.query(name, params) for name in ("upcall", "hidden", "interposed", "licence-gpl-used-by")
        }
        queries["pair-bindings"] = store.query("pair-bindings", {**params, "pairs": pairs})
    return Case(
        root, licences, trace, plugin_trace, proc.stdout.splitlines(), proc.returncode, bound, result, db, queries
    )


# --------------------------------------------------------------------------- the real loader's side


def test_the_program_runs_and_each_library_calls_back(case: Case) -> None:
    assert (case.run_rc, case.run_out) == (0, OUTPUT)
    called_back = {(m, s, p) for m, s, _, p in case.trace.bindings if (m, s, p) in UPCALLS}
    assert called_back == UPCALLS, case.trace.bindings
    assert case.trace.undefined == [] and case.trace.missing == []


def test_the_real_link_map_makes_them_upcalls(case: Case) -> None:
    """Provider outside the library's own tree, no twin in that tree, the library inside the
    provider's own tree: the three facts the rule reads, as the real loader loaded them."""
    for module, symbol, provider in UPCALLS:
        tree = own_tree(case.root, case.trace, module)
        assert provider not in tree, (module, tree)
        assert not any(symbol in defined_symbols(case.root.host(o)) for o in tree), (module, symbol)
        assert module in own_tree(case.root, case.trace, provider), (provider, module)
    assert PLUGIN not in case.trace.objects  # opened later, with dlopen: in no start-up tree
    assert case.plugin_trace.undefined == [("host_callback", None, PLUGIN)]  # alone, nothing defines it


def test_link_map_and_bindings_match_the_real_loader(case: Case) -> None:
    assert_matches_real_loader(case.result, case.trace)
    assert_matches_real_loader(case.result, case.plugin_trace)


# --------------------------------------------------------------------------- linkgraph's classification


def test_edges_as_the_real_loader_says(case: Case) -> None:
    traces = [case.trace, case.plugin_trace]
    expected = {e for e in edges_from_traces(case.root, traces, skip=[LDSO]) if e[0] in SOURCES}
    got = {e for e in case.result.edge_set() if e[0] in SOURCES}
    assert_same_set("dependency edges", expected, got)
    assert (CB, "cb_prog", PROG, "upcall", ("host_callback",)) in got
    assert (BACK, "libhost.so", HOST, "upcall", ("lib_callback",)) in got
    assert not [e for e in got if e[3] == "hidden"], got


def test_the_store_marks_the_bindings_and_lists_the_upcalls(case: Case) -> None:
    flags = {(r["from"], r["symbol"], r["to"]): (r["upcall"], r["interposed"]) for r in case.queries["pair-bindings"]}
    assert flags == {**dict.fromkeys(UPCALLS, (True, False)), (CB, "gpl_fn", GPL): (False, False)}
    assert {(r["from"], r["to"], tuple(r["symbols"]), tuple(r["programs"])) for r in case.queries["upcall"]} == {
        (CB, PROG, ("host_callback",), (PROG,)),
        (BACK, HOST, ("lib_callback",), (PROG,)),
    }
    assert not [r for r in case.queries["hidden"] + case.queries["interposed"] if r["from"] in SOURCES]


def test_a_dlopened_plugin_calling_its_host_stays_a_use(case: Case) -> None:
    """The real run binds the plugin's host_callback to the program once dlopen has loaded it;
    linkgraph keeps that on the DLOPEN edge (the program among its hidden providers) and makes no
    start-up edge, upcall or other, from the plugin to the program."""
    assert (PLUGIN, "host_callback", None, PROG) in case.run_bindings
    edges = [e for e in case.result.report["dlopen"] if (e["from"], e["to"]) == (PROG, PLUGIN)]
    assert len(edges) == 1, case.result.report["dlopen"]
    bound = {(b["module"], b["symbol"], b["version"], b["provider"]) for b in edges[0]["bindings"]}
    assert (PLUGIN, "host_callback", None, PROG) in bound
    assert PROG in edges[0]["hidden"]
    assert not [e for e in case.result.edges(PLUGIN) if e["to"] == PROG]
    assert not [b for b in case.result.report["bindings"] if (b["module"], b["provider"]) == (PLUGIN, PROG)]


def test_no_finding_a_runs_through_an_upcall(case: Case) -> None:
    report = case.result.report
    product = rows_of(report["licence_findings"]["gpl_used_by"])
    assert product == {TRUE_ROW}
    assert query_rows(case.queries["licence-gpl-used-by"]) == product
    judge = Judge(report, case.root.path)
    assert judge.rows() == product
    assert judge.counts["upcall bindings"] >= len(UPCALLS), dict(judge.counts)
    loads = {lm["executable"]: set(lm["objects"]) for lm in report["link_maps"]}
    for _module, _gpl, hops, _statuses, _programs in product:  # no hop into a program that loads its source
        assert not [(a, b) for a, b in itertools.pairwise(hops) if a in loads.get(b, ())], hops


@pytest.mark.slow
def test_neo4j_agrees(case: Case, neo4j_server: Any, neo4j_env: dict[str, str]) -> None:
    """The same root and licences in a real Neo4j server: the same report (edges, findings) and the
    same upcalls, bindings and finding (a) rows as LadybugDB."""
    server = ["--neo4j", neo4j_server.uri]
    proc = linkgraph(
        "scan", str(case.root.path), *server, "--name", "upcall", "--licences", str(case.licences), "--quiet",
        env=neo4j_env,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr

    def answer(store: list[str], *args: str) -> Any:
        done = linkgraph(*args, *store, env=neo4j_env)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    embedded = ["--db", str(case.db)]
    server += ["--firmware", "upcall"]
    pairs = json.dumps([{"from": a, "to": b} for a, _, b in sorted(UPCALLS)])
    for args in (
        ("report",),
        ("query", "upcall", "--json"),
        ("query", "licence-gpl-used-by", "--json"),
        ("query", "pair-bindings", "--json", "--param", f"pairs={pairs}"),
    ):
        assert answer(server, *args) == answer(embedded, *args), args
    dependencies = answer(server, "report")["dependencies"]
    assert {(d["from"], d["to"]) for d in dependencies if d["status"] == "upcall"} >= {(a, b) for a, _, b in UPCALLS}


# --------------------------------------------------------------------------- a shipped uClibc root

HILINK = "hilink_hlk-rm04"
UCLIBC, BUSYBOX = "/lib/libuClibc-0.9.28.so", "/bin/busybox"
# every program GPL (the folders of the Hi-Link root's programs), the three libraries the findings
# judge makes GPL on it, every other module proprietary: each libc -> program binding of main
# would be a path of (a) if it were use (34 of 35 rows were, before upcalls were told apart)
HILINK_LICENCES = [
    *(f'"{folder}/*": GPL-2.0-only' for folder in ("/bin", "/sbin", "/usr/bin", "/usr/sbin", "/etc_ro")),
    *(f'"{name}": GPL-2.0-only' for name in ("libnvram.so.0", "libiw.so.29", "libixml.so.1.3.1")),
    '"*": LicenseRef-Proprietary',
]


@pytest.mark.slow
def test_hilink_libc_calling_main_is_an_upcall_and_no_finding(tmp_path: Path) -> None:
    """uClibc 0.9.28's libc has ``UND WEAK main``: its binding to each program is an upcall, never
    hidden; every row of (a) checked hop by hop against the report's link maps (no hop from X to a
    program whose link map loads X) and equal to the findings judge's."""
    from support.vendor_roots import extracted_root

    root, _sha = extracted_root(HILINK)
    licences = tmp_path / "licences.yaml"
    licences.write_text("\n".join(HILINK_LICENCES) + "\n")
    result = scan(Root(root), tmp_path / "db", HILINK, ["--licences", str(licences)])
    edges = {(e["from"], e["to"]): e for e in result.edges(UCLIBC)}
    assert (edges[UCLIBC, BUSYBOX]["status"], edges[UCLIBC, BUSYBOX]["symbols"]) == ("upcall", ["main"])
    report = result.report
    programs = {m["path"] for m in report["modules"] if m["kind"] == "executable"}
    to_programs = {t: e for (_, t), e in edges.items() if t in programs}
    assert len(to_programs) >= 20 and {e["status"] for e in to_programs.values()} == {"upcall"}, to_programs
    rows = rows_of(report["licence_findings"]["gpl_used_by"])
    assert rows, "no row of (a) at all: the check below would prove nothing"
    loads = {lm["executable"]: set(lm["objects"]) for lm in report["link_maps"]}
    for _module, _gpl, hops, _statuses, _programs in rows:
        assert not [(a, b) for a, b in itertools.pairwise(hops) if a in loads.get(b, ())], hops
    judge = Judge(report, root)
    assert judge.rows() == rows
    assert judge.counts["upcall bindings"] >= len(to_programs), dict(judge.counts)
