"""Writing archive members below one folder, and nowhere else.

Every member is created relative to an open descriptor of its parent folder, and that folder
is reached from the top one component at a time with ``O_NOFOLLOW``: a member can never be
written through a symbolic link, even one an earlier member of the same archive created.
Names with ``..`` are refused, absolute names are made relative (as GNU tar does), device
nodes, FIFOs and sockets are skipped, set-id bits are dropped. Symbolic links are stored as
they are: their targets are device paths, resolved later inside the root, never on the host.
A tree takes at most ``max_entries`` members (``MAX_ENTRIES`` for all the archives of one
image together): the member past it raises ``TooManyEntries`` and the extraction stops. Every
entry and every byte written is also spent from the scan's budgets (``loader/budget.py``): past
one, ``BudgetReached`` stops the extraction too, and the member being written is deleted.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ..budget import BudgetReached, Kind, current
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import display_path

MAX_TREE_BYTES = 16 << 30  # an archive expanding past this (a zip bomb) stops being written
MAX_ENTRIES = 50_000  # members extracted from the archives of one image, all together

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class TooManyEntries(Exception):
    """The archive holds more members than the tree may still take: the rest is not extracted."""


STOPS = (TooManyEntries, BudgetReached)  # what stops a whole extraction, never one member only


def file_mode(mode: int) -> int:
    """Permission bits for an extracted file: kept (the scan looks at x bits), set-id bits dropped."""
    return (mode & 0o777) | 0o600


def leaves_top(parts: list[str], target: str) -> bool:
    """Does a relative link target at ``parts`` climb above the archive's top?"""
    if target.startswith("/"):
        return False
    level = len(parts) - 1
    for component in target.split("/"):
        if component == "..":
            level -= 1
            if level < 0:
                return True
        elif component not in ("", "."):
            level += 1
    return False


class SafeTree:
    """The folder one archive is extracted into; collects a ``Problem`` for every bad member."""

    def __init__(self, top: Path, source: str, max_entries: int = MAX_ENTRIES) -> None:
        self.top = top
        self.source = source  # the archive, as a path relative to the input, for problems
        self.problems: list[Problem] = []
        self.skipped_special = 0
        self.written = 0
        self.entries = 0  # members taken, extracted or not
        self.max_entries = max_entries
        # folders already reached one component at a time: a folder is never replaced or removed
        # here (``_make_room`` refuses to), so such a path stays free of links and opens at once
        self._reached: set[str] = set()
        self._last: tuple[str, int] | None = None  # the folder opened last, kept open (members come in runs)
        top.mkdir(parents=True, exist_ok=True)

    def close(self) -> None:
        if self._last is not None:
            os.close(self._last[1])
            self._last = None

    def __del__(self) -> None:
        self.close()

    def _take(self) -> None:
        """Count one more member; ``TooManyEntries`` past the limit (the extraction stops there)."""
        if self.entries >= self.max_entries:
            raise TooManyEntries(f"more than {self.max_entries:,} members: the rest is not extracted")
        current().spend(Kind.ENTRIES, 1)
        self.entries += 1

    def problem(self, member: str, message: str, severity: Severity = Severity.ERROR) -> None:
        self.problems.append(
            Problem(self.source, severity, f"member {display_path(member)!r}: {message}", ProblemCode.UNPACK_MEMBER)
        )

    # -- names and parent folders -------------------------------------------------------------

    def _parts(self, name: str) -> list[str] | None:
        if "\0" in name:
            self.problem(name, "name contains a NUL byte; skipped")
            return None
        if name.startswith("/"):
            self.problem(name, "absolute name; extracted relative to the archive's top", Severity.WARNING)
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if ".." in parts:
            self.problem(name, "name contains '..' (path traversal); skipped")
            return None
        return parts

    def _open_parent(self, member: str, folders: list[str], create: bool = True) -> int | None:
        """A descriptor of the folder ``folders`` below the top, made if missing; None if unsafe."""
        key = "/".join(folders)
        if self._last is not None and self._last[0] == key:
            return os.dup(self._last[1])
        if key in self._reached:
            return self._keep(key, os.open(os.path.join(self.top, key), _DIR_FLAGS))
        fd = os.open(self.top, _DIR_FLAGS)
        for component in folders:
            try:
                try:
                    child = os.open(component, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise
                    os.mkdir(component, 0o755, dir_fd=fd)
                    child = os.open(component, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                os.close(fd)
                if isinstance(exc, FileNotFoundError):
                    self.problem(member, f"folder {display_path(component)!r} does not exist; skipped")
                else:
                    self.problem(
                        member,
                        f"path goes through {display_path(component)!r}, which is a symbolic "
                        "link or not a folder; skipped",
                    )
                return None
            os.close(fd)
            fd = child
        self._reached.add(key)
        return self._keep(key, fd)

    def _keep(self, key: str, fd: int) -> int:
        """``fd`` (the folder ``key``), a copy of it kept open for the next member in that folder."""
        self.close()
        self._last = (key, os.dup(fd))
        return fd

    def _make_room(self, member: str, parent: int, leaf: str, writing_file: bool) -> bool:
        """Remove an earlier entry of the same name; refuse to replace a folder or write through a link."""
        try:
            st = os.stat(leaf, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            return True
        if stat.S_ISDIR(st.st_mode):
            self.problem(member, "would replace a folder; skipped")
            return False
        if stat.S_ISLNK(st.st_mode) and writing_file:
            self.problem(member, "would be written through the symbolic link extracted at this name; skipped")
            return False
        os.unlink(leaf, dir_fd=parent)
        return True

    def _locate(self, name: str, parts: list[str] | None = None) -> tuple[int, str] | None:
        parts = self._parts(name) if parts is None else parts
        if parts is None:
            return None
        if not parts:
            self.problem(name, "empty name; skipped")
            return None
        parent = self._open_parent(name, parts[:-1])
        return None if parent is None else (parent, parts[-1])

    # -- members ------------------------------------------------------------------------------

    def write_file(self, name: str, chunks: Iterable[bytes], mode: int) -> None:
        self._take()
        located = self._locate(name)
        if located is None:
            return
        parent, leaf = located
        try:
            if not self._make_room(name, parent, leaf, writing_file=True):
                return
            fd = os.open(leaf, _NEW_FILE_FLAGS, 0o600, dir_fd=parent)
            budget = current()
            with os.fdopen(fd, "wb") as out:
                try:
                    for chunk in chunks:
                        self.written += len(chunk)
                        if self.written > MAX_TREE_BYTES:
                            raise OSError(
                                f"the archive expands past {MAX_TREE_BYTES >> 30} GiB; the rest is not written"
                            )
                        budget.spend(Kind.WRITTEN, len(chunk))
                        out.write(chunk)
                except BudgetReached:
                    os.unlink(leaf, dir_fd=parent)  # output past a bound is never searched
                    raise
                os.fchmod(out.fileno(), file_mode(mode))
        finally:
            os.close(parent)

    def make_dir(self, name: str, mode: int = 0o755) -> None:
        self._take()
        parts = self._parts(name)
        if not parts:
            return  # the top itself
        parent = self._open_parent(name, parts[:-1])
        if parent is None:
            return
        leaf = parts[-1]
        try:
            try:
                st = os.stat(leaf, dir_fd=parent, follow_symlinks=False)
            except FileNotFoundError:
                os.mkdir(leaf, 0o700, dir_fd=parent)
            else:
                if not stat.S_ISDIR(st.st_mode):
                    self.problem(name, "a folder where a file or symbolic link was extracted; skipped")
                    return
            os.chmod(leaf, (mode & 0o777) | 0o700, dir_fd=parent)
        finally:
            os.close(parent)

    def make_symlink(self, name: str, target: str) -> None:
        self._take()
        if not target or "\0" in target:
            self.problem(name, "symbolic link with an empty or invalid target; skipped")
            return
        parts = self._parts(name)
        if parts is None or (located := self._locate(name, parts)) is None:
            return
        parent, leaf = located
        try:
            if not self._make_room(name, parent, leaf, writing_file=False):
                return
            os.symlink(target, leaf, dir_fd=parent)
        finally:
            os.close(parent)
        if leaves_top(parts, target):
            self.problem(
                name,
                f"symbolic link to {display_path(target)!r} climbs above the archive's top; "
                "kept, it is resolved inside the root",
                Severity.WARNING,
            )

    def make_hardlink(self, name: str, target: str) -> None:
        self._take()
        target_parts = self._parts(target)
        if not target_parts:
            if target_parts is not None:
                self.problem(name, "hard link without a target; skipped")
            return
        source_dir = self._open_parent(name, target_parts[:-1], create=False)
        if source_dir is None:
            return
        try:
            try:
                st = os.stat(target_parts[-1], dir_fd=source_dir, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            if st is None or not stat.S_ISREG(st.st_mode):
                self.problem(name, f"hard link to {display_path(target)!r}, which is not an extracted file; skipped")
                return
            located = self._locate(name)
            if located is None:
                return
            parent, leaf = located
            try:
                if self._make_room(name, parent, leaf, writing_file=True):
                    os.link(target_parts[-1], leaf, src_dir_fd=source_dir, dst_dir_fd=parent, follow_symlinks=False)
            finally:
                os.close(parent)
        finally:
            os.close(source_dir)

    def skip_special(self, name: str) -> None:
        """Device nodes, FIFOs and sockets are not extracted (nothing to analyse in them)."""
        self._take()
        self.skipped_special += 1
