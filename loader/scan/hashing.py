"""The sha256 and sha1 of many files, computed by a child Python process while this one goes on.

Each file is read once, in chunks into one buffer, and each chunk goes to both hashes (SPDX 2.3
wants a SHA-1 of every File beside the SHA-256 that names a module everywhere else).

A thread would do the same work, but it needs the GIL for every chunk it reads: beside a thread
that computes in Python (the link maps), each chunk waits for the interpreter's switch interval,
and hashing 4 GB takes longer than the rest of the scan. The child is a plain interpreter running a
few lines of the standard library (isolated mode, no site packages): it reads the paths, NUL
separated, from its input and writes one line per file, in order: the two hex digests separated
by a blank, or ``!`` and the reason the file could not be read.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading

from ..elf.facts import Digests

_CHUNK = 1 << 18  # hashlib.file_digest's buffer size

_CHILD = f"""
import hashlib, sys
out = sys.stdout.buffer
buffer = bytearray({_CHUNK})
view = memoryview(buffer)
for path in sys.stdin.buffer.read().split(b"\\0")[:-1]:
    try:
        sha256, sha1 = hashlib.sha256(), hashlib.sha1()
        with open(path, "rb", buffering=0) as fh:
            while size := fh.readinto(buffer):
                sha256.update(view[:size])
                sha1.update(view[:size])
        line = sha256.hexdigest() + " " + sha1.hexdigest()
    except OSError as exc:
        line = "!" + (exc.strerror or type(exc).__name__)
    out.write(line.encode() + b"\\n")
out.flush()
"""


class BackgroundHashes:
    """``start(paths)``, then ``results()``: per path its digests, or an OSError's reason."""

    def __init__(self) -> None:
        self._paths: list[str] = []
        self._output: list[bytes] = []
        self._thread: threading.Thread | None = None

    def start(self, paths: list[str]) -> None:
        self._paths = paths
        self._thread = threading.Thread(target=self._run, name="digest-child", daemon=True)
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

    def results(self) -> list[Digests | OSError]:
        """Wait for the child; each path's digests, or the error reading it (computed here for
        every path if the child could not run or did not finish)."""
        if self._thread is not None:
            self._thread.join()
        if len(self._output) != len(self._paths):
            return [digest_here(p) for p in self._paths]
        return [_digests(line) for line in self._output]


def _digests(line: bytes) -> Digests | OSError:
    if line.startswith(b"!"):
        return OSError(0, line[1:].decode())
    sha256, sha1 = line.decode().split(" ")
    return Digests(sha256, sha1)


def digest_here(path: str) -> Digests | OSError:
    """One file's digests in this process, read in chunks into one buffer (cheaper than through a
    map, whose page faults cost more than the copy), or the error reading it."""
    buffer = bytearray(_CHUNK)
    view = memoryview(buffer)
    sha256, sha1 = hashlib.sha256(), hashlib.sha1()
    try:
        with open(path, "rb", buffering=0) as fh:
            while size := fh.readinto(buffer):
                sha256.update(view[:size])
                sha1.update(view[:size])
    except OSError as exc:
        return exc
    return Digests(sha256.hexdigest(), sha1.hexdigest())
