"""Which of a walk's files are ELF files, told by a child interpreter as the walk goes on.

A root holds some forty files for every ELF file (134,000 for 3,000 on a /usr of a desktop system).
Reading each one's first bytes is three system calls; from threads of this process each of them
would also wait for the GIL, which the parsing here holds. The child is a plain interpreter running
a few lines of the standard library (isolated mode, no site packages): it reads the paths, NUL
separated, as a feeder thread writes them, and answers only for the files that need a look here:
``INDEX E SIZE MODE`` for the ELF magic, ``INDEX Z SIZE MODE`` for an empty file, ``INDEX ! REASON``
for one it could not read. If the child dies, what it did not answer for is checked here.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import IO

_CHILD = r"""
import os, sys
inp, out = sys.stdin.buffer, sys.stdout.buffer
flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
index, rest = 0, b""
while chunk := inp.read1(1 << 16):
    paths = (rest + chunk).split(b"\0")
    rest = paths.pop()
    lines = []
    for path in paths:
        try:
            fd = os.open(path, flags)
            try:
                magic = os.pread(fd, 4, 0)
                st = None if magic and magic != b"\x7fELF" else os.fstat(fd)
            finally:
                os.close(fd)
            if st is not None:
                lines.append(b"%d %s %d %d\n" % (index, b"E" if magic else b"Z", st.st_size, st.st_mode))
        except OSError as exc:
            lines.append(b"%d ! %s\n" % (index, (exc.strerror or type(exc).__name__).encode()))
        index += 1
    if lines:
        out.write(b"".join(lines))
        out.flush()
"""

# (magic found: "E" ELF, "Z" empty; size; mode) or the reason the file could not be read
Answer = tuple[str, int, int] | OSError
Job = tuple[str, str]  # (host path, device path)


def check_here(host: str) -> Answer | None:
    """The child's answer for one file, worked out in this process (None: not ELF, not empty)."""
    try:
        fd = os.open(host, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY)  # never waits on a FIFO
        try:
            magic = os.pread(fd, 4, 0)
            if magic and magic != b"\x7fELF":
                return None
            st = os.fstat(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        return exc
    return ("E" if magic else "Z", st.st_size, st.st_mode)


def answers(jobs: Iterable[Job]) -> Iterator[tuple[Job, Answer]]:
    """Each job that is an ELF file, an empty file or unreadable, with its answer, in walk order.
    ``jobs`` is consumed by a feeder thread (what the walk collects on the side is complete when
    the last answer has been taken)."""
    try:
        child = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
    except OSError:
        child = None
    if child is None or child.stdin is None or child.stdout is None:
        for job in jobs:
            found = check_here(job[0])
            if found is not None:
                yield job, found
        return
    fed: list[Job] = []
    failure: list[BaseException] = []
    feeder = threading.Thread(target=_feed, args=(jobs, fed, child.stdin, failure), daemon=True)
    feeder.start()
    last = -1
    finished = False
    try:
        for line in child.stdout:
            index, kind, rest = line.rstrip(b"\n").split(b" ", 2)
            last = int(index)
            if kind == b"!":
                yield fed[last], OSError(0, rest.decode(errors="replace"))
            else:
                size, mode = rest.split(b" ")
                yield fed[last], (kind.decode(), int(size), int(mode))
        finished = True
    finally:
        if not finished:  # given up early: the child must not keep the feeder waiting
            child.kill()
        feeder.join()
        child.stdout.close()
        status = child.wait()
    if failure:
        raise failure[0]
    if status != 0:  # the child died: check what it did not answer for
        for job in fed[last + 1 :]:
            found = check_here(job[0])
            if found is not None:
                yield job, found


def _feed(jobs: Iterable[Job], fed: list[Job], pipe: IO[bytes], failure: list[BaseException]) -> None:
    writable = True
    try:
        for job in jobs:
            fed.append(job)  # before the child can answer for it
            if writable:
                try:
                    pipe.write(os.fsencode(job[0]) + b"\0")
                except OSError:  # the child is gone: what it missed is checked afterwards
                    writable = False
    except BaseException as exc:  # the walk failed: the scan reports it
        failure.append(exc)
    finally:
        with contextlib.suppress(OSError):
            pipe.close()
