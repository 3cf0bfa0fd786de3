"""A scan killed at any moment never loses or half-writes a graph, in either store.

Firmware A is scanned into a store; then a re-scan is killed (SIGKILL, no chance to clean up) at
KILLS moments spread evenly over the time a whole re-scan takes: once re-scanning A itself (the
store holds only the firmware being replaced) and once scanning new content B (the store holds
another firmware, which must stay). After every kill:

* ``report`` on A gives byte for byte the JSON it gave before (or, for a kill that came after the
  new graph was switched in, exactly the JSON a whole re-scan gives, but for its scan time);
* B is either absent or complete (its report equal to that of an uninterrupted scan);
* a read-only command works at once (or says in one line what to do: then it is a failure here,
  since nothing else is writing).

For Neo4j the server itself is also killed in the middle of a load, started again on the same
data folder, and A must be intact.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import linkgraph, linkgraph_cmd
from support.hostroot import cached_host_root
from support.neo4j_server import Neo4jServer

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

KILLS = 12  # per kind of re-scan: 24 kills in all
SCANNED_AT = re.compile(r'"scanned_at": "[^"]*"')
A, B = "kill-a", "kill-b"


def roots() -> tuple[Path, Path]:
    """A (8 host programs with their libraries) and B (12 of them): different content."""
    return cached_host_root(limit=8), cached_host_root(limit=12)


class Store:
    """One store under test, reached through the CLI as a user would."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.args, self.env = args, env

    def scan(self, root: Path, name: str) -> float:
        started = time.perf_counter()
        linkgraph("scan", str(root), *self.args, "--name", name, "-q", env=self.env)
        return time.perf_counter() - started

    def killed_scan(self, root: Path, name: str, after: float) -> bool:
        """Start a scan and SIGKILL it ``after`` seconds on; False if it had ended by then."""
        environ = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
        child = subprocess.Popen(
            [*linkgraph_cmd(), "scan", str(root), *self.args, "--name", name, "-q"],
            env={**environ, **self.env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            child.wait(timeout=after)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
            child.wait()
            self.settle()
            return True
        return False

    def settle(self) -> None:
        """Neo4j: wait until the server has finished with the killed client's transaction. A kill
        that lands after the client sent COMMIT leaves the server applying it; its readers see
        committed data only (read committed), so a report taken meanwhile could mix the two."""
        if self.args[0] != "--neo4j":
            return
        from neo4j import GraphDatabase

        deadline = time.monotonic() + 120
        with GraphDatabase.driver(self.args[1], auth=(self.env["NEO4J_USER"], self.env["NEO4J_PASSWORD"])) as driver:
            while time.monotonic() < deadline:
                running, _, _ = driver.execute_query("SHOW TRANSACTIONS YIELD transactionId RETURN count(*) AS n")
                if running[0]["n"] <= 1:  # this one
                    return
                time.sleep(0.1)
        raise AssertionError("the server still runs the killed client's transaction after 120 s")

    def names(self) -> set[str]:
        """The firmware names in the store; a read-only command that must work at once."""
        proc = linkgraph("query", "firmware", *self.args, "--json", env=self.env, check=False)
        assert proc.returncode == 0, f"a read-only command failed: {proc.stderr.strip()}"
        return {row["name"] for row in json.loads(proc.stdout)} & {A, B}

    def report(self, name: str) -> str:
        proc = linkgraph("report", *self.args, "--firmware", name, env=self.env, check=False)
        assert proc.returncode == 0, f"report on {name} failed ({proc.returncode}): {proc.stderr}"
        return proc.stdout

    def drop(self, name: str, root_a: Path) -> None:
        """Remove firmware ``name`` again. There is no delete command: the embedded database is made
        anew from A; on Neo4j the pipeline's own delete query removes the subgraph."""
        if self.args[0] == "--db":
            Path(self.args[1]).unlink()
            self.scan(root_a, A)
            return
        from linkgraph.loader.store.queries import load_query
        from neo4j import GraphDatabase

        (fw,) = [
            r["id"]
            for r in json.loads(linkgraph("query", "firmware", *self.args, "--json", env=self.env).stdout)
            if r["name"] == name
        ]
        with GraphDatabase.driver(self.args[1], auth=(self.env["NEO4J_USER"], self.env["NEO4J_PASSWORD"])) as driver:
            for stmt in load_query("delete-firmware", "neo4j").statements:
                driver.execute_query(stmt, {"firmware": fw})


def same_but_time(one: str, other: str) -> bool:
    return SCANNED_AT.sub("", one) == SCANNED_AT.sub("", other)


def moments(seconds: float) -> list[float]:
    """KILLS moments spread evenly over a run of ``seconds``."""
    return [seconds * (i + 0.5) / KILLS for i in range(KILLS)]


def check_kills(store: Store, root_a: Path, root_b: Path) -> dict[str, int]:
    """Scan A; kill re-scans of A, then scans of B (A in the store beside it). Counts of the kills
    that came after the new graph was complete (the rest must have changed nothing)."""
    store.scan(root_a, A)
    whole = store.scan(root_a, A)  # an uninterrupted re-scan: how long one takes
    old = store.report(A)
    after_switch = {"same": 0, "new": 0}
    for at in moments(whole):
        store.killed_scan(root_a, A, at)
        now = store.report(A)
        assert store.names() == {A}
        if now != old:  # only a scan that switched its graph in may change it, and only its scan time
            assert same_but_time(now, old), f"killed at {at:.2f}s of {whole:.2f}s: A's graph changed"
            after_switch["same"] += 1
            old = now

    store.scan(root_b, B)
    b_whole = store.report(B)
    store.drop(B, root_a)
    whole = store.scan(root_b, B)  # the second run: the first one's store warms up (Neo4j's plans)
    store.drop(B, root_a)
    old = store.report(A)
    for at in moments(whole):
        store.killed_scan(root_b, B, at)
        assert store.report(A) == old, f"killed at {at:.2f}s of {whole:.2f}s: the other firmware changed"
        if B in store.names():  # complete, or not there at all
            assert same_but_time(store.report(B), b_whole), f"killed at {at:.2f}s of {whole:.2f}s: B is partial"
            after_switch["new"] += 1
            store.drop(B, root_a)
            old = store.report(A)
        assert store.names() == {A}
    print(f"{store.args[0]}: {2 * KILLS} kills over {whole:.1f}s runs; after the switch: {after_switch}")
    return after_switch


def test_killed_scans_leave_the_embedded_graph_intact(tmp_path: Path) -> None:
    root_a, root_b = roots()
    db = tmp_path / "fw.lbdb"
    counts = check_kills(Store(["--db", str(db)], {}), root_a, root_b)
    assert counts["same"] + counts["new"] < KILLS, "most kills must land before the switch"
    linkgraph("scan", str(root_a), "--db", str(db), "--name", A, "-q")  # the next writer cleans up
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fw.lbdb"]


@pytest.fixture(scope="module")
def own_server() -> Iterator[Neo4jServer]:
    """A Neo4j server of this module's own: it gets killed."""
    with Neo4jServer() as server:
        yield server


def test_killed_scans_leave_the_neo4j_graph_intact(own_server: Neo4jServer) -> None:
    root_a, root_b = roots()
    env = {"NEO4J_USER": own_server.user, "NEO4J_PASSWORD": own_server.password}
    counts = check_kills(Store(["--neo4j", own_server.uri], env), root_a, root_b)
    assert counts["same"] + counts["new"] < KILLS


def test_killed_server_keeps_the_old_graph(own_server: Neo4jServer) -> None:
    """The server dies in the middle of a load (SIGKILL, no shutdown) and is started again on the
    same data folder: A is as it was, and B is absent (the load's transaction never committed)."""
    root_a, root_b = roots()
    env = {"NEO4J_USER": own_server.user, "NEO4J_PASSWORD": own_server.password}
    store = Store(["--neo4j", own_server.uri], env)
    store.scan(root_a, A)
    if B in store.names():
        store.drop(B, root_a)
    whole = store.scan(root_b, B)
    store.drop(B, root_a)
    old = store.report(A)
    for share in (0.6, 0.85):
        environ = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
        child = subprocess.Popen(
            [*linkgraph_cmd(), "scan", str(root_b), *store.args, "--name", B, "-q"],
            env={**environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        time.sleep(whole * share)
        own_server.kill()
        _out, err = child.communicate(timeout=120)
        own_server.restart()
        assert child.returncode in (0, 2), err.decode(errors="replace")
        assert "Traceback" not in err.decode(errors="replace")
        assert store.report(A) == old, f"server killed at {share:.0%} of a load: A changed"
        if child.returncode == 0:  # the load had committed before the kill: then B is whole
            assert B in store.names()
            store.drop(B, root_a)
        assert store.names() == {A}


def test_read_only_commands_recover_a_pending_checkpoint(tmp_path: Path) -> None:
    """A writer that died with its write-ahead log beside the live file (as an older linkgraph's
    did): the next read-only command replays it and answers; while a writer holds the lock, it
    says in one line what to do instead."""
    root_a, _ = roots()
    db = tmp_path / "fw.lbdb"
    Store(["--db", str(db)], {}).scan(root_a, A)
    expected = Store(["--db", str(db)], {}).report(A)
    script = (
        "import os, sys, ladybug\n"
        "db = ladybug.Database(sys.argv[1]); c = ladybug.Connection(db)\n"
        'c.execute("MATCH (f:Firmware) SET f.source = f.source")\n'
        "os._exit(0)\n"  # no close, no checkpoint
    )
    subprocess.run([sys.executable, "-c", script, str(db)], check=True)
    assert (tmp_path / "fw.lbdb.wal").exists()
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(db)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    try:
        busy = linkgraph("report", "--db", str(db), check=False)
    finally:
        holder.kill()
        holder.wait()
    assert busy.returncode == 2 and len(busy.stderr.strip().splitlines()) == 1, busy.stderr
    assert "run this command again when it has finished" in busy.stderr
    assert Store(["--db", str(db)], {}).report(A) == expected
    assert not (tmp_path / "fw.lbdb.wal").exists()


LOCK_HOLDER = (
    "import sys, time\n"
    "from linkgraph.loader.store.db_file import WriterLock\n"
    "lock = WriterLock(sys.argv[1]); assert lock.acquire(); print('locked', flush=True); time.sleep(600)\n"
)
