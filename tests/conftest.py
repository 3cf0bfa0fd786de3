"""Shared fixtures: run the linkgraph CLI as a user would, and read its report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from linkgraph.cli.exit_noise import silence_exit_noise

REPO = Path(__file__).resolve().parent.parent
silence_exit_noise()  # the tests import unblob (and with it LIEF) in this process too
sys.path.insert(0, str(REPO / "bench"))
# the browser tests' fixtures (Chromium, pages, the article served from both stores): tests/support/browser.py;
# the viewer API's (the article scanned into a LadybugDB, Flask's test client on it, its firmware id):
# tests/support/viewer_client.py
pytest_plugins = ["support.browser", "support.viewer_client", "support.whole_view", "support.source_store"]


def linkgraph_cmd() -> list[str]:
    """The ``linkgraph`` command installed beside this Python (the one under test)."""
    exe = Path(sys.executable).with_name("linkgraph")
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "from linkgraph.cli.main import run; run()"]


def linkgraph(*args: str, check: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``linkgraph ARGS`` with ``env`` added to the environment and NEO4J_* taken out of it;
    its exit code, stdout and stderr as a CompletedProcess.

    On the main thread it runs in this process (click's CliRunner), and a bug surfaces as the
    exception itself (the installed command turns it into exit 3; tests of that, of killing a scan
    and of measuring one run the real command themselves). CliRunner swaps the process's
    sys.stdout, so a call from a worker thread (several roots checked at once) runs the installed
    command in a process of its own instead."""
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("NEO4J_")}
    extra = {"COLUMNS": "200", **(env or {})}
    if threading.current_thread() is threading.main_thread():
        from click.testing import CliRunner

        from linkgraph.cli.main import main

        result = CliRunner().invoke(main, list(args), env={**unset, **extra}, catch_exceptions=False)
        proc = subprocess.CompletedProcess(["linkgraph", *args], result.exit_code, result.stdout, result.stderr)
    else:
        environ = {k: v for k, v in os.environ.items() if k not in unset}
        proc = subprocess.run(
            [*linkgraph_cmd(), *args], capture_output=True, text=True, env={**environ, **extra}, check=False
        )
    if check and proc.returncode not in (0, 1):
        raise AssertionError(f"linkgraph {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def scan_and_report(root: Path, db: Path, *options: str) -> dict:
    linkgraph("scan", str(root), "--db", str(db), "--quiet", *options)
    return json.loads(linkgraph("report", "--db", str(db), "--format", "json").stdout)


@pytest.fixture(scope="module")
def host_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """A root holding the host's HOST_PROGRAM and its libraries, scanned: the database and its report."""
    from support.host_programs import HOST_PROGRAM, copy_with_libraries

    base = tmp_path_factory.mktemp("cli")
    root = base / "root"
    copy_with_libraries(HOST_PROGRAM, root)
    db = base / "graph.lbdb"
    return db, scan_and_report(root, db)


@pytest.fixture
def report_of(tmp_path: Path):
    def run(root: Path) -> dict:
        return scan_and_report(root, tmp_path / "graph.lbdb")

    return run


@pytest.fixture(scope="session")
def neo4j_server():
    """A real Neo4j server: the one NEO4J_URI names, else a Neo4j 5.26 started for this run.

    A server that cannot be had is a test failure, never a skip."""
    from support.neo4j_server import Neo4jServer, server_from_env

    server = server_from_env()
    if server is not None:
        yield server
        return
    server = Neo4jServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def neo4j_env(neo4j_server) -> dict[str, str]:
    """Environment that points the CLI at the test server (user and password; URI given by flag)."""
    return {"NEO4J_USER": neo4j_server.user, "NEO4J_PASSWORD": neo4j_server.password}
