"""Licence finding (a) at scale (issue 38): a root built from scratch with gcc (tests/support/
findings_root.py: 300 programs, 200 libraries without a licence fact, a GPL library reached through
libc-like hubs) is scanned and classified, and its (a) rows, from the query and from the JSON report,
are the independent judge's (tests/support/findings_judge.py). Time and memory are figures of
``bench/findings_scale.py``, not assertions here.

And the store's memory: LadybugDB's buffer pool is sized from the machine's memory, and a scan whose
store fills it ends with a ``scan-budget`` message that says what to do, never with LadybugDB's
words alone nor a traceback."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph, linkgraph_cmd
from support import findings_root
from support.findings_judge import Judge, differences, query_rows, rows_of
from support.fixture_root import Root, scan


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    root, overrides = findings_root.cached()
    work = tmp_path_factory.mktemp("findings-scale")
    result = scan(Root(root), work, name="findings-scale", extra=["--licences", str(overrides)])
    return root, work / "findings-scale.lbdb", result.report


def test_the_root_is_as_big_as_asked(scanned: tuple[Path, Path, dict]) -> None:
    _root, _db, report = scanned
    kinds = Counter(m["kind"] for m in report["modules"] if m["path"].startswith(("/usr/bin/", "/usr/lib/")))
    unknown = [m for m in report["modules"] if m["path"].startswith("/usr/lib/") and m["licence"] is None]
    assert kinds == {"executable": findings_root.PROGRAMS, "library": findings_root.LIBRARIES}
    assert len(unknown) == findings_root.LIBRARIES


def test_finding_a_is_the_judges(scanned: tuple[Path, Path, dict]) -> None:
    root, db, report = scanned
    want = Judge(report, root).rows()
    # big enough to matter: thousands of paths, of every length, hidden hops among them, and
    # paths whose programs are fewer than those of their first hop
    assert len(want) > 2000
    assert {len(r[2]) - 1 for r in want} == {1, 2, 3, 4}
    assert any("hidden" in r[3] for r in want) and any(len(r[4]) > 50 for r in want)
    proc = linkgraph("query", "licence-gpl-used-by", "--db", str(db), "--json")
    found = differences("findings-scale", want, query_rows(json.loads(proc.stdout)), "the query on LadybugDB")
    if found:
        pytest.fail(found)
    found = differences("findings-scale", want, rows_of(report["licence_findings"]["gpl_used_by"]), "the JSON report")
    if found:
        pytest.fail(found)


@pytest.mark.slow
def test_neo4j_gives_the_same_rows(
    scanned: tuple[Path, Path, dict], neo4j_server: Any, neo4j_env: dict[str, str]
) -> None:
    root, db, _report = scanned
    _root, overrides = findings_root.cached()
    server = ["--neo4j", neo4j_server.uri]
    name = ["--name", "findings-scale"]
    proc = linkgraph("scan", str(root), *server, *name, "--licences", str(overrides), "--quiet", env=neo4j_env)
    assert proc.returncode in (0, 1), proc.stderr
    chosen = ["--firmware", "findings-scale"]
    theirs = linkgraph("query", "licence-gpl-used-by", *server, *chosen, "--json", env=neo4j_env).stdout
    ours = linkgraph("query", "licence-gpl-used-by", "--db", str(db), "--json").stdout
    found = differences("findings-scale", query_rows(json.loads(ours)), query_rows(json.loads(theirs)), "Neo4j")
    if found:
        pytest.fail(found)


def _meminfo_total() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no MemTotal in /proc/meminfo")


def test_the_buffer_pool_is_a_quarter_of_the_machines_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    from linkgraph.loader.store.ladybug_memory import ENV, buffer_pool_size

    monkeypatch.delenv(ENV, raising=False)
    limit = Path("/sys/fs/cgroup/memory.max")
    text = limit.read_text().strip() if limit.exists() else "max"
    memory = min(_meminfo_total(), int(text)) if text.isdigit() else _meminfo_total()
    assert abs(buffer_pool_size() - max(256 << 20, memory // 4)) <= 1 << 20  # MemTotal and the page count
    monkeypatch.setenv(ENV, "300")
    assert buffer_pool_size() == 300 << 20


def test_a_full_store_is_a_scan_budget_with_what_to_do(tmp_path: Path) -> None:
    root = Root(tmp_path / "root")
    root.install_glibc()
    root.exe("/usr/bin/tiny", ["findings_scale/program.c"], cflags=["-DDECLS=", "-DCALLS=x"])
    db = tmp_path / "tiny.lbdb"
    env = {**os.environ, "LINKGRAPH_DB_MEMORY_MIB": "4"}
    proc = subprocess.run(
        [*linkgraph_cmd(), "scan", str(root.path), "--db", str(db), "--quiet"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert "scan-budget:" in proc.stderr and "LINKGRAPH_DB_MEMORY_MIB" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert not db.exists()  # nothing was written


def test_a_scan_under_an_address_space_limit_opens_its_store(tmp_path: Path) -> None:
    """Under ``ulimit -v`` (``prlimit --as``) LadybugDB's default reservation for the database file
    (8 TiB of address space) cannot be mapped: the store reserves within the limit and the scan runs."""
    root = Root(tmp_path / "root")
    root.install_glibc()
    root.exe("/usr/bin/tiny", ["findings_scale/program.c"], cflags=["-DDECLS=", "-DCALLS=x"])
    db = tmp_path / "tiny.lbdb"
    capped = ["prlimit", "--as=4000000000", "--", *linkgraph_cmd()]
    scan_argv = [*capped, "scan", str(root.path), "--db", str(db), "--quiet"]
    proc = subprocess.run(scan_argv, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    report_argv = [*capped, "report", "--db", str(db), "--format", "json"]
    report = subprocess.run(report_argv, capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    assert "/usr/bin/tiny" in {lm["executable"] for lm in json.loads(report.stdout)["link_maps"]}
