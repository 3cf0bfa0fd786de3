"""The members of a release, one at a time and bounded: a tar (any compression) read as a stream, a
zip, or an unpacked folder; archives inside it (``apps/busybox-1.01.tar.bz2``) read the same way
in memory, their members named below the archive's path (``apps/busybox-1.01.tar.bz2/busybox-1.01/
Makefile``). Nothing is written to disk, so a member's name is only a name: absolute names, ``..``
climbing out, names that are not UTF-8, links (never followed: no loop), archives nested more than
``MAX_NESTING`` deep or inside a copy of themselves (a loop), too many members and too many bytes,
all levels together, each become a problem record, and the walk goes on or stops there."""

from __future__ import annotations

import hashlib
import io
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
from typing import IO

from ..problems import Problem, ProblemCode, Severity
from ..unpack.safe_tree import MAX_TREE_BYTES

MAX_MEMBERS = 250_000  # members looked at in one release (a real one: ~45,000)
MAX_BYTES = MAX_TREE_BYTES  # bytes read from one release, all members together (a bomb stops here)
MAX_MEMBER = 256 << 20  # one member is read up to this (its hash then covers that part)
MAX_DEPTH = 64  # path components of a member
MAX_NESTING = 16  # archives inside archives, as the firmware unpacker nests (loader/unpack/driver.py)
# the names of the archives opened inside a release (a tar of any compression tarfile reads, a zip)
ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz", ".tar.xz", ".txz", ".zip")
_ERRORS = (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile, ValueError)


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
        self.stopped = False  # a limit was reached: nothing more is read (one problem says so)
        self.problems: list[Problem] = []

    def problem(self, path: str, code: ProblemCode, message: str) -> None:
        self.problems.append(Problem(path, Severity.WARNING, message, code))

    def stop(self, path: str, code: ProblemCode, message: str) -> None:
        self.stopped = True
        self.problem(path, code, message)

    def take(self, path: str, size: int) -> bool:
        """Count one member of ``size`` bytes; False (with a problem the first time) once a limit is reached."""
        if self.stopped:
            return False
        if self.members >= self.max_members:
            self.stop(
                path, ProblemCode.TOO_MANY_ENTRIES, f"more than {self.max_members:,} members: the rest is not read"
            )
        elif self.bytes + size > self.max_bytes:
            self.stop(path, ProblemCode.TOO_LARGE, f"more than {self.max_bytes:,} bytes unpacked: the rest is not read")
        if self.stopped:
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
            yield from _expanded(_folder(release, budget), budget, ())
        elif zipfile.is_zipfile(release):
            yield from _expanded(_zip(release, budget), budget, ())
        else:
            yield from _expanded(_tar(release, budget), budget, ())
    except _ERRORS as exc:
        budget.problem(str(release.name), ProblemCode.RELEASE_UNREADABLE, f"the release cannot be read on: {exc}")


def is_archive(path: str) -> bool:
    return path.lower().endswith(ARCHIVE_SUFFIXES)


def _expanded(found: Iterator[Member], budget: Budget, chain: tuple[str, ...]) -> Iterator[Member]:
    """``found``, each archive among them followed by its own members (and theirs), named below it.
    ``chain``: the SHA-256 of the archives the members come from (an archive inside itself: a loop)."""
    for member in found:
        yield member
        if not is_archive(member.path) or budget.stopped:
            continue
        if len(chain) >= MAX_NESTING:
            budget.problem(
                member.path, ProblemCode.DEPTH_LIMIT, f"archive nested more than {MAX_NESTING} deep: not opened"
            )
            continue
        digest = hashlib.sha256(member.data).hexdigest()
        if digest in chain:
            budget.problem(member.path, ProblemCode.DEPTH_LIMIT, "archive inside a copy of itself (a loop): not opened")
            continue
        zipped = zipfile.is_zipfile(io.BytesIO(member.data))
        data = io.BytesIO(member.data)
        inner = _zip(data, budget, member.path) if zipped else _tar(data, budget, member.path)
        try:
            yield from _expanded(inner, budget, (*chain, digest))
        except _ERRORS as exc:
            budget.problem(
                member.path, ProblemCode.RELEASE_UNREADABLE, f"archive in the release cannot be read on: {exc}"
            )


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


def _within(archive: str, raw: str, budget: Budget) -> str | None:
    """A member's path in the release: its safe name, below ``archive`` (the top: "") when it is nested."""
    name = safe_name(raw, budget)
    if name is None or not archive:
        return name
    full = f"{archive}/{name}"
    if full.count("/") >= MAX_DEPTH:
        budget.problem(full, ProblemCode.DEPTH_LIMIT, f"more than {MAX_DEPTH} folders deep: skipped")
        return None
    return full


def _tar(release: Path | IO[bytes], budget: Budget, archive: str = "") -> Iterator[Member]:
    name, stream = (release, None) if isinstance(release, Path) else (None, release)
    with tarfile.open(name, "r|*", fileobj=stream, errors="surrogateescape") as tar:
        for info in tar:
            name = _within(archive, info.name, budget)
            if name is None or not info.isfile():
                continue
            if not budget.take(name, info.size):
                return
            stream = tar.extractfile(info)
            data = stream.read(MAX_MEMBER) if stream is not None else b""
            yield Member(name, data)


def _zip(release: Path | IO[bytes], budget: Budget, archive: str = "") -> Iterator[Member]:
    with zipfile.ZipFile(release) as opened:
        for info in opened.infolist():
            name = _within(archive, info.filename.replace("\\", "/"), budget)  # a Windows zip's separators
            if name is None or info.is_dir():
                continue
            if not budget.take(name, info.file_size):
                return
            with opened.open(info) as stream:  # reads no more than it inflates: a lying header stops here
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
