"""The sha256 and sha1 of many files, computed by a child Python process while this one goes on.

Each file is read once, in chunks into one buffer, and each chunk goes to both hashes (SPDX 2.3
wants a SHA-1 of every File beside the SHA-256 that names a module everywhere else).

A thread would do the same work, but it needs the GIL for every chunk it reads: beside a thread
that computes in Python (the link maps), each chunk waits for the interpreter's switch interval,
and hashing 4 GB takes longer than the rest of the scan. The child is a plain interpreter running a
few lines of the standard library (isolated mode, no site packages): it reads the paths, NUL
separated, from its input as they come and writes one line per file, in order: the two hex
digests separated by a blank, or ``!`` and the reason the file could not be read. Hard links to one
file (busybox's applets, a program under two names) are hashed once.

Paths are handed over one by one as the ELF files are parsed (``add``), so the hashing uses the
other core while this process parses, not only while it works out the link maps afterwards.
"""

from __future__ import annotations

import hashlib
import os
import queue
import subprocess
import sys
import threading
from typing import IO

from ..elf.facts import Digests

_CHUNK = 1 << 18  # hashlib.file_digest's buffer size

_CHILD = f"""
import hashlib, os, sys
out = sys.stdout.buffer
buffer = bytearray({_CHUNK})
view = memoryview(buffer)
seen = {{}}

def digests(path):
    with open(path, "rb", buffering=0) as fh:
        status = os.fstat(fh.fileno())
        line = seen.get((status.st_dev, status.st_ino))
        if line is None:
            sha256, sha1 = hashlib.sha256(), hashlib.sha1()
            while size := fh.readinto(buffer):
                sha256.update(view[:size])
                sha1.update(view[:size])
            line = seen[status.st_dev, status.st_ino] = sha256.hexdigest() + " " + sha1.hexdigest()
    return line

rest = b""
while chunk := os.read(0, 1 << 16):
    *paths, rest = (rest + chunk).split(b"\\0")
    for path in paths:
        try:
            line = digests(path)
        except OSError as exc:
            line = "!" + (exc.strerror or type(exc).__name__)
        out.write(line.encode() + b"\\n")
out.flush()
"""


class BackgroundHashes:
    """``add(path)`` for each file as it comes, then ``results()``: per path its digests, or an
    OSError's reason. The child starts with the first path; a feeder thread writes the paths to it
    (so ``add`` never waits for the child) and a drain thread reads its answers."""

    def __init__(self) -> None:
        self._paths: list[str] = []
        self._output: list[bytes] = []
        self._queue: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._child: subprocess.Popen[bytes] | None = None
        self._closed = False

    def add(self, path: str) -> None:
        if not self._paths:
            self._start()
        self._paths.append(path)
        self._queue.put(path)

    def _start(self) -> None:
        try:
            self._child = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
        except OSError:  # no process could be started: the results are computed here instead
            return
        assert self._child.stdin is not None and self._child.stdout is not None
        self._threads = [
            threading.Thread(target=self._feed, args=(self._child.stdin,), name="digest-feed", daemon=True),
            threading.Thread(target=self._drain, args=(self._child.stdout,), name="digest-drain", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _feed(self, pipe: IO[bytes]) -> None:
        try:
            with pipe:
                while (path := self._queue.get()) is not None:
                    pipe.write(os.fsencode(path) + b"\0")
                    if self._queue.empty():  # the child has all there is: let it go on
                        pipe.flush()
        except OSError:  # the child died: whatever it did not answer for is computed here
            pass

    def _drain(self, pipe: IO[bytes]) -> None:
        with pipe:
            self._output = pipe.read().splitlines()

    def close(self) -> None:
        """No more paths: the child finishes the ones it has."""
        if not self._closed:
            self._closed = True
            self._queue.put(None)

    def results(self) -> list[Digests | OSError]:
        """Wait for the child; each path's digests, or the error reading it (computed here for
        every path the child did not answer for: it could not run or did not finish)."""
        self.close()
        for thread in self._threads:
            thread.join()
        if self._child is not None and self._child.wait() != 0:
            self._output = []
        answered = [_digests(line) for line in self._output[: len(self._paths)]]
        return answered + [digest_here(p) for p in self._paths[len(answered) :]]


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
