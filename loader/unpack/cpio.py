"""cpio archives (initramfs): "newc" and "crc" (070701/070702), portable ASCII "odc" (070707)
and old binary, either byte order. Extracted through a ``SafeTree`` like tar and zip."""

from __future__ import annotations

import contextlib
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, NamedTuple

from .formats import NotThisFormat
from .safe_tree import STOPS, SafeTree

TRAILER = "TRAILER!!!"
CHUNK = 1 << 20


class Entry(NamedTuple):
    name: str
    mode: int
    ino: tuple[int, int]  # (device, inode): hard links share it
    nlink: int
    size: int
    data_align: int  # the data is padded to a multiple of this


def _hex_fields(raw: bytes, count: int) -> list[int]:
    return [int(raw[i * 8 : i * 8 + 8], 16) for i in range(count)]


def _read_header(fh: IO[bytes]) -> Entry | None:
    """The next entry's header and name, the stream left at its data; None at the end."""
    magic = fh.read(6)
    if not magic:
        return None
    if magic in (b"070701", b"070702"):
        raw = fh.read(104)
        if len(raw) < 104:
            raise EOFError("truncated header")
        ino, mode, _uid, _gid, nlink, _mtime, size, major, minor, _rmaj, _rmin, namesize, _check = _hex_fields(raw, 13)
        name = fh.read(namesize)
        fh.read(-(110 + namesize) % 4)
        return Entry(_name(name), mode, ((major << 32) | minor, ino), nlink, size, 4)
    if magic == b"070707":
        raw = fh.read(70)
        if len(raw) < 70:
            raise EOFError("truncated header")
        dev, ino, mode, _uid, _gid, nlink, _rdev = (int(raw[i * 6 : i * 6 + 6], 8) for i in range(7))
        namesize, size = int(raw[53:59], 8), int(raw[59:70], 8)
        return Entry(_name(fh.read(namesize)), mode, (dev, ino), nlink, size, 1)
    if magic[:2] in (b"\xc7\x71", b"\x71\xc7"):
        order = "little" if magic[:2] == b"\xc7\x71" else "big"
        raw = magic + fh.read(20)
        if len(raw) < 26:
            raise EOFError("truncated header")
        words = [int.from_bytes(raw[i : i + 2], order) for i in range(0, 26, 2)]
        dev, ino, mode, nlink, namesize = words[1], words[2], words[3], words[6], words[10]
        size = (words[11] << 16) | words[12]
        name = fh.read(namesize)
        fh.read(namesize % 2)
        return Entry(_name(name), mode, (dev, ino), nlink, size, 2)
    raise ValueError(f"bad cpio magic {magic!r}")


def _name(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def _data(fh: IO[bytes], size: int) -> Iterator[bytes]:
    left = size
    while left:
        data = fh.read(min(left, CHUNK))
        if not data:
            raise EOFError(f"data truncated ({left} of {size} bytes missing)")
        left -= len(data)
        yield data


def extract_cpio(path: Path | IO[bytes], tree: SafeTree) -> int:
    """Extract a cpio archive (a file, or a stream read forward, such as a decompressor's output);
    returns the number of entries (the trailer not counted)."""
    count = 0
    first_name: dict[tuple[int, int], str] = {}  # hard link groups: the name holding the data
    waiting: dict[tuple[int, int], list[str]] = {}  # newc: links listed before their data
    with open(path, "rb") if isinstance(path, Path) else contextlib.nullcontext(path) as fh:
        while True:
            try:
                entry = _read_header(fh)
            except (ValueError, EOFError) as exc:
                if count == 0:
                    raise NotThisFormat(str(exc)) from exc
                tree.problem("(archive)", f"corrupt after {count} entries: {exc}")
                break
            if entry is None or entry.name == TRAILER:
                break
            count += 1
            data_start = fh.tell()
            try:
                _entry(fh, entry, tree, first_name, waiting)
            except EOFError as exc:
                tree.problem(entry.name, f"cannot be extracted: {exc}")
                break
            except STOPS:
                raise  # the whole extraction stops
            except Exception as exc:  # hostile input: one bad entry never stops the rest
                tree.problem(entry.name, f"cannot be extracted: {type(exc).__name__}: {exc}")
            fh.seek(data_start + entry.size + -entry.size % entry.data_align)  # whatever _entry read
    for names in waiting.values():  # links whose data never came: empty files
        for name in names:
            tree.write_file(name, (), 0o644)
    return count


def _entry(
    fh: IO[bytes],
    entry: Entry,
    tree: SafeTree,
    first_name: dict[tuple[int, int], str],
    waiting: dict[tuple[int, int], list[str]],
) -> None:
    kind = stat.S_IFMT(entry.mode)
    if kind == stat.S_IFDIR:
        tree.make_dir(entry.name, entry.mode)
    elif kind == stat.S_IFLNK:
        target = b"".join(_data(fh, entry.size)).decode("utf-8", "surrogateescape")
        tree.make_symlink(entry.name, target)
    elif kind == stat.S_IFREG:
        if entry.nlink > 1 and entry.ino in first_name and entry.size == 0:
            tree.make_hardlink(entry.name, first_name[entry.ino])
        elif entry.nlink > 1 and entry.size == 0 and entry.data_align == 4:
            waiting.setdefault(entry.ino, []).append(entry.name)  # newc stores the data with the last link
        else:
            tree.write_file(entry.name, _data(fh, entry.size), entry.mode)
            if entry.nlink > 1:
                first_name.setdefault(entry.ino, entry.name)
                for name in waiting.pop(entry.ino, []):
                    tree.make_hardlink(name, entry.name)
    else:
        tree.skip_special(entry.name)
