"""The child that reads every candidate's first bytes (loader/scan/magic_check.py): its answers
equal what this process reads from the same files, it never waits on a FIFO, and when the child
cannot run or dies, every file it did not answer for is checked here instead."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from linkgraph.loader.scan import magic_check
from linkgraph.loader.scan.magic_check import answers, check_here


def _tree(tmp_path: Path) -> list[tuple[str, str]]:
    """ELF files among many that are not, an empty one, a 3-byte one, a FIFO."""
    elf = Path(shutil.which("true") or "/bin/true").read_bytes()
    jobs = []
    for i in range(300):
        path = tmp_path / f"f{i:03d}"
        path.write_bytes(elf if i % 37 == 0 else b"#!/bin/sh\n" * (i % 5))
        jobs.append((str(path), f"/f{i:03d}"))
    (tmp_path / "tiny").write_bytes(b"\x7fEL")
    os.mkfifo(tmp_path / "fifo")
    jobs += [(str(tmp_path / "tiny"), "/tiny"), (str(tmp_path / "fifo"), "/fifo")]
    return jobs


def _expected(jobs: list[tuple[str, str]]) -> list[tuple[str, object]]:
    out = []
    for job in jobs:
        found = check_here(job[0])
        if found is not None:
            out.append((job[1], found if not isinstance(found, OSError) else "error"))
    return out


def _got(jobs: list[tuple[str, str]]) -> list[tuple[str, object]]:
    return [(job[1], a if not isinstance(a, OSError) else "error") for job, a in answers(iter(jobs))]


def test_child_answers_as_this_process_reads(tmp_path: Path) -> None:
    jobs = _tree(tmp_path)
    expected = _expected(jobs)
    kinds = [a[0] for _d, a in expected if a != "error"]
    assert kinds.count("E") == 9 and kinds.count("Z") == 58, expected
    assert ("/fifo", "error") in expected  # a FIFO is opened without waiting and cannot be read at an offset
    assert _got(jobs) == expected


@pytest.mark.parametrize("child", ["/bin/false", "/nonexistent/python"])
def test_files_the_child_did_not_answer_for_are_checked_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, child: str
) -> None:
    jobs = _tree(tmp_path)
    expected = _expected(jobs)
    monkeypatch.setattr(magic_check.sys, "executable", child)
    assert _got(jobs) == expected


def test_a_walk_that_fails_is_reported(tmp_path: Path) -> None:
    def jobs() -> Iterator[tuple[str, str]]:
        yield (str(tmp_path / "a"), "/a")
        raise RuntimeError("walk failed")

    (tmp_path / "a").write_bytes(b"")
    with pytest.raises(RuntimeError, match="walk failed"):
        list(answers(jobs()))
