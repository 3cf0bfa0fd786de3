"""Shared fixtures: run the linkgraph CLI as a user would, and read its report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))


def linkgraph_cmd() -> list[str]:
    """The ``linkgraph`` command installed beside this Python (the one under test)."""
    exe = Path(sys.executable).with_name("linkgraph")
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "import sys; from linkgraph.loader.cli import main; sys.exit(main())"]


def linkgraph(*args: str, check: bool = True, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run the installed ``linkgraph`` command."""
    cmd = [*linkgraph_cmd(), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env={**os.environ, "COLUMNS": "200"})
    if check and proc.returncode not in (0, 1):
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def scan_and_report(root: Path, db: Path) -> dict:
    linkgraph("scan", str(root), "--db", str(db), "--quiet")
    return json.loads(linkgraph("report", "--db", str(db), "--format", "json").stdout)


@pytest.fixture
def report_of(tmp_path: Path):
    def run(root: Path) -> dict:
        return scan_and_report(root, tmp_path / "graph.lbdb")
    return run
