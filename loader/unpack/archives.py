"""Tar and zip archives, extracted member by member through a ``SafeTree``."""

from __future__ import annotations

import stat
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from .cpio import extract_cpio
from .formats import NotThisFormat
from .safe_tree import STOPS, SafeTree

CHUNK = 1 << 20


def _chunks(stream: IO[bytes] | None) -> Iterator[bytes]:
    if stream is None:
        return
    with stream:
        while data := stream.read(CHUNK):
            yield data


def _member(tree: SafeTree, name: str, action: Callable[[], None]) -> None:
    """Extract one member; whatever goes wrong with it becomes a problem of that member."""
    try:
        action()
    except STOPS:
        raise  # the whole extraction stops
    except Exception as exc:  # hostile input: one bad member never stops the rest
        tree.problem(name, f"cannot be extracted: {type(exc).__name__}: {exc}")


def extract_tar(path: Path | IO[bytes], tree: SafeTree) -> int:
    """Extract a tar archive (uncompressed; a file, or a stream read once in order, such as a
    decompressor's output); returns the number of members."""
    try:
        # a stream ("r|") is read once, in order
        archive = (
            tarfile.open(path, "r:")  # noqa: SIM115 - closed below
            if isinstance(path, Path)
            else tarfile.open(fileobj=path, mode="r|")  # noqa: SIM115 - closed below
        )
    except tarfile.TarError as exc:
        raise NotThisFormat(str(exc)) from exc
    count = 0
    with archive:
        while True:
            try:
                member = archive.next()
            except tarfile.TarError as exc:
                tree.problem("(archive)", f"corrupt after {count} members: {exc}")
                break
            if member is None:
                break
            count += 1
            _member(tree, member.name, lambda m=member: _tar_member(archive, m, tree))
    return count


def _tar_member(archive: tarfile.TarFile, member: tarfile.TarInfo, tree: SafeTree) -> None:
    if member.isdir():
        tree.make_dir(member.name, member.mode)
    elif member.issym():
        tree.make_symlink(member.name, member.linkname)
    elif member.islnk():
        tree.make_hardlink(member.name, member.linkname)
    elif member.isreg():
        tree.write_file(member.name, _chunks(archive.extractfile(member)), member.mode)
    else:
        tree.skip_special(member.name)


def extract_zip(path: Path, tree: SafeTree) -> int:
    """Extract a zip archive; returns the number of members."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise NotThisFormat(str(exc)) from exc
    with archive:
        members = archive.infolist()
        for info in members:
            _member(tree, info.filename, lambda i=info: _zip_member(archive, i, tree))
    return len(members)


def _zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, tree: SafeTree) -> None:
    mode = info.external_attr >> 16
    kind = stat.S_IFMT(mode)
    if info.is_dir():
        tree.make_dir(info.filename, mode or 0o755)
    elif kind == stat.S_IFLNK:
        tree.make_symlink(info.filename, archive.read(info).decode("utf-8", "surrogateescape"))
    elif kind in (0, stat.S_IFREG):
        tree.write_file(info.filename, _chunks(archive.open(info)), mode & 0o777 or 0o644)
    else:
        tree.skip_special(info.filename)


EXTRACTORS = {"tar": extract_tar, "zip": extract_zip, "cpio": extract_cpio}


STREAMABLE = ("tar", "cpio")  # archives read from a stream as it is decompressed (never written whole)


def extract_archive(fmt: str, path: Path | IO[bytes], tree: SafeTree) -> int:
    """Extract ``path`` as archive format ``fmt`` into ``tree``; ``NotThisFormat`` if it is not one.
    ``path`` may be an open stream for the ``STREAMABLE`` formats."""
    if not isinstance(path, Path) and fmt not in STREAMABLE:
        raise ValueError(f"{fmt} is not read from a stream")
    return EXTRACTORS[fmt](path, tree)
