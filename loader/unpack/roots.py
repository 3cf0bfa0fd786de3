"""Which extracted folders are root filesystems.

A folder is a root when it has at least two of ``bin``, ``sbin``, ``lib``, ``etc`` and ``usr``
(folders, or symbolic links as merged-/usr systems have them) and holds something to analyse:
an ELF file anywhere below it, or a file below ``etc``; an ELF file is looked for in the folders
programs live in first (``bin``, ``lib``, ``usr/lib``, ...), each with a budget of its own, so
that files elsewhere cannot hide it. The top of an extracted file system
(squashfs, cramfs, jffs2, ubifs, ext, cpio, ...) needs only one of those names: a small
initramfs or an overlay can be a root. An OpenWrt overlay keeps its files in ``upper/`` (next
to ``work/``): that folder is then the root. Below a root nothing else is taken for a root.
Nothing here follows a symbolic link.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

MARKERS = frozenset({"bin", "sbin", "lib", "etc", "usr"})
ELF_MAGIC = b"\x7fELF"
MAX_LOOKS = 50_000  # files looked at per folder when searching a candidate for content
PROGRAM_FOLDERS = ("bin", "sbin", "lib", "lib64", "lib32", "usr/bin", "usr/sbin", "usr/lib", "usr/lib64")


def _markers(folder: Path) -> int:
    try:
        with os.scandir(folder) as entries:
            return sum(1 for e in entries if e.name in MARKERS and (e.is_symlink() or e.is_dir(follow_symlinks=False)))
    except OSError:
        return 0


def _is_elf(path: str) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return os.read(fd, 4) == ELF_MAGIC
    except OSError:
        return False
    finally:
        os.close(fd)


def regular_files(top: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Every regular file below ``top`` (host path, lstat), links not followed."""
    pending = [os.fspath(top)]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as scan:
                entries = list(scan)
        except OSError:
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                pending.append(entry.path)
            elif stat.S_ISREG(st.st_mode):
                yield entry.path, st


def _own_folder(folder: Path, place: str) -> Path | None:
    """``folder/place`` if every step of it is a folder, not a symbolic link."""
    path = folder
    for step in place.split("/"):
        path = path / step
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return None
        except OSError:
            return None
    return path


def _holds_elf(top: Path) -> bool:
    """An ELF file among the first ``MAX_LOOKS`` regular files below ``top``."""
    for looked, (path, st) in enumerate(regular_files(top)):
        if looked >= MAX_LOOKS:
            return False
        if st.st_size >= 4 and _is_elf(path):
            return True
    return False


def _has_content(folder: Path) -> bool:
    """A file below ``etc``, or an ELF file: looked for in the folders programs live in first, each
    with a budget of its own, then anywhere; files elsewhere (60,000 in ``usr/share``) hide nothing."""
    etc = _own_folder(folder, "etc")
    if etc is not None and next(regular_files(etc), None) is not None:
        return True
    places = (_own_folder(folder, place) for place in PROGRAM_FOLDERS)
    return any(_holds_elf(place) for place in places if place is not None) or _holds_elf(folder)


def is_root(folder: Path, relaxed: bool = False) -> bool:
    if folder.name == "usr" and not relaxed:
        return False  # /usr has bin and lib of its own: its parent is the root
    return _markers(folder) >= (1 if relaxed else 2) and _has_content(folder)


MAX_SEARCH_DEPTH = 256  # no root filesystem lies deeper in an unpacked image


def find_roots(top: Path, filesystem: bool) -> list[Path]:
    """The root filesystems in the extracted tree ``top`` (``filesystem``: ``top`` is a file system's top)."""
    if filesystem:
        if is_root(top, relaxed=True):
            return [top]
        upper = top / "upper"
        if (top / "work").is_dir() and upper.is_dir() and not upper.is_symlink() and is_root(upper, relaxed=True):
            return [upper]
    roots = []
    stack: list[tuple[Path, int]] = [(top, 0)]  # top-down, folders in name order; no recursion
    while stack:
        folder, depth = stack.pop()
        if is_root(folder):
            roots.append(folder)
            continue
        if depth >= MAX_SEARCH_DEPTH:
            continue
        try:
            with os.scandir(folder) as entries:
                subfolders = sorted(e.name for e in entries if e.is_dir(follow_symlinks=False))
        except OSError:
            continue
        stack.extend((folder / name, depth + 1) for name in reversed(subfolders))
    return roots
