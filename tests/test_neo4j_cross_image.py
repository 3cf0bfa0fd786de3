"""The cross-image queries on a real Neo4j holding several firmware: symbol-users answers what the
reports' bindings say (and LadybugDB answers the same for one image), and images-using,
images-shipping and symbol-users are served by index seeks (EXPLAIN), so that a change of query
or schema cannot quietly make them scan every module of every image."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.host_programs import HOST_PROGRAM, copy_with_libraries

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

PROGRAMS = {"ls": HOST_PROGRAM, "sort": "/usr/bin/sort"}
COLUMNS = ("firmware", "program", "module", "provider", "version")


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("cross")
    out = {}
    for name, program in PROGRAMS.items():
        copy_with_libraries(program, base / name)
        out[name] = base / name
    return out


@pytest.fixture(scope="module")
def loaded(roots: dict[str, Path], neo4j_server: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Both roots in the Neo4j server (nothing else), and each in a LadybugDB; their reports."""
    from neo4j import GraphDatabase

    env = {"NEO4J_USER": neo4j_server.user, "NEO4J_PASSWORD": neo4j_server.password}
    with GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth) as driver:
        driver.execute_query("MATCH (n) DETACH DELETE n")
    dbs, reports = {}, {}
    for name, root in roots.items():
        linkgraph("scan", str(root), "--neo4j", neo4j_server.uri, "--name", name, "-q", env=env)
        dbs[name] = tmp_path_factory.mktemp(name) / "graph.lbdb"
        linkgraph("scan", str(root), "--db", str(dbs[name]), "--name", name, "-q")
        reports[name] = json.loads(linkgraph("report", "--db", str(dbs[name])).stdout)
    return {"env": env, "dbs": dbs, "reports": reports}


def expected(reports: dict[str, dict], symbol: str, library: str) -> set[tuple]:
    """symbol-users' rows as the reports' bindings say them: every binding of ``symbol`` to a module
    whose soname or file name is ``library``, with the executable whose link map it holds in."""
    out = set()
    for name, report in reports.items():
        matching = {m["path"] for m in report["modules"] if library in (m["soname"], m["path"].rsplit("/", 1)[-1])}
        out |= {
            (name, b["executable"], b["module"], b["provider"], b["version"])
            for b in report["bindings"]
            if b["symbol"] == symbol and b["provider"] in matching
        }
    return out


def answer(store: list[str], env: dict[str, str], symbol: str, library: str) -> set[tuple]:
    params = ["--param", f"symbol={symbol}", "--param", f"library={library}"]
    proc = linkgraph("query", "symbol-users", *store, *params, "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    return {tuple(row[c] for c in COLUMNS) for row in json.loads(proc.stdout)}


def chosen_symbols(reports: dict[str, dict]) -> list[str]:
    """Symbols bound to libc.so.6: one both images bind, one only ls binds, one only sort binds."""
    bound = {
        name: {b["symbol"] for b in r["bindings"] if b["provider"].endswith("/libc.so.6")}
        for name, r in reports.items()
    }
    both = sorted(bound["ls"] & bound["sort"])
    return [both[len(both) // 2], min(bound["ls"] - bound["sort"]), min(bound["sort"] - bound["ls"])]


def test_symbol_users_agrees_with_the_bindings_on_both_stores(loaded: dict[str, Any], neo4j_server: Any) -> None:
    reports, env = loaded["reports"], loaded["env"]
    server = ["--neo4j", neo4j_server.uri]
    for symbol in chosen_symbols(reports):
        want = expected(reports, symbol, "libc.so.6")
        assert want, symbol
        assert {row[0] for row in want} <= set(PROGRAMS)
        assert answer(server, env, symbol, "libc.so.6") == want, symbol
        for name, db in loaded["dbs"].items():
            alone = {row for row in want if row[0] == name}
            assert answer(["--db", str(db)], {}, symbol, "libc.so.6") == alone, (symbol, name)
    # the library named by its file name or its sha256 gives the same rows
    symbol = chosen_symbols(reports)[0]
    provider = next(b["provider"] for b in reports["ls"]["bindings"] if b["symbol"] == symbol)
    module = json.loads(
        linkgraph("query", "module", "--db", str(loaded["dbs"]["ls"]), "--param", f"path={provider}", "--json").stdout
    )[0]
    by_soname = answer(server, env, symbol, "libc.so.6")
    assert answer(server, env, symbol, module["name"]) == by_soname
    assert answer(server, env, symbol, module["sha256"]) == by_soname  # both roots copy the host's libc
    assert answer(server, env, symbol, "no-such-library.so") == set()


def operators(plan: Any) -> list[str]:
    """Every operator of a plan, depth first, without the runtime suffix (``NodeIndexSeek@neo4j``)."""
    found = [plan["operatorType"].split("@")[0]]
    for child in plan.get("children", []):
        found += operators(child)
    return found


@pytest.mark.parametrize(
    ("name", "seek"),
    [
        ("images-using", "NodeIndexSeek"),
        ("images-shipping", "NodeIndexSeek"),
        ("symbol-users", "DirectedRelationshipIndexSeek"),
    ],
)
def test_cross_image_queries_seek_an_index(name: str, seek: str, loaded: dict[str, Any], neo4j_server: Any) -> None:
    from linkgraph.loader.store.queries import load_query
    from neo4j import GraphDatabase

    (statement,) = load_query(name, "neo4j").statements
    with GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth) as driver:
        _records, summary, _keys = driver.execute_query(
            "EXPLAIN " + statement, {"library": "libc.so.6", "symbol": "malloc"}
        )
    assert summary.plan is not None
    found = operators(summary.plan)
    assert seek in found, f"{name}: no {seek} in the plan {found}"
    scans = [op for op in found if op.endswith("Scan")]
    assert not scans, f"{name}: the plan scans ({scans}) instead of seeking an index"
