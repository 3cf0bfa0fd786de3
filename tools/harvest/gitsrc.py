"""A git repository read at one commit, without a work tree (a bare mirror or any clone)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path


def _git(gitdir: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(gitdir), *args], check=True, capture_output=True, text=True).stdout


@dataclass(frozen=True, slots=True)
class GitTree:
    gitdir: Path
    commit: str  # 40 hex digits

    @classmethod
    def open(cls, spec: str) -> GitTree:
        """``DIR`` or ``DIR@COMMIT`` (a commit, tag or branch; HEAD when none is given)."""
        where, _, rev = spec.partition("@")
        gitdir = Path(where).expanduser()
        commit = _git(gitdir, "rev-parse", "--verify", f"{rev or 'HEAD'}^{{commit}}").strip()
        return cls(gitdir, commit)

    def date(self) -> str:
        """The commit's date (committer, ISO 8601)."""
        return _git(self.gitdir, "show", "-s", "--format=%cI", self.commit).strip()

    def paths(self) -> list[str]:
        """Every file of the commit's tree."""
        return _git(self.gitdir, "ls-tree", "-r", "--name-only", self.commit).splitlines()

    def read_many(self, paths: Iterable[str]) -> Iterator[tuple[str, str]]:
        """(path, text) for each path, read through one ``git cat-file --batch``."""
        wanted = list(paths)
        request = "".join(f"{self.commit}:{p}\n" for p in wanted).encode()
        out = subprocess.run(
            ["git", "-C", str(self.gitdir), "cat-file", "--batch"], input=request, check=True, capture_output=True
        ).stdout
        pos = 0
        for path in wanted:
            end = out.index(b"\n", pos)
            header = out[pos:end].split()
            pos = end + 1
            if len(header) < 3 or header[1] != b"blob":
                continue
            size = int(header[2])
            yield path, out[pos : pos + size].decode("utf-8", "replace")
            pos += size + 1
