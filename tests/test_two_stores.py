"""The embedded store and a real Neo4j server give the same answers to every query.

Each fixture root is scanned twice, into LadybugDB and into Neo4j, through the CLI; then every
named query and the JSON report are compared (rows order-normalised, list values sorted).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.article import build_article_root
from support.host_programs import HOST_PROGRAM, copy_with_libraries
from support.identify_root import build_identify_root

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

QUERY_PARAMS = {
    "used-by": ["--param", "path=/lib/libutility.so"],
    "module-hardening": ["--param", "path=/opt/app/bin/app"],
    "providers": ["--param", "symbol=util_bar"],
    "images-shipping": ["--param", "library=libc.so.6"],
    "images-using": ["--param", "library=libutility.so"],
    "symbol-users": ["--param", "symbol=util_bar", "--param", "library=libutility.so"],
    "module": ["--param", "path=/bin/sh"],
    "module-kernel-links": ["--param", "path=/bin/busybox"],
    "module-source": ["--param", "path=/bin/busybox"],  # no release checked here: tests/test_viewer_sources.py
    "link-map": ["--param", "path=/bin/busybox"],
    "module-unresolved": ["--param", "path=/lib/libtrapundef.so"],
    "module-duplicates": ["--param", "path=/usr/bin/trap_dup"],
    "edges-from": ["--param", 'paths=["/bin/busybox", "/lib/libapcfg.so", "/usr/bin/trap_missing"]'],
    "edge": ["--param", "from=/lib/libapcfg.so", "--param", "to=/lib/libutility.so"],
    "pair-bindings": [
        "--param",
        'pairs=[{"from": "/lib/libapcfg.so", "to": "/lib/libutility.so"}, {"from": "/bin/busybox", "to": "/lib/x"}]',
    ],
    "search-modules": ["--param", "text=LIB", "--param", "offset=1", "--param", "limit=4"],
    "symbol-providers": ["--param", "symbol=__cxa_finalize"],
    "symbol-bindings": ["--param", "symbol=__cxa_finalize", "--param", "offset=1", "--param", "limit=3"],
    "symbol-duplicates": ["--param", "symbol=dup_fn"],
    "symbol-names": ["--param", "text=_", "--param", "offset=2", "--param", "limit=5"],
    "symbol-names-any-case": [
        "--param",
        "start=U",
        "--param",
        "text=TIL_",
        "--param",
        "offset=0",
        "--param",
        "limit=5",
    ],
    "link-map-edges": ["--param", "program=/bin/busybox"],
    "link-map-steps": ["--param", "program=/bin/busybox"],
    "link-map-bindings": ["--param", "program=/bin/busybox", "--param", "library=/lib/libapcfg.so"],
    # the identify root's (and the host root's) libc.so.6 is glibc, by its banner; every program binds this
    "vulnerable-use": [
        "--param",
        "component=glibc",
        "--param",
        "version-below=99.1",
        "--param",
        "symbol=__libc_start_main",
    ],
}


def _normalise(rows: list[dict[str, Any]]) -> list[str]:
    def norm(value: Any) -> Any:
        return sorted(map(json.dumps, value)) if isinstance(value, list) else value

    return sorted(json.dumps({k: norm(v) for k, v in row.items()}, sort_keys=True) for row in rows)


def _named_queries() -> list[str]:
    listing = linkgraph("query", "--list").stdout
    return [line.split()[0] for line in listing.splitlines() if line.strip()]


def _answers(store: list[str], env: dict[str, str], firmware: str | None = None) -> dict[str, list[str]]:
    chosen = ["--firmware", firmware] if firmware else []
    out = {}
    for name in _named_queries():
        if name == "firmware":  # holds the scan time, which differs
            continue
        params = QUERY_PARAMS.get(name, [])
        proc = linkgraph("query", name, *store, *chosen, "--json", *params, env=env, check=False)
        if proc.returncode == 2 and "in this firmware" in proc.stderr:
            # a path the root lacks is refused with the closest paths: both stores must say the same
            out[name] = [proc.stderr.split(" (`")[0]]  # the listing command names the store
            continue
        assert proc.returncode == 0, f"{name}: {proc.stderr}"
        out[name] = _normalise(json.loads(proc.stdout))
    return out


def _report(store: list[str], env: dict[str, str], firmware: str | None = None) -> dict:
    chosen = ["--firmware", firmware] if firmware else []
    proc = linkgraph("report", *store, *chosen, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _wipe(server: Any) -> None:
    from neo4j import GraphDatabase

    with GraphDatabase.driver(server.uri, auth=(server.user, server.password)) as driver:
        driver.execute_query("MATCH (n) DETACH DELETE n")


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("stores")
    article = build_article_root(base / "article").path
    host = base / "host"
    copy_with_libraries(HOST_PROGRAM, host)
    from support.musl_roots import ROOT_KINDS, build_all, make_root

    build_all(base / "musl-build")
    make_root(base / "musl", base / "musl-build", ROOT_KINDS[0])
    identify = build_identify_root(base / "identify").path  # identities and CONTAINS edges (docs/identify.md)
    return {"article": article, "host": host, "musl": base / "musl", "identify": identify}


@pytest.mark.parametrize("which", ["article", "host", "musl", "identify"])
def test_every_query_and_the_report_agree(
    which: str, roots: dict[str, Path], neo4j_server: Any, neo4j_env: dict[str, str], tmp_path: Path
) -> None:
    _wipe(neo4j_server)
    embedded = ["--db", str(tmp_path / "graph.lbdb")]
    server = ["--neo4j", neo4j_server.uri]
    for store in (embedded, server):
        proc = linkgraph("scan", str(roots[which]), *store, "--quiet", env=neo4j_env)
        assert proc.returncode in (0, 1), proc.stderr
    ours, theirs = _answers(embedded, neo4j_env), _answers(server, neo4j_env)
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert ours[name] == theirs[name], f"query {name} differs between the stores"
    assert sum(len(v) for v in ours.values()) > 0
    assert _report(embedded, neo4j_env) == _report(server, neo4j_env)


def test_two_firmware_in_one_server(
    roots: dict[str, Path], neo4j_server: Any, neo4j_env: dict[str, str], tmp_path: Path
) -> None:
    _wipe(neo4j_server)
    server = ["--neo4j", neo4j_server.uri]
    separate = {}
    for which, root in roots.items():
        if which in ("musl", "identify"):
            continue  # two images are the point here
        db = ["--db", str(tmp_path / f"{which}.lbdb")]
        linkgraph("scan", str(root), *db, "--name", which, "--quiet")
        separate[which] = _report(db, {})
        linkgraph("scan", str(root), *server, "--name", which, "--quiet", env=neo4j_env)
    for which in separate:
        shared = _report(server, neo4j_env, which)
        assert shared == separate[which], f"{which}: the shared server answers differently"
    # Re-scanning one image replaces it and leaves the other one alone.
    linkgraph("scan", str(roots["article"]), *server, "--name", "article", "--quiet", env=neo4j_env)
    assert _report(server, neo4j_env, "article") == separate["article"]
    assert _report(server, neo4j_env, "host") == separate["host"]
    listing = json.loads(linkgraph("query", "firmware", *server, "--json", env=neo4j_env).stdout)
    assert sorted(f["name"] for f in listing) == ["article", "host"]


def test_push_copies_the_embedded_graph(
    roots: dict[str, Path], neo4j_server: Any, neo4j_env: dict[str, str], tmp_path: Path
) -> None:
    _wipe(neo4j_server)
    db = ["--db", str(tmp_path / "graph.lbdb")]
    linkgraph("scan", str(roots["article"]), *db, "--quiet")
    proc = linkgraph("push", *db, "--neo4j", neo4j_server.uri, env=neo4j_env)
    assert proc.returncode == 0, proc.stderr
    assert _report(["--neo4j", neo4j_server.uri], neo4j_env) == _report(db, {})


def test_server_failures_are_one_line_and_exit_2(roots: dict[str, Path], neo4j_server: Any) -> None:
    proc = linkgraph(
        "scan", str(roots["host"]), "--neo4j", "bolt://127.0.0.1:1", "--quiet", env={"NEO4J_PASSWORD": "x"}, check=False
    )
    assert proc.returncode == 2 and "no Neo4j server answers" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = linkgraph(
        "report", "--neo4j", neo4j_server.uri, env={"NEO4J_USER": "neo4j", "NEO4J_PASSWORD": "wrong"}, check=False
    )
    assert proc.returncode == 2 and "password" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_an_interrupted_write_leaves_the_old_graph(neo4j_server: Any, neo4j_env: dict[str, str]) -> None:
    """Kill the writer in the middle of its transaction: readers still see the whole old graph."""
    import os
    import subprocess
    import time

    from conftest import linkgraph_cmd
    from neo4j import GraphDatabase
    from support import hostroot

    _wipe(neo4j_server)
    root = hostroot.cached_host_root(limit=150)
    server = ["--neo4j", neo4j_server.uri]
    linkgraph("scan", str(root), *server, "--name", "old", "--quiet", env=neo4j_env)
    before = _report(server, neo4j_env)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}, **neo4j_env}
    writer = subprocess.Popen(
        [*linkgraph_cmd(), "scan", str(root), *server, "--name", "new", "--quiet"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen_write = False
    with GraphDatabase.driver(neo4j_server.uri, auth=(neo4j_server.user, neo4j_server.password)) as driver:
        deadline = time.monotonic() + 300
        while writer.poll() is None and time.monotonic() < deadline:
            records, _, _ = driver.execute_query("SHOW TRANSACTIONS YIELD currentQuery RETURN currentQuery")
            if any("UNWIND $rows" in (r["currentQuery"] or "") for r in records):
                seen_write = True
                writer.kill()
                break
            time.sleep(0.05)
        writer.wait()
        assert seen_write, "the write transaction was never seen running (the writer finished first)"
        for _ in range(200):  # the server ends the orphaned transaction when the connection drops
            records, _, _ = driver.execute_query("SHOW TRANSACTIONS YIELD currentQuery RETURN currentQuery")
            if not any("UNWIND $rows" in (r["currentQuery"] or "") for r in records):
                break
            time.sleep(0.1)
    after = _report(server, neo4j_env)
    _wipe(neo4j_server)  # the killed writer's staged graph stays until a writer finds it stale: not for later tests
    assert after["firmware"]["name"] == "old"
    assert after == before


@pytest.mark.parametrize("agent", ["Neo4j/4.4.30", "Neo4j/3.5.0", "Memgraph", ""])
def test_old_or_foreign_servers_are_refused(agent: str) -> None:
    from linkgraph.loader.errors import StoreError
    from linkgraph.loader.store.neo4j_store import check_server_version

    with pytest.raises(StoreError, match="needs Neo4j 5 or newer"):
        check_server_version("bolt://x", agent)
    check_server_version("bolt://x", "Neo4j/5.26.30")
