"""``linkgraph push`` copies embedded scans into a real Neo4j server: the copy answers as the
embedded graph does, pushing the same firmware again replaces it (one live graph, nothing of the
old one left behind), and the server's other firmware stay as they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.article import build_article_root
from support.host_programs import HOST_PROGRAM, copy_with_libraries

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out


def wipe(server: Any) -> None:
    from neo4j import GraphDatabase

    with GraphDatabase.driver(server.uri, auth=server.auth) as driver:
        driver.execute_query("MATCH (n) DETACH DELETE n")


def census(server: Any) -> dict[str, int]:
    """Nodes per label and edges per type on the server."""
    from neo4j import GraphDatabase

    with GraphDatabase.driver(server.uri, auth=server.auth) as driver:
        nodes, _, _ = driver.execute_query("MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) AS c")
        edges, _, _ = driver.execute_query("MATCH ()-[e]->() RETURN type(e) AS l, count(*) AS c")
    return {row["l"]: row["c"] for row in [*nodes, *edges]}


def report(store: list[str], env: dict[str, str], firmware: str | None = None) -> dict:
    chosen = ["--firmware", firmware] if firmware else []
    proc = linkgraph("report", *store, *chosen, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def scans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Two embedded databases: the article's root, and a host program with its libraries."""
    base = tmp_path_factory.mktemp("push")
    host = base / "host"
    copy_with_libraries(HOST_PROGRAM, host)
    roots = {"article": build_article_root(base / "article").path, "host": host}
    out = {}
    for name, root in roots.items():
        db = ["--db", str(base / f"{name}.lbdb")]
        proc = linkgraph("scan", str(root), *db, "--name", name, "--quiet")
        assert proc.returncode in (0, 1), proc.stderr
        out[name] = db
    return out


def test_push_twice_replaces_the_firmware(
    scans: dict[str, list[str]], neo4j_server: Any, neo4j_env: dict[str, str], tmp_path: Path
) -> None:
    wipe(neo4j_server)
    server = ["--neo4j", neo4j_server.uri]
    for db in scans.values():
        proc = linkgraph("push", *db, *server, env=neo4j_env)
        assert proc.returncode == 0, proc.stderr
        assert "copied" in proc.stderr
    once = census(neo4j_server)
    assert once.get("Firmware") == 2 and once.get("RESOLVES_TO", 0) > 0
    # the same firmware again: a new generation switched in, the old one deleted
    proc = linkgraph("push", *scans["article"], *server, env=neo4j_env)
    assert proc.returncode == 0, proc.stderr
    assert census(neo4j_server) == once, "a second push left the server with other nodes or edges than the first"
    for name, db in scans.items():
        assert report(server, neo4j_env, name) == report(db, {}), f"{name}: the pushed copy answers differently"
    listing = json.loads(linkgraph("query", "firmware", *server, "--json", env=neo4j_env).stdout)
    assert sorted(f["name"] for f in listing) == ["article", "host"]


def test_push_one_firmware_of_several(
    scans: dict[str, list[str]], neo4j_server: Any, neo4j_env: dict[str, str], tmp_path: Path
) -> None:
    wipe(neo4j_server)
    server = ["--neo4j", neo4j_server.uri]
    proc = linkgraph("push", *scans["host"], *server, "--firmware", "host", env=neo4j_env)
    assert proc.returncode == 0, proc.stderr
    proc = linkgraph("push", *scans["host"], *server, "--firmware", "host", env=neo4j_env)
    assert proc.returncode == 0, proc.stderr
    assert report(server, neo4j_env, "host") == report(scans["host"], {})
    listing = json.loads(linkgraph("query", "firmware", *server, "--json", env=neo4j_env).stdout)
    assert [f["name"] for f in listing] == ["host"]
