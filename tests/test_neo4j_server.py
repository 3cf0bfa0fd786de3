"""The Neo4j test server helper: fetch, start, query through the official driver, stop.

No skips: a server that cannot be fetched or started fails these tests with the helper's message.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from support.neo4j_server import (
    Neo4jServer,
    Neo4jServerError,
    _group_alive,
    fetch,
    installed_home,
    neo4j_version,
    port_open,
    server_from_env,
)

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out


def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` (Linux /proc)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_fetch_is_cached() -> None:
    try:
        home = fetch()
    except Neo4jServerError as error:
        pytest.fail(f"could not fetch the Neo4j server through Maven: {error}")
    assert installed_home() == home
    started = time.monotonic()
    assert fetch() == home
    assert time.monotonic() - started < 5, "a warm fetch must not run Maven again"
    assert (home / "lib" / f"neo4j-{neo4j_version()}.jar").is_file()
    assert os.access(home / "bin" / "neo4j", os.X_OK)
    assert os.access(home / "bin" / "neo4j-admin", os.X_OK)


def test_server_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEO4J_URI", raising=False)
    assert server_from_env() is None
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    monkeypatch.setenv("NEO4J_USER", "someone")
    monkeypatch.setenv("NEO4J_PASSWORD", "secret")
    server = server_from_env()
    assert server is not None
    assert (server.uri, server.user, server.password) == ("bolt://127.0.0.1:1", "someone", "secret")
    server.start()  # external: nothing is started
    assert server.process is None
    server.stop()


def test_start_query_stop() -> None:
    server = Neo4jServer()
    try:
        server.start()
    except Neo4jServerError as error:
        server.stop()
        pytest.fail(f"could not start the Neo4j server: {error}")
    try:
        assert server.process is not None and server.run_dir is not None and server.bolt_port is not None
        pid, port, run_dir = server.process.pid, server.bolt_port, server.run_dir
        server_jvms = _children(pid)
        assert server_jvms, "the boot loader should have started the server JVM"
        assert server.uri == f"bolt://127.0.0.1:{port}"
        assert port_open(port)

        with GraphDatabase.driver(server.uri, auth=server.auth) as driver:
            records, _, _ = driver.execute_query("RETURN 1 AS one")
            assert records[0]["one"] == 1

            rows = [{"name": f"lib{i}.so"} for i in range(100)]
            _, summary, _ = driver.execute_query("UNWIND $rows AS r CREATE (:T {name: r.name})", rows=rows)
            assert summary.counters.nodes_created == 100
            records, _, _ = driver.execute_query("MATCH (t:T) RETURN count(t) AS n, min(t.name) AS first")
            assert (records[0]["n"], records[0]["first"]) == (100, "lib0.so")

            records, _, _ = driver.execute_query("CALL dbms.components() YIELD name, versions, edition")
            components = {r["name"]: (r["versions"], r["edition"]) for r in records}
            versions, edition = components["Neo4j Kernel"]
            assert versions[0].startswith("5.26."), versions
            assert edition == "community"

            records, _, _ = driver.execute_query(
                "SHOW SETTINGS YIELD name, value "
                "WHERE name IN ['server.bolt.listen_address', 'dbms.usage_report.enabled', 'server.http.enabled'] "
                "RETURN name, value"
            )
            settings = {r["name"]: r["value"] for r in records}
            assert settings["server.bolt.listen_address"] == f"127.0.0.1:{port}"
            assert settings["dbms.usage_report.enabled"] == "false"
            assert settings["server.http.enabled"] == "false"
    finally:
        server.stop()

    assert server.process is None
    assert not port_open(port), f"port {port} still answers after stop()"
    assert not _running(pid), f"boot loader {pid} still running"
    for jvm in server_jvms:
        assert not _running(jvm), f"server JVM {jvm} still running"
    assert not _group_alive(pid)
    assert not run_dir.exists(), f"{run_dir} was not removed"


def test_fresh_data_per_run() -> None:
    """Each start gets an empty database, and the context manager stops the server."""
    with Neo4jServer() as server:
        port = server.bolt_port
        assert port is not None
        with GraphDatabase.driver(server.uri, auth=server.auth) as driver:
            records, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS n")
            assert records[0]["n"] == 0
    assert not port_open(port)
