"""The sha256 of many files, computed by a child Python process while this one goes on.

A thread would do the same work, but it needs the GIL for every chunk it reads: beside a thread
that computes in Python (the link maps), each chunk waits for the interpreter's switch interval,
and hashing 4 GB takes longer than the rest of the scan. The child is a plain interpreter running a
few lines of the standard library (isolated mode, no site packages): it reads the paths, NUL
separated, from its input and writes one line per file, in order: the hex digest, or ``!`` and the
reason the file could not be read.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading

_CHILD = """
import hashlib, sys
out = sys.stdout.buffer
for path in sys.stdin.buffer.read().split(b"\\0")[:-1]:
    try:
        with open(path, "rb", buffering=0) as fh:
            line = hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        line = "!" + (exc.strerror or type(exc).__name__)
    out.write(line.encode() + b"\\n")
out.flush()
"""


class BackgroundHashes:
    """``start(paths)``, then ``results()``: per path its sha256, or an OSError's reason."""

    def __init__(self) -> None:
        self._paths: list[str] = []
        self._output: list[bytes] = []
        self._thread: threading.Thread | None = None

    def start(self, paths: list[str]) -> None:
        self._paths = paths
        self._thread = threading.Thread(target=self._run, name="sha256-child", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        data = b"".join(os.fsencode(p) + b"\0" for p in self._paths)
        try:
            child = subprocess.run(
                [sys.executable, "-I", "-S", "-c", _CHILD], input=data, capture_output=True, check=False
            )
        except OSError:  # no process could be started: the results are computed here instead
            return
        if child.returncode == 0:
            self._output = child.stdout.splitlines()

    def results(self) -> list[str | OSError]:
        """Wait for the child; each path's digest, or the error reading it (computed here for every
        path if the child could not run or did not finish)."""
        if self._thread is not None:
            self._thread.join()
        if len(self._output) != len(self._paths):
            return [digest_here(p) for p in self._paths]
        return [line.decode() if not line.startswith(b"!") else OSError(0, line[1:].decode()) for line in self._output]


def digest_here(path: str) -> str | OSError:
    """One file's sha256 in this process, read in chunks into one buffer (cheaper than through a
    map, whose page faults cost more than the copy), or the error reading it."""
    try:
        with open(path, "rb", buffering=0) as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        return exc
