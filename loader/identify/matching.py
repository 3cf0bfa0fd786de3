"""The signature hits of a root's files, matched beside the rest of the scan.

Many bytes (``Matching.CHILD_BYTES`` and more) are matched by a child process (``child``), started
at once, so that the work runs on the other core while the scan works out the link maps (a thread
would wait for the interpreter at every step, beside the link maps' pure-Python work); its output
is drained by a thread in large reads. A few bytes are matched in this process when asked for: a
child costs more to start than they take. The files handed to the matcher spend their sizes from
the scan's ``matched`` budget (``loader/budget.py``; a file's ranges never cover more than its
size, ``regions.py``): the files past it are not matched, and one ``scan-budget`` problem says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterable

from ..budget import Kind, current
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS, display_path
from .matcher import Hit, match_file

COMPRESSED = (".gz", ".xz", ".zst")  # compressed kernel modules: their bytes are not the module's


def match_paths(root: RootFS, paths: list[str]) -> tuple[dict[str, list[Hit]], list[Problem]]:
    """The hits of each file of ``paths``; a file that cannot be read is a problem."""
    hits: dict[str, list[Hit]] = {}
    problems: list[Problem] = []
    for path in paths:
        try:
            with open(root.host_path(path), "rb") as fh:
                hits[path] = match_file(fh, os.fstat(fh.fileno()).st_size)
        except OSError as exc:
            reason = f"not identified: {exc.strerror or type(exc).__name__}"
            problems.append(Problem(display_path(path), Severity.WARNING, reason, ProblemCode.READ_FAILED))
    return hits, problems


class Matching:
    """The signature hits of every file of ``paths`` (device paths in ``root``)."""

    CHILD_BYTES = 64 << 20
    READ = 1 << 20

    def __init__(self, root: RootFS, paths: Iterable[str]) -> None:
        self._root, self._paths = root, [p for p in paths if not p.endswith(COMPRESSED)]
        self._sizes = [_size(root, p) for p in self._paths]
        self._over_budget = self._within_budget()
        self._child: subprocess.Popen[bytes] | None = None
        self._output: list[bytes] = []
        self._found: dict[str, list[Hit]] | None = None  # once read, the identification and the vendors share it
        self._drain = threading.Thread(target=self._read, name="identify-output", daemon=True)
        if sum(self._sizes) >= self.CHILD_BYTES:
            # -P: the working directory is not put on the child's module path, so a folder there
            # named like a package of ours (the repository's own linkgraph/, or a firmware's) is
            # never imported in its place
            command = [sys.executable, "-P", "-m", "linkgraph.loader.identify.child", root.host_dir, root.name]
            self._child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            self._drain.start()
            assert self._child.stdin is not None
            with self._child.stdin as feed:  # the child reads all of it before it starts
                feed.write(b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in self._paths))

    def _within_budget(self) -> Problem | None:
        """Keep the files the ``matched`` budget has room for (in order); the problem if it ran out."""
        budget = current()
        left = budget.left(Kind.MATCHED)
        total = 0
        for index, size in enumerate(self._sizes):
            if total + size > left:
                first = display_path(self._paths[index])
                self._paths, self._sizes = self._paths[:index], self._sizes[:index]
                budget.spend(Kind.MATCHED, total)
                return budget.reached(Kind.MATCHED, first)
            total += size
        budget.spend(Kind.MATCHED, total)
        return None

    def _read(self) -> None:
        assert self._child is not None and self._child.stdout is not None
        fd = self._child.stdout.fileno()
        while chunk := os.read(fd, self.READ):
            self._output.append(chunk)

    def hits(self, problems: list[Problem]) -> dict[str, list[Hit]]:
        """Every file's hits (waiting for the child); problems go to ``problems``, the first time
        (the hits are read once: later calls give the same)."""
        if self._found is None:
            if self._over_budget is not None:
                problems.append(self._over_budget)
            self._found = self._read_hits(problems)
        return self._found

    def _read_hits(self, problems: list[Problem]) -> dict[str, list[Hit]]:
        if self._child is None:
            found, trouble = match_paths(self._root, self._paths)
            problems += trouble
            return found
        self._drain.join()
        if self._child.wait() != 0:
            raise RuntimeError(f"the identification's child process failed (exit status {self._child.returncode})")
        found = {}
        for line in b"".join(self._output).splitlines():
            path, hits, *reason = json.loads(line)
            if hits is None:
                problems.append(Problem(display_path(path), Severity.WARNING, reason[0], ProblemCode.READ_FAILED))
            else:
                found[path] = [Hit(*h) for h in hits]
        return found


def _size(root: RootFS, path: str) -> int:
    try:
        return os.path.getsize(root.host_path(path))
    except OSError:
        return 0
