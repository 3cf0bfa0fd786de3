"""File and symbol names are data, never query text: hostile ones load and report exactly, on both stores."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.fixture_root import install_host_loader
from support.host_programs import HOST_PROGRAM, copy_with_libraries

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

HOSTILE_SYMBOL = "x'\"`}{;\nMATCH (n) DETACH DELETE n //$firmware"
HOSTILE_LIB = "lib`x'\"{}\n RETURN 1; DROP TABLE Module.so"
LIB_C = "int hostile(void) { return 42; }\n"
MAIN_C = "int hostile(void);\nint main(void) { return hostile() == 42 ? 0 : 1; }\n"


def _build(tmp: Path) -> Path:
    root = tmp / "root"
    (root / "lib").mkdir(parents=True)
    (root / "usr" / "bin").mkdir(parents=True)
    for name, text in (("lib.c", LIB_C), ("main.c", MAIN_C)):
        (tmp / name).write_text(text)
    subprocess.run(["gcc", "-c", "-fPIC", "-o", tmp / "lib.o", tmp / "lib.c"], check=True)
    subprocess.run(["gcc", "-c", "-fPIC", "-o", tmp / "main.o", tmp / "main.c"], check=True)
    for obj in ("lib.o", "main.o"):
        subprocess.run(["objcopy", f"--redefine-sym=hostile={HOSTILE_SYMBOL}", tmp / obj], check=True)
    lib = root / "lib" / HOSTILE_LIB
    subprocess.run(["gcc", "-shared", "-o", lib, tmp / "lib.o", f"-Wl,-soname,{HOSTILE_LIB}"], check=True)
    subprocess.run(["gcc", "-o", root / "usr" / "bin" / "victim", tmp / "main.o", lib], check=True)
    install_host_loader(root, root / "usr" / "bin" / "victim")
    return root


def _check(report: dict) -> None:
    paths = {m["path"] for m in report["modules"]}
    assert f"/lib/{HOSTILE_LIB}" in paths
    victim = next(m for m in report["modules"] if m["path"] == "/usr/bin/victim")
    assert HOSTILE_LIB in victim["needed"]
    used = [d for d in report["dependencies"] if d["from"] == "/usr/bin/victim" and d["soname"] == HOSTILE_LIB]
    assert used and used[0]["status"] == "used" and used[0]["symbols"] == [HOSTILE_SYMBOL]
    assert any(b["symbol"] == HOSTILE_SYMBOL and b["provider"] == f"/lib/{HOSTILE_LIB}" for b in report["bindings"])


def test_hostile_names_on_both_stores(tmp_path: Path, neo4j_server: Any, neo4j_env: dict[str, str]) -> None:
    root = _build(tmp_path)
    other = tmp_path / "other"
    copy_with_libraries(HOST_PROGRAM, other)
    db = ["--db", str(tmp_path / "graph.lbdb")]
    server = ["--neo4j", neo4j_server.uri]
    reports = []
    for store in (db, server):
        linkgraph("scan", str(other), *store, "--name", "other", "--quiet", env=neo4j_env)
        proc = linkgraph("scan", str(root), *store, "--name", HOSTILE_SYMBOL, "--quiet", env=neo4j_env)
        assert proc.returncode in (0, 1), proc.stderr
        report = json.loads(linkgraph("report", *store, "--firmware", HOSTILE_SYMBOL, env=neo4j_env).stdout)
        _check(report)
        assert report["firmware"]["name"] == HOSTILE_SYMBOL
        # nothing was deleted or altered by the names: the other firmware is still whole
        names = {f["name"] for f in json.loads(linkgraph("query", "firmware", *store, "--json", env=neo4j_env).stdout)}
        assert {"other", HOSTILE_SYMBOL} <= names
        rows = json.loads(
            linkgraph(
                "query",
                "providers",
                *store,
                "--firmware",
                HOSTILE_SYMBOL,
                "--json",
                "--param",
                f"symbol={HOSTILE_SYMBOL}",
                env=neo4j_env,
            ).stdout
        )
        assert rows == [{"module": "/usr/bin/victim", "version": None, "provider": f"/lib/{HOSTILE_LIB}"}]
        reports.append(report)
    assert reports[0] == reports[1]
