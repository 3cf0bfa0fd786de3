"""The members of a release, one at a time and bounded: a tar (any compression) read as a stream, a
zip, or an unpacked folder. Nothing is written to disk, so a member's name is only a name: absolute
names, ``..`` climbing out, names that are not UTF-8, links (never followed: no loop), too many
members and too many bytes each become a problem record, and the walk goes on or stops there."""

from __future__ import annotations

import os
import posixpath
import queue
import stat
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..problems import Problem, ProblemCode, Severity
from ..unpack.safe_tree import MAX_TREE_BYTES

MAX_MEMBERS = 250_000  # members looked at in one release (a real one: ~45,000)
MAX_BYTES = MAX_TREE_BYTES  # bytes read from one release, all members together (a bomb stops here)
MAX_MEMBER = 256 << 20  # one member is read up to this (its hash then covers that part)
MAX_DEPTH = 64  # path components of a member


@dataclass(slots=True)
class Member:
    path: str  # relative, "/"-separated
    data: bytes


class Budget:
    """What one release may cost; the problems met while walking it."""

    def __init__(self, max_members: int = MAX_MEMBERS, max_bytes: int = MAX_BYTES) -> None:
        self.max_members = max_members
        self.max_bytes = max_bytes
        self.members = 0
        self.bytes = 0
        self.problems: list[Problem] = []

    def problem(self, path: str, code: ProblemCode, message: str) -> None:
        self.problems.append(Problem(path, Severity.WARNING, message, code))

    def take(self, path: str, size: int) -> bool:
        """Count one member of ``size`` bytes; False (with a problem) once a limit is reached."""
        if self.members >= self.max_members:
            self.problem(
                path, ProblemCode.TOO_MANY_ENTRIES, f"more than {self.max_members:,} members: the rest is not read"
            )
            return False
        if self.bytes + size > self.max_bytes:
            self.problem(
                path, ProblemCode.TOO_LARGE, f"more than {self.max_bytes:,} bytes unpacked: the rest is not read"
            )
            return False
        self.members += 1
        self.bytes += size
        return True


def safe_name(raw: str, budget: Budget) -> str | None:
    """The member's relative path, or None (with a problem) when it is absolute, climbs out or is too deep."""
    shown = raw.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if shown != raw:
        budget.problem(shown, ProblemCode.NAME_NOT_UTF8, "member name is not UTF-8: kept with its bytes escaped")
    name = posixpath.normpath(shown)
    if shown.startswith("/") or name == ".." or name.startswith("../"):
        budget.problem(
            shown, ProblemCode.RELEASE_NAME_UNSAFE, "absolute member name or one climbing out with '..': skipped"
        )
        return None
    if name.count("/") >= MAX_DEPTH:
        budget.problem(shown, ProblemCode.DEPTH_LIMIT, f"more than {MAX_DEPTH} folders deep: skipped")
        return None
    return None if name in ("", ".") else name


def members(release: Path, budget: Budget) -> Iterator[Member]:
    """The regular files of ``release`` with their bytes, in the order they are stored."""
    try:
        if release.is_dir():
            yield from _folder(release, budget)
        elif zipfile.is_zipfile(release):
            yield from _zip(release, budget)
        else:
            yield from _tar(release, budget)
    except (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile, ValueError) as exc:
        budget.problem(str(release.name), ProblemCode.RELEASE_UNREADABLE, f"the release cannot be read on: {exc}")


def prefetched(found: Iterator[Member], depth: int = 32) -> Iterator[Member]:
    """``found`` read ahead in a thread: decompressing and reading release members (which free the
    interpreter lock) overlap with the indexing of the members before them (which holds it). At most
    ``depth`` members wait; an error of the reader is raised here."""
    waiting: queue.Queue[Member | BaseException | None] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def offer(item: Member | BaseException | None) -> bool:
        """Hand one item over; False once the consumer has stopped."""
        while not stop.is_set():
            try:
                waiting.put(item, timeout=0.1)
            except queue.Full:
                continue
            else:
                return True
        return False

    def read() -> None:
        try:
            for member in found:
                if not offer(member):
                    return
            offer(None)
        except BaseException as exc:  # handed to the consumer, which raises it
            offer(exc)

    reader = threading.Thread(target=read, name="release-reader", daemon=True)
    reader.start()
    try:
        while (item := waiting.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        reader.join()


def _tar(release: Path, budget: Budget) -> Iterator[Member]:
    with tarfile.open(release, "r|*", errors="surrogateescape") as tar:
        for info in tar:
            name = safe_name(info.name, budget)
            if name is None or not info.isfile():
                continue
            if not budget.take(name, info.size):
                return
            stream = tar.extractfile(info)
            data = stream.read(MAX_MEMBER) if stream is not None else b""
            yield Member(name, data)


def _zip(release: Path, budget: Budget) -> Iterator[Member]:
    with zipfile.ZipFile(release) as archive:
        for info in archive.infolist():
            name = safe_name(info.filename.replace("\\", "/"), budget)  # a Windows zip's separators
            if name is None or info.is_dir():
                continue
            if not budget.take(name, info.file_size):
                return
            with archive.open(info) as stream:  # reads no more than it inflates: a lying header stops here
                data = stream.read(min(info.file_size, MAX_MEMBER))
            yield Member(name, data)


def _folder(release: Path, budget: Budget) -> Iterator[Member]:
    """Regular files below the folder, links not followed (no loop, nothing outside it)."""
    top = os.fsencode(release)
    for folder, dirs, files in os.walk(top, followlinks=False):
        dirs.sort()
        for entry in sorted(files):
            full = os.path.join(folder, entry)
            rel = os.fsdecode(os.path.relpath(full, top))
            name = safe_name(rel, budget)
            if name is None:
                continue
            try:
                info = os.lstat(full)
                if not stat.S_ISREG(info.st_mode):
                    continue
                if not budget.take(name, info.st_size):
                    return
                with open(full, "rb") as stream:
                    data = stream.read(MAX_MEMBER)
            except OSError as exc:
                budget.problem(name, ProblemCode.READ_FAILED, f"cannot read: {exc.strerror}")
                continue
            yield Member(name, data)
