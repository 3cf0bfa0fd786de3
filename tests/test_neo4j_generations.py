"""The Neo4j store's generations on a real server: readers that query while a firmware is written
again and again see the whole graph every time (the switch is atomic, the retired generation is
deleted only after them), and what a killed writer staged is invisible and deleted by the next
writer once its heartbeat is stale."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph, linkgraph_cmd
from support.host_programs import HOST_PROGRAM, copy_with_libraries

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

READ_QUERIES = ("summary", "scopes", "bindings", "link-maps")


def wipe(server: Any) -> None:
    from neo4j import GraphDatabase

    with GraphDatabase.driver(server.uri, auth=server.auth) as driver:
        driver.execute_query("MATCH (n) DETACH DELETE n")


def count(server: Any, statement: str) -> int:
    from neo4j import GraphDatabase

    with GraphDatabase.driver(server.uri, auth=server.auth) as driver:
        records, _, _ = driver.execute_query(statement)
    return records[0][0]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("generations") / "root"
    copy_with_libraries(HOST_PROGRAM, path)
    return path


def answers(store: Any, firmware: str) -> dict[str, list[str]]:
    params = {"firmware": firmware}
    return {name: sorted(json.dumps(row, sort_keys=True) for row in store.query(name, params)) for name in READ_QUERIES}


def test_readers_see_the_whole_graph_while_it_is_replaced(root: Path, neo4j_server: Any) -> None:
    from linkgraph.loader.scan.root import scan_root
    from linkgraph.loader.store.neo4j_store import Neo4jStore
    from linkgraph.loader.store.rows import build_rows

    wipe(neo4j_server)
    rows = build_rows(scan_root(str(root), name="readers"))
    writer = Neo4jStore(neo4j_server.uri, neo4j_server.user, neo4j_server.password)
    reader = Neo4jStore(neo4j_server.uri, neo4j_server.user, neo4j_server.password, read_only=True)
    try:
        writer.replace_firmware(rows)
        expected = answers(reader, rows.firmware)
        assert all(expected.values())
        stop, seen, failures = threading.Event(), [0], []

        def read() -> None:
            while not stop.is_set():
                got = answers(reader, rows.firmware)
                if got != expected:
                    failures.append({k: (len(v), len(expected[k])) for k, v in got.items()})
                seen[0] += 1

        thread = threading.Thread(target=read)
        thread.start()
        try:
            for _ in range(4):  # the same content again: a new generation, switched in, the old deleted
                writer.replace_firmware(rows)
        finally:
            stop.set()
            thread.join()
        assert seen[0] > 0
        assert not failures, f"{len(failures)} of {seen[0]} readings differed: {failures[:3]}"
    finally:
        reader.close()
        writer.close()
    assert count(neo4j_server, "MATCH (f:StagedFirmware|RetiredFirmware) RETURN count(f)") == 0
    modules = count(neo4j_server, "MATCH (m:Module) RETURN count(m)")
    assert modules == len(rows.nodes["Module"]), "every retired generation was deleted"


def test_a_killed_writers_leftovers_are_deleted_by_the_next_writer(
    root: Path, neo4j_server: Any, neo4j_env: dict[str, str]
) -> None:
    from neo4j import GraphDatabase

    wipe(neo4j_server)
    server = ["--neo4j", neo4j_server.uri]
    linkgraph("scan", str(root), *server, "--name", "old", "-q", env=neo4j_env)
    before = linkgraph("report", *server, env=neo4j_env).stdout
    modules = count(neo4j_server, "MATCH (m:Module) RETURN count(m)")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    with GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth) as driver:
        for _attempt in range(5):  # kill it once it has committed some batches of its staged graph
            writer = subprocess.Popen(
                [*linkgraph_cmd(), "scan", str(root), *server, "--name", "new", "-q"],
                env={**environ, **neo4j_env},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            while writer.poll() is None:
                staged, _, _ = driver.execute_query(
                    "MATCH (f:StagedFirmware) MATCH (m:Module {firmware: f.generation}) RETURN count(m) AS n"
                )
                if staged[0]["n"] > 0:
                    writer.kill()
                    break
                time.sleep(0.01)
            writer.wait()
            if count(neo4j_server, "MATCH (f:StagedFirmware) RETURN count(f)"):
                break
        assert count(neo4j_server, "MATCH (f:StagedFirmware) RETURN count(f)") == 1, "no writer was killed mid-write"
        assert linkgraph("report", *server, env=neo4j_env).stdout == before  # invisible to readers
        # the heartbeat stops with the writer; make it look as old as STALE would
        driver.execute_query("MATCH (f:StagedFirmware) SET f.heartbeat = 0")
    linkgraph("scan", str(root), *server, "--name", "old", "-q", env=neo4j_env)
    assert count(neo4j_server, "MATCH (f:StagedFirmware|RetiredFirmware) RETURN count(f)") == 0
    assert count(neo4j_server, "MATCH (m:Module) RETURN count(m)") == modules
    after = linkgraph("report", *server, env=neo4j_env).stdout
    assert json.loads(after)["modules"] == json.loads(before)["modules"]
