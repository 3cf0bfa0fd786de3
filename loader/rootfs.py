"""A root filesystem as the device sees it: paths resolved inside the root, never outside.

The kernel resolves an absolute symlink ``/lib/x -> /lib/y`` against the process root, and
``..`` at the root stays at the root; ``RootFS.resolve`` does the same component by component,
looking only at ``lstat`` of paths it has already made symlink-free, so no host symlink is
ever followed and nothing outside ``host_dir`` is ever read.
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from .errors import RootfsError
from .problems import Problem, ProblemCode, Severity

MAX_SYMLINKS = 40  # Linux's MAXSYMLINKS
MAX_WALK_DEPTH = 256  # directory levels below the root the walk reads; no real firmware comes near
PATH_MAX, NAME_MAX = 4096, 255  # Linux's limits on a host path and one name (bytes)


def display_path(path: str) -> str:
    """A printable, UTF-8-safe form of a device path (undecodable bytes become ``\\xNN``)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    return path


@dataclass(slots=True)
class Entry:
    """One file or symlink found while walking the root (device path, not yet resolved): its type
    as the directory lists it (no ``stat`` per file; a file's size and mode are read when it is
    opened)."""

    path: str
    is_symlink: bool
    is_regular: bool  # False for a FIFO, a device or a socket
    hard_link_of: str | None = None  # a regular file the walk met first under another name


class RootFS:
    """A folder on the host holding a device's root filesystem."""

    def __init__(self, host_dir: str, name: str = "/") -> None:
        if not os.path.isdir(host_dir):
            raise RootfsError(f"{host_dir}: not a directory")
        self.host_dir = os.path.realpath(host_dir)
        self.name = name
        self._cache: dict[str, str | None] = {}
        self.warnings: dict[str, str] = {}  # device path -> why its resolution was suspicious
        # a regular file's other names (hard links) -> the name the walk met first: one file
        self.hard_links: dict[str, str] = {}

    def host_path(self, canonical: str) -> str:
        """Host path of a canonical (symlink-free) device path."""
        return self.host_dir + canonical if canonical != "/" else self.host_dir

    def _lstat(self, canonical: str) -> os.stat_result | None:
        try:
            return os.lstat(self.host_path(canonical))
        except (OSError, ValueError):
            return None

    def resolve(self, device_path: str) -> str | None:
        """Canonical device path of ``device_path`` (symlinks resolved inside the root; a hard
        link the walk found is its file's first name).

        Returns None when a component does not exist. Raises RootfsError on a symlink loop.
        """
        if not device_path.startswith("/"):
            device_path = "/" + device_path
        cached = self._cache.get(device_path)
        if cached is None and device_path not in self._cache:
            cached = self._cache[device_path] = self._resolve(device_path)
        return self.hard_links.get(cached, cached) if cached is not None and self.hard_links else cached

    def _resolve(self, device_path: str) -> str | None:
        pending = [c for c in device_path.split("/") if c]
        pending.reverse()
        current = "/"
        followed = 0
        while pending:
            comp = pending.pop()
            if comp == ".":
                continue
            if comp == "..":
                if current == "/":
                    self.warnings.setdefault(device_path, "climbs above the root; resolved inside it")
                current = posixpath.dirname(current)
                continue
            candidate = posixpath.join(current, comp)
            st = self._lstat(candidate)
            if st is None:
                return None
            if stat.S_ISLNK(st.st_mode):
                followed += 1
                if followed > MAX_SYMLINKS:
                    raise RootfsError(f"{display_path(device_path)}: symlink loop (more than {MAX_SYMLINKS} links)")
                try:
                    target = os.readlink(self.host_path(candidate))
                except OSError as exc:
                    raise RootfsError(f"{display_path(candidate)}: unreadable symlink ({exc.strerror})") from exc
                if target.startswith("/"):
                    current = "/"
                parts = [c for c in target.split("/") if c]
                pending.extend(reversed(parts))
                continue
            if pending and not stat.S_ISDIR(st.st_mode):
                return None
            current = candidate
        return current

    def _entry(self, device_path: str) -> tuple[str, os.stat_result] | None:
        """Canonical path and lstat of what ``device_path`` names inside the root (None: nothing)."""
        try:
            canonical = self.resolve(device_path)
        except RootfsError:
            return None
        st = self._lstat(canonical) if canonical is not None else None
        return (canonical, st) if canonical is not None and st is not None else None

    def is_file(self, device_path: str) -> bool:
        found = self._entry(device_path)
        return found is not None and stat.S_ISREG(found[1].st_mode)

    def is_dir(self, device_path: str) -> bool:
        found = self._entry(device_path)
        return found is not None and stat.S_ISDIR(found[1].st_mode)

    def read_bytes(self, device_path: str, limit: int | None = None) -> bytes | None:
        """Content of a regular file inside the root (None if absent or not a regular file)."""
        found = self._entry(device_path)
        if found is None or not stat.S_ISREG(found[1].st_mode):
            return None
        try:
            with open(self.host_path(found[0]), "rb") as fh:
                return fh.read() if limit is None else fh.read(limit)
        except OSError:
            return None

    def listdir(self, device_path: str) -> list[str]:
        """Names in a directory inside the root (empty if it is not one)."""
        found = self._entry(device_path)
        if found is None or not stat.S_ISDIR(found[1].st_mode):
            return []
        try:
            return sorted(os.listdir(self.host_path(found[0])))
        except OSError:
            return []

    def _same_file(self, first: str, other: str) -> bool:
        """Whether two names the walk found are one file (a hard link): device and inode."""
        a, b = self._lstat(first), self._lstat(other)
        return a is not None and b is not None and (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)

    def walk(self, problems: list[Problem] | None = None) -> Iterator[Entry]:
        """Every regular file and symlink below the root, never following symlinks; a regular
        file met again under another name (a hard link) comes with the first name it had
        (``hard_link_of``, also in ``hard_links``): one file, as the device's loaders see it.

        Depth first, a directory's entries (files and symlinks, symlinks to directories too)
        in sorted order before its subdirectories, also sorted (``os.walk`` top-down order).
        Iterative, so hostile nesting cannot exhaust the stack.  A directory more than
        ``MAX_WALK_DEPTH`` levels below the root is not read, nor is one whose host path leaves
        no room for a name below ``PATH_MAX`` (so every path yielded can be opened).  Each reason
        is one ``depth-limit`` warning in ``problems``: the first directory left out, and a count.
        """
        first: dict[str, Problem] = {}  # message -> its problem
        counts: dict[str, int] = {}

        def skip(device: str, message: str) -> None:
            count = counts[message] = counts.get(message, 0) + 1
            if count == 1:
                first[message] = Problem(display_path(device), Severity.WARNING, message, ProblemCode.DEPTH_LIMIT)
                if problems is not None:
                    problems.append(first[message])
            else:
                first[message].message = f"{message} ({count} directories, the first one shown)"

        stack: list[tuple[str, str, int]] = [(self.host_dir, "/", 0)]  # host path, device path, depth
        first_names: dict[int, str] = {}  # inode number -> the first regular file seen with it
        while stack:
            host, rel, depth = stack.pop()
            names: dict[str, tuple[bool, bool, int]] = {}  # name -> (symlink, regular file, inode)
            subdirs: list[str] = []
            try:
                with os.scandir(host) as it:
                    for entry in it:
                        try:  # the type the directory gives (an lstat only where it gives none)
                            link = entry.is_symlink()
                            if not link and entry.is_dir(follow_symlinks=False):
                                subdirs.append(entry.name)
                            else:
                                regular = not link and entry.is_file(follow_symlinks=False)
                                names[entry.name] = (link, regular, entry.inode() if regular else 0)
                        except OSError:  # gone since it was listed
                            continue
            except OSError:  # as os.walk: an unreadable directory is left out
                continue
            for name in sorted(names):
                link, regular, inode = names[name]
                device = posixpath.join(rel, name)
                earlier = first_names.setdefault(inode, device) if regular else device
                if earlier != device and self._same_file(earlier, device):
                    self.hard_links[device] = earlier
                    yield Entry(device, link, regular, earlier)
                    continue
                yield Entry(device, link, regular)
            below: list[tuple[str, str, int]] = []
            for name in sorted(subdirs):
                device = posixpath.join(rel, name)
                path = os.path.join(host, name)
                if depth >= MAX_WALK_DEPTH:
                    skip(device, f"directories nested more than {MAX_WALK_DEPTH} levels deep: not scanned")
                elif len(os.fsencode(path)) + 1 + NAME_MAX >= PATH_MAX:
                    skip(device, f"host path too near PATH_MAX ({PATH_MAX} bytes) for the names in it: not scanned")
                else:
                    below.append((path, device, depth + 1))
            stack.extend(reversed(below))
