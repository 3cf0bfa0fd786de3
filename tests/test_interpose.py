"""Interposition is not dependency (issue 26), judged by the real glibc loader twice.

The roots come from tests/support/interpose.py (C in tests/fixtures/interpose, built with gcc):

(i)   ``alloc_prog`` defines malloc, free, calloc and realloc; liballoc (which declares libc only)
      allocates with malloc and free.  The program comes first in the lookup scope, so liballoc's
      malloc and free, and libc's own, bind to the program: interposed, not hidden.  The same
      with the twin definition two levels down the library's own tree: ``tree_prog`` defines
      tree_name, libfront -> libmid -> libback, libback defines it too, libfront calls it.  And
      with the library's own definition: ``self_prog`` defines self_name, which libself defines
      and calls.
(ii)  ``host_prog`` defines host_version; libplugin, which it declares, calls it: a library
      calling back into its host, which loads it: an upcall on the program, no dependency (the
      program depends on the library, not the other way; tests/test_upcall.py has more).  Also
      mixed: libmixed calls mixed_hook (only its program, ``mixed_prog``, defines it) and
      mixed_name (libmixdep, which libmixed declares, defines it too, but the program's comes
      first): one edge to the program, an upcall.  And a twin the loader would not take:
      libverback, in libverfront's tree, defines ver_name only at a non-default version, which an
      unversioned reference never binds to; ``ver_prog``'s definition is needed, and ``ver_prog``
      loads libverfront: an upcall.
(iii) ``needy_prog`` declares libneedy and libundecl; libneedy calls undecl_fn of libundecl without
      declaring it: hidden, the article's case.

Judge one: the real loader in trace mode (``LD_BIND_NOW=1 LD_DEBUG=bindings``) says which object
each reference binds to.  Judge two: each program rebuilt without its definition (or without
libundecl) and really run: a library whose references then bind elsewhere and which still runs
was only interposed; one whose reference is left undefined and fails really needs what was
taken away, which is a dependency (hidden) unless the real loader's link map shows that the
provider's own tree loads the library (an upcall: the dependency runs the other way).  The
expected edges are derived from those answers, then compared with what ``linkgraph`` classifies.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.fixture_root import (
    EdgeKey,
    Root,
    Scan,
    assert_matches_real_loader,
    assert_same_set,
    edges_from_traces,
    own_tree,
    real_loader,
    run_in_root,
    scan,
)
from support.interpose import (
    ALLOC_LIB,
    ALLOC_PROG,
    BACK,
    EXECUTABLES,
    FRONT,
    HOST_PROG,
    LDSO,
    LIBC,
    LIBRARIES,
    MID,
    MIXDEP,
    MIXED,
    MIXED_PROG,
    NEEDY,
    NEEDY_PROG,
    OUTPUT,
    OUTPUT_WITHOUT,
    PLUGIN,
    SELF,
    SELF_PROG,
    TREE_PROG,
    UNDECL,
    VER_BACK,
    VER_FRONT,
    VER_PROG,
    interpose_roots,
)
from support.oracle import GlibcTrace

RUN_ENV = {"LC_ALL": "C", "PATH": "/usr/bin:/bin"}
SOURCES = {*EXECUTABLES, *LIBRARIES, LIBC}  # the objects whose edges are judged (ld.so: see edges_from_traces)
# Edges holding interposed and needed bindings: an upcall here, but whether the interposed symbols
# are listed on them is the product's choice (test_case_ii_mixed_edge_is_an_upcall).
LOOSE = {(MIXED, MIXED_PROG)}


@dataclass
class Case:
    real: Root
    without: Root
    traces: dict[str, GlibcTrace]  # real root, per program
    without_traces: dict[str, GlibcTrace]  # without root, per program
    result: Scan
    rows: list[dict[str, Any]]  # the store's "dependencies" answer
    summary: dict[str, int]  # the store's "summary" answer: edges per status
    hidden_query: set[tuple[str, str]]  # the store's "hidden" answer: (from, to)
    interposed_query: set[tuple[str, str]]  # the store's "interposed" answer: (from, to)
    upcall_query: set[tuple[str, str]]  # the store's "upcall" answer: (from, to)
    db: Path  # the database the scan wrote


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Case:
    from linkgraph.loader.store import open_store

    work = tmp_path_factory.mktemp("interpose")
    real, without = interpose_roots(work)
    traces = {exe: real_loader(real, exe) for exe in EXECUTABLES}
    without_traces = {exe: real_loader(without, exe) for exe in EXECUTABLES}
    result = scan(real, work / "db", "interpose")
    with open_store(db=str(work / "db" / "interpose.lbdb"), read_only=True) as store:
        firmware = store.query("firmware")[0]["id"]
        rows = store.query("dependencies", {"firmware": firmware})
        summary = {r["status"]: r["edges"] for r in store.query("summary", {"firmware": firmware})}
        hidden = {(r["from"], r["to"]) for r in store.query("hidden", {"firmware": firmware})}
        interposed = {(r["from"], r["to"]) for r in store.query("interposed", {"firmware": firmware})}
        upcall = {(r["from"], r["to"]) for r in store.query("upcall", {"firmware": firmware})}
    db = work / "db" / "interpose.lbdb"
    return Case(real, without, traces, without_traces, result, rows, summary, hidden, interposed, upcall, db)


# --------------------------------------------------------------------------- the oracle's side


def judge(case: Case, program: str) -> dict[tuple[str, str, str], str]:
    """Per cross-object binding (module, symbol, provider) of *program*'s real map whose provider
    is outside the module's own tree: ``interposed`` when, with the provider's definition taken
    away, the same reference binds to an object of the module's own tree (and the program still
    runs: the tests check); when it is left undefined (and the program fails), ``upcall`` if the
    module is in the provider's own tree as the real loader loaded it, else ``hidden``.
    Anything else means the fixture is not the clean case it is meant to be."""
    real, without = case.traces[program], case.without_traces[program]
    undefined = {(m, s) for s, _, m in without.undefined}
    out: dict[tuple[str, str, str], str] = {}
    for module, symbol, _version, provider in real.bindings:
        if module in (provider, LDSO) or provider in own_tree(case.real, real, module):
            continue  # the loader's own references (see oracle.py), or a binding inside the tree
        elsewhere = {p for m, s, _, p in without.bindings if (m, s) == (module, symbol)}
        if elsewhere:
            assert len(elsewhere) == 1 and elsewhere <= own_tree(case.without, without, module), (
                module,
                symbol,
                elsewhere,
            )
            out[(module, symbol, provider)] = "interposed"
        else:
            assert (module, symbol) in undefined, f"{module} {symbol}: neither bound nor undefined without {provider}"
            upcall = module in own_tree(case.real, real, provider)
            out[(module, symbol, provider)] = "upcall" if upcall else "hidden"
    return out


def expected_edges(case: Case) -> set[EdgeKey]:
    """The edges from SOURCES as the real loader's bindings define them, undeclared edges as the
    judges call their bindings: ``hidden`` when one is, else ``upcall`` when one is, else
    ``interposed`` (which symbols an edge of two kinds lists is checked on its own, see LOOSE)."""
    verdicts: dict[tuple[str, str, str], str] = {}
    for program in EXECUTABLES:
        verdicts.update(judge(case, program))
    out = set()
    for e in edges_from_traces(case.real, case.traces.values(), skip=[LDSO]):
        source, soname, to, status, symbols = e
        if source not in SOURCES:
            continue
        if status in ("hidden", "interposed", "upcall"):  # bindings outside the declared objects: the judges say which
            if soname is None:  # an executable has no soname: the edge is named by the file
                soname = to.rsplit("/", 1)[1]
            kinds = {verdicts[(source, s, to)] for s in symbols if (source, s, to) in verdicts}
            assert kinds, f"{source} -> {to}: no verdict"
            status = next(k for k in ("hidden", "upcall", "interposed") if k in kinds)
        out.add((source, soname, to, status, symbols))
    return out


def edge_set(rows: Iterable[dict[str, Any]], sources: Iterable[str]) -> set[EdgeKey]:
    keep = set(sources)
    return {
        (r["from"], r["soname"], r["to"], r["status"], tuple(sorted(r["symbols"] or ())))
        for r in rows
        if r["from"] in keep
    }


def run(root: Root, program: str) -> tuple[int, list[str], str]:
    proc = run_in_root(root, [program], dict(RUN_ENV))
    return proc.returncode, proc.stdout.splitlines(), proc.stderr


# --------------------------------------------------------------------------- the judges agree on the fixtures


def test_the_real_programs_run(case: Case) -> None:
    for program in EXECUTABLES:
        assert run(case.real, program)[:2] == (0, OUTPUT[program]), program
        assert case.traces[program].undefined == [] and case.traces[program].missing == []


def test_oracle_case_i_malloc_and_free_bind_to_the_program(case: Case) -> None:
    t = case.traces[ALLOC_PROG]
    to_program = {(m, s) for m, s, _, p in t.bindings if p == ALLOC_PROG and m != ALLOC_PROG}
    assert {(ALLOC_LIB, "malloc"), (ALLOC_LIB, "free")} <= to_program
    assert {(LIBC, s) for s in ("malloc", "free", "calloc", "realloc")} <= to_program
    # Without the program's definitions the same references bind to libc, and the program runs.
    w = case.without_traces[ALLOC_PROG]
    assert {(ALLOC_LIB, "malloc", LIBC), (ALLOC_LIB, "free", LIBC)} <= {(m, s, p) for m, s, _, p in w.bindings}
    assert w.undefined == []
    assert run(case.without, ALLOC_PROG)[:2] == (0, OUTPUT_WITHOUT[ALLOC_PROG])
    assert judge(case, ALLOC_PROG) == {
        (ALLOC_LIB, "malloc", ALLOC_PROG): "interposed",
        (ALLOC_LIB, "free", ALLOC_PROG): "interposed",
        **{(LIBC, s, ALLOC_PROG): "interposed" for s in ("malloc", "free", "calloc", "realloc")},
    }


def test_oracle_case_i_the_library_itself_defines_it(case: Case) -> None:
    assert (SELF, "self_name", None, SELF_PROG) in case.traces[SELF_PROG].bindings
    assert (SELF, "self_name", None, SELF) in case.without_traces[SELF_PROG].bindings
    assert run(case.without, SELF_PROG)[:2] == (0, OUTPUT_WITHOUT[SELF_PROG])
    assert judge(case, SELF_PROG) == {(SELF, "self_name", SELF_PROG): "interposed"}


def test_oracle_case_i_twin_deeper_in_the_tree(case: Case) -> None:
    assert (FRONT, "tree_name", None, TREE_PROG) in case.traces[TREE_PROG].bindings
    assert (FRONT, "tree_name", None, BACK) in case.without_traces[TREE_PROG].bindings
    assert own_tree(case.without, case.without_traces[TREE_PROG], FRONT) == {FRONT, MID, BACK, LIBC, LDSO}
    assert run(case.without, TREE_PROG)[:2] == (0, OUTPUT_WITHOUT[TREE_PROG])
    assert judge(case, TREE_PROG) == {(FRONT, "tree_name", TREE_PROG): "interposed"}


@pytest.mark.parametrize(
    ("program", "module", "symbol", "provider", "verdict"),
    [
        pytest.param(HOST_PROG, PLUGIN, "host_version", HOST_PROG, "upcall", id="ii-plugin-calls-its-host"),
        pytest.param(VER_PROG, VER_FRONT, "ver_name", VER_PROG, "upcall", id="ii-twin-at-a-version-never-bound"),
        pytest.param(NEEDY_PROG, NEEDY, "undecl_fn", UNDECL, "hidden", id="iii-undeclared-library"),
    ],
)
def test_oracle_needed_cases_fail_without(
    case: Case, program: str, module: str, symbol: str, provider: str, verdict: str
) -> None:
    """(ii) without host_version in the program, (iii) without libundecl in the program's NEEDED:
    the reference is left undefined and the program stops at it; in (ii) the program's own tree
    loads the library (an upcall), in (iii) libundecl's does not load libneedy (hidden)."""
    assert (module, symbol, None, provider) in case.traces[program].bindings
    assert provider not in case.without_traces[program].objects or provider == program
    assert case.without_traces[program].undefined == [(symbol, None, module)]
    rc, out, err = run(case.without, program)
    assert rc != 0 and out == [], (rc, out, err)
    assert "symbol lookup error" in err and f"undefined symbol: {symbol}" in err, err
    assert (module in own_tree(case.real, case.traces[program], provider)) == (verdict == "upcall")
    assert judge(case, program) == {(module, symbol, provider): verdict}


def test_fixture_verback_defines_ver_name_at_a_non_default_version(case: Case) -> None:
    """libverback's twin exists (readelf), only not where an unversioned reference may bind."""
    syms = subprocess.run(
        ["readelf", "-W", "--dyn-syms", str(case.real.host(VER_BACK))], capture_output=True, text=True, check=True
    ).stdout
    defined = {cols[7] for cols in map(str.split, syms.splitlines()) if len(cols) >= 8 and cols[6] != "UND"}
    assert "ver_name@VERBACK_NEW" in defined and not any(d.startswith("ver_name@@") for d in defined), defined
    assert VER_BACK in own_tree(case.real, case.traces[VER_PROG], VER_FRONT)


def test_oracle_mixed_edge(case: Case) -> None:
    """libmixed -> mixed_prog: mixed_name has a twin in libmixed's own tree, mixed_hook has none
    (libmixdep, in the tree, refers to it without defining it)."""
    real = {(s, p) for m, s, _, p in case.traces[MIXED_PROG].bindings if m == MIXED}
    assert {("mixed_name", MIXED_PROG), ("mixed_hook", MIXED_PROG)} <= real
    assert (MIXED, "mixed_name", None, MIXDEP) in case.without_traces[MIXED_PROG].bindings
    assert sorted(case.without_traces[MIXED_PROG].undefined) == [
        ("mixed_hook", None, m) for m in sorted([MIXDEP, MIXED])
    ]
    rc, out, err = run(case.without, MIXED_PROG)
    assert rc != 0 and out == [] and "undefined symbol: mixed_hook" in err, (rc, out, err)
    assert judge(case, MIXED_PROG) == {
        (MIXED, "mixed_name", MIXED_PROG): "interposed",
        (MIXED, "mixed_hook", MIXED_PROG): "upcall",
        (MIXDEP, "mixed_hook", MIXED_PROG): "upcall",
    }


def test_link_maps_and_bindings_match_the_real_loader(case: Case) -> None:
    for program in EXECUTABLES:
        assert_matches_real_loader(case.result, case.traces[program])


# --------------------------------------------------------------------------- linkgraph's classification


def test_case_i_library_to_program_is_interposed(case: Case) -> None:
    t = case.traces[ALLOC_PROG]
    libc_symbols = tuple(sorted({s for m, s, _, p in t.bindings if m == ALLOC_LIB and p == LIBC}))
    expected = {
        (ALLOC_LIB, "alloc_prog", ALLOC_PROG, "interposed", ("free", "malloc")),
        (ALLOC_LIB, "libc.so.6", LIBC, "used" if libc_symbols else "declared-unused", libc_symbols),
    }
    assert "malloc" not in libc_symbols and "free" not in libc_symbols
    assert_same_set("edges of liballoc", expected, edge_set(case.rows, [ALLOC_LIB]))
    libc_to_program = {e for e in edge_set(case.rows, [LIBC]) if e[2] == ALLOC_PROG}
    assert libc_to_program == {(LIBC, "alloc_prog", ALLOC_PROG, "interposed", ("calloc", "free", "malloc", "realloc"))}


def test_case_i_twin_deeper_in_the_tree_is_interposed(case: Case) -> None:
    got = {e for e in edge_set(case.rows, [FRONT]) if e[2] in (TREE_PROG, BACK)}
    assert got == {(FRONT, "tree_prog", TREE_PROG, "interposed", ("tree_name",))}


def test_case_i_the_library_itself_defines_it_is_interposed(case: Case) -> None:
    got = {e for e in edge_set(case.rows, [SELF]) if e[2] == SELF_PROG}
    assert got == {(SELF, "self_prog", SELF_PROG, "interposed", ("self_name",))}


def test_case_ii_plugin_to_host_is_an_upcall(case: Case) -> None:
    got = {e for e in edge_set(case.rows, [PLUGIN]) if e[2] == HOST_PROG}
    assert got == {(PLUGIN, "host_prog", HOST_PROG, "upcall", ("host_version",))}


def test_case_ii_mixed_edge_is_an_upcall(case: Case) -> None:
    """One binding only the program satisfies, while the program loads the library, makes the edge
    an upcall, interposed ones beside it or not."""
    got = [e for e in edge_set(case.rows, [MIXED]) if e[2] == MIXED_PROG]
    assert len(got) == 1 and got[0][:4] == (MIXED, "mixed_prog", MIXED_PROG, "upcall"), got
    assert "mixed_hook" in got[0][4] and set(got[0][4]) <= {"mixed_hook", "mixed_name"}, got
    # libmixdep only refers to mixed_hook: no twin, and the program loads it too: an upcall.
    assert {e for e in edge_set(case.rows, [MIXDEP]) if e[2] == MIXED_PROG} == {
        (MIXDEP, "mixed_prog", MIXED_PROG, "upcall", ("mixed_hook",))
    }
    # mixed_name binds to the program, not to libmixdep, which libmixed declares for it.
    assert {e for e in edge_set(case.rows, [MIXED]) if e[2] == MIXDEP} == {
        (MIXED, "libmixdep.so", MIXDEP, "declared-unused", ())
    }


def test_case_ii_twin_at_a_version_never_bound_is_an_upcall(case: Case) -> None:
    got = {e for e in edge_set(case.rows, [VER_FRONT]) if e[2] in (VER_PROG, VER_BACK)}
    assert got == {
        (VER_FRONT, "ver_prog", VER_PROG, "upcall", ("ver_name",)),
        (VER_FRONT, "libverback.so", VER_BACK, "declared-unused", ()),
    }


def test_case_iii_undeclared_library_is_hidden(case: Case) -> None:
    got = {e for e in edge_set(case.rows, [NEEDY]) if e[2] == UNDECL}
    assert got == {(NEEDY, "libundecl.so", UNDECL, "hidden", ("undecl_fn",))}
    assert (NEEDY_PROG, "libundecl.so", UNDECL, "declared-unused", ()) in edge_set(case.rows, [NEEDY_PROG])


def strict(edges: set[EdgeKey]) -> set[EdgeKey]:
    return {e for e in edges if (e[0], e[2]) not in LOOSE}


def test_every_edge_as_the_two_judges_say(case: Case) -> None:
    """Every edge from the fixture objects and libc, derived from both judges, and no other."""
    expected, got = expected_edges(case), edge_set(case.rows, SOURCES)
    assert_same_set("dependency edges", strict(expected), strict(got))
    assert {(e[0], e[2], e[3]) for e in expected - strict(expected)} == {(e[0], e[2], e[3]) for e in got - strict(got)}


def test_interposed_and_upcall_edges_are_not_counted_hidden(case: Case) -> None:
    statuses = [r["status"] for r in case.rows]
    assert case.summary == {s: statuses.count(s) for s in set(statuses)}
    interposed = {(e[0], e[2]) for e in expected_edges(case) if e[3] == "interposed"}
    assert interposed == {(ALLOC_LIB, ALLOC_PROG), (LIBC, ALLOC_PROG), (FRONT, TREE_PROG), (SELF, SELF_PROG)}
    counted = {(r["from"], r["to"]) for r in case.rows if r["status"] == "interposed" and r["from"] in SOURCES}
    assert counted == interposed
    hidden = {(e[0], e[2]) for e in expected_edges(case) if e[3] == "hidden"}
    assert hidden == {(NEEDY, UNDECL)}
    upcall = {(e[0], e[2]) for e in expected_edges(case) if e[3] == "upcall"}
    assert upcall == {(PLUGIN, HOST_PROG), (MIXED, MIXED_PROG), (MIXDEP, MIXED_PROG), (VER_FRONT, VER_PROG)}
    counted = {(r["from"], r["to"]) for r in case.rows if r["status"] == "upcall" and r["from"] in SOURCES}
    assert counted == upcall
    assert {(f, t) for f, t in case.hidden_query if f in SOURCES} == hidden
    assert {(f, t) for f, t in case.interposed_query if f in SOURCES} == interposed
    assert {(f, t) for f, t in case.upcall_query if f in SOURCES} == upcall


def test_the_report_and_the_store_agree(case: Case) -> None:
    """The JSON report carries the same statuses as the store's query."""
    assert edge_set(case.result.edges(), SOURCES) == edge_set(case.rows, SOURCES)


@pytest.mark.slow
def test_neo4j_classifies_as_the_judges_say(case: Case, neo4j_server: Any, neo4j_env: dict[str, str]) -> None:
    """The same root in a real Neo4j server: the same edges as the two judges (and as LadybugDB)."""
    server = ["--neo4j", neo4j_server.uri]
    proc = linkgraph("scan", str(case.real.path), *server, "--name", "interpose", "--quiet", env=neo4j_env)
    assert proc.returncode in (0, 1), proc.stderr
    answer = linkgraph("query", "dependencies", *server, "--firmware", "interpose", "--json", env=neo4j_env)
    rows = json.loads(answer.stdout)
    assert edge_set(rows, SOURCES) == edge_set(case.rows, SOURCES)
    assert_same_set("dependency edges in Neo4j", strict(expected_edges(case)), strict(edge_set(rows, SOURCES)))


def test_the_viewer_shows_interposition_apart(case: Case) -> None:
    """The program that defines malloc "interposes on" libc and liballoc (their references bind to
    it): the file page lists them apart from "Used by", each with its kind."""
    from linkgraph.viewer import create_app

    client = create_app({"LINKGRAPH_DB": str(case.db), "TESTING": True}).test_client()
    (fw,) = client.get("/api/firmware").get_json()
    found = client.get(f"/api/firmware/{fw['id']}/file", query_string={"path": ALLOC_PROG}).get_json()
    interposed = {(r["module"], r["kind"]) for r in found["interposes_on"]}
    assert {(LIBC, "library"), (ALLOC_LIB, "library")} <= interposed, found["interposes_on"]
    assert not {r["module"] for r in found["used_by"]} & {LIBC, ALLOC_LIB}, found["used_by"]
    libc = client.get(f"/api/firmware/{fw['id']}/file", query_string={"path": LIBC}).get_json()
    assert all(r["status"] != "interposed" for r in libc["used_by"])
    assert all("kind" in r for r in libc["used_by"])
