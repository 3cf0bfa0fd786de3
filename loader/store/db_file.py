"""The embedded database as one file that changes only by a rename.

A LadybugDB database is a file (``fw.lbdb``) and, while a writer has it open, its write-ahead
log (``fw.lbdb.wal``). Writing a graph into that file in place is not atomic: a scan killed
part-way leaves a half-written graph, or a log whose checkpoint every later reader must wait for.
So a writer never writes the live file:

* it holds ``fw.lbdb.lock`` (``flock``) for as long as it is open, so two writers never interleave;
* it builds the new database in ``fw.lbdb.staging`` (a copy of the live one when that holds other
  firmware, else a new one), closes it (LadybugDB checkpoints on close), flushes it to disk and
  renames it over ``fw.lbdb`` (``rename(2)`` is atomic): a reader opens either the old file or the
  new one, never a half;
* whatever a killed writer left (staging files, a stale lock file) is removed by the next open.

The lock file is removed when the writer closes; it is re-checked after locking, so a writer that
locked a lock file another one just removed tries again (the usual protocol for lock files that
do not stay).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import os

from ..errors import StoreError


def staging_path(path: str) -> str:
    return path + ".staging"


def wal_path(path: str) -> str:
    return path + ".wal"


class WriterLock:
    """``PATH.lock``, held exclusively by the one writer of the database at ``PATH``."""

    def __init__(self, path: str) -> None:
        self.path = path + ".lock"
        self._fd: int | None = None

    def acquire(self, wait: bool = False) -> bool:
        """Take the lock; False when another writer holds it (and ``wait`` is False)."""
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise StoreError(f"{self.path}: cannot create the writer's lock file: {exc.strerror}") from exc
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except OSError as exc:
                os.close(fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    return False
                raise StoreError(f"{self.path}: cannot lock: {exc.strerror}") from exc
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self._fd = fd
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                return True
            os.close(fd)  # the holder removed it as we locked it: lock the new one

    def holder(self) -> str:
        """The process id the lock file names, or '?'."""
        try:
            with open(self.path) as fh:
                return fh.read(32).strip() or "?"
        except OSError:
            return "?"

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        os.close(self._fd)
        self._fd = None


def remove_staging(path: str) -> None:
    """What a killed writer left: the staging database and its log (call with the lock held)."""
    for leftover in glob.glob(glob.escape(staging_path(path)) + "*"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(leftover)


def switch_in(path: str) -> None:
    """Make the finished staging database the live one: flushed to disk, then renamed over it."""
    staged = staging_path(path)
    if os.path.exists(wal_path(staged)):
        raise StoreError(f"{staged}: the new database was not closed cleanly; the old one is kept")
    fd = os.open(staged, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(staged, path)
    directory = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
