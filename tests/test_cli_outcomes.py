"""How a command ends, as a person reads it: a scan that finds nothing fails and says so, a scan
with file errors names the first and the command that lists them all, ``serve`` on a busy port
stops before it says a URL, and no command a hint names is wrapped in two."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest
from conftest import linkgraph, linkgraph_cmd
from support.host_programs import HOST_PROGRAM, copy_with_libraries


def _run(*args: str, columns: int = 60) -> subprocess.CompletedProcess[str]:
    """The installed command, its stderr a pipe (not a terminal) of a narrow console."""
    return subprocess.run(
        [*linkgraph_cmd(), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": str(columns), "HOME": str(Path.home())},
        check=False,
    )


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A root with the host's program and its libraries, and a truncated copy of the program:
    scanned with a long database path, stderr not a terminal."""
    base = tmp_path_factory.mktemp("outcomes")
    root = base / "root"
    copy_with_libraries(HOST_PROGRAM, root)
    whole = (root / HOST_PROGRAM.lstrip("/")).read_bytes()
    (root / "usr" / "bin" / "truncated").write_bytes(whole[:200])
    db = base / ("a-database-path-long-enough-to-be-wrapped-" * 2 + "graph.lbdb")
    return db, _run("scan", str(root), "--db", str(db))


@pytest.mark.parametrize("contents", ["empty", "text"])
def test_scan_without_elf_fails(tmp_path: Path, contents: str) -> None:
    root = tmp_path / "etc"
    root.mkdir()
    if contents == "text":
        (root / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
        (root / "init.d").mkdir()
        (root / "init.d" / "rcS").write_text("#!/bin/sh\nmount -a\n")
    done = _run("scan", str(root), "--db", str(tmp_path / "g.lbdb"))
    assert done.returncode == 1, done.stderr
    assert f"linkgraph: no ELF file found in {root}: nothing to analyse" in done.stderr
    assert "none is left to review" not in done.stderr and "Traceback" not in done.stderr


def test_exit_1_names_the_first_error_and_the_listing(broken: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    _, done = broken
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    said = [line for line in lines if line.startswith("linkgraph: done, with")]
    assert len(said) == 1 and "/usr/bin/truncated: " in said[0], done.stderr
    listing = next(line for line in lines if line.endswith("lists them all"))
    command = listing.split("`")[1]
    assert command.startswith("linkgraph query problems --db ") and "--firmware " in command
    listed = linkgraph(*command.split()[1:])
    assert "/usr/bin/truncated" in listed.stdout


def test_hints_are_never_wrapped(broken: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    """At 60 columns, with stderr a pipe: every line that names a command holds all of it."""
    db, done = broken
    hint = next(line for line in done.stderr.splitlines() if "next: linkgraph report" in line)
    assert hint.endswith(f"next: linkgraph report --db {db} --format json"), done.stderr
    assert all(line.count("`") % 2 == 0 for line in done.stderr.splitlines()), done.stderr


def test_serve_on_a_busy_port(broken: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    db, _ = broken
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = _run("serve", "--db", str(db), "--port", str(port))
    assert done.returncode == 2, done.stderr
    assert "http://" not in done.stderr + done.stdout
    assert f"linkgraph: cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    assert "Traceback" not in done.stderr
